"""Read a model input as the sections a context is built from.

Before each model call the Runner sends the session's history, the new user input and, in
a tool loop, the calls and outputs the run has produced since. Two readers recover the
structure from that flat list:

* :func:`split_by_layout` uses what the session says it served
  (:meth:`ctxlab.MemorySession.served_layout`: which item is preamble, summary or which
  turn), so a summary pair is known by where it came from, not by its wording;
* :func:`split_model_input` segments by turns alone (:mod:`ctxlab.core.turns`), for input
  that did not come from a ctxlab session; it recognises a summary pair only by the
  explicit ``summary_prompts`` a caller passes.

Both give :class:`ModelInputParts`:

* ``preamble``: items before the first real user message (developer notes a caller stored);
* ``summary``: the summary pair, if any;
* ``turns``: the earlier turns, oldest first, each a real user message plus what followed;
* ``current``: the current turn, from the last real user message to the end (the new input
  and, inside a tool loop, the run's calls and outputs). It is never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import content_text, is_user_message, item_type
from ..core.turns import split_turns, starts_turn

Item = Mapping[str, Any]


@dataclass(frozen=True)
class ModelInputParts:
    """A model input split into preamble, summary pair, earlier turns and current turn."""

    preamble: list[Item] = field(default_factory=list)
    summary: list[Item] = field(default_factory=list)
    turns: list[list[Item]] = field(default_factory=list)
    current: list[Item] = field(default_factory=list)

    @property
    def new_input(self) -> list[Item]:
        """The user message that opened the current turn (empty when there is none)."""
        return self.current[:1] if self.current and is_user_message(self.current[0]) else []

    @property
    def new_input_text(self) -> str:
        return "\n".join(content_text(item.get("content")) for item in self.new_input)


def _is_assistant(item: Item) -> bool:
    return item_type(item) == "message" and item.get("role") == "assistant"


def find_summary_pair(items: Sequence[Item], prompts: Iterable[str]) -> int | None:
    """Index of a summary request (a user message whose text is one of ``prompts``)
    that is directly followed by an assistant message, or None."""
    wanted = {p.strip() for p in prompts if isinstance(p, str) and p.strip()}
    if not wanted:
        return None
    for index in range(len(items) - 1):
        item = items[index]
        if (
            is_user_message(item)
            and content_text(item.get("content")).strip() in wanted
            and _is_assistant(items[index + 1])
        ):
            return index
    return None


def split_model_input(
    items: Sequence[Item],
    *,
    summary_prompts: Iterable[str] = (),
    has_new_input: bool = True,
) -> ModelInputParts:
    """Split ``items`` (what the Runner would send) into :class:`ModelInputParts` by turns.

    ``summary_prompts`` are texts that mark a summary request in history that does not come
    from a ctxlab session (a summary pair your own code inserted); none by default.
    With ``has_new_input=False`` every turn counts as an earlier turn and ``current`` is
    empty (for a stored history without a new message).
    """
    rest = list(items)
    summary: list[Item] = []
    pair = find_summary_pair(rest, summary_prompts)
    if pair is not None:
        summary = rest[pair : pair + 2]
        del rest[pair : pair + 2]
    preamble, turns = split_turns(rest)
    if not turns:
        return ModelInputParts(preamble=preamble, summary=summary)
    current: list[Item] = turns.pop() if has_new_input else []
    return ModelInputParts(preamble=preamble, summary=summary, turns=turns, current=current)


def split_by_layout(
    items: Sequence[Item], served: Sequence[Item], layout: Sequence[str]
) -> ModelInputParts | None:
    """Split ``items`` whose first ``len(served)`` items are what a session served, labelled
    by ``layout`` (see :meth:`ctxlab.MemorySession.served_layout`); None when the input does
    not start with them (the caller then falls back to :func:`split_model_input`)."""
    n = len(served)
    if len(items) < n or len(layout) != n or any(
        items[i] != served[i] for i in range(n)
    ):
        return None
    preamble: list[Item] = []
    summary: list[Item] = []
    turns: list[list[Item]] = []
    last = None
    for item, where in zip(items[:n], layout, strict=True):
        if where == "preamble":
            preamble.append(item)
        elif where == "summary":
            summary.append(item)
        else:
            if where != last or not turns:
                turns.append([])
            turns[-1].append(item)
        last = where
    rest = list(items[n:])
    if rest and is_user_message(rest[0]):
        current = rest
    elif turns:
        current = turns.pop() + rest
    else:
        current = rest
    return ModelInputParts(preamble=preamble, summary=summary, turns=turns, current=current)


class TurnSource:
    """The earlier turns of a model input, newest first, found only as far as asked:
    ``get(0)`` is the newest earlier turn, ``get(k)`` the k-th before it, None past the
    oldest. A long history costs nothing beyond the turns a budget can hold."""

    def get(self, k: int) -> list[Item] | None:  # pragma: no cover - interface
        raise NotImplementedError


class ListTurns(TurnSource):
    """Turns already split (oldest first)."""

    def __init__(self, turns: Sequence[list[Item]]):
        self.turns = turns

    def get(self, k: int) -> list[Item] | None:
        return list(self.turns[-1 - k]) if k < len(self.turns) else None


class TurnsBack(TurnSource):
    """The turns in ``items[lo:hi]`` (``items[lo]`` opens the oldest), found by walking back
    from ``hi`` over the one turn definition (:func:`ctxlab.core.turns.starts_turn`)."""

    def __init__(self, items: Sequence[Item], lo: int, hi: int):
        self.items, self.lo, self._pos = items, lo, hi
        self._found: list[list[Item]] = []

    def get(self, k: int) -> list[Item] | None:
        items, lo = self.items, self.lo
        while len(self._found) <= k and self._pos > lo:
            end = self._pos
            i = end - 1
            while i > lo and not starts_turn(items[i]):
                i -= 1
            self._found.append(list(items[i:end]))
            self._pos = i
        return list(self._found[k]) if k < len(self._found) else None


def split_tail(
    items: Sequence[Item], *, summary_prompts: Iterable[str] = ()
) -> tuple[list[Item], list[Item], TurnSource, list[Item]]:
    """``(preamble, summary, earlier turns, current turn)`` of a model input, reading only
    its two ends: the current turn from the last real user message back, the preamble up
    to the first one (and a summary pair right after it when ``summary_prompts`` name
    it). The turns between are walked back on demand (:class:`TurnsBack`)."""
    n = len(items)
    last = n - 1
    while last >= 0 and not starts_turn(items[last]):
        last -= 1
    if last < 0:  # no user message at all: everything is preamble
        return list(items), [], ListTurns([]), []
    first = 0
    while not starts_turn(items[first]):
        first += 1
    preamble = list(items[:first])
    summary: list[Item] = []
    wanted = {p.strip() for p in summary_prompts if isinstance(p, str) and p.strip()}
    if (wanted and first < last and content_text(items[first].get("content")).strip() in wanted
            and _is_assistant(items[first + 1])):
        summary = list(items[first:first + 2])
        first += 2
        while first < last and not starts_turn(items[first]):
            preamble.append(items[first])
            first += 1
    return preamble, summary, TurnsBack(items, first, last), list(items[last:])
