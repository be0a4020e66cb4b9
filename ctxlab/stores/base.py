"""What a ctxlab session needs from a storage backend.

A ctxlab memory session keeps an in-memory index of the raw log (:class:`ctxlab.core.rawlog.RawLog`)
so that views are cheap to compute. With a persistent store the log itself lives in the
backend (an Agents SDK session: ``SQLiteSession`` on a file, ``RedisSession``, ...), where
other processes may append to it too. Two small abstractions connect the two:

* :class:`LogStore`, the raw log: every operation returns a :class:`Delta` that tells the
  index how to catch up with the store (keep the first ``keep`` items it has, then append
  ``items``), so items written by other processes are noticed before a view is computed and
  only new items are fetched;
* :class:`StateStore`, the side state of a session kept beside its log in the same backend
  and keyed by the same session id: the strategy's state (the summary record and its
  generation), leases, checkpoints. Writes are compare-and-swap on a version
  (:meth:`StateStore.compare_and_set`); every destructive change of the log (pop, clear,
  truncate) bumps that version in the same transaction, so a summary computed from a prefix
  that has changed since can never be applied.

Errors: a backend that cannot be reached raises :class:`StoreUnavailableError`. Every write
is one transaction, so it happened completely or not at all; the next call resynchronizes.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from ..core.error_text import cause_text
from ..core.items import MAX_DEPTH, invalid_entry, nesting_exceeds


class StoreError(RuntimeError):
    """A store operation failed. The message names the store, the session, the operation
    and the cause, never stored content; the backend's own exception (whose text may quote
    what was stored, e.g. SQL parameters) is kept as :attr:`backend_error`, out of the
    message and of the traceback's text."""

    #: The backend exception this error translates, if any (for code; never printed).
    backend_error: BaseException | None = None


class StoreUnavailableError(StoreError):
    """The backend could not be reached or stayed locked. Nothing was half-written: the
    operation either happened completely or not at all. Retry when the backend is back;
    the session resynchronizes from the store on its next call."""


class StoreConflictError(StoreError):
    """The store changed in a way that makes the operation unsafe (for example the log was
    rewritten since a checkpoint was taken)."""


@dataclass(frozen=True)
class StoredState:
    """The side state of one session as read from a :class:`StateStore`.

    ``version`` grows on every write of the state and on every destructive change of the
    log; it is the compare-and-swap token. ``epoch`` grows on destructive log changes only
    (a summary records the epoch at which it was checked against the log). ``data`` is the
    strategy's JSON state, None when nothing was saved.
    """

    version: int = 0
    epoch: int = 0
    data: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Delta:
    """How an index catches up with a store: keep the first ``keep`` items, append ``items``.

    ``state`` is the side state when its version changed since the last exchange.
    """

    keep: int
    items: list[dict[str, Any]]
    state: StoredState | None = None


@dataclass(frozen=True)
class Ends:
    """Both ends of a log, read in one snapshot (:meth:`LogStore.read_ends`): its first
    items (``head``) and its newest ones (``tail``). When the two meet (``complete``),
    ``head + tail`` is the whole log (the SQL stores put it all in ``head``; Redis splits
    it); otherwise how many items lie between is not known (counting them would cost a
    scan of the log), unless the read was located (``tail_start``)."""

    head: list[dict[str, Any]]
    tail: list[dict[str, Any]]
    state: StoredState | None = None
    complete: bool = False
    #: Where ``tail[0]`` stands in the log (from :meth:`LogStore.read_ends` with ``locate``
    #: on a store that knows it; None: not known).
    tail_start: int | None = None


@dataclass(frozen=True)
class Checkpoint:
    """A named point in a session's history: the first ``length`` items (proved by their
    ``digest``) and the strategy state (``state``) at that moment."""

    name: str
    length: int
    digest: str
    created_at: float
    note: str = ""
    state: Mapping[str, Any] | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> Checkpoint:
        data = json.loads(text)
        return cls(name=data["name"], length=int(data["length"]), digest=data["digest"],
                   created_at=float(data["created_at"]), note=data.get("note", ""),
                   state=data.get("state"))


def decode_entry(raw: str | bytes) -> dict[str, Any]:
    """A stored entry (JSON text written by ctxlab, the SDK or any other program) as an
    item, or a placeholder (:func:`ctxlab.core.items.invalid_entry`) that the view skips and
    the ledger reports: text that is not JSON, JSON that is not an object, or nesting deeper
    than items may (a few thousand levels make ``json.loads`` raise ``RecursionError``;
    fewer would make every later walk over the item risk it)."""
    try:
        item = json.loads(raw)
    except RecursionError:
        return invalid_entry(raw, f"stored entry nests deeper than {MAX_DEPTH} levels")
    except (TypeError, ValueError):
        return invalid_entry(raw, "stored entry is not JSON")
    if not isinstance(item, dict):
        return invalid_entry(raw, f"stored entry is a JSON {type(item).__name__}, not an "
                                  "object")
    if nesting_exceeds(item, MAX_DEPTH):
        return invalid_entry(raw, f"stored entry nests deeper than {MAX_DEPTH} levels")
    return item


def encode_data(data: Mapping[str, Any] | None) -> str | None:
    return None if data is None else json.dumps(data, ensure_ascii=False, sort_keys=True)


def decode_data(text: str | bytes | None) -> dict[str, Any] | None:
    if text is None or text == b"" or text == "":
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else None


class StateStore(ABC):
    """Side state of one session in the backend that holds its log (see the module doc)."""

    #: Short backend name: "memory", "sqlite", "redis", ...
    kind: ClassVar[str] = "abstract"
    #: True when the state outlives the process.
    persistent: ClassVar[bool] = False

    session_id: str

    @abstractmethod
    async def load(self) -> StoredState:
        """The current state (version 0 and no data when nothing was ever saved)."""

    @abstractmethod
    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        """Write ``data`` if the version is still ``expected_version``; return the new state,
        or None when someone else wrote first (nothing is written then)."""

    @abstractmethod
    async def bump_epoch(self) -> StoredState:
        """Record a destructive change of the log made outside a store transaction."""

    @abstractmethod
    async def reset(self) -> StoredState:
        """Forget the data and checkpoints (after the log was cleared); bumps the epoch."""

    @abstractmethod
    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        """Take (or renew) the session's fold lease for ``ttl`` seconds; False if another
        owner holds an unexpired lease, unless that owner is ``replacing`` (one the caller
        proved dead)."""

    @abstractmethod
    async def lease_holder(self) -> str | None:
        """The owner of the unexpired fold lease, if any."""

    @abstractmethod
    async def release_lease(self, owner: str) -> None:
        """Give the lease back if ``owner`` holds it."""

    @abstractmethod
    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Save (or replace) a checkpoint by name."""

    @abstractmethod
    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        """The checkpoint called ``name``, if any."""

    @abstractmethod
    async def list_checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint, oldest first."""

    @abstractmethod
    def for_session(self, session_id: str) -> StateStore:
        """A state store for another session id in the same backend."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release here
        """Release resources this store opened itself."""


class LogStore(ABC):
    """The raw log of one session in a backend, plus its :class:`StateStore`.

    One object per session object: it remembers how far the caller's index has caught up
    (a cursor) so that :meth:`sync` returns only what is new. Public methods map backend
    errors to :class:`StoreUnavailableError` / :class:`StoreError`.
    """

    kind: ClassVar[str] = "abstract"
    persistent: ClassVar[bool] = False

    session_id: str
    state: StateStore

    def __init__(self) -> None:
        self._state_version: int | None = None  # last state version handed out in a Delta

    # -- public API (errors translated) ----------------------------------------------------
    async def sync(self) -> Delta:
        """What changed in the store since this object's last exchange."""
        try:  # (inline rather than _errors(): this runs on every read)
            return await self._sync()
        except StoreError:
            raise
        except Exception as exc:
            wrapped = self._wrap(exc, "read the log")
            if wrapped is exc:
                raise
            raise wrapped from None

    async def append(self, items: Sequence[dict[str, Any]]) -> Delta:
        """Append ``items`` in one transaction; the delta places them after anything other
        writers appended first."""
        try:  # (inline rather than _errors(): this runs on every write)
            return await self._append(list(items))
        except StoreError:
            raise
        except Exception as exc:
            wrapped = self._wrap(exc, "append items")
            if wrapped is exc:
                raise
            raise wrapped from None

    async def read_ends(self, head: int, tail: int, *, locate: bool = False) -> Ends | None:
        """The first ``head`` and the last ``tail`` items, in one snapshot; the items between
        are never fetched. None when this store cannot read a log by its ends: then the
        caller syncs the whole log. After a complete read the cursor is at the end; else
        the caller places it with :meth:`place_ends` (or :meth:`place_located`).

        With ``locate``, a store that can (``locates_tail``) also says where the tail
        starts in the log (:attr:`Ends.tail_start`; else it stays None)."""
        with self._errors("read the log"):
            if locate and self.locates_tail:
                return await self._read_ends_located(head, tail)
            return await self._read_ends(head, tail)

    def place_ends(self, head_kept: int, tail_from: int) -> None:
        """After an incomplete :meth:`read_ends`: the caller's index holds the first
        ``head_kept`` items of the head, then *one* item standing for everything between
        (not loaded), then the tail from its item ``tail_from`` on. The next :meth:`sync`
        returns what was appended since, in those positions."""
        raise NotImplementedError(f"{type(self).__name__} reads no ends")

    def place_located(self, head_kept: int, tail_from: int, hole: int) -> None:
        """:meth:`place_ends` after a located read whose middle the caller's index holds
        as ``hole`` items (the true count: its positions are the log's)."""
        raise NotImplementedError(f"{type(self).__name__} does not locate a tail")

    #: True when :meth:`read_ends` with ``locate`` says where the tail starts.
    locates_tail: ClassVar[bool] = False

    async def _read_ends(self, head: int, tail: int) -> Ends | None:
        return None

    async def _read_ends_located(self, head: int, tail: int) -> Ends | None:
        return await self._read_ends(head, tail)

    async def pop(self) -> tuple[dict[str, Any] | None, Delta]:
        """Remove the newest stored item (bumping the epoch) and return it."""
        with self._errors("pop an item"):
            return await self._pop()

    async def clear(self) -> Delta:
        """Remove every item, the state data and the checkpoints (bumping the epoch)."""
        with self._errors("clear the session"):
            return await self._clear()

    async def truncate(
        self, length: int, data: Mapping[str, Any] | None, *, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        """Keep the first ``length`` items and set the state data to ``data``, atomically
        where the backend allows; returns the removed items. Raises
        :class:`StoreConflictError` if the state version is no longer ``expected_version``."""
        with self._errors("truncate the log"):
            return await self._truncate(length, data, expected_version)

    async def save_state(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        """Compare-and-swap the state data (see :meth:`StateStore.compare_and_set`)."""
        with self._errors("save the session state"):
            new = await self.state.compare_and_set(expected_version, data)
        if new is not None:
            self._state_version = new.version
        return new

    async def call_state(self, what: str, fn: Callable[[], Any]) -> Any:
        """Run a state-store coroutine factory with this store's error translation."""
        with self._errors(what):
            return await fn()

    @abstractmethod
    def reset_cursor(self) -> None:
        """Forget what the caller's index holds: the next :meth:`sync` returns the whole
        log (``keep`` 0). Used to recover if the index and the cursor ever disagree."""

    @abstractmethod
    def spawn(self, session_id: str) -> LogStore:
        """A log store for another (new) session id in the same backend (for branches)."""

    async def aclose(self) -> None:
        """Release connections this object opened itself (never the caller's SDK session)."""
        await self.state.aclose()

    def describe(self) -> str:
        """Where the log lives, for messages: e.g. ``sqlite file 'chat.db'``."""
        return self.kind

    def __repr__(self) -> str:
        return f"{type(self).__name__}(session_id={self.session_id!r}, {self.describe()})"

    # -- for implementations ---------------------------------------------------------------
    def _state_delta(self, state: StoredState | None) -> StoredState | None:
        """``state`` if its version differs from the last one handed out, else None."""
        if state is None or state.version == self._state_version:
            return None
        self._state_version = state.version
        return state

    def _translate(self, exc: BaseException) -> StoreError | None:
        """A ctxlab error for a backend exception (None: let it propagate unchanged)."""
        return None

    def _wrap(self, exc: Exception, what: str) -> Exception:
        """The error to raise for a backend exception: a ctxlab StoreError that names the
        store, the session, the operation and the cause (:func:`ctxlab.core.error_text.
        cause_text`: nothing stored), with ``exc`` as its ``backend_error``; or ``exc``
        itself when it is not a backend error (see :meth:`_translate`). Raise it ``from
        None``: the backend's text (SQL parameters, failing rows) stays out of tracebacks."""
        error = self._translate(exc)
        if error is None:
            return exc
        wrapped = type(error)(
            f"{self.describe()} could not {what} for session {self.session_id!r}: "
            f"{cause_text(exc)}. {error}"
        )
        wrapped.backend_error = exc
        return wrapped

    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            wrapped = self._wrap(exc, what)
            if wrapped is exc:
                raise
            raise wrapped from None

    @abstractmethod
    async def _sync(self) -> Delta: ...

    @abstractmethod
    async def _append(self, items: list[dict[str, Any]]) -> Delta: ...

    @abstractmethod
    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]: ...

    @abstractmethod
    async def _clear(self) -> Delta: ...

    @abstractmethod
    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]: ...


UNAVAILABLE_HINT = (
    "Nothing was half-written: the operation happened completely or not at all. Retry when "
    "the store is back; the session resynchronizes from the store on its next call."
)


@dataclass
class Lease:
    """An in-memory lease (used by :class:`~ctxlab.stores.memory.MemoryStateStore`)."""

    owner: str | None = None
    until: float = 0.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def acquire(self, owner: str, ttl: float, replacing: str | None = None) -> bool:
        now = self.clock()
        if (self.owner is None or self.owner == owner or self.until <= now
                or (replacing is not None and self.owner == replacing)):
            self.owner, self.until = owner, now + ttl
            return True
        return False

    def release(self, owner: str) -> None:
        if self.owner == owner:
            self.owner, self.until = None, 0.0

    def holder(self) -> str | None:
        return self.owner if self.owner is not None and self.until > self.clock() else None
