"""Keeping a session's in-memory index in step with its store: catching up before a read,
taking in what a write appended, and applying any :class:`~ctxlab.stores.base.Delta`."""

from __future__ import annotations

from ..core.partial_log import PartialLog
from ..core.rawlog import RawLog
from ..core.tokens import TokenCounter
from ..stores.base import Delta, LogStore, StoredState
from .view import View


class StoreSync:
    """``_sync``, ``_install``, ``_append_in_step`` and ``_apply_delta`` for
    :class:`~ctxlab.sessions.base.MemorySession` (which supplies the store, the index and
    the ``_on_change`` and ``_notify`` hooks). Call them under the session's lock."""

    _store: LogStore
    _private_store: bool
    _log: RawLog
    _counter: TokenCounter
    _cache: tuple[tuple[int, int, int | None], View] | None
    _stored: StoredState

    async def _sync(self) -> None:
        """Catch up with the store (call under the lock). A store this session made for
        itself in memory has no other writers and is always in step."""
        if self._private_store:
            return
        if isinstance(self._log, PartialLog):  # (a first read loaded the ends only)
            self._install(None)
        delta = await self._store.sync()
        if delta.items or delta.state is not None or delta.keep != len(self._log):
            await self._apply_delta(delta)  # (else nothing changed: the usual read)

    def _install(self, log: RawLog | None) -> None:
        """Make ``log`` the index (None: an empty one, with the store's cursor reset so
        the next sync returns the whole log)."""
        if log is None:
            self._store.reset_cursor()
            log = RawLog(self._counter)
        log.version = self._log.version + 1
        self._log = log
        self._cache = None

    def _append_in_step(self, delta: Delta, checked: set[int]) -> bool:
        """The common write: the store appended right after what the index holds and sent
        no new state; True when done (else :meth:`_apply_delta` does the rest)."""
        if delta.keep != len(self._log) or delta.state is not None or not delta.items:
            return False
        self._log.extend(delta.items, checked=checked)
        self._notify()
        return True

    async def _apply_delta(self, delta: Delta, *, checked: set[int] | frozenset[int] = frozenset()
                     ) -> None:
        """Bring the index in line with a :class:`~ctxlab.stores.base.Delta` (under the lock);
        ``checked`` holds the ``id()`` s of items this session validated itself."""
        log = self._log
        if isinstance(log, PartialLog) and delta.keep < len(log):  # items went: load all
            self._install(None)
            log, delta = self._log, await self._store.sync()
        if delta.keep > len(log):  # out of step (an earlier apply failed half-way): re-read
            self._store.reset_cursor()
            log.clear()
            delta = await self._store.sync()
        shrank = delta.keep < len(log)
        if shrank:
            log.truncate(delta.keep)
        if delta.items:
            log.extend(delta.items, checked=checked)
        if delta.state is not None:
            self._stored = delta.state
        if shrank or delta.state is not None:
            await self._on_change(shrank=shrank, state=delta.state)
        if shrank or delta.items or delta.state is not None:
            self._notify()
