"""Is a backend's exception unavailability (retry) or a refusal (retrying will not help)?

One classifier for every store that ctxlab keeps data in: the session stores
(:mod:`ctxlab.stores`: ``StoreUnavailableError`` vs ``StoreError``) and the record stores
(:mod:`ctxlab.records`: ``RecordsUnavailableError`` vs ``RecordsRefusedError``). An
application retries the first and reports the second, so the class must tell the truth.

Unavailable (the connection or the transaction was lost; the same call may succeed later):

* SQLAlchemy's ``OperationalError`` / ``InterfaceError`` / ``DisconnectionError``, or any
  error SQLAlchemy marked ``connection_invalidated``, unless the database's own code (below)
  says it refused the operation;
* a PostgreSQL SQLSTATE of class 08 (connection exception), 57P01-57P03 (the server
  terminated the backend: ``pg_terminate_backend``, ``pg_ctl stop -m fast``, a restart),
  53300 (too many connections), 40001 / 40P01 (serialization failure, deadlock: the
  transaction was rolled back and may simply be retried) or 55P03 (lock not available).
  asyncpg reports a terminated backend as ``AdminShutdownError``, which SQLAlchemy hands
  on as a plain ``DBAPIError``;
* asyncpg's ``InternalClientError`` ("cannot perform operation: another operation is in
  progress"), which a connection left mid-operation by a dropped peer raises;
* SQLite busy or locked, an I/O error, a file it cannot open;
* Redis: a connection error or timeout, a cluster slot that is moving or down, a replica
  that answers READONLY during a failover;
* ``ConnectionError``, ``OSError``, ``TimeoutError`` anywhere in the chain.

Refused (the database rejected this operation; its transaction was rolled back): any other
SQLSTATE (23xxx constraint violations, 22001 value too long, 22P02 bad data, 42501
permission denied, 25006 read-only transaction, 53100 disk full), SQLite's constraint,
read-only, disk-full and damaged-file codes, any other database error, and any other Redis
error (out of memory, a missing permission, a script error).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Literal

#: The two answers of :func:`classify_backend_error`.
Failure = Literal["unavailable", "refused"]

#: SQLSTATE prefixes that mean "the connection or the transaction was lost; retry".
RETRYABLE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53300", "40001", "40P01", "55P03")
#: Driver exception class names that mean the same (matched along the class's MRO).
LOST_CONNECTION_CLASSES = frozenset({
    "InternalClientError", "ConnectionDoesNotExistError", "PostgresConnectionError",
    "InterfaceError", "ConnectionFailureError", "AdminShutdownError", "CrashShutdownError",
    "CannotConnectNowError", "OperationalError",
})
#: SQLite primary result codes that mean "try again later" (every other code a database
#: refusal: SQLITE_CONSTRAINT, SQLITE_READONLY, SQLITE_FULL, SQLITE_CORRUPT, SQLITE_ERROR...).
RETRYABLE_SQLITE = frozenset({
    "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_PROTOCOL",
    "SQLITE_NOMEM", "SQLITE_INTERRUPT",
})
#: Redis exception class names that mean a server or a slot is down or moving.
REDIS_UNREACHABLE = frozenset({
    "ConnectionError", "TimeoutError", "ClusterError", "RedisClusterException",
    "TryAgainError", "AskError", "ReadOnlyError", "BusyLoadingError", "ClusterDownError",
    "MasterDownError",
})


def chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, the driver error SQLAlchemy wraps (``orig``), and their causes."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        todo += [getattr(current, "orig", None), current.__cause__, current.__context__]


def _sqlstate(error: BaseException) -> str | None:
    """The SQLSTATE a PostgreSQL driver (psycopg, SQLAlchemy's asyncpg adapter) reports."""
    code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    return code if isinstance(code, str) and len(code) == 5 else None


def _sqlite_code(error: BaseException) -> str | None:
    name = getattr(error, "sqlite_errorname", None)
    if not isinstance(name, str) or not name.startswith("SQLITE_"):
        return None
    parts = name.split("_")  # SQLITE_READONLY_DBMOVED -> SQLITE_READONLY
    return "_".join(parts[:2])


def _database_code(exc: BaseException) -> Failure | None:
    """What the database itself said, when it said something (a SQLSTATE, an SQLite result
    code) and the connection was not reported lost."""
    for error in chain(exc):
        code = _sqlstate(error)
        if code is not None:
            return "unavailable" if code.startswith(RETRYABLE_SQLSTATES) else "refused"
        sqlite_code = _sqlite_code(error)
        if sqlite_code is not None:
            return "unavailable" if sqlite_code in RETRYABLE_SQLITE else "refused"
    return None


def lost_connection(exc: BaseException) -> bool:
    """True when ``exc`` (or what it wraps) says the connection or transaction was lost."""
    for error in chain(exc):
        if getattr(error, "connection_invalidated", False):
            return True
        if isinstance(error, (ConnectionError, OSError, TimeoutError)):
            return True
        code = _sqlstate(error)
        if code is not None and code.startswith(RETRYABLE_SQLSTATES):
            return True
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & LOST_CONNECTION_CLASSES and _database_code(error) != "refused":
            return True
    return False


def _redis_failure(exc: BaseException) -> Failure | None:
    if not type(exc).__module__.startswith("redis"):
        return None
    names = {cls.__name__ for cls in type(exc).__mro__}
    return "unavailable" if names & REDIS_UNREACHABLE else "refused"


#: A unique key already taken: PostgreSQL's SQLSTATE, SQLite's extended codes, MySQL's errno.
UNIQUE_SQLSTATE = "23505"
UNIQUE_SQLITE = frozenset({"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"})
DUPLICATE_MYSQL = 1062


def unique_violation(exc: BaseException | None) -> bool:
    """Whether ``exc`` says a unique key was already taken (another writer created the same
    row first: read again and retry), as opposed to a refusal of the write itself (a check,
    a trigger, a NULL: retrying cannot help)."""
    for error in chain(exc) if exc is not None else ():
        code = _sqlstate(error)
        if code is not None:
            return code == UNIQUE_SQLSTATE
        name = getattr(error, "sqlite_errorname", None)
        if isinstance(name, str):
            return name in UNIQUE_SQLITE
        args = getattr(error, "args", ())
        if type(error).__module__.startswith(("pymysql", "aiomysql", "MySQLdb")) and args:
            return args[0] == DUPLICATE_MYSQL
        if isinstance(error, sqlite3.IntegrityError):  # Python < 3.11: no sqlite_errorname
            return "UNIQUE constraint failed" in str(error)
    return False


def _is_database_error(exc: BaseException) -> bool:
    return any(isinstance(e, sqlite3.Error) or type(e).__module__.startswith(
        ("sqlalchemy", "asyncpg", "psycopg", "aiosqlite", "pymysql", "aiomysql"))
        for e in chain(exc))


def classify_backend_error(exc: BaseException) -> Failure | None:
    """``"unavailable"`` (retrying is right), ``"refused"`` (the backend rejected the
    operation: retrying will not help), or None when ``exc`` is not a backend's error (it
    should then propagate unchanged). See the module doc for the rules."""
    redis = _redis_failure(exc)
    if redis is not None:
        return redis
    if getattr(exc, "connection_invalidated", False):
        return "unavailable"
    said = _database_code(exc)
    if said is not None:
        return said
    if isinstance(exc, (ConnectionError, OSError, TimeoutError)):
        return "unavailable"
    if not _is_database_error(exc):
        return None
    return "unavailable" if lost_connection(exc) else "refused"


__all__ = [
    "LOST_CONNECTION_CLASSES",
    "RETRYABLE_SQLITE",
    "RETRYABLE_SQLSTATES",
    "Failure",
    "chain",
    "classify_backend_error",
    "lost_connection",
    "unique_violation",
]
