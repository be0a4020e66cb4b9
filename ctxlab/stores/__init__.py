"""Where a session's raw log and side state live: in memory, in SQLite, in Redis, or in any
Agents SDK session (see :mod:`ctxlab.stores.base` for the design)."""

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
from .open import open_store, state_store_for
from .redis import RedisLog, RedisStateStore
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
    "StoreConflictError",
    "StoreError",
    "StoreUnavailableError",
    "StoredState",
    "cleanup_idle",
    "open_store",
    "state_store_for",
]

