"""Turns: a real user message and everything up to the next one.

A turn starts at a *real* user message (a message with role ``user`` that a person sent).
Assistant replies, reasoning, tool calls and their outputs, system or developer notes
that follow it belong to that turn. A synthetic item a memory strategy injects (such as
the user line that asks for a summary, or a memory block: remembered words quoted as a user
message under a memory heading) never starts a turn. Items before the first real
user message form the *preamble*: they belong to no turn.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .items import is_user_message
from .memory_frame import is_memory_block


@dataclass(frozen=True)
class Turn:
    """Turn ``number`` (1-based) spans ``items[start:end]``, opened by ``items[start]``."""

    number: int
    start: int
    end: int

    @property
    def indices(self) -> range:
        return range(self.start, self.end)

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Segmentation:
    """The preamble and the turns of an item sequence."""

    preamble: range
    turns: tuple[Turn, ...]

    def turn_of(self, index: int) -> int | None:
        """The turn number that holds ``items[index]``, or None for the preamble."""
        starts = [t.start for t in self.turns]
        number = bisect_right(starts, index)
        return number or None


def starts_turn(item: Mapping[str, Any]) -> bool:
    """True when ``item`` opens a turn: a message with role ``user`` that is not injected
    memory (:func:`~ctxlab.core.memory_frame.is_memory_block`: quoted data under a memory
    heading). The one definition every part of ctxlab segments by
    (:class:`ctxlab.core.rawlog.RawLog` keeps it incrementally)."""
    return is_user_message(item) and not is_memory_block(item)


def turn_starts(
    items: Sequence[Mapping[str, Any]], *, synthetic: Container[int] = ()
) -> list[int]:
    """Indices of the real user messages (``synthetic`` lists indices that never start a turn)."""
    return [i for i, item in enumerate(items) if starts_turn(item) and i not in synthetic]


def split_turns(
    items: Sequence[Mapping[str, Any]], *, synthetic: Container[int] = ()
) -> tuple[list[Any], list[list[Any]]]:
    """``(preamble, turns)``: the items before the first turn, and each turn's items."""
    seg = segment_turns(items, synthetic=synthetic)
    return (
        [items[i] for i in seg.preamble],
        [[items[i] for i in t.indices] for t in seg.turns],
    )


def segment_turns(
    items: Sequence[Mapping[str, Any]], *, synthetic: Container[int] = ()
) -> Segmentation:
    """Split ``items`` into a preamble and turns."""
    starts = turn_starts(items, synthetic=synthetic)
    ends = [*starts[1:], len(items)] if starts else []
    turns = tuple(Turn(n + 1, s, e) for n, (s, e) in enumerate(zip(starts, ends, strict=True)))
    first = starts[0] if starts else len(items)
    return Segmentation(range(0, first), turns)
