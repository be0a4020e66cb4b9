"""Versioned JSON records per user, with compare-and-swap writes and real deletion.

Memory that outlives one conversation (:mod:`ctxlab.longterm`) and the structured state that
several agents share (:mod:`ctxlab.hub`) need the same few operations from a backend:

* :meth:`RecordStore.get`: a record of one namespace (a user id) by key, with its
  ``version`` (the compare-and-swap token) and the namespace's ``epoch``;
* :meth:`RecordStore.put`: write it only if its version is still ``expected_version``
  (0: "it does not exist yet"), and, when asked, only if the namespace was not deleted since
  (``expected_epoch``); otherwise :class:`RecordConflictError` and nothing is written;
* :meth:`RecordStore.delete_namespace`: delete every record of a user, in one transaction.

Versions are drawn from one counter per namespace that survives deletion, so a version is
never reused (a writer that read a record before it was deleted can never overwrite the new
one by accident), and a deletion bumps the namespace's ``epoch``, so work that started before
a deletion (a background consolidation of the user's last session) can ask to be refused
afterwards. What stays behind after a deletion is only that counter row, keyed by the
SHA-256 of the user id: no record, no key name, no user id.

A backend failure is :class:`RecordsUnavailableError` when the connection or the transaction
was lost (retry when the backend is back) and :class:`RecordsRefusedError` when the backend
refused the operation (a constraint, a value too long, a permission, a read-only or full
database: retrying will not help), by the session stores' rules
(:mod:`ctxlab.core.backend_errors`); either way nothing was half-written.

User ids and keys follow :func:`ctxlab.check_session_id`'s rules (letters, digits, ``_``,
``.``, ``-``; no personal data such as an email address): they become storage keys.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.backend_errors import classify_backend_error
from ..core.error_text import cause_text
from ..core.session_ids import InvalidSessionIdError, check_session_id


class RecordError(RuntimeError):
    """A record store operation failed (the message names the store, user and operation)."""

    #: The backend's own exception, for code (its text may quote stored data: it is never
    #: part of the message nor chained into the traceback).
    backend_error: BaseException | None = None


class RecordsUnavailableError(RecordError):
    """The backend could not be reached. Nothing was half-written: the operation happened
    completely or not at all; retry when the backend is back."""


class RecordsRefusedError(RecordError):
    """The backend refused the operation (a constraint, a value too long, a permission, a
    read-only or full database). Nothing was written: its transaction was rolled back.
    Retrying will not help; the message names the store, the operation and the cause, and
    what to check."""


class RecordConflictError(RecordError):
    """A compare-and-swap write lost: the record (or the user's records) changed since it
    was read. Nothing was written. Read again, re-apply the change, and retry."""

    def __init__(self, message: str, *, namespace: str, key: str, expected: int,
                 actual: int, deleted: bool = False):
        super().__init__(message)
        self.namespace = namespace
        self.key = key
        self.expected = expected
        self.actual = actual
        self.deleted = deleted


class UnknownUserError(RecordError, LookupError):
    """Nothing is stored for this user id (the message says where it looked)."""


class InvalidUserIdError(InvalidSessionIdError):
    """A user id (or record key) cannot be used as a storage key (the message says why)."""


@dataclass(frozen=True)
class Versioned:
    """A record as read: ``data`` (None when absent), its ``version`` (0 when absent) and
    the ``epoch`` of its namespace (how many times the user's records were deleted)."""

    version: int = 0
    epoch: int = 0
    data: dict[str, Any] | None = None

    @property
    def exists(self) -> bool:
        return self.data is not None


def check_user_id(value: Any, *, what: str = "user_id") -> str:
    """``value`` if it is safe as a storage key (see :func:`ctxlab.check_session_id`)."""
    try:
        return check_session_id(value, what=what)
    except InvalidSessionIdError as exc:
        raise InvalidUserIdError(str(exc)) from None


def namespace_hash(namespace: str) -> str:
    """The key a namespace's rows are stored under: 32 hex digits of its SHA-256."""
    return hashlib.sha256(namespace.encode("utf-8")).hexdigest()[:32]


def encode(data: Mapping[str, Any], *, where: str) -> str:
    """``data`` as compact JSON; ValueError naming ``where`` when it is not JSON data."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: a record must be a dict, got {type(data).__name__}")
    try:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                          allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: the record is not JSON data ({cause_text(exc)}); "
                         "nothing was written") from None
    return text


def decode(text: str | bytes | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else None


def check_version(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be an integer >= 0, got {value!r}")
    return value


def conflict(store: RecordStore, namespace: str, key: str, expected: int, actual: int,
             *, deleted: bool = False) -> RecordConflictError:
    """The error for a lost compare-and-swap (``deleted``: the user's records were deleted
    since they were read)."""
    if deleted:
        reason = (f"the records of user {namespace!r} were deleted after this write read "
                  "them, so it is refused (a deletion cancels writes that started before it)")
    elif expected == 0:
        reason = (f"record {key!r} of user {namespace!r} already exists (version {actual}); "
                  "this write expected to create it")
    elif actual == 0:
        reason = f"record {key!r} of user {namespace!r} no longer exists (expected version " \
                 f"{expected})"
    else:
        reason = (f"record {key!r} of user {namespace!r} is at version {actual}, not "
                  f"{expected}: someone else wrote it first")
    return RecordConflictError(
        f"{store.describe()}: {reason}. Nothing was written; read it again and retry.",
        namespace=namespace, key=key, expected=expected, actual=actual, deleted=deleted)


def check_expected(store: RecordStore, namespace: str, key: str, expected_version: int,
                   expected_epoch: int | None, current: int, epoch: int) -> None:
    """The compare-and-swap test of a write, inside the backend's transaction: raise the
    :func:`conflict` when the user's records were deleted since (``expected_epoch``) or the
    record is no longer at ``expected_version`` (``current``: its version now, 0 if absent)."""
    if expected_epoch is not None and expected_epoch != epoch:
        raise conflict(store, namespace, key, expected_version, current, deleted=True)
    if current != expected_version:
        raise conflict(store, namespace, key, expected_version, current)


class RecordStore(ABC):
    """Versioned JSON records per namespace (see the module docstring)."""

    #: Short backend name: "memory", "sqlite", "redis", "sqlalchemy".
    kind: ClassVar[str] = "abstract"
    #: True when the records outlive the process.
    persistent: ClassVar[bool] = False

    # -- public API ---------------------------------------------------------------------
    async def get(self, namespace: str, key: str) -> Versioned:
        """Record ``key`` of user ``namespace`` (version 0 and no data when absent)."""
        check_user_id(namespace)
        check_user_id(key, what="record key")
        return await self._get(namespace, key)

    async def put(self, namespace: str, key: str, data: Mapping[str, Any], *,
                  expected_version: int, expected_epoch: int | None = None) -> Versioned:
        """Write ``data`` if the record is still at ``expected_version`` (0: absent) and,
        when ``expected_epoch`` is given, the user's records were not deleted since.

        Raises :class:`RecordConflictError` (nothing written) when either changed.
        """
        check_user_id(namespace)
        check_user_id(key, what="record key")
        check_version(expected_version, "expected_version")
        if expected_epoch is not None:
            check_version(expected_epoch, "expected_epoch")
        text = encode(data, where=f"record {key!r} of user {namespace!r}")
        return await self._put(namespace, key, text, expected_version, expected_epoch)

    async def delete_namespace(self, namespace: str) -> int:
        """Delete every record of user ``namespace`` in one transaction; returns how many
        there were (0: none; the epoch is bumped all the same)."""
        check_user_id(namespace)
        return await self._delete_namespace(namespace)

    async def keys(self, namespace: str) -> list[str]:
        """The record keys of user ``namespace``, sorted."""
        check_user_id(namespace)
        return sorted(await self._keys(namespace))

    async def namespaces(self) -> list[str]:
        """Every user id that has at least one record, sorted."""
        return sorted(await self._namespaces())

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections this store opened."""

    def describe(self) -> str:
        """Where the records live, for messages."""
        return self.kind

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"

    # -- for implementations ------------------------------------------------------------
    @abstractmethod
    async def _get(self, namespace: str, key: str) -> Versioned: ...

    @abstractmethod
    async def _put(self, namespace: str, key: str, text: str, expected_version: int,
                   expected_epoch: int | None) -> Versioned: ...

    @abstractmethod
    async def _delete_namespace(self, namespace: str) -> int: ...

    @abstractmethod
    async def _keys(self, namespace: str) -> list[str]: ...

    @abstractmethod
    async def _namespaces(self) -> list[str]: ...


UNAVAILABLE = ("Nothing was half-written: the operation happened completely or not at all. "
               "Retry when the backend is back.")
REFUSED = ("Nothing was written: the backend rolled the operation back. Retrying will not "
           "help: check the store's table or keys (a constraint, a column's type or size), "
           "the account's permissions and whether the database is read-only or full.")


def backend_failure(store: RecordStore, what: str, exc: BaseException) -> RecordError:
    """The error for a backend failure during ``what``: :class:`RecordsUnavailableError`
    when the connection or the transaction was lost (retry), :class:`RecordsRefusedError`
    when the backend refused the operation (retrying will not help), as
    :func:`ctxlab.core.backend_errors.classify_backend_error` (the session stores' rules)
    says. The message names the store, the operation and the cause without stored content
    (:func:`~ctxlab.core.error_text.cause_text`: a driver's text may quote the SQL
    parameters, the record's JSON). The backend's exception is kept as ``backend_error``;
    raise this ``from None`` so it stays out of the traceback too."""
    refused = classify_backend_error(exc) == "refused"
    kind = RecordsRefusedError if refused else RecordsUnavailableError
    verb = "refused to" if refused else "could not"
    error = kind(f"{store.describe()} {verb} {what}: {cause_text(exc)}. "
                 f"{REFUSED if refused else UNAVAILABLE}")
    error.backend_error = exc
    return error

