"""What every ctxlab memory session shares.

A memory session keeps the full, untrimmed log of what the Agents SDK Runner stored and
computes, on each read, the *view*: the items the model is shown. Strategies differ only in
their *policy* (:mod:`ctxlab.policies`), a pure function that picks the window; subclasses
call it in :meth:`MemorySession._window` (:class:`~ctxlab.sessions.policy.PolicySession`
does, for every registered strategy). The base class then

1. holds the window to the strategy's invariants (:mod:`ctxlab.policies.invariants`:
   strict mode raises, naming the policy),
2. makes the window valid for the API and applies the caller's item ``limit``
   (:func:`ctxlab.sessions.view.build_view`),
3. strips keys that are not part of the Responses schema (private metadata),

and explains the fate of every item in the :class:`~ctxlab.core.ledger.Ledger`. ``get_items``
and ``ledger`` read the same computation, so the ledger always says what the model sees.

Where the log lives is the ``store``'s business (:mod:`ctxlab.stores`): in memory by default,
or any Agents SDK session (``SQLiteSession`` on a file, ``RedisSession``, ``EncryptedSession``,
...). The in-memory index (:class:`~ctxlab.core.rawlog.RawLog`) catches up with the store
before every read and with every write, so items appended by other processes are seen before
a view is computed, and only new items are fetched.

A session object may be used from several threads and event loops at once (a web app that
calls ``Runner.run_sync`` per request): its lock is
:class:`~ctxlab.sessions.locks.ThreadSafeAsyncLock`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from agents.memory import SessionSettings

from ..core.items import clone
from ..core.ledger import Ledger
from ..core.rawlog import RawLog
from ..core.redaction import ItemRedactor, as_redactor
from ..core.session_ids import new_session_id
from ..core.tokens import TokenCounter, get_token_counter
from ..policies.base import Window
from ..policies.invariants import enforce, is_proven
from ..stores.base import LogStore, StoredState
from ..stores.registry import open_store
from .batches import check_batch, check_redacted, redact_batch
from .checkpoints import CheckpointsMixin, StoreArg
from .first_read import read_view
from .lease import lease_owner
from .listeners import ChangeListeners
from .locks import ThreadSafeAsyncLock
from .store_sync import StoreSync
from .view import View, build_ledger, build_view

logger = logging.getLogger("ctxlab.sessions")


class TokenBudgetWarning(UserWarning):
    """The view is over a limit the session was given (a turn over ``max_tokens``, more
    unfolded turns than ``context_limit`` while a fold is due or failing)."""




def check_limit(limit: Any) -> int | None:
    """An item limit: None or an integer >= 0."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
    return limit


class MemorySession(CheckpointsMixin, ChangeListeners, StoreSync):
    """Base class of ctxlab's sessions (implements the Agents SDK ``Session`` protocol).

    Subclasses implement :meth:`_window` by calling their policy: a registered strategy's
    session is made for it (:class:`~ctxlab.sessions.policy.PolicySession`). Do not
    instantiate this class directly.

    Args:
        session_id: the conversation's id. With a ``store`` it may be omitted (the store's id
            is used) and must otherwise match it; without one, omitting it gives a fresh
            :func:`ctxlab.new_session_id`.
        store: where the raw log lives: None (in memory, the default), any Agents SDK
            session (``SQLiteSession("id", "chat.db")``, ``RedisSession.from_url(...)``,
            ``EncryptedSession(...)``, ...) or a :class:`ctxlab.stores.LogStore`. Persistent
            stores also keep the strategy's state (summaries), so a new process with the
            same session id resumes with the identical view.
        redactor: applied to every batch before it is stored (see :class:`ctxlab.Redactor`;
            a plain function ``item -> item`` works too).
        session_settings: the SDK's ``SessionSettings``; its ``limit`` caps the item count
            of ``get_items()`` called without one, as in the SDK's own sessions.
        token_counter: defaults to exact ``o200k_base`` counts.
    """

    session_id: str
    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str | None = None,
        *,
        store: StoreArg = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
        redactor: Any = None,
    ):
        if store is None:
            if session_id is None:
                session_id = new_session_id()
            elif not isinstance(session_id, str) or not session_id.strip():
                raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
            self._store: LogStore = open_store(None, session_id)
            self._private_store = True  # nobody else writes to it: nothing to sync
        else:
            self._private_store = False
            self._store = open_store(store, session_id)
        self.session_id = self._store.session_id
        if session_settings is not None and not isinstance(session_settings, SessionSettings):
            raise ValueError("session_settings must be an agents.memory.SessionSettings, got "
                             f"{type(session_settings).__name__}")
        self.session_settings = session_settings or SessionSettings()
        self._counter = token_counter or get_token_counter()
        self._redactor: ItemRedactor | None = as_redactor(redactor)
        self._log = RawLog(self._counter)
        self._lock = ThreadSafeAsyncLock()
        self._config_version = 0
        self._cache: tuple[tuple[int, int, int | None], View] | None = None
        self._served: View | None = None
        self._served_log = self._log  # the index the served view's slots point into
        self._stored = StoredState()  # the store's state row: version, epoch, data
        self._owner = lease_owner()
        self._listeners: list[Callable[[Any], Any]] = []

    # -- Session protocol ------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The items the model sees, oldest first, as fresh copies.

        ``limit`` keeps at most that many of the newest items, never splitting a tool call
        from its output or a reasoning item from the item it precedes (so it may return
        fewer); without one, ``session_settings.limit`` applies (as in the SDK's sessions).
        The result always passes :func:`ctxlab.validate_items`. With a shared store, items
        other processes appended are read first.
        """
        limit = self._resolve_limit(limit)
        lock = self._lock
        await lock.acquire()  # (not ``async with``: one coroutine less on every read)
        try:
            if self._private_store:  # (a private store is always in step)
                view = self._view(limit)
            else:  # (a first read may load only the log's ends: first_read.py)
                view = await read_view(self, limit)
            self._served, self._served_log = view, self._log
            return view.model_items(self._log)
        finally:
            lock.release()

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        """Append ``items`` to the log, all or nothing (see :func:`check_batch`).

        The batch is redacted first when the session has a ``redactor``. With a store, the
        batch is one transaction: a :class:`ctxlab.StoreUnavailableError` means nothing was
        written, or all of it.
        """
        batch = check_batch(items)
        if not batch:
            return
        if self._redactor is not None:
            batch = check_redacted(self._redact(batch))
        checked = {id(item) for item in batch}  # validated above: the index need not recheck
        lock = self._lock
        await lock.acquire()
        try:
            delta = await self._store.append(batch)
            if not self._append_in_step(delta, checked):
                await self._apply_delta(delta, checked=checked)
        finally:
            lock.release()
        if type(self)._after_add is not MemorySession._after_add:  # only subclasses' hooks
            await self._after_add()

    async def pop_item(self) -> dict[str, Any] | None:
        """Remove and return the newest stored item, or None when the session is empty."""
        async with self._lock:
            item, delta = await self._store.pop()
            await self._apply_delta(delta)
            if item is not None:
                await self._after_pop()
            return item

    async def clear_session(self) -> None:
        """Remove every stored item and everything derived from them (state, checkpoints)."""
        async with self._lock:
            await self._apply_delta(await self._store.clear())
            await self._after_clear()

    # -- ctxlab extras ---------------------------------------------------------------
    async def raw_items(self) -> list[dict[str, Any]]:
        """Copies of every stored item, untrimmed, in arrival order."""
        async with self._lock:
            await self._sync()
            return [clone(item) for item in self._log.items]

    async def ledger(self, limit: int | None = None) -> Ledger:
        """The fate of every item: kept, summary, summarized, pending or dropped
        (:mod:`ctxlab.core.ledger`). ``limit`` is resolved as in :meth:`get_items`."""
        limit = self._resolve_limit(limit)
        async with self._lock:
            await self._sync()
            return build_ledger(self._log, self._view(limit))

    async def view_with_ledger(
        self, limit: int | None = None
    ) -> tuple[list[dict[str, Any]], Ledger]:
        """``get_items(limit)`` and the matching ledger from one computation (both reflect
        the same moment, even while other writers append)."""
        limit = self._resolve_limit(limit)
        async with self._lock:
            await self._sync()
            view = self._view(limit)
            return view.model_items(self._log), build_ledger(self._log, view)

    def served_layout(self) -> tuple[list[dict[str, Any]], list[str]] | None:
        """What the last ``get_items`` returned and where each item came from (``preamble``,
        ``summary`` or ``turn:N``), for :class:`ctxlab.ContextManager`: it reads the
        structure from here instead of re-parsing the model input. None before any read."""
        view, log = self._served, self._served_log
        if view is None:
            return None
        return view.model_items(log), list(view.layout(log))

    def view_notes(self) -> list[str]:
        """The warnings of the last view served (a turn over ``max_tokens``, unfolded turns
        over ``context_limit`` while a fold fails); empty when all is well. Read by
        :class:`ctxlab.TokenMonitor`, which raises an alert for them."""
        view = self._served
        return list(view.window.notes) if view is not None else []

    @property
    def version(self) -> tuple[int, int]:
        """Changes whenever the view may have changed: (stored-log version, settings and
        summary version). Compare two readings to know whether to recompute anything."""
        return (self._log.version, self._config_version)

    @property
    def token_counter(self) -> TokenCounter:
        return self._counter

    @property
    def store(self) -> LogStore:
        """The adapter over where the raw log lives (``.kind``: memory, sqlite, redis, ...)."""
        return self._store

    async def aclose(self) -> None:
        """Close connections ctxlab opened for the store (never the SDK session you passed)."""
        await self._store.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(session_id={self.session_id!r}, items={len(self._log)})"

    def _store_note(self) -> str:
        return "" if self._store.kind == "memory" else f", store={self._store.kind!r}"

    def _options(self) -> dict[str, Any]:
        """Constructor keyword arguments, other than the strategy's ``params`` (which
        :meth:`branch` passes on whole), that recreate this session's settings; a subclass
        with options of its own (a summarizer, timeouts) adds them."""
        return {"session_settings": self.session_settings, "token_counter": self._counter,
                "redactor": self._redactor}

    def _export_state(self) -> Mapping[str, Any] | None:
        """The strategy's state as saved in the store (and in checkpoints)."""
        return self._stored.data

    def _redact(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        assert self._redactor is not None
        return redact_batch(self._redactor, batch, self._log.recent(200))

    # -- hooks for subclasses ----------------------------------------------------------
    def _window(self) -> Window:  # pragma: no cover - abstract
        raise NotImplementedError

    async def _after_add(self) -> None:
        """Called after items were appended, outside the lock (it may take it or await)."""

    async def _after_pop(self) -> None:
        """Called under the lock after the newest item was removed."""

    async def _after_clear(self) -> None:
        """Called under the lock after the log was cleared."""

    async def _on_change(self, *, shrank: bool, state: StoredState | None) -> None:
        """Called under the lock when a sync removed items or brought a new state."""

    def _changed(self) -> None:
        """Call when a setting that shapes the view changes."""
        self._config_version += 1
        self._notify()

    # -- the view --------------------------------------------------------------------
    def _resolve_limit(self, limit: Any) -> int | None:
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        return check_limit(limit)

    def _view(self, limit: int | None) -> View:
        key = (self._log.version, self._config_version, limit)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        window = self._window()
        _check_window(self, window)
        for note in window.notes:
            warnings.warn(note, TokenBudgetWarning, stacklevel=4)
        view = build_view(self._log, window, limit)
        self._cache = (key, view)
        return view


def _check_window(self: MemorySession, window: Window) -> None:
    """Hold the window to the strategy's invariants before anything repairs it
    (:func:`ctxlab.policies.invariants.enforce`: strict mode raises, naming the policy;
    otherwise a warning, and the view is repaired). Outside strict mode ctxlab's own
    (proven) policies get the cheap check; a new or replaced ``_window`` or policy the
    full one."""
    spec = getattr(type(self), "strategy", None)
    proven = is_proven(type(self)._window, getattr(spec, "policy", None))
    enforce(self._log, window, spec, getattr(self, "params", None),
            lambda: f"session {self.session_id!r} ({type(self).__name__})", proven=proven)
