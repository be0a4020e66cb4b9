"""Would the Responses API accept this item sequence? Every reason it would not.

The API rejects an input list when a tool output has no call before it, a tool call has
no output, a reasoning item is not followed by the item it precedes, or an item carries
keys outside its schema. A message must also be in a form both SDK model classes can send
(``OpenAIChatCompletionsModel``'s converter rejects a typed assistant message without an
``id``; see :mod:`ctxlab.core.chat_rules`). :func:`validate_items` reports all of these at once;
:func:`repair` removes the offending items (what a memory strategy must do to the part of
the log it shows the model), and :func:`safe_cut` finds where a list can be cut without
separating such pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .chat_rules import chat_unsupported, message_form_problem
from .items import (
    is_call,
    is_model_emitted,
    item_type,
    pair_key,
    shape_problem,
    unknown_keys,
)

ProblemCode = Literal[
    "bad_item",
    "unknown_keys",
    "orphan_output",
    "call_without_output",
    "duplicate_call_id",
    "reasoning_without_follower",
    "message_form",
    "not_for_chat",
]


@dataclass(frozen=True)
class Problem:
    """One reason the API would reject the sequence, tied to an item index."""

    index: int
    code: ProblemCode
    message: str

    def __str__(self) -> str:
        return f"item {self.index}: {self.message} [{self.code}]"


class InvalidSequenceError(ValueError):
    """Raised by :func:`assert_valid`; ``problems`` lists every violation."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in the item sequence:\n{lines}")


@dataclass(frozen=True)
class Pairing:
    """How the calls and outputs of a sequence match up (indices into the sequence)."""

    pairs: dict[int, int]  # call index -> output index
    orphan_outputs: list[int]  # outputs with no earlier unmatched call
    open_calls: list[int]  # calls that never get an output
    duplicate_calls: list[int]  # a call whose id is already waiting for an output


def pair_calls(items: Sequence[Mapping[str, Any]]) -> Pairing:
    """Match each output to the latest earlier call with the same ``(type, call_id)``."""
    waiting: dict[tuple[str, str], int] = {}
    pairs: dict[int, int] = {}
    orphans: list[int] = []
    duplicates: list[int] = []
    calls: list[int] = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        key = pair_key(item)
        if key is None:
            continue
        if is_call(item):
            calls.append(index)
            if key in waiting:
                duplicates.append(index)
            waiting[key] = index
        else:
            call = waiting.pop(key, None)
            if call is None:
                orphans.append(index)
            else:
                pairs[call] = index
    open_calls = [i for i in calls if i not in pairs]
    return Pairing(pairs, orphans, open_calls, duplicates)


def _reasoning_without_follower(
    items: Sequence[Mapping[str, Any]], skip: set[int] | frozenset[int] = frozenset()
) -> list[int]:
    """Reasoning items whose next non-reasoning item is missing or not model-emitted."""
    bad: list[int] = []
    follower_ok = False
    for index in range(len(items) - 1, -1, -1):
        if index in skip:
            continue
        item = items[index]
        if not isinstance(item, Mapping):
            follower_ok = False
            continue
        if item_type(item) == "reasoning":
            if not follower_ok:
                bad.append(index)
            continue
        follower_ok = is_model_emitted(item)
    return sorted(bad)


def validate_items(
    items: Sequence[Any], *, check_keys: bool = True, for_chat: bool = False
) -> list[Problem]:
    """Every way the model APIs would reject ``items``, in index order.

    An empty list means the sequence is valid for ``OpenAIResponsesModel`` and (for the
    message forms) ``OpenAIChatCompletionsModel``. ``check_keys=False`` skips the check for
    keys outside the schema (private metadata), for logs that are not sent as they are.
    ``for_chat=True`` also reports item types only the Responses API has (hosted tool
    calls, custom tools, ...; code ``not_for_chat``), for a Chat Completions server.
    """
    problems: list[Problem] = []
    for index, item in enumerate(items):
        why = shape_problem(item)
        if why is not None:
            problems.append(Problem(index, "bad_item", why))
            continue
        form = message_form_problem(item)
        if form is not None:
            problems.append(Problem(index, "message_form", form))
        if for_chat:
            unsupported = chat_unsupported(item)
            if unsupported is not None:
                problems.append(Problem(index, "not_for_chat", unsupported))
        if check_keys:
            extra = unknown_keys(item)
            if extra:
                problems.append(
                    Problem(
                        index,
                        "unknown_keys",
                        f"keys not in the Responses schema for {item_type(item)!r}: "
                        + ", ".join(repr(k) for k in extra),
                    )
                )
    pairing = pair_calls(items)
    for index in pairing.orphan_outputs:
        key = pair_key(items[index])
        problems.append(
            Problem(
                index,
                "orphan_output",
                f"{item_type(items[index])} for call_id {key[1] if key else '?'!r} "
                "has no matching call before it",
            )
        )
    for index in pairing.open_calls:
        key = pair_key(items[index])
        problems.append(
            Problem(
                index,
                "call_without_output",
                f"{item_type(items[index])} {key[1] if key else '?'!r} has no output after it",
            )
        )
    for index in pairing.duplicate_calls:
        key = pair_key(items[index])
        problems.append(
            Problem(
                index,
                "duplicate_call_id",
                f"call_id {key[1] if key else '?'!r} is reused while an earlier call "
                "with the same id still waits for its output",
            )
        )
    for index in _reasoning_without_follower(items):
        problems.append(
            Problem(
                index,
                "reasoning_without_follower",
                "reasoning item is not followed by the assistant message or call it belongs to",
            )
        )
    problems.sort(key=lambda p: (p.index, p.code))
    return problems


def is_valid(items: Sequence[Any], *, check_keys: bool = True, for_chat: bool = False) -> bool:
    """True when :func:`validate_items` finds nothing."""
    return not validate_items(items, check_keys=check_keys, for_chat=for_chat)


def assert_valid(items: Sequence[Any], *, check_keys: bool = True, for_chat: bool = False) -> None:
    """Raise :class:`InvalidSequenceError` listing every problem, if there is any."""
    problems = validate_items(items, check_keys=check_keys, for_chat=for_chat)
    if problems:
        raise InvalidSequenceError(problems)


# ---------------------------------------------------------------------------- repair

REPAIR_REASONS = {
    "orphan_output": "tool output whose call is not in the view",
    "call_without_output": "tool call whose output is not in the view",
    "duplicate_call_id": "tool call whose call_id repeats an unanswered call",
    "reasoning_without_follower": "reasoning item without the item it precedes",
}


def repair(items: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Indices to remove so that the sequence pairs up, with the reason for each.

    Orphan outputs and unanswered calls go first; then any reasoning item left without its
    follower (including one whose call was just removed). Items are assumed to be well
    formed (see :func:`ctxlab.core.items.shape_problem`).
    """
    pairing = pair_calls(items)
    drop: dict[int, str] = {}
    for index in pairing.orphan_outputs:
        drop[index] = REPAIR_REASONS["orphan_output"]
    for index in pairing.open_calls:
        drop[index] = REPAIR_REASONS["call_without_output"]
    for index in _reasoning_without_follower(items, skip=set(drop)):
        drop[index] = REPAIR_REASONS["reasoning_without_follower"]
    return drop


def safe_cut(items: Sequence[Mapping[str, Any]], start: int) -> int:
    """The first position at or after ``start`` where ``items`` can be cut in two.

    Cutting at ``p`` keeps ``items[p:]``. A cut is safe when no call before ``p`` has its
    output at or after ``p`` and ``items[p - 1]`` is not a reasoning item (which must stay
    with the item it precedes). Returns ``len(items)`` if no later position is safe.
    """
    n = len(items)
    start = max(0, min(start, n))
    if start in (0, n):
        return start
    blocked = [0] * (n + 2)
    for call, output in pair_calls(items).pairs.items():
        if call < output:
            blocked[call + 1] += 1
            blocked[output + 1] -= 1
    depth = 0
    for p in range(1, n):
        depth += blocked[p]
        if p < start:
            continue
        if depth == 0 and item_type(items[p - 1]) != "reasoning":
            return p
    return n
