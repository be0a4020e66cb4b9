"""The records every corpus returns: a :class:`Conversation` of Responses items and the
:class:`Fact` records a memory strategy must keep available."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.items import clone, item_kind, item_text
from ...core.turns import segment_turns

# ---------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Fact:
    """One value a memory strategy must keep available, and where it first appears.

    ``first_item`` is the index of the first item whose text (:func:`ctxlab.core.items.item_text`)
    contains ``value``; ``where`` is that item's kind (:func:`ctxlab.core.items.item_kind`:
    ``"user"``, ``"assistant"``, ``"tool_call"``, ``"tool_output"``, ...). Both are None
    when the conversation never mentions the value.
    """

    name: str
    value: str
    first_item: int | None
    where: str | None

    @property
    def mentioned(self) -> bool:
        """True when some item of the conversation contains the value."""
        return self.first_item is not None


@dataclass(frozen=True)
class Conversation:
    """A conversation as Responses items, the facts it holds, and where it came from.

    ``items`` is a valid sequence (:func:`ctxlab.core.validate.validate_items` finds nothing);
    ``source`` is ``"tau_bench_airline"``, ``"abcd"`` or ``"seed"``; ``meta`` holds what
    the source knows about it (task id, trial, reward, the customer's hidden instruction,
    the ABCD scenario, ...). Loaders return fresh copies: changing one conversation never
    changes what the next call returns.
    """

    id: str
    source: str
    items: list[dict[str, Any]]
    facts: tuple[Fact, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def turn_count(self) -> int:
        """How many real user turns the conversation has (see :mod:`ctxlab.core.turns`)."""
        return len(segment_turns(self.items).turns)

    def facts_mentioned(self) -> tuple[Fact, ...]:
        """The facts that some item of the conversation contains."""
        return tuple(f for f in self.facts if f.first_item is not None)

    def copy(self) -> Conversation:
        """An independent deep copy (items and meta are copied; facts are immutable)."""
        return Conversation(self.id, self.source, clone(self.items), self.facts, clone(self.meta))

    def fact_ages(self) -> dict[str, int]:
        """For each mentioned fact (``name=value``): how many user turns before the last
        turn it was first mentioned (0 = in the last turn). A trimming window of
        ``max_turns`` still holds a fact at the end of the conversation when its age is
        below ``max_turns``."""
        seg = segment_turns(self.items)
        last = len(seg.turns)
        ages: dict[str, int] = {}
        for fact in self.facts_mentioned():
            turn = seg.turn_of(fact.first_item) if fact.first_item is not None else None
            ages[f"{fact.name}={fact.value}"] = last - (turn or 1)
        return ages


def locate_facts(
    items: Sequence[Mapping[str, Any]],
    values: Mapping[str, str | Sequence[str]],
    *,
    ignore_case: bool = False,
    whole_word: bool = False,
) -> tuple[Fact, ...]:
    """One :class:`Fact` per ``(name, value)``, located in ``items``.

    ``values`` maps a fact name to a value or a list of values (for example
    ``{"error_code": ["42", "404"]}``). By default a value is found where an item's text
    contains it verbatim. ``ignore_case`` compares case-insensitively (for sources that
    store values lowercased, like ABCD's scenarios); ``whole_word`` refuses matches inside
    a longer word or number (so ``"42"`` is not found in ``"4200"``). Facts come back in the
    order given; a repeated ``(name, value)`` pair is listed once.
    """
    pairs = _fact_pairs(values)
    texts = [item_text(item) for item in items]
    flags = re.IGNORECASE if ignore_case else 0
    folded = [t.casefold() for t in texts] if ignore_case else texts
    facts: list[Fact] = []
    for name, value in pairs:
        first: int | None = None
        if whole_word:
            pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", flags)
            first = next((i for i, t in enumerate(texts) if pattern.search(t)), None)
        else:
            needle = value.casefold() if ignore_case else value
            first = next((i for i, t in enumerate(folded) if needle in t), None)
        where = item_kind(items[first]) if first is not None else None
        facts.append(Fact(name, value, first, where))
    return tuple(facts)


def _fact_pairs(values: Mapping[str, str | Sequence[str]]) -> list[tuple[str, str]]:
    """``values`` as ``(name, value)`` pairs in order, each once; a clear error names the
    fact or value that is not a non-empty string."""
    if not isinstance(values, Mapping):
        raise ValueError(
            f"values must be a dict of fact name -> value(s), got {type(values).__name__}"
        )
    pairs: list[tuple[str, str]] = []
    for name, raw in values.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"fact name {name!r} must be a non-empty string")
        listed = [raw] if isinstance(raw, str) else raw
        if not isinstance(listed, Sequence):
            raise ValueError(
                f"fact {name!r}: expected a string or a list of strings, got {type(raw).__name__}"
            )
        for n, value in enumerate(listed):
            if not isinstance(value, str) or not value:
                raise ValueError(
                    f"fact {name!r} value {n}: expected a non-empty string, got {value!r}"
                )
            if (name, value) not in pairs:
                pairs.append((name, value))
    return pairs


# ---------------------------------------------------------------------------- item builders


def assistant(text: str) -> dict[str, Any]:
    # The plain-text form: accepted by the Responses API and by the SDK's Chat Completions
    # converter alike (a typed assistant message needs an item id there).
    return {"role": "assistant", "content": text}


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def output(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def tool_round(
    call_id: str, name: str, args: dict[str, Any], result: dict[str, Any]
) -> list[dict[str, Any]]:
    return [call(call_id, name, json.dumps(args)), output(call_id, json.dumps(result))]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}
