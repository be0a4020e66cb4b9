"""Which ctxlab error a SQL backend's exception is: unavailable (retry) or refused.

An application retries :class:`~ctxlab.stores.StoreUnavailableError` and reports
:class:`~ctxlab.stores.StoreError`, so the class must tell the truth. A connection that
went away is unavailability whatever shape the driver gives it:

* SQLAlchemy's ``OperationalError`` / ``InterfaceError`` / ``DisconnectionError``, or any
  error SQLAlchemy marked ``connection_invalidated``;
* a PostgreSQL SQLSTATE of class 08 (connection exception), 57P01-57P03 (the server
  terminated the backend: ``pg_terminate_backend``, ``pg_ctl stop -m fast``, a restart),
  53300 (too many connections), 40001 / 40P01 (serialization failure, deadlock: the
  transaction was rolled back and may simply be retried) or 55P03 (lock not available).
  asyncpg reports a terminated backend as ``AdminShutdownError``, which SQLAlchemy hands
  on as a plain ``DBAPIError``;
* asyncpg's ``InternalClientError`` ("cannot perform operation: another operation is in
  progress"), which a connection left mid-operation by a dropped peer raises;
* ``ConnectionError``, ``OSError``, ``TimeoutError`` anywhere in the chain.

Everything else SQLAlchemy raises (a constraint, a type, a trigger refusing the row) is the
database refusing the operation: :class:`~ctxlab.stores.StoreError`.
"""

from __future__ import annotations

from collections.abc import Iterator

from .base import UNAVAILABLE_HINT, StoreError, StoreUnavailableError

#: SQLSTATE prefixes that mean "the connection or the transaction was lost; retry".
RETRYABLE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53300", "40001", "40P01", "55P03")
#: Driver exception class names that mean the same (matched along the class's MRO).
LOST_CONNECTION_CLASSES = frozenset({
    "InternalClientError", "ConnectionDoesNotExistError", "PostgresConnectionError",
    "InterfaceError", "ConnectionFailureError", "AdminShutdownError", "CrashShutdownError",
    "CannotConnectNowError", "OperationalError",
})

REFUSED = ("The database rejected the operation; its transaction was rolled back, so "
           "nothing was changed by this call.")


def _chain(exc: BaseException) -> Iterator[BaseException]:
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


def lost_connection(exc: BaseException) -> bool:
    """True when ``exc`` (or what it wraps) says the connection or transaction was lost."""
    for error in _chain(exc):
        if getattr(error, "connection_invalidated", False):
            return True
        if isinstance(error, (ConnectionError, OSError, TimeoutError)):
            return True
        code = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
        if isinstance(code, str) and code.startswith(RETRYABLE_SQLSTATES):
            return True
        names = {cls.__name__ for cls in type(error).__mro__}
        if names & LOST_CONNECTION_CLASSES:
            return True
    return False


def translate_sql_error(exc: BaseException) -> StoreError | None:
    """The ctxlab error class (with its hint) for an SQLAlchemy or driver exception, or
    None when ``exc`` is not a database error (it then propagates unchanged)."""
    try:
        from sqlalchemy import exc as sa_exc
    except ImportError:  # pragma: no cover
        return None
    if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError,
                        sa_exc.DisconnectionError, ConnectionError, OSError, TimeoutError)):
        return StoreUnavailableError(UNAVAILABLE_HINT)
    database = isinstance(exc, sa_exc.SQLAlchemyError) or any(
        type(e).__module__.startswith(("asyncpg", "psycopg")) for e in _chain(exc))
    if not database:
        return None
    if lost_connection(exc):
        return StoreUnavailableError(UNAVAILABLE_HINT)
    return StoreError(REFUSED)
