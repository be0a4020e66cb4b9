"""Pick the adapter for a ``store=`` argument."""

from __future__ import annotations

from typing import Any

from agents.memory import Session, SQLiteSession

from ..core.session_ids import check_session_id
from .base import LogStore, StateStore
from .memory import MemoryLog
from .sdk import SessionLog
from .sqlite import SQLiteLog, SQLiteStateStore


def _module_of(obj: Any) -> str:
    return type(obj).__module__ or ""


def _is_redis_session(store: Any) -> bool:
    if not _module_of(store).startswith("agents.extensions.memory.redis_session"):
        return False
    from agents.extensions.memory.redis_session import RedisSession

    return type(store) is RedisSession


def _is_encrypted_session(store: Any) -> bool:
    if not _module_of(store).startswith("agents.extensions.memory.encrypt_session"):
        return False
    from agents.extensions.memory.encrypt_session import EncryptedSession

    return isinstance(store, EncryptedSession)


def _is_file_sqlite(store: Any, *, exact: bool = True) -> bool:
    kind_ok = type(store) is SQLiteSession if exact else isinstance(store, SQLiteSession)
    return kind_ok and str(store.db_path) != ":memory:"


def state_store_for(store: Any, session_id: str | None = None) -> StateStore | None:
    """A persistent side-state store in the backend of an SDK session, if ctxlab knows it:
    a side table of an SQLite file (also for subclasses such as ``AdvancedSQLiteSession``),
    side keys of a Redis server. For an ``EncryptedSession`` it is the underlying store's,
    encrypted with the session's key."""
    sid = session_id or store.session_id
    if _is_file_sqlite(store, exact=False):
        return SQLiteStateStore(str(store.db_path), sid)
    if _is_redis_session(store):
        from .redis import RedisStateStore

        ttl = getattr(store, "_ttl", None)
        return RedisStateStore(store._redis, sid, key_prefix=store._key_prefix,
                               ttl=float(ttl) if ttl else None)
    if _is_encrypted_session(store):
        from .encrypted import EncryptedStateStore

        inner = state_store_for(store.underlying_session, sid)
        return None if inner is None else EncryptedStateStore(inner, store.cipher)
    return None


def open_store(
    store: Session | LogStore | None,
    session_id: str | None = None,
    *,
    state: StateStore | None = None,
) -> LogStore:
    """The :class:`~ctxlab.stores.base.LogStore` for ``store``.

    * None: an in-memory log (nothing outlives the process; the default);
    * a ``LogStore``: used as it is;
    * an SDK ``SQLiteSession`` on a file or a ``RedisSession``: ctxlab's direct adapters,
      with the side state in the same backend;
    * any other SDK ``Session``: the generic adapter over its public methods, with the side
      state in ``state`` or, for an ``EncryptedSession`` over SQLite or Redis, encrypted in
      the underlying backend (else in memory).

    The session id of a store becomes a storage key, so it is checked with
    :func:`ctxlab.check_session_id`; ``session_id``, if given, must match it.
    """
    if store is None:
        if session_id is None:
            raise ValueError("open_store needs a session_id when no store is given")
        return MemoryLog(session_id)
    if isinstance(store, LogStore):
        log = store
    elif not isinstance(store, Session):
        raise ValueError(
            "store must be an Agents SDK session (SQLiteSession, RedisSession, "
            f"EncryptedSession, ...) or a ctxlab LogStore, got {type(store).__name__}"
        )
    elif state is None and _is_file_sqlite(store):
        log = SQLiteLog(store)
    elif state is None and _is_redis_session(store):
        from .redis import RedisLog

        log = RedisLog(store)
    else:
        log = SessionLog(store, state if state is not None else state_store_for(store))
    check_session_id(log.session_id, what="the store's session_id")
    if session_id is not None and session_id != log.session_id:
        raise ValueError(
            f"session_id {session_id!r} does not match the store's session_id "
            f"{log.session_id!r}; omit session_id or pass the same one"
        )
    return log
