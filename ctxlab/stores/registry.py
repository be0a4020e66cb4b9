"""Which adapter opens a ``store=`` argument: a registry, not a chain of type checks.

Every backend registers a :class:`StoreAdapter`: a predicate that recognises the objects it
handles and a factory that opens a :class:`~ctxlab.stores.base.LogStore` for them. Wrappers
such as the SDK's ``EncryptedSession`` also say where the *side state* of what they wrap
lives (:attr:`StoreAdapter.state_for`), so the state follows the log into the same backend.
:func:`open_store` asks the adapters in priority order; the first that matches opens the
store.

Adding a backend (say, Postgres) is one module plus one registration::

    # ctxlab/stores/postgres.py
    class PostgresLog(LogStore): ...            # the log: _sync/_append/_pop/_clear/_truncate
    class PostgresStateStore(StateStore): ...   # CAS state, lease, checkpoints

    register_store(StoreAdapter(
        name="postgres",
        matches=lambda store: isinstance(store, PostgresSessionOfSomeLibrary),
        open_log=lambda store, state: PostgresLog(store),
        state_for=lambda store, session_id: PostgresStateStore(store.pool, session_id),
    ))

and one test kind in the shared store tests (``tests/store_kinds.py``), so the store
contract (``tests/stores/test_store_contract.py``) runs on it. See
DEVELOPERS.md, "Adding a store".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.memory import Session, SQLiteSession

from ..core.checks import check_registration
from ..core.session_ids import check_session_id
from .base import LogStore, StateStore
from .memory import MemoryLog, MemoryStateStore
from .sdk import SessionLog

logger = logging.getLogger("ctxlab.stores")


@dataclass(frozen=True)
class StoreAdapter:
    """How ctxlab opens one kind of store.

    ``matches(store)`` recognises the objects this adapter handles; ``open_log(store,
    state)`` returns the log store (``state`` is a side-state store the caller passed, or
    None: an adapter whose log must keep its state in its own backend returns
    :func:`generic_log` for a foreign one); ``state_for(store, session_id)``, when given,
    returns a persistent side-state store in the same backend (used for the generic
    adapter and by wrappers). Higher ``priority`` is asked first.
    """

    name: str
    matches: Callable[[Any], bool]
    open_log: Callable[[Any, StateStore | None], LogStore] | None = None
    state_for: Callable[[Any, str], StateStore | None] | None = None
    priority: int = 0
    spawn: Callable[[Any, str], Any] | None = None


_ADAPTERS: list[StoreAdapter] = []


def register_store(adapter: StoreAdapter, *, replace: bool = False) -> None:
    """Make ``open_store`` (and so every session's ``store=``) understand a new backend."""
    check_registration(adapter, StoreAdapter, noun="store adapter",
                       name=getattr(adapter, "name", ""), taken={a.name for a in _ADAPTERS},
                       replace=replace)
    existing = [a for a in _ADAPTERS if a.name == adapter.name]
    for old in existing:
        _ADAPTERS.remove(old)
    _ADAPTERS.append(adapter)
    _ADAPTERS.sort(key=lambda a: -a.priority)


def unregister_store(name: str) -> bool:
    """Remove the adapter called ``name``; True if there was one."""
    found = [a for a in _ADAPTERS if a.name == name]
    for adapter in found:
        _ADAPTERS.remove(adapter)
    return bool(found)


def store_adapters() -> list[StoreAdapter]:
    """The registered adapters, in the order they are asked."""
    return list(_ADAPTERS)


def _adapter_for(store: Any) -> StoreAdapter | None:
    for adapter in _ADAPTERS:
        try:
            if adapter.matches(store):
                return adapter
        except Exception:  # a predicate must not break the others
            logger.exception("store adapter %r failed to inspect %r", adapter.name, store)
    return None


def state_store_for(store: Any, session_id: str | None = None) -> StateStore | None:
    """A persistent side-state store in the backend of ``store``, if an adapter knows one."""
    adapter = _adapter_for(store)
    if adapter is None or adapter.state_for is None:
        return None
    return adapter.state_for(store, session_id or store.session_id)


def open_store(
    store: Session | LogStore | None,
    session_id: str | None = None,
    *,
    state: StateStore | None = None,
) -> LogStore:
    """The :class:`~ctxlab.stores.base.LogStore` for ``store``.

    * None: an in-memory log (nothing outlives the process; the default);
    * a ``LogStore``: used as it is;
    * an object a registered adapter recognises (an SDK ``SQLiteSession`` on a file, a
      ``RedisSession``, an ``EncryptedSession``, a ``SQLAlchemySession``, ...): its adapter;
    * any other SDK ``Session``: the generic adapter over its public methods, with the side
      state in ``state`` (else in memory, with a warning: summaries then do not persist).

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
    else:
        adapter = _adapter_for(store)
        if adapter is not None and adapter.open_log is not None:
            log = adapter.open_log(store, state)
        else:
            log = generic_log(store, state, adapter)
    check_session_id(log.session_id, what="the store's session_id")
    if session_id is not None and session_id != log.session_id:
        raise ValueError(
            f"session_id {session_id!r} does not match the store's session_id "
            f"{log.session_id!r}; omit session_id or pass the same one"
        )
    return log


def generic_log(store: Any, state: StateStore | None = None,
                adapter: StoreAdapter | None = None) -> LogStore:
    """The log of any SDK session through its public methods (:class:`SessionLog`), with the
    side state in ``state``, else where ``adapter`` keeps it, else in memory (with a
    warning: summaries then do not outlive the process)."""
    side = state
    if side is None and adapter is not None and adapter.state_for is not None:
        side = adapter.state_for(store, store.session_id)
    if side is None:
        logger.warning(
            "ctxlab has no persistent side-state store for a %s: the strategy's "
            "state (summaries, checkpoints) of session %r is kept in this process "
            "only; pass state=... to open_store, or register a StoreAdapter",
            type(store).__name__, store.session_id)
        side = MemoryStateStore(store.session_id)
    return SessionLog(store, side, spawn=adapter.spawn if adapter else None)


# ---------------------------------------------------------------------------- built-ins


def _module_is(obj: Any, prefix: str) -> bool:
    return (type(obj).__module__ or "").startswith(prefix)


def _file_sqlite(store: Any) -> bool:
    return isinstance(store, SQLiteSession) and str(store.db_path) != ":memory:"


def _sqlite_log(store: Any, state: StateStore | None) -> LogStore:
    from .sqlite import SQLiteLog

    if state is not None:  # the caller keeps the side state elsewhere: the generic path
        return SessionLog(store, state)

    if type(store) is not SQLiteSession:  # a subclass (AdvancedSQLiteSession) has its own
        return SessionLog(store, _sqlite_state(store, store.session_id))  # tables: generic
    return SQLiteLog(store)


def _sqlite_state(store: Any, session_id: str) -> StateStore:
    from .sqlite import SQLiteStateStore

    return SQLiteStateStore(str(store.db_path), session_id)


def _is_redis(store: Any) -> bool:
    if not _module_is(store, "agents.extensions.memory.redis_session"):
        return False
    from agents.extensions.memory.redis_session import RedisSession

    return type(store) is RedisSession


def _redis_log(store: Any, state: StateStore | None) -> LogStore:
    from .redis import RedisLog

    if state is not None:  # the caller keeps the side state elsewhere: the generic path
        return SessionLog(store, state)

    return RedisLog(store)


def _redis_state(store: Any, session_id: str) -> StateStore:
    from .redis import RedisStateStore, redis_session_config

    client, prefix, ttl = redis_session_config(store)
    return RedisStateStore(client, session_id, key_prefix=prefix, ttl=ttl)


def _is_redis_store(store: Any) -> bool:
    from .redis_store import RedisStore

    return isinstance(store, RedisStore)


def _redis_store_log(store: Any, state: StateStore | None) -> LogStore:
    if state is not None:  # the caller keeps the side state elsewhere: the generic path
        return SessionLog(store, state)
    return store.log()  # type: ignore[no-any-return]


def _redis_store_state(store: Any, session_id: str) -> StateStore:
    return store.for_session(session_id).log().state  # type: ignore[no-any-return]


def _is_encrypted(store: Any) -> bool:
    if not _module_is(store, "agents.extensions.memory.encrypt_session"):
        return False
    from agents.extensions.memory.encrypt_session import EncryptedSession

    return isinstance(store, EncryptedSession)


def _encrypted_log(store: Any, state: StateStore | None) -> LogStore:
    from .encrypted import EncryptedLog

    # the underlying session's own log (one transaction per operation), encrypted on top
    return EncryptedLog(store, open_store(store.underlying_session, state=state))


def _encrypted_state(store: Any, session_id: str) -> StateStore | None:
    from .encrypted import EncryptedStateStore

    inner = state_store_for(store.underlying_session, session_id)
    return None if inner is None else EncryptedStateStore(inner, store.cipher)


def _is_sqlalchemy(store: Any) -> bool:
    if not _module_is(store, "agents.extensions.memory.sqlalchemy_session"):
        return False
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

    return isinstance(store, SQLAlchemySession)


def _sqlalchemy_spawn(store: Any, session_id: str) -> Any:
    return type(store)(session_id, engine=store.engine, create_tables=True)


def _sqlalchemy_log(store: Any, state: StateStore | None) -> LogStore:
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

    from .sqlalchemy_log import SQLAlchemyLog

    own_format = all(getattr(type(store), name) is getattr(SQLAlchemySession, name)
                     for name in ("_serialize_item", "_deserialize_item"))
    if state is not None or not own_format:  # a foreign state, or items in its own format
        return SessionLog(store, state or _sqlalchemy_state(store, store.session_id),
                          spawn=_sqlalchemy_spawn)
    return SQLAlchemyLog(store)


def _sqlalchemy_state(store: Any, session_id: str) -> StateStore:
    from .sqlalchemy import SQLAlchemyStateStore

    return SQLAlchemyStateStore(store.engine, session_id)


for _adapter in (
    StoreAdapter("sqlite", _file_sqlite, _sqlite_log, _sqlite_state, priority=10),
    StoreAdapter("redis", _is_redis, _redis_log, _redis_state, priority=10),
    StoreAdapter("redis-store", _is_redis_store, _redis_store_log, _redis_store_state,
                 priority=10, spawn=lambda store, session_id: store.for_session(session_id)),
    StoreAdapter("encrypted", _is_encrypted, _encrypted_log, _encrypted_state, priority=20),
    StoreAdapter("sqlalchemy", _is_sqlalchemy, _sqlalchemy_log, _sqlalchemy_state,
                 priority=10, spawn=_sqlalchemy_spawn),
):
    register_store(_adapter)
