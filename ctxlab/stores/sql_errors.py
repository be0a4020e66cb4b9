"""Which ctxlab error a SQL backend's exception is: unavailable (retry) or refused.

An application retries :class:`~ctxlab.stores.StoreUnavailableError` and reports
:class:`~ctxlab.stores.StoreError`, so the class must tell the truth. The rules (a lost
connection, a terminated backend, a deadlock or a serialization failure is unavailability;
a constraint, a value too long, a permission, a read-only database is a refusal) live in
:mod:`ctxlab.core.backend_errors`, shared with the record stores (:mod:`ctxlab.records`).
"""

from __future__ import annotations

from ..core.backend_errors import (
    LOST_CONNECTION_CLASSES,
    RETRYABLE_SQLSTATES,
    classify_backend_error,
    lost_connection,
)
from .base import UNAVAILABLE_HINT, StoreError, StoreUnavailableError

REFUSED = ("The database rejected the operation; its transaction was rolled back, so "
           "nothing was changed by this call; retrying will not help.")


def translate_sql_error(exc: BaseException) -> StoreError | None:
    """The ctxlab error class (with its hint) for an SQLAlchemy or driver exception, or
    None when ``exc`` is not a database error (it then propagates unchanged)."""
    kind = classify_backend_error(exc)
    if kind is None:
        return None
    if kind == "unavailable":
        return StoreUnavailableError(UNAVAILABLE_HINT)
    return StoreError(REFUSED)


__all__ = ["LOST_CONNECTION_CLASSES", "REFUSED", "RETRYABLE_SQLSTATES", "lost_connection",
           "translate_sql_error"]
