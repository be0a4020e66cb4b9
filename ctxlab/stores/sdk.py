"""Any Agents SDK session as the raw log, through its public methods only.

Used for sessions ctxlab has no direct adapter for (``EncryptedSession``,
``AdvancedSQLiteSession``, ``SQLAlchemySession``, an in-memory ``SQLiteSession``, your own):
every sync reads the whole log with ``get_items()`` and keeps the longest unchanged prefix,
so it is correct whoever writes to the store, at O(n) per call. Destructive operations are
the session's own ``pop_item`` / ``clear_session`` followed by a state update, so they are
not atomic with the side state; the summary's prefix digest still catches any mismatch.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ..core.items import invalid_entry
from .base import Delta, LogStore, StateStore, StoreConflictError, StoreError
from .memory import MemoryStateStore


class SessionLog(LogStore):
    """Adapter over an arbitrary SDK ``Session`` (see the module doc)."""

    kind: ClassVar[str] = "session"

    def __init__(self, session: Any, state: StateStore | None = None, *,
                 spawn: Callable[[Any, str], Any] | None = None):
        super().__init__()
        self._spawn = spawn
        self.sdk_session = session
        self.session_id: str = session.session_id
        self.state = state if state is not None else MemoryStateStore(self.session_id)
        self._items: list[dict[str, Any]] = []

    @property
    def persistent(self) -> bool:  # type: ignore[override]
        """True when the side state outlives the process (the log always does, or not, as
        the wrapped session does)."""
        return self.state.persistent

    async def _read_all(self) -> list[dict[str, Any]]:
        settings = getattr(self.sdk_session, "session_settings", None)
        limit = getattr(settings, "limit", None)
        if limit is not None:
            raise StoreError(
                f"the store's session_settings.limit is {limit}, so its get_items() returns "
                "only the newest items; ctxlab needs the whole log. Leave the store's limit "
                "at None and set session_settings on the ctxlab session instead."
            )
        items = await self.sdk_session.get_items()
        return [_as_dict(item) for item in items]

    def _unchanged_prefix(self, current: list[dict[str, Any]]) -> int:
        n = len(self._items)
        if n == 0 or (len(current) >= n and current[n - 1] == self._items[n - 1]):
            return n  # only appends happened (the common case): one comparison
        keep = 0
        for mine, theirs in zip(self._items, current, strict=False):
            if mine != theirs:
                break
            keep += 1
        return keep

    async def _sync(self) -> Delta:
        current = await self._read_all()
        keep = self._unchanged_prefix(current)
        self._items = current
        state = await self.state.load()
        return Delta(keep, current[keep:], self._state_delta(state))

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        await self.sdk_session.add_items(items)
        return await self._sync()

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        item = await self.sdk_session.pop_item()
        if item is not None:
            await self.state.bump_epoch()
        return (None if item is None else dict(item)), await self._sync()

    async def _clear(self) -> Delta:
        await self.sdk_session.clear_session()
        state = await self.state.reset()
        self._items = []
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        if (await self.state.load()).version != expected_version:
            raise StoreConflictError("the session state changed meanwhile; retry")
        removed: list[dict[str, Any]] = []
        while len(await self._read_all()) > length:
            item = await self.sdk_session.pop_item()
            if item is None:
                break
            removed.append(dict(item))
        bumped = await self.state.bump_epoch()
        await self.state.compare_and_set(bumped.version, data)
        delta = await self._sync()
        return removed[::-1], delta

    def reset_cursor(self) -> None:
        self._items = []
        self._state_version = None

    def spawn(self, session_id: str) -> LogStore:
        if self._spawn is not None:
            other = self._spawn(self.sdk_session, session_id)
            return SessionLog(other, self.state.for_session(session_id), spawn=self._spawn)
        raise StoreError(
            f"ctxlab cannot open another session on a {type(self.sdk_session).__name__} by "
            "itself: pass store=<an SDK session for the new id> to branch()"
        )

    def describe(self) -> str:
        return f"{type(self.sdk_session).__name__} store"


def _as_dict(item: Any) -> dict[str, Any]:
    """An item as a dict; whatever else a session returns becomes a placeholder the view
    skips and the ledger reports (never an exception in ``get_items``)."""
    if isinstance(item, dict):
        return item
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        try:
            value = dump(exclude_unset=True)
            if isinstance(value, dict):
                return value
        except Exception:
            pass
    return invalid_entry(item, f"stored entry is a {type(item).__name__}, not an item")
