"""Checkpoints: remember a session's log and strategy state, return to it, or branch from it.

Checkpoints are kept beside the log in the store (so they persist with SQLite and Redis) and
name the prefix they saw by its digest, so a checkpoint whose items were rewritten since can
never be restored by mistake.
"""

from __future__ import annotations

import time
from typing import Any, TypeVar

from agents.memory import Session

from ..core.items import clone
from ..core.session_ids import check_session_id, new_session_id
from ..stores.base import Checkpoint, Delta, LogStore, StoreConflictError
from ..stores.registry import open_store

#: Where a session's raw log lives: None (memory), any Agents SDK session, or a LogStore.
StoreArg = Session | LogStore | None
S = TypeVar("S", bound="CheckpointsMixin")


class CheckpointsMixin:
    """``checkpoint``, ``checkpoints``, ``rollback`` and ``branch`` for
    :class:`~ctxlab.sessions.base.MemorySession` (which supplies the index, store and lock)."""

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
                        cp.length, cp.state, expected_version=self._stored.version)
                except StoreConflictError:
                    continue  # someone changed the state meanwhile: catch up and retry
                await self._apply_delta(delta)
                self._changed()
                return [clone(item) for item in removed]
        raise StoreConflictError(f"session {self.session_id!r} kept changing during rollback "
                                 f"to {name!r}; try again")

    async def branch(
        self: S, name: str, session_id: str | None = None, *, store: StoreArg = None
    ) -> S:
        """A new session, with the same settings (the strategy's ``params`` as they are now,
        and the session's options), that starts from checkpoint ``name``.

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
                await child._apply_delta(await target.append(items))
            if cp.state is not None:
                saved = await target.save_state(child._stored.version, cp.state)
                if saved is None:
                    raise StoreConflictError(f"branch target {child.session_id!r} changed "
                                             "while it was created; try again")
                await child._apply_delta(Delta(len(child._log), [], saved))
        return child

    def _spawn_like(self: S, store: LogStore) -> S:
        """A session with this one's settings over ``store``: the strategy's ``params``
        object whole (so no parameter can be forgotten) and :meth:`_options`."""
        kwargs = self._options()
        params = getattr(self, "params", None)
        if params is not None:
            kwargs["params"] = params
        return type(self)(store=store, **kwargs)  # type: ignore[call-arg]
