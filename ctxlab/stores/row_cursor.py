"""The cursor of a log whose rows have integer ids (SQLite, SQLAlchemy): which row every
item of the caller's index is, so a sync returns only what changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .base import Delta, Ends, StoredState, decode_entry


class RowIdCursor:
    """Mixin for a :class:`~ctxlab.stores.base.LogStore` over rows ``(id, data)``."""

    _ids: list[int]  # row id of every item the caller's index holds
    _state_version: int | None

    if TYPE_CHECKING:  # provided by LogStore, which the class also extends
        def _state_delta(self, state: StoredState | None) -> StoredState | None: ...

    def _decode(self, rows: Sequence[Any]) -> tuple[list[int], list[dict[str, Any]]]:
        return [row[0] for row in rows], [decode_entry(row[1]) for row in rows]

    def _advance(self, keep: int, ids: list[int]) -> None:
        del self._ids[keep:]
        self._ids.extend(ids)

    def _ends(self, length: int, head: Sequence[Any], tail: Sequence[Any],
              state: StoredState | None) -> Ends:
        """:class:`Ends` from rows ``(id, data)``, with the cursor at the end: the ids of the
        rows between the two ends are unknown (-1: a row we knew is gone, should the next
        sync find the newest one gone, and only the head is kept)."""
        if len(head) + len(tail) >= length:  # the two ends meet: head is the whole log
            head, tail = [*head, *(r for r in tail if not head or r[0] > head[-1][0])], []
        head_ids, head_items = self._decode(head)
        tail_ids, tail_items = self._decode(tail)
        self._ids = [*head_ids, *([-1] * (length - len(head) - len(tail))), *tail_ids]
        return Ends(length, head_items, tail_items, self._state_delta(state))

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
