"""Where a session's raw log and side state live: in memory, in SQLite, in Redis (a server or
a cluster: :class:`RedisStore`), in PostgreSQL or any SQL database, or in any
Agents SDK session (see :mod:`ctxlab.stores.base` for the design, and
:mod:`ctxlab.stores.registry` for how a ``store=`` argument finds its adapter)."""

from .base import (
    Checkpoint,
    Delta,
    Ends,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
    StoreUnavailableError,
)
from .memory import MemoryLog, MemoryStateStore
from .native import register_native_store
from .redis import RedisLog, RedisStateStore, StoreNotDurableError
from .redis_store import RedisStore
from .registry import (
    StoreAdapter,
    open_store,
    register_store,
    state_store_for,
    store_adapters,
    unregister_store,
)
from .sdk import SessionLog
from .sqlite import SQLiteLog, SQLiteStateStore, cleanup_idle

__all__ = [
    "Checkpoint",
    "Delta",
    "Ends",
    "LogStore",
    "MemoryLog",
    "MemoryStateStore",
    "RedisLog",
    "RedisStateStore",
    "RedisStore",
    "SQLiteLog",
    "SQLiteStateStore",
    "SessionLog",
    "StateStore",
    "StoreAdapter",
    "StoreConflictError",
    "StoreError",
    "StoreNotDurableError",
    "StoreUnavailableError",
    "StoredState",
    "cleanup_idle",
    "open_store",
    "register_native_store",
    "register_store",
    "state_store_for",
    "store_adapters",
    "unregister_store",
]

