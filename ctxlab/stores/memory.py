"""The default store: the raw log and side state live in this process only (as before)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .base import (
    Checkpoint,
    Delta,
    Lease,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
)


class MemoryStateStore(StateStore):
    """Side state in a Python object; lost with the process."""

    kind: ClassVar[str] = "memory"
    persistent: ClassVar[bool] = False

    def __init__(self, session_id: str):
        self.session_id = session_id
        self._state = StoredState()
        self._lease = Lease()
        self._checkpoints: dict[str, Checkpoint] = {}

    async def load(self) -> StoredState:
        return self._state

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        if self._state.version != expected_version:
            return None
        self._state = StoredState(self._state.version + 1, self._state.epoch,
                                  None if data is None else dict(data))
        return self._state

    async def bump_epoch(self) -> StoredState:
        self._state = StoredState(self._state.version + 1, self._state.epoch + 1,
                                  self._state.data)
        return self._state

    async def reset(self) -> StoredState:
        self._checkpoints.clear()
        self._state = StoredState(self._state.version + 1, self._state.epoch + 1, None)
        return self._state

    def _replace(self, data: Mapping[str, Any] | None) -> StoredState:
        self._state = StoredState(self._state.version + 1, self._state.epoch + 1,
                                  None if data is None else dict(data))
        return self._state

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        return self._lease.acquire(owner, ttl, replacing)

    async def lease_holder(self) -> str | None:
        return self._lease.holder()

    async def release_lease(self, owner: str) -> None:
        self._lease.release(owner)

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        self._checkpoints[checkpoint.name] = checkpoint

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        return self._checkpoints.get(name)

    async def list_checkpoints(self) -> list[Checkpoint]:
        return sorted(self._checkpoints.values(), key=lambda c: c.created_at)

    def for_session(self, session_id: str) -> MemoryStateStore:
        return MemoryStateStore(session_id)


class MemoryLog(LogStore):
    """The raw log in this process: what ctxlab sessions did before stores existed.

    It holds references to the same (never mutated) item dicts as the session's index, so
    it costs a list of pointers, and every operation completes without I/O.
    """

    kind: ClassVar[str] = "memory"
    persistent: ClassVar[bool] = False

    def __init__(self, session_id: str, state: MemoryStateStore | None = None):
        super().__init__()
        self.session_id = session_id
        self.state: MemoryStateStore = state or MemoryStateStore(session_id)
        self._items: list[dict[str, Any]] = []
        self._state_version = 0

    async def _sync(self) -> Delta:
        return Delta(len(self._items), [], self._state_delta(self.state._state))

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        keep = len(self._items)
        self._items.extend(items)
        return Delta(keep, items)

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        if not self._items:
            return None, Delta(0, [])
        item = self._items.pop()
        state = await self.state.bump_epoch()
        return item, Delta(len(self._items), [], self._state_delta(state))

    async def _clear(self) -> Delta:
        self._items.clear()
        state = await self.state.reset()
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        if self.state._state.version != expected_version:
            raise StoreConflictError("the session state changed meanwhile; retry")
        removed = self._items[length:]
        del self._items[length:]
        state = self.state._replace(data)
        return removed, Delta(len(self._items), [], self._state_delta(state))

    def reset_cursor(self) -> None:
        raise StoreError("an in-memory log is its own index; it cannot be re-read")

    def spawn(self, session_id: str) -> MemoryLog:
        return MemoryLog(session_id)

    def describe(self) -> str:
        return "in-memory store"
