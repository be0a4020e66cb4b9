"""Where a session's raw log and side state live: in memory, in SQLite, in Redis, or in any
Agents SDK session (see :mod:`ctxlab.stores.base` for the design, and
:mod:`ctxlab.stores.registry` for how a ``store=`` argument finds its adapter)."""

from .base import (
    Checkpoint,
    Delta,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
    StoreUnavailableError,
)
from .memory import MemoryLog, MemoryStateStore
from .redis import RedisLog, RedisStateStore
from .registry import (
    StoreAdapter,
    open_store,
    register_store,
    state_store_for,
    store_adapters,
)
from .sdk import SessionLog
from .sqlite import SQLiteLog, SQLiteStateStore, cleanup_idle

__all__ = [
    "Checkpoint",
    "Delta",
    "LogStore",
    "MemoryLog",
    "MemoryStateStore",
    "RedisLog",
    "RedisStateStore",
    "SQLiteLog",
    "SQLiteStateStore",
    "SessionLog",
    "StateStore",
    "StoreAdapter",
    "StoreConflictError",
    "StoreError",
    "StoreUnavailableError",
    "StoredState",
    "cleanup_idle",
    "open_store",
    "register_store",
    "state_store_for",
    "store_adapters",
]

