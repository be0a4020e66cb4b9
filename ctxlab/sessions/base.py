"""What every ctxlab memory strategy shares.

A memory session keeps the full, untrimmed log of what the Agents SDK Runner stored and
computes, on each read, the *view*: the items the model is shown. Strategies differ only
in :meth:`MemorySession._window`, which picks the candidate slots; the base class then

1. removes items the Responses API would reject (orphan tool outputs, calls whose output is
   not in the view, reasoning items without their follower),
2. applies the caller's item ``limit`` at a position that splits no such pair,
3. strips keys that are not part of the Responses schema (private metadata),

and records the fate of every item in the :class:`~ctxlab.core.ledger.Ledger`. ``get_items`` and
``ledger`` read the same computation, so the ledger always says what the model sees.

Where the log lives is the ``store``'s business (:mod:`ctxlab.stores`): in memory by default,
or any Agents SDK session (``SQLiteSession`` on a file, ``RedisSession``, ``EncryptedSession``,
...). The in-memory index (:class:`~ctxlab.core.rawlog.RawLog`) catches up with the store before
every read and with every write, so items appended by other processes are seen before a view
is computed, and only new items are fetched. The base class also offers checkpoints
(:meth:`MemorySession.checkpoint`, :meth:`~MemorySession.rollback`,
:meth:`~MemorySession.branch`) and a ``redactor`` applied to every batch before it is stored.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.memory import Session, SessionSettings

from ..core.items import clone, is_call, item_kind, item_text, model_safe, pair_key, shape_problem
from ..core.ledger import DROPPED, KEPT, ItemState, Ledger, LedgerEntry
from ..core.rawlog import RawLog
from ..core.redaction import ItemRedactor, as_redactor
from ..core.session_ids import check_session_id, new_session_id
from ..core.tokens import TokenCounter, get_token_counter
from ..core.validate import repair, safe_cut
from ..stores.base import Checkpoint, Delta, LogStore, StoreConflictError, StoredState
from ..stores.memory import MemoryLog
from ..stores.open import open_store

logger = logging.getLogger("ctxlab.sessions")


class TokenBudgetWarning(UserWarning):
    """The newest turn alone is larger than the session's token budget."""


@dataclass(frozen=True)
class Synthetic:
    """An item a strategy injects into the view (such as a summary)."""

    item: dict[str, Any]
    kind: str
    reason: str
    tokens: int
    text: str
    meta: dict[str, Any] = field(default_factory=dict)


Slot = int | Synthetic


@dataclass
class Window:
    """A strategy's choice: the candidate slots in order and why each raw item is out."""

    slots: list[Slot]
    reasons: list[str]  # why each slot is in the view
    excluded: Callable[[int], tuple[ItemState, str]]  # fate of a raw index not in slots
    notes: list[str] = field(default_factory=list)  # warnings to surface to the caller


@dataclass
class View:
    """The final view: what ``get_items`` returns, and what the ledger needs."""

    slots: list[Slot]
    reasons: list[str]
    removed: dict[int, str]  # raw index -> reason, for items the repair/limit took out
    removed_synthetic: list[tuple[Synthetic, str]]
    window: Window


def _check_session_id(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id.strip():
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    return session_id


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum``, or a ValueError that names ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def check_batch(items: Any) -> list[dict[str, Any]]:
    """Validate a batch for ``add_items`` and return deep copies; raise on the first bad item.

    The error names the index and the problem, and because nothing is stored before the
    whole batch passed, a failed call leaves the session exactly as it was.
    """
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        if isinstance(items, dict):
            raise ValueError(
                "add_items expects a list of items, got a single dict; wrap it in a list"
            )
        raise ValueError(f"add_items expects a list of items, got {type(items).__name__}")
    for index, item in enumerate(items):
        problem = shape_problem(item)
        if problem is not None:
            hint = ""
            if hasattr(item, "model_dump"):
                hint = " (convert it with .model_dump(exclude_unset=True) first)"
            raise ValueError(
                f"add_items: item {index} of {len(items)} is invalid: {problem}{hint}. "
                "Nothing from this batch was stored."
            )
    return [clone(item) for item in items]


StoreArg = Session | LogStore | None


class MemorySession:
    """Base class of ctxlab's sessions (implements the Agents SDK ``Session`` protocol).

    Subclasses implement :meth:`_window`. Do not instantiate this class directly.

    Args:
        session_id: the conversation's id. With a ``store`` it may be omitted (the store's id
            is used) and must otherwise match it.
        store: where the raw log lives: None (in memory, the default), any Agents SDK
            session (``SQLiteSession("id", "chat.db")``, ``RedisSession.from_url(...)``,
            ``EncryptedSession(...)``, ...) or a :class:`ctxlab.stores.LogStore`. Persistent
            stores also keep the strategy's state (summaries), so a new process with the
            same session id resumes with the identical view.
        redactor: applied to every batch before it is stored (see :class:`ctxlab.Redactor`;
            a plain function ``item -> item`` works too).
        session_settings: the SDK's ``SessionSettings`` (``limit`` caps the item count).
        token_counter: defaults to exact ``o200k_base`` counts.
    """

    session_id: str
    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str | None,
        *,
        store: StoreArg = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
        redactor: Any = None,
    ):
        if store is None:
            self.session_id = _check_session_id(session_id)
            self._store: LogStore = MemoryLog(self.session_id)
        else:
            self._store = open_store(store, session_id)
            self.session_id = self._store.session_id
        self.session_settings = session_settings or SessionSettings()
        self._counter = token_counter or get_token_counter()
        self._redactor: ItemRedactor | None = as_redactor(redactor)
        self._log = RawLog(self._counter)
        self._lock = asyncio.Lock()
        self._config_version = 0
        self._cache: tuple[tuple[int, int, int | None], View] | None = None
        self._state = StoredState()
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._listeners: list[Callable[[MemorySession], Any]] = []

    # -- Session protocol ------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The items the model sees, oldest first, as fresh copies.

        ``limit`` keeps at most that many of the newest items, never splitting a tool call
        from its output or a reasoning item from the item it precedes (so it may return
        fewer). The result always passes :func:`ctxlab.core.validate.validate_items`. With a
        shared store, items other processes appended are read first.
        """
        limit = self._check_limit(limit)
        async with self._lock:
            await self._sync()
            view = self._view(limit)
            return [model_safe(self._slot_item(slot)) for slot in view.slots]

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
            batch = self._redact(batch)
            for index, item in enumerate(batch):
                problem = shape_problem(item)
                if problem is not None:
                    raise ValueError(f"add_items: the redactor turned item {index} of "
                                     f"{len(batch)} into an invalid item: {problem}. "
                                     "Nothing from this batch was stored.")
        async with self._lock:
            await self._apply(await self._store.append(batch))
        await self._after_add()

    async def pop_item(self) -> dict[str, Any] | None:
        """Remove and return the newest stored item, or None when the session is empty."""
        async with self._lock:
            item, delta = await self._store.pop()
            await self._apply(delta)
            if item is not None:
                await self._after_pop()
            return item

    async def clear_session(self) -> None:
        """Remove every stored item and everything derived from them (state, checkpoints)."""
        async with self._lock:
            await self._apply(await self._store.clear())
            await self._after_clear()

    # -- ctxlab extras ---------------------------------------------------------------
    async def raw_items(self) -> list[dict[str, Any]]:
        """Copies of every stored item, untrimmed, in arrival order."""
        async with self._lock:
            await self._sync()
            return [clone(item) for item in self._log.items]

    async def ledger(self, limit: int | None = None) -> Ledger:
        """The fate of every item: kept, dropped, summarized or summary (:mod:`ctxlab.core.ledger`).

        ``limit`` defaults to ``session_settings.limit``, the value the Runner passes to
        ``get_items`` (unless a ``RunConfig`` overrides it).
        """
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        limit = self._check_limit(limit)
        async with self._lock:
            await self._sync()
            return self._build_ledger(self._view(limit))

    async def view_with_ledger(
        self, limit: int | None = None
    ) -> tuple[list[dict[str, Any]], Ledger]:
        """``get_items(limit)`` and the matching ledger from one computation (both reflect
        the same moment, even while other writers append)."""
        limit = self._check_limit(limit)
        async with self._lock:
            await self._sync()
            view = self._view(limit)
            items = [model_safe(self._slot_item(slot)) for slot in view.slots]
            return items, self._build_ledger(view)

    @property
    def version(self) -> tuple[int, int]:
        """Changes whenever the view may have changed: (stored-log version, settings and
        summary version). Compare two readings to know whether to recompute anything."""
        return (self._log.version, self._config_version)

    def subscribe(self, callback: Callable[[MemorySession], Any]) -> Callable[[], None]:
        """Call ``callback(session)`` after every change to the log or the view (items
        added, popped or cleared, another process's items read, a summary applied, a
        setting changed). Returns a function that unsubscribes.

        Callbacks run synchronously, possibly while the session holds its lock: they must
        not await the session, only schedule work (as :class:`ctxlab.SessionView` does).
        """
        if not callable(callback):
            raise ValueError(f"callback must be callable, got {type(callback).__name__}")
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def _notify(self) -> None:
        for callback in list(self._listeners):
            try:
                callback(self)
            except Exception:  # a broken listener must not break the session
                logger.exception("session %r: a change listener failed", self.session_id)

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
        return "" if isinstance(self._store, MemoryLog) else f", store={self._store.kind!r}"

    # -- checkpoints -----------------------------------------------------------------
    async def checkpoint(self, name: str | None = None, *, note: str = "") -> Checkpoint:
        """Remember the log as it is now (and the strategy's state) under ``name``.

        Kept beside the log in the store (so it persists with SQLite and Redis). Use
        :meth:`rollback` to return to it or :meth:`branch` to continue from it in a new
        session. A checkpoint with the same name is replaced.
        """
        name = check_session_id(name or f"cp-{time.time_ns()}", what="checkpoint name")
        if not isinstance(note, str):
            raise ValueError(f"note must be a string, got {type(note).__name__}")
        async with self._lock:
            await self._sync()
            cp = Checkpoint(name=name, length=len(self._log), digest=self._log.digest(),
                            created_at=time.time(), note=note, state=self._export_state())
            await self._store.call_state("save a checkpoint",
                                         lambda: self._store.state.put_checkpoint(cp))
        return cp

    async def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint of this session, oldest first."""
        return await self._store.call_state("list checkpoints",
                                            self._store.state.list_checkpoints)

    async def _get_checkpoint(self, name: str) -> Checkpoint:
        found = await self._store.call_state(
            "read a checkpoint", lambda: self._store.state.get_checkpoint(name))
        if found is None:
            known = [c.name for c in await self.checkpoints()]
            raise ValueError(f"session {self.session_id!r} has no checkpoint named {name!r}; "
                             f"it has: {known or 'none'}")
        return found

    def _check_prefix(self, cp: Checkpoint) -> None:
        if len(self._log) < cp.length or self._log.digest(cp.length) != cp.digest:
            raise StoreConflictError(
                f"session {self.session_id!r}: the log no longer starts with the "
                f"{cp.length} items checkpoint {cp.name!r} saw (it was rewritten since), so "
                "it cannot be restored"
            )

    async def rollback(self, name: str) -> list[dict[str, Any]]:
        """Return to checkpoint ``name``: drop every item stored after it and restore the
        strategy's state (its summary) as it was. Returns copies of the removed items.

        Atomic with SQLite and Redis stores. Raises ValueError for an unknown name and
        :class:`ctxlab.StoreConflictError` if the items the checkpoint saw were changed.
        """
        cp = await self._get_checkpoint(name)
        async with self._lock:
            for _ in range(5):
                await self._sync()
                self._check_prefix(cp)
                try:
                    removed, delta = await self._store.truncate(
                        cp.length, cp.state, expected_version=self._state.version)
                except StoreConflictError:
                    continue  # someone changed the state meanwhile: catch up and retry
                await self._apply(delta)
                self._changed()
                return [clone(item) for item in removed]
        raise StoreConflictError(f"session {self.session_id!r} kept changing during rollback "
                                 f"to {name!r}; try again")

    async def branch(
        self, name: str, session_id: str | None = None, *, store: StoreArg = None
    ) -> MemorySession:
        """A new session, with the same settings, that starts from checkpoint ``name``.

        Its log is a copy of the checkpoint's items and its state the checkpoint's state;
        this session is not changed. ``session_id`` defaults to :func:`new_session_id` (or
        to the id of ``store``); ``store`` defaults to a new session in the same backend
        (pass an SDK session for stores ctxlab cannot open by itself). The target must be
        empty.
        """
        cp = await self._get_checkpoint(name)
        async with self._lock:
            await self._sync()
            self._check_prefix(cp)
            items = [clone(item) for item in self._log.items[: cp.length]]
        if store is not None:
            target = open_store(store, session_id)
        else:
            target = self._store.spawn(check_session_id(session_id or new_session_id()))
        child = self._spawn_like(target)
        async with child._lock:
            await child._sync()
            if len(child._log):
                raise ValueError(f"branch target session {child.session_id!r} already holds "
                                 f"{len(child._log)} items; branch into an empty session")
            if items:
                await child._apply(await target.append(items))
            if cp.state is not None:
                saved = await target.save_state(child._state.version, cp.state)
                if saved is None:
                    raise StoreConflictError(f"branch target {child.session_id!r} changed "
                                             "while it was created; try again")
                await child._apply(Delta(len(child._log), [], saved))
        return child

    def _spawn_like(self, store: LogStore) -> MemorySession:
        """A session with this one's settings over ``store`` (subclasses with other
        constructor arguments override :meth:`_settings`)."""
        return type(self)(store=store, **self._settings())  # type: ignore[call-arg]

    def _settings(self) -> dict[str, Any]:
        return {"session_settings": self.session_settings, "token_counter": self._counter,
                "redactor": self._redactor}

    # -- keeping the index in step with the store -------------------------------------
    async def _sync(self) -> None:
        """Catch up with the store (call under the lock)."""
        await self._apply(await self._store.sync())

    async def _apply(self, delta: Delta) -> None:
        """Bring the index in line with a :class:`~ctxlab.stores.base.Delta` (under the lock)."""
        log = self._log
        if delta.keep > len(log):  # out of step (an earlier apply failed half-way): re-read
            self._store.reset_cursor()
            log.clear()
            delta = await self._store.sync()
        shrank = delta.keep < len(log)
        if shrank:
            log.truncate(delta.keep)
        if delta.items:
            log.extend(delta.items)
        if delta.state is not None:
            self._state = delta.state
        if shrank or delta.state is not None:
            await self._on_change(shrank=shrank, state=delta.state)
        if shrank or delta.items or delta.state is not None:
            self._notify()

    def _export_state(self) -> Mapping[str, Any] | None:
        """The strategy's state as saved in the store (and in checkpoints)."""
        return self._state.data

    def _redact(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        names: dict[str, str] = {}
        wanted = {k[1] for k in map(pair_key, batch) if k is not None}
        for item in (*self._log.items[-200:], *batch):
            key = pair_key(item)
            if key is not None and key[1] in wanted and is_call(item):
                names[key[1]] = str(item.get("name", ""))
        assert self._redactor is not None
        return self._redactor.redact_items(batch, names)

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
    @staticmethod
    def _check_limit(limit: Any) -> int | None:
        if limit is None:
            return None
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
        return limit

    def _slot_item(self, slot: Slot) -> dict[str, Any]:
        return slot.item if isinstance(slot, Synthetic) else self._log.items[slot]

    def _view(self, limit: int | None) -> View:
        key = (self._log.version, self._config_version, limit)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        window = self._window()
        for note in window.notes:
            warnings.warn(note, TokenBudgetWarning, stacklevel=4)
        slots, reasons = list(window.slots), list(window.reasons)
        removed: dict[int, str] = {}
        removed_synthetic: list[tuple[Synthetic, str]] = []

        def take_out(positions: dict[int, str]) -> None:
            nonlocal slots, reasons
            for pos, why in positions.items():
                slot = slots[pos]
                if isinstance(slot, Synthetic):
                    removed_synthetic.append((slot, why))
                else:
                    removed[slot] = why
            slots = [s for p, s in enumerate(slots) if p not in positions]
            reasons = [r for p, r in enumerate(reasons) if p not in positions]

        take_out(repair([self._slot_item(s) for s in slots]))
        if limit is not None and limit < len(slots):
            cut = safe_cut([self._slot_item(s) for s in slots], len(slots) - limit)
            take_out({p: f"beyond the item limit of {limit}" for p in range(cut)})
        view = View(slots, reasons, removed, removed_synthetic, window)
        self._cache = (key, view)
        return view

    def _build_ledger(self, view: View) -> Ledger:
        log = self._log
        positions: dict[int, int] = {}
        synthetic_positions: dict[int, int] = {}
        for pos, slot in enumerate(view.slots):
            if isinstance(slot, Synthetic):
                synthetic_positions[id(slot)] = pos
            else:
                positions[slot] = pos
        reason_of = {
            slot: why
            for slot, why in zip(view.slots, view.reasons, strict=True)
            if not isinstance(slot, Synthetic)
        }
        entries: list[LedgerEntry] = []
        for index, item in enumerate(log.items):
            if index in positions:
                state, reason = KEPT, reason_of[index]
            elif index in view.removed:
                state, reason = DROPPED, view.removed[index]
            else:
                state, reason = view.window.excluded(index)
            entries.append(
                LedgerEntry(
                    index=index,
                    kind=log.kind(index),
                    turn=log.turn_of(index),
                    state=state,
                    reason=reason,
                    tokens=log.tokens(index),
                    position=positions.get(index),
                    text=item_text(item),
                )
            )
        synthetic = [s for s in view.window.slots if isinstance(s, Synthetic)]
        if synthetic:
            entries = self._place_synthetic(entries, view, synthetic, synthetic_positions)
        return Ledger(entries)

    def _place_synthetic(
        self,
        entries: list[LedgerEntry],
        view: View,
        synthetic: list[Synthetic],
        positions: dict[int, int],
    ) -> list[LedgerEntry]:
        """Insert entries for synthetic slots after the raw items they stand for."""
        removed = {id(s): why for s, why in view.removed_synthetic}
        reason_of = {id(s): r for s, r in zip(view.window.slots, view.window.reasons, strict=True)}
        extra: list[tuple[int, LedgerEntry]] = []
        for slot in synthetic:
            covers = slot.meta.get("covers")
            anchor = covers[1] if covers else 0
            in_view = id(slot) in positions
            extra.append(
                (
                    anchor,
                    LedgerEntry(
                        index=None,
                        kind=slot.kind,
                        turn=None,
                        state="summary" if in_view else DROPPED,
                        reason=reason_of.get(id(slot), slot.reason) if in_view
                        else removed.get(id(slot), slot.reason),
                        tokens=slot.tokens,
                        position=positions.get(id(slot)),
                        text=slot.text,
                    ),
                )
            )
        merged: list[LedgerEntry] = []
        pending = sorted(extra, key=lambda pair: pair[0])
        k = 0
        for i, entry in enumerate(entries):
            while k < len(pending) and pending[k][0] <= i:
                merged.append(pending[k][1])
                k += 1
            merged.append(entry)
        merged.extend(e for _, e in pending[k:])
        return merged

    def _synthetic(
        self, item: dict[str, Any], kind: str, reason: str, meta: dict[str, Any] | None = None
    ) -> Synthetic:
        """Build a synthetic slot, counting its tokens with the session's counter."""
        return Synthetic(
            item=item,
            kind=kind or item_kind(item),
            reason=reason,
            tokens=self._counter.count_item(item),
            text=item_text(item),
            meta=dict(meta or {}),
        )
