"""A dict-backed store adapter written by following DEVELOPERS.md ("Adding a store"), and
deliberately broken copies of it: the store contract (``store_contract.py``) must pass the
correct one and fail every mutant.

``DictSession`` is an Agents SDK session whose items live in a dict of this process (like a
third-party library's session would live in its own backend); ``DictLog`` and
``DictStateStore`` are its ctxlab adapter. :func:`register` adds the adapter to ctxlab's
registry exactly as a user's package would, so ``open_store`` and every ctxlab session find
it on their own. Each entry of :data:`MUTATIONS` breaks one promise:

* ``cas-ignores-version``: ``compare_and_set`` writes whatever the version is;
* ``lease-always-granted``: ``acquire_lease`` never refuses;
* ``pop-keeps-epoch``: ``pop`` removes the item but does not bump the epoch or version;
* ``truncate-ignores-version``: ``truncate`` rewrites the log whatever the version is;
* ``loses-one-append-in-50``: one append in 50, at random (OS entropy, no seed), is
  acknowledged (the writer's delta shows it) but never stored.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from ctxlab.stores import (
    Checkpoint,
    Delta,
    LogStore,
    StateStore,
    StoreAdapter,
    StoreConflictError,
    StoredState,
    register_store,
    unregister_store,
)

MUTATIONS = ("cas-ignores-version", "lease-always-granted", "pop-keeps-epoch",
             "truncate-ignores-version", "loses-one-append-in-50")

#: The loss of ``loses-one-append-in-50``: unseeded, so no run is reproducible by luck.
LOSS = random.Random()
LOSS_RATE = 1 / 50

#: One "server" per process: session id -> its record (items, state, lease, checkpoints).
SERVER: dict[str, dict[str, Any]] = {}


def _record(session_id: str) -> dict[str, Any]:
    return SERVER.setdefault(session_id, {
        "items": [], "version": 0, "epoch": 0, "data": None,
        "lease": (None, 0.0), "checkpoints": {},
    })


class DictSession:
    """An SDK-protocol session over :data:`SERVER` (what a third-party library would ship)."""

    def __init__(self, session_id: str, mutation: str | None = None):
        self.session_id = session_id
        self.session_settings = None
        self.mutation = mutation

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        items = list(_record(self.session_id)["items"])
        return items if limit is None else items[-limit:] if limit else []

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        _record(self.session_id)["items"].extend(items)

    async def pop_item(self) -> dict[str, Any] | None:
        items = _record(self.session_id)["items"]
        return items.pop() if items else None

    async def clear_session(self) -> None:
        _record(self.session_id)["items"].clear()


class DictStateStore(StateStore):
    kind: ClassVar[str] = "dict"
    persistent: ClassVar[bool] = False

    def __init__(self, session_id: str, mutation: str | None = None):
        self.session_id = session_id
        self.mutation = mutation

    @property
    def _rec(self) -> dict[str, Any]:
        return _record(self.session_id)

    def _state(self) -> StoredState:
        r = self._rec
        return StoredState(r["version"], r["epoch"], r["data"])

    async def load(self) -> StoredState:
        return self._state()

    async def compare_and_set(self, expected_version: int, data: Mapping[str, Any] | None
                              ) -> StoredState | None:
        r = self._rec
        if r["version"] != expected_version and self.mutation != "cas-ignores-version":
            return None
        r["version"] += 1
        r["data"] = None if data is None else dict(data)
        return self._state()

    def bump(self, *, reset: bool = False) -> StoredState:
        r = self._rec
        r["version"] += 1
        r["epoch"] += 1
        if reset:
            r["data"] = None
            r["checkpoints"].clear()
        return self._state()

    async def bump_epoch(self) -> StoredState:
        return self.bump()

    async def reset(self) -> StoredState:
        return self.bump(reset=True)

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        holder, until = self._rec["lease"]
        now = time.monotonic()
        if (self.mutation == "lease-always-granted" or holder in (None, owner)
                or until <= now or (replacing is not None and holder == replacing)):
            self._rec["lease"] = (owner, now + ttl)
            return True
        return False

    async def lease_holder(self) -> str | None:
        holder, until = self._rec["lease"]
        return holder if holder is not None and until > time.monotonic() else None

    async def release_lease(self, owner: str) -> None:
        if self._rec["lease"][0] == owner:
            self._rec["lease"] = (None, 0.0)

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        self._rec["checkpoints"][checkpoint.name] = checkpoint

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        return self._rec["checkpoints"].get(name)

    async def list_checkpoints(self) -> list[Checkpoint]:
        return sorted(self._rec["checkpoints"].values(), key=lambda c: (c.created_at, c.name))

    def for_session(self, session_id: str) -> DictStateStore:
        return DictStateStore(session_id, self.mutation)


class DictLog(LogStore):
    """The log of a :class:`DictSession`: every operation runs without an await inside, so
    it is atomic on the event loop (the dict's "transaction")."""

    kind: ClassVar[str] = "dict"
    persistent: ClassVar[bool] = False

    def __init__(self, session: DictSession, state: StateStore | None = None):
        super().__init__()
        self.sdk_session = session
        self.session_id = session.session_id
        self.mutation = session.mutation
        self.state = state or DictStateStore(self.session_id, self.mutation)
        self._seen = 0
        self._epoch = 0

    @property
    def _rec(self) -> dict[str, Any]:
        return _record(self.session_id)

    def _delta(self, keep: int) -> Delta:
        r = self._rec
        items = r["items"]
        if r["epoch"] != self._epoch:  # a destructive change: the prefix may differ
            keep, self._epoch = 0, r["epoch"]
        keep = min(keep, self._seen, len(items))
        self._seen = len(items)
        return Delta(keep, list(items[keep:]),
                     self._state_delta(StoredState(r["version"], r["epoch"], r["data"])))

    async def _sync(self) -> Delta:
        return self._delta(self._seen)

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        keep = self._seen
        if self.mutation == "loses-one-append-in-50" and LOSS.random() < LOSS_RATE:
            delta = self._delta(keep)  # acknowledged as stored, but never stored
            return Delta(delta.keep, [*delta.items, *items], delta.state)
        self._rec["items"].extend(items)
        return self._delta(keep)

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        items = self._rec["items"]
        if not items:
            return None, self._delta(self._seen)
        item = items.pop()
        if self.mutation != "pop-keeps-epoch":
            self.state.bump()  # type: ignore[attr-defined]
        return item, self._delta(self._seen)

    async def _clear(self) -> Delta:
        self._rec["items"].clear()
        self.state.bump(reset=True)  # type: ignore[attr-defined]
        return self._delta(0)

    async def _truncate(self, length: int, data: Mapping[str, Any] | None,
                        expected_version: int) -> tuple[list[dict[str, Any]], Delta]:
        r = self._rec
        if r["version"] != expected_version and self.mutation != "truncate-ignores-version":
            raise StoreConflictError("the session state changed meanwhile; retry")
        removed = r["items"][length:]
        del r["items"][length:]
        self.state.bump()  # type: ignore[attr-defined]
        r["data"] = None if data is None else dict(data)
        return removed, self._delta(self._seen)

    def reset_cursor(self) -> None:
        self._seen, self._epoch = 0, -1
        self._state_version = None

    def spawn(self, session_id: str) -> DictLog:
        return DictLog(DictSession(session_id, self.mutation))

    def describe(self) -> str:
        return f"dict store{f' ({self.mutation})' if self.mutation else ''}"


def register() -> None:
    """Register the dict adapter, as a user's package would (DEVELOPERS.md step 2)."""
    register_store(StoreAdapter(
        "dict", lambda store: isinstance(store, DictSession),
        open_log=lambda store, state: DictLog(store, state),
        state_for=lambda store, session_id: DictStateStore(session_id, store.mutation),
    ), replace=True)


def unregister() -> None:
    unregister_store("dict")
    SERVER.clear()
