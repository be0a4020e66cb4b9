"""The cursor of a log whose rows have integer ids (SQLite, SQLAlchemy): which row every
item of the caller's index is, so a sync returns only what changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import Delta, Ends, StoredState, decode_entry


class RowIdCursor:
    """Mixin for a :class:`~ctxlab.stores.base.LogStore` over rows ``(id, data)``."""

    _ids: list[int]  # row id of every item the caller's index holds
    _ends_ids: tuple[list[int], list[int]] = ([], [])  # of the last read_ends
    _state_version: int | None

    if TYPE_CHECKING:  # provided by LogStore, which the class also extends
        def _state_delta(self, state: StoredState | None) -> StoredState | None: ...

    def _decode(self, rows: Sequence[Any]) -> tuple[list[int], list[dict[str, Any]]]:
        return [row[0] for row in rows], [decode_entry(row[1]) for row in rows]

    def _advance(self, keep: int, ids: list[int]) -> None:
        del self._ids[keep:]
        self._ids.extend(ids)

    def _ends(self, head: Sequence[Any], tail: Sequence[Any], asked: int,
              state: StoredState | None, tail_start: int | None = None) -> Ends:
        """:class:`Ends` from rows ``(id, data)`` (``asked``: the head's row limit); complete
        when the head is short or the two ends overlap (the cursor is then at the end)."""
        complete = len(head) < asked or (bool(tail) and tail[0][0] <= head[-1][0])
        if complete:
            head, tail = [*head, *(r for r in tail if not head or r[0] > head[-1][0])], []
        head_ids, head_items = self._decode(head)
        tail_ids, tail_items = self._decode(tail)
        self._ends_ids = (head_ids, tail_ids)
        if complete:
            self._ids = head_ids
        return Ends(head_items, tail_items, self._state_delta(state), complete,
                    None if complete else tail_start)

    def place_ends(self, head_kept: int, tail_from: int) -> None:
        head_ids, tail_ids = self._ends_ids
        self._ids = [*head_ids[:head_kept], -1, *tail_ids[tail_from:]]  # (-1: not loaded)

    def place_located(self, head_kept: int, tail_from: int, hole: int) -> None:
        head_ids, tail_ids = self._ends_ids
        self._ids = [*head_ids[:head_kept], *([-1] * hole), *tail_ids[tail_from:]]

    def reset_cursor(self) -> None:
        self._ids.clear()
        self._state_version = None

    def _cut(self, keep: int, rows: Sequence[Any], removed: Sequence[Any],
             state: StoredState | None, length: int) -> tuple[list[dict[str, Any]], Delta]:
        """What a truncate to ``length`` items returns, with the cursor moved past it: the
        removed items and the delta (``rows``: the rows after the ``keep`` the caller holds)."""
        ids, items = self._decode(rows)
        keep = min(keep, length)
        ids, items = ids[: max(0, length - keep)], items[: max(0, length - keep)]
        self._advance(keep, ids)
        return self._decode(removed)[1], Delta(keep, items, self._state_delta(state))
