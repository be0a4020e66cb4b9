"""A raw log loaded at its two ends only: the first whole turns and the newest ones.

A first read over a long conversation needs the preamble, maybe the first turns, and the
newest turns that the window shows; the middle may hold a million items nobody looks at.
:class:`PartialLog` is a :class:`~ctxlab.core.rawlog.RawLog` whose items ``[hole_start,
hole_stop)`` are *not loaded* (a first read makes the hole one item long, whatever the
middle holds: indices after it are then not the store's positions, which only the store's
cursor needs to know), and every question about an item in the hole (its text, kind,
tokens, a digest over it) raises :class:`NotLoaded`, so a policy can never silently read a
placeholder. Both ends of the hole are turn starts
(``hole_start`` is listed as one), so the loaded turns are whole; how many turns the hole
holds is unknown: a policy whose window depends on that count (not just on the first and
the newest turns) must not be run on a partial log (``StrategySpec.tail_read``).

The log is *ambiguous* when a tool call or output near the hole could pair with an item in
it (a call of the first turns still waiting when the hole begins, an output in the newest
turns that found no call): then the caller loads everything instead.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from .digest import extend_digest
from .rawlog import _NONE, _UNCOUNTED, RawLog
from .tokens import TokenCounter

_UNLOADED = "unloaded"


class NotLoaded(LookupError):
    """A question about an item of a :class:`PartialLog` that is not loaded."""

    def __init__(self, index: int):
        super().__init__(f"item {index} is not loaded (a partial log)")
        self.index = index


class PartialLog(RawLog):
    """``head`` (the items ``[0, hole_start)``), a hole of ``hole_stop - hole_start`` items,
    then ``tail`` (``[hole_stop, ...)``); see the module doc. Appending works as on a full
    log; removing items does not (the caller reloads everything)."""

    __slots__ = ("_seeded", "ambiguous", "hole_start", "hole_stop")

    def __init__(self, counter: TokenCounter, head: Iterable[dict[str, Any]], hole: int,
                 tail: Iterable[dict[str, Any]], *, checked: Any = (), hole_turns: int = 1):
        super().__init__(counter)
        self._seeded: tuple[int, list[str]] | None = None
        self.extend(head, checked=checked)
        self.hole_start = len(self)
        self.hole_stop = self.hole_start + hole
        # a call of the head waiting for its output: the output may be in the hole
        self.ambiguous = bool(self._waiting) or hole <= 0
        self._skip(hole, hole_turns)
        self.extend(tail, checked=checked)

    def _skip(self, count: int, turns: int) -> None:
        """Placeholders for ``count`` items not loaded, ``turns`` of them turn starts (the
        first is the item after the head; the others stand anywhere: only their number
        is known) (bulk: no per-item work)."""
        self._starts.extend(range(self.hole_start, self.hole_start + turns))
        self._items.extend([{}] * count)
        self._kinds.extend([_UNLOADED] * count)
        self._tokens.extend(array("i", [_UNCOUNTED]) * count)
        self._safe.extend([None] * count)
        self._flat.extend(bytes(count))
        self._partner.extend(array("i", [_NONE]) * count)
        self._keys.extend([None] * count)
        self._waiting.clear()  # (an output in the tail must not pair across the hole)
        self._reasoning_run = []

    def _append(self, item: dict[str, Any], problem: str | None) -> None:
        index = len(self._items)
        super()._append(item, problem)
        if self._kinds[index] == "tool_output" and self._partner[index] == _NONE \
                and self._keys[index] is not None:
            self.ambiguous = True  # its call may be in the hole

    def in_hole(self, index: int) -> bool:
        return self.hole_start <= index < self.hole_stop

    def _check(self, index: int) -> None:
        if self.hole_start <= index < self.hole_stop:
            raise NotLoaded(index)

    def _check_range(self, start: int, stop: int) -> None:
        if start < self.hole_stop and stop > self.hole_start and start < stop:
            raise NotLoaded(max(start, self.hole_start))

    # -- every question about an item checks the hole -----------------------------------
    def item(self, index: int) -> Mapping[str, Any]:
        self._check(index)
        return super().item(index)

    @property
    def items(self) -> list[dict[str, Any]]:
        raise NotLoaded(self.hole_start)

    def recent(self, count: int) -> list[dict[str, Any]]:
        return self._items[max(len(self._items) - count, self.hole_stop):]

    def kind(self, index: int) -> str:
        self._check(index)
        return super().kind(index)

    def emitted(self, index: int) -> bool:
        self._check(index)
        return super().emitted(index)

    def safe_entry(self, index: int) -> tuple[dict[str, Any], bool]:
        self._check(index)
        return super().safe_entry(index)

    def safe_run(self, start: int, stop: int) -> tuple[list[dict[str, Any]], bool]:
        self._check_range(start, stop)
        return super().safe_run(start, stop)

    def tokens(self, index: int) -> int:
        self._check(index)
        return super().tokens(index)

    def tokens_between(self, start: int, end: int) -> int:
        self._check_range(start, end)
        if start >= self.hole_stop:  # (the prefix sums would run through the hole)
            return sum(self.tokens(i) for i in range(start, end))
        return super().tokens_between(start, end)

    def problem(self, index: int) -> str | None:
        self._check(index)
        return super().problem(index)

    def output_of(self, index: int) -> int | None:
        self._check(index)
        return super().output_of(index)

    def partner(self, index: int) -> int | None:
        self._check(index)
        return super().partner(index)

    def key(self, index: int) -> tuple[str, str] | None:
        self._check(index)
        return super().key(index)

    def seed_digest(self, index: int, digest: str) -> None:
        """Take ``digest`` as the digest of ``items[:index]`` (``index`` after the hole:
        a checkpoint the caller checked vouches for it), so digests up to any later end
        extend it over loaded items only."""
        if not self.hole_stop <= index <= len(self):
            raise ValueError(f"a seeded digest must stand after the hole, got {index}")
        self._seeded = (index, [digest])

    def digest(self, end: int | None = None) -> str:
        end = len(self) if end is None else end
        seeded = self._seeded
        if seeded is not None and seeded[0] <= end <= len(self):
            start, chain = seeded
            while start + len(chain) <= end:
                chain.append(extend_digest(chain[-1], [self._items[start + len(chain) - 1]]))
            return chain[end - start]
        self._check_range(0, end)
        return super().digest(end)

    def truncate(self, length: int) -> None:
        if length < len(self):
            raise NotLoaded(min(length, self.hole_start))
