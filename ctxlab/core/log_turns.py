"""The turn questions of a raw log (:class:`~ctxlab.core.rawlog.RawLog`): where turns start
and end, which turn an item is in, how many tokens a turn holds, and how far back whole
turns fit a budget. Answered from the log's ascending list of turn starts in O(1) or
O(log n) (the budget walk visits only the turns that fit)."""

from __future__ import annotations

from bisect import bisect_right


class TurnQuestions:
    """Mixed into :class:`~ctxlab.core.rawlog.RawLog`: ``_starts`` (indices of the real user
    messages, ascending), ``_items`` and ``tokens``/``tokens_between`` come from there."""

    __slots__ = ()
    _starts: list[int]
    _items: list[object]

    def tokens(self, index: int) -> int:  # pragma: no cover - RawLog's
        raise NotImplementedError

    def tokens_between(self, start: int, end: int) -> int:  # pragma: no cover - RawLog's
        raise NotImplementedError

    @property
    def turn_starts(self) -> list[int]:
        """Indices of the real user messages, ascending (do not mutate)."""
        return self._starts

    @property
    def turn_count(self) -> int:
        return len(self._starts)

    @property
    def preamble_end(self) -> int:
        """Index of the first real user message (the log's length if there is none)."""
        return self._starts[0] if self._starts else len(self._items)

    def turn_of(self, index: int) -> int | None:
        """1-based turn number of ``items[index]``; None for the preamble."""
        return bisect_right(self._starts, index) or None

    def turn_bounds(self, turn: int) -> tuple[int, int]:
        """Raw indices ``[start, end)`` of user turn ``turn`` (1-based, as :meth:`turn_of`
        numbers them; ``-1`` is the newest); a ValueError names the range otherwise."""
        starts = self._starts
        count = len(starts)
        if isinstance(turn, bool) or not isinstance(turn, int) or not (
                1 <= turn <= count or -count <= turn <= -1):
            raise ValueError(f"turn must be 1..{count} (or -1..-{count} from the newest), got "
                             f"{turn!r}" if count else f"the log has no turns, got turn {turn!r}")
        k = turn - 1 if turn > 0 else count + turn
        return starts[k], starts[k + 1] if k + 1 < count else len(self._items)

    def turn_tokens(self, turn: int) -> int:
        """Tokens of user turn ``turn`` (see :meth:`turn_bounds`)."""
        return self.tokens_between(*self.turn_bounds(turn))

    def first_turn_fitting(self, budget: int, lo_turn: int = 0) -> int:
        """The 0-based index (into :attr:`turn_starts`) of the earliest turn, not before
        ``lo_turn``, from which the rest of the log fits into ``budget`` tokens.

        Returns ``turn_count`` when not even the newest turn fits. Only the turns from
        ``lo_turn`` on are counted.
        """
        n = len(self._items)
        starts = self._starts
        if lo_turn >= len(starts):
            return len(starts)
        # Walk from the newest turn back: only the turns that can fit are counted.
        used = 0
        first = len(starts)
        for k in range(len(starts) - 1, lo_turn - 1, -1):
            end = starts[k + 1] if k + 1 < len(starts) else n
            used += sum(self.tokens(i) for i in range(starts[k], end))
            if used > budget:
                break
            first = k
        return first
