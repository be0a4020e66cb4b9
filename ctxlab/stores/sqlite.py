"""The raw log in an SQLite file (the SDK's ``SQLiteSession`` tables) and the side state in
two tables of the same file.

* Items stay in the SDK's ``agent_messages`` table, written the way ``SQLiteSession`` writes
  them, so a plain ``SQLiteSession`` with the same id reads the same conversation.
* ``ctxlab_state`` holds, per session id, the strategy state (JSON), its version (the
  compare-and-swap token), the log epoch, the last ctxlab write time and the fold lease;
  ``ctxlab_checkpoints`` holds named checkpoints.

Every operation is one transaction on ctxlab's own connection (WAL mode, a busy timeout),
run in a worker thread. Row ids are ``AUTOINCREMENT`` and never reused, so the index catches
up cheaply: if the newest row it knows still exists, everything before it is unchanged
(rows only ever leave from the tail) and only rows with a larger id are fetched.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..core.backend_errors import classify_backend_error
from ..core.error_text import cause_text
from .base import (
    UNAVAILABLE_HINT,
    Checkpoint,
    Delta,
    Ends,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
    StoreUnavailableError,
    decode_data,
    encode_data,
)
from .row_cursor import RowIdCursor

logger = logging.getLogger("ctxlab.stores")

T = TypeVar("T")

STATE_TABLE = "ctxlab_state"
CHECKPOINT_TABLE = "ctxlab_checkpoints"
DEFAULT_SESSIONS_TABLE = "agent_sessions"
DEFAULT_MESSAGES_TABLE = "agent_messages"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {STATE_TABLE} (
    session_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 0,
    epoch INTEGER NOT NULL DEFAULT 0,
    data TEXT,
    touched_at REAL NOT NULL DEFAULT 0,
    lease_owner TEXT,
    lease_until REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS {CHECKPOINT_TABLE} (
    session_id TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at REAL NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, name)
);
"""


class SQLiteFile:
    """One connection to a database file, used from worker threads one call at a time."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0):
        self.path = str(path)
        if self.path == ":memory:":
            raise ValueError("an SQLite store needs a database file, not ':memory:'")
        self.busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        # One worker thread per file object (measured faster than the default pool or one
        # thread shared per path); it ends with close() or when this object is collected.
        self._executor: ThreadPoolExecutor | None = None

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)
        deadline = time.monotonic() + self.busy_timeout
        while True:  # WAL setup can meet another process's transient lock
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(_SCHEMA)
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc).lower() or time.monotonic() >= deadline:
                    conn.close()
                    raise
                time.sleep(0.01)
        return conn

    def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            if self._conn is None:
                self._conn = self._connect()
            return fn(self._conn)

    async def run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` on this file's worker thread. If the caller is cancelled
        meanwhile the transaction still completes; the next sync picks its result up."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="ctxlab-sqlite")
            weakref.finalize(self, self._executor.shutdown, wait=False)
        return await asyncio.get_running_loop().run_in_executor(self._executor, self.call, fn)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    def __repr__(self) -> str:
        return f"SQLiteFile({self.path!r})"


@contextmanager
def transaction(conn: sqlite3.Connection, *, write: bool = True) -> Iterator[None]:
    """BEGIN IMMEDIATE (write) or BEGIN (a consistent read snapshot) ... COMMIT."""
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def translate_sqlite_error(exc: BaseException) -> StoreError | None:
    """Busy, locked, an I/O error: unavailable; a constraint, a trigger, a read-only or full
    file: refused; a damaged file: refused, saying so (:mod:`ctxlab.core.backend_errors`)."""
    if not isinstance(exc, sqlite3.Error):
        return None
    if classify_backend_error(exc) == "unavailable":
        return StoreUnavailableError(UNAVAILABLE_HINT)
    if getattr(exc, "sqlite_errorname", None) in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return StoreError("The database file may be damaged; nothing was changed by this call.")
    return StoreError("The database refused the operation; nothing was changed by this "
                      "call; retrying will not help.")


# ------------------------------------------------------------------------------- state


def _read_state(conn: sqlite3.Connection, session_id: str, known: int | None) -> StoredState:
    row = conn.execute(
        f"SELECT version, epoch, CASE WHEN version != ? THEN data END FROM {STATE_TABLE} "
        "WHERE session_id = ?",
        (-1 if known is None else known, session_id),
    ).fetchone()
    if row is None:
        return StoredState()
    version, epoch, data = row
    return StoredState(int(version), int(epoch), decode_data(data))


def _write_state(
    conn: sqlite3.Connection, session_id: str, *, data: Any = ..., bump_epoch: bool = False
) -> None:
    """Bump the version (and maybe the epoch) and set ``data`` unless it is ``...``."""
    now = time.time()
    epoch_step = 1 if bump_epoch else 0
    if data is ...:
        conn.execute(
            f"INSERT INTO {STATE_TABLE} (session_id, version, epoch, touched_at) "
            "VALUES (?, 1, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
            "version = version + 1, epoch = epoch + ?, touched_at = excluded.touched_at",
            (session_id, epoch_step, now, epoch_step),
        )
    else:
        conn.execute(
            f"INSERT INTO {STATE_TABLE} (session_id, version, epoch, data, touched_at) "
            "VALUES (?, 1, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
            "version = version + 1, epoch = epoch + ?, data = excluded.data, "
            "touched_at = excluded.touched_at",
            (session_id, epoch_step, encode_data(data), now, epoch_step),
        )


def _touch(conn: sqlite3.Connection, session_id: str) -> None:
    conn.execute(
        f"INSERT INTO {STATE_TABLE} (session_id, touched_at) VALUES (?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET touched_at = excluded.touched_at",
        (session_id, time.time()),
    )


class SQLiteStateStore(StateStore):
    """Side state of one session in the ``ctxlab_state`` / ``ctxlab_checkpoints`` tables."""

    kind: ClassVar[str] = "sqlite"
    persistent: ClassVar[bool] = True

    def __init__(self, db: str | Path | SQLiteFile, session_id: str):
        self._owns_file = not isinstance(db, SQLiteFile)
        self.file = db if isinstance(db, SQLiteFile) else SQLiteFile(db)
        self.session_id = session_id

    async def load(self) -> StoredState:
        return await self.file.run(lambda c: _read_state(c, self.session_id, None))

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        def cas(conn: sqlite3.Connection) -> StoredState | None:
            with transaction(conn):
                if _read_state(conn, self.session_id, None).version != expected_version:
                    return None
                _write_state(conn, self.session_id, data=data)
                return _read_state(conn, self.session_id, None)

        return await self.file.run(cas)

    async def bump_epoch(self) -> StoredState:
        def bump(conn: sqlite3.Connection) -> StoredState:
            with transaction(conn):
                _write_state(conn, self.session_id, bump_epoch=True)
                return _read_state(conn, self.session_id, None)

        return await self.file.run(bump)

    async def reset(self) -> StoredState:
        def reset(conn: sqlite3.Connection) -> StoredState:
            with transaction(conn):
                _reset_state(conn, self.session_id)
                return _read_state(conn, self.session_id, None)

        return await self.file.run(reset)

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        def acquire(conn: sqlite3.Connection) -> bool:
            now = time.time()
            with transaction(conn):
                row = conn.execute(
                    f"SELECT lease_owner, lease_until FROM {STATE_TABLE} WHERE session_id = ?",
                    (self.session_id,),
                ).fetchone()
                if (row is not None and row[0] not in (None, owner) and row[1] > now
                        and (replacing is None or row[0] != replacing)):
                    return False
                conn.execute(
                    f"INSERT INTO {STATE_TABLE} (session_id, lease_owner, lease_until, "
                    "touched_at) VALUES (?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET "
                    "lease_owner = excluded.lease_owner, lease_until = excluded.lease_until",
                    (self.session_id, owner, now + ttl, now),
                )
                return True

        return await self.file.run(acquire)

    async def lease_holder(self) -> str | None:
        row = await self.file.run(lambda c: c.execute(
            f"SELECT lease_owner, lease_until FROM {STATE_TABLE} WHERE session_id = ?",
            (self.session_id,)).fetchone())
        return row[0] if row is not None and row[0] and row[1] > time.time() else None

    async def release_lease(self, owner: str) -> None:
        await self.file.run(lambda c: c.execute(
            f"UPDATE {STATE_TABLE} SET lease_owner = NULL, lease_until = 0 "
            "WHERE session_id = ? AND lease_owner = ?", (self.session_id, owner)))

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        def put(conn: sqlite3.Connection) -> None:
            with transaction(conn):
                conn.execute(
                    f"INSERT OR REPLACE INTO {CHECKPOINT_TABLE} (session_id, name, created_at, "
                    "record) VALUES (?, ?, ?, ?)",
                    (self.session_id, checkpoint.name, checkpoint.created_at,
                     checkpoint.to_json()),
                )
                _touch(conn, self.session_id)

        await self.file.run(put)

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        row = await self.file.run(lambda c: c.execute(
            f"SELECT record FROM {CHECKPOINT_TABLE} WHERE session_id = ? AND name = ?",
            (self.session_id, name)).fetchone())
        return None if row is None else Checkpoint.from_json(row[0])

    async def list_checkpoints(self) -> list[Checkpoint]:
        rows = await self.file.run(lambda c: c.execute(
            f"SELECT record FROM {CHECKPOINT_TABLE} WHERE session_id = ? "
            "ORDER BY created_at, name", (self.session_id,)).fetchall())
        return [Checkpoint.from_json(r[0]) for r in rows]

    def for_session(self, session_id: str) -> SQLiteStateStore:
        return SQLiteStateStore(self.file.path, session_id)

    async def aclose(self) -> None:
        if self._owns_file:
            self.file.close()


def _reset_state(conn: sqlite3.Connection, session_id: str) -> None:
    _write_state(conn, session_id, data=None, bump_epoch=True)
    conn.execute(f"DELETE FROM {CHECKPOINT_TABLE} WHERE session_id = ?", (session_id,))


# --------------------------------------------------------------------------------- log

Row = tuple[int, str]


class SQLiteLog(RowIdCursor, LogStore):
    """The raw log of an SDK ``SQLiteSession`` on a file, read and written by ctxlab directly
    (same tables, same JSON), with the side state in the same file."""

    kind: ClassVar[str] = "sqlite"
    persistent: ClassVar[bool] = True

    def __init__(self, session: Any, *, busy_timeout: float = 30.0):
        super().__init__()
        path = str(getattr(session, "db_path", ":memory:"))
        self.sdk_session = session
        self.session_id: str = session.session_id
        self.file = SQLiteFile(path, busy_timeout=busy_timeout)
        self.state = SQLiteStateStore(self.file, self.session_id)
        self.sessions_table: str = getattr(session, "sessions_table", DEFAULT_SESSIONS_TABLE)
        self.messages_table: str = getattr(session, "messages_table", DEFAULT_MESSAGES_TABLE)
        self._ids: list[int] = []  # row id of every item the caller's index holds

    # -- helpers run inside a transaction --------------------------------------------------
    def _rows_after(self, conn: sqlite3.Connection, after: int, below: int | None = None
                    ) -> list[Row]:
        if below is None:
            return conn.execute(
                f"SELECT id, message_data FROM {self.messages_table} "
                "WHERE session_id = ? AND id > ? ORDER BY id", (self.session_id, after),
            ).fetchall()
        return conn.execute(
            f"SELECT id, message_data FROM {self.messages_table} "
            "WHERE session_id = ? AND id > ? AND id < ? ORDER BY id",
            (self.session_id, after, below),
        ).fetchall()

    def _alive(self, conn: sqlite3.Connection, row_id: int) -> bool:
        return conn.execute(
            f"SELECT 1 FROM {self.messages_table} WHERE id = ? AND session_id = ?",
            (row_id, self.session_id),
        ).fetchone() is not None

    def _catch_up(self, conn: sqlite3.Connection, known: list[int], below: int | None = None
                  ) -> tuple[int, list[Row]]:
        """(how many known rows are still the log's prefix, the rows after them)."""
        n = len(known)
        if n:
            if self._alive(conn, known[-1]):
                return n, self._rows_after(conn, known[-1], below)
            current = [r[0] for r in conn.execute(
                f"SELECT id FROM {self.messages_table} WHERE session_id = ? ORDER BY id",
                (self.session_id,))]
            keep = 0
            for a, b in zip(known, current, strict=False):
                if a != b:
                    break
                keep += 1
            return keep, self._rows_after(conn, known[keep - 1] if keep else 0, below)
        return 0, self._rows_after(conn, 0, below)

    # -- operations ------------------------------------------------------------------------
    async def _sync(self) -> Delta:
        known, seen = self._ids, self._state_version

        def read(conn: sqlite3.Connection) -> tuple[int, list[Row], StoredState]:
            with transaction(conn, write=False):
                state = _read_state(conn, self.session_id, seen)
                newest = conn.execute(
                    f"SELECT max(id) FROM {self.messages_table} WHERE session_id = ?",
                    (self.session_id,),
                ).fetchone()[0]
                if known and newest == known[-1]:
                    return len(known), [], state
                keep, rows = self._catch_up(conn, known)
                return keep, rows, state

        keep, rows, state = await self.file.run(read)
        ids, items = self._decode(rows)
        self._advance(keep, ids)
        return Delta(keep, items, self._state_delta(state))

    async def _read_ends(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=False)

    locates_tail: ClassVar[bool] = True

    async def _read_ends_located(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=True)

    async def _ends_read(self, head: int, tail: int, *, locate: bool) -> Ends:
        seen = self._state_version

        def read(conn: sqlite3.Connection
                 ) -> tuple[list[Row], list[Row], StoredState, int | None]:
            where = f"FROM {self.messages_table} WHERE session_id = ?"
            with transaction(conn, write=False):
                state = _read_state(conn, self.session_id, seen)
                first = conn.execute(f"SELECT id, message_data {where} ORDER BY id LIMIT ?",
                                     (self.session_id, head)).fetchall()
                last = conn.execute(
                    f"SELECT id, message_data {where} ORDER BY id DESC LIMIT ?",
                    (self.session_id, tail if len(first) == head else 0)).fetchall()
                start = None
                if locate and last:  # (a count on the (session_id, id) index: no rows read)
                    start = conn.execute(f"SELECT count(*) {where} AND id < ?",
                                         (self.session_id, last[-1][0])).fetchone()[0]
                return first, last[::-1], state, start

        first, last, state, start = await self.file.run(read)
        return self._ends(first, last, head, state, start)

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        # Kept short: the write lock is held from BEGIN IMMEDIATE to COMMIT, so only the
        # SDK's three statements plus one read (the rows since our last known row, that row
        # included to prove it still exists). Decoding happens after the commit; the state
        # is read by the next sync.
        known = self._ids
        payloads = [json.dumps(item) for item in items]

        def write(conn: sqlite3.Connection) -> tuple[int, list[Row], list[int]]:
            with transaction(conn):
                conn.execute(f"INSERT OR IGNORE INTO {self.sessions_table} (session_id) "
                             "VALUES (?)", (self.session_id,))
                own = [conn.execute(
                    f"INSERT INTO {self.messages_table} (session_id, message_data) "
                    "VALUES (?, ?)", (self.session_id, data)).lastrowid or 0
                    for data in payloads]
                conn.execute(f"UPDATE {self.sessions_table} SET updated_at = CURRENT_TIMESTAMP "
                             "WHERE session_id = ?", (self.session_id,))
                if known:
                    rows = conn.execute(
                        f"SELECT id, CASE WHEN id = ? THEN NULL ELSE message_data END "
                        f"FROM {self.messages_table} WHERE session_id = ? AND id >= ? "
                        "AND id < ? ORDER BY id", (known[-1], self.session_id, known[-1], own[0]),
                    ).fetchall()
                    if rows and rows[0][0] == known[-1]:
                        return len(known), rows[1:], own
                keep, rows = self._catch_up(conn, known, below=own[0])
                return keep, rows, own

        keep, rows, own = await self.file.run(write)
        ids, others = self._decode(rows)
        self._advance(keep, [*ids, *own])
        return Delta(keep, [*others, *items])

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        known, seen = self._ids, self._state_version

        def pop(conn: sqlite3.Connection) -> tuple[int, list[Row], Row | None, StoredState]:
            with transaction(conn):
                keep, rows = self._catch_up(conn, known)
                last = conn.execute(
                    f"SELECT id, message_data FROM {self.messages_table} WHERE session_id = ? "
                    "ORDER BY id DESC LIMIT 1", (self.session_id,),
                ).fetchone()
                if last is not None:
                    conn.execute(f"DELETE FROM {self.messages_table} WHERE id = ?", (last[0],))
                    _write_state(conn, self.session_id, bump_epoch=True)
                return keep, rows, last, _read_state(conn, self.session_id, seen)

        keep, rows, last, state = await self.file.run(pop)
        ids, items = self._decode(rows)
        popped: dict[str, Any] | None = None
        if last is not None:
            _, decoded = self._decode([last])
            popped = decoded[0] if decoded else None
            if ids and ids[-1] == last[0]:
                ids.pop()
                items.pop()
            elif not ids and keep and self._ids[keep - 1] == last[0]:
                keep -= 1
        self._advance(keep, ids)
        return popped, Delta(keep, items, self._state_delta(state))

    async def _clear(self) -> Delta:
        seen = self._state_version

        def clear(conn: sqlite3.Connection) -> StoredState:
            with transaction(conn):
                conn.execute(f"DELETE FROM {self.messages_table} WHERE session_id = ?",
                             (self.session_id,))
                conn.execute(f"DELETE FROM {self.sessions_table} WHERE session_id = ?",
                             (self.session_id,))
                _reset_state(conn, self.session_id)
                return _read_state(conn, self.session_id, seen)

        state = await self.file.run(clear)
        self._ids.clear()
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        known, seen = self._ids, self._state_version

        def cut(conn: sqlite3.Connection) -> tuple[int, list[Row], list[Row], StoredState]:
            with transaction(conn):
                if _read_state(conn, self.session_id, None).version != expected_version:
                    raise StoreConflictError("the session state changed meanwhile; retry")
                keep, rows = self._catch_up(conn, known)
                removed = conn.execute(
                    f"SELECT id, message_data FROM {self.messages_table} WHERE session_id = ? "
                    "ORDER BY id LIMIT -1 OFFSET ?", (self.session_id, length),
                ).fetchall()
                if removed:
                    conn.execute(f"DELETE FROM {self.messages_table} WHERE session_id = ? "
                                 "AND id >= ?", (self.session_id, removed[0][0]))
                _write_state(conn, self.session_id, data=data, bump_epoch=True)
                return keep, rows, removed, _read_state(conn, self.session_id, seen)

        keep, rows, removed, state = await self.file.run(cut)
        return self._cut(keep, rows, removed, state, length)

    def spawn(self, session_id: str) -> SQLiteLog:
        from agents.memory import SQLiteSession

        session = SQLiteSession(session_id, self.file.path, sessions_table=self.sessions_table,
                                messages_table=self.messages_table)
        return SQLiteLog(session, busy_timeout=self.file.busy_timeout)

    async def aclose(self) -> None:
        self.file.close()

    def describe(self) -> str:
        return f"sqlite file {self.file.path!r}"

    def _translate(self, exc: BaseException) -> StoreError | None:
        return translate_sqlite_error(exc)


# ----------------------------------------------------------------------------- expiry


def cleanup_idle(
    db_path: str | Path,
    *,
    older_than: float | timedelta,
    now: float | None = None,
    sessions_table: str = DEFAULT_SESSIONS_TABLE,
    messages_table: str = DEFAULT_MESSAGES_TABLE,
) -> list[str]:
    """Delete every session of an SQLite file idle for more than ``older_than``.

    A session's last activity is its newest write: ctxlab's ``touched_at`` (sub-second) or
    the SDK's ``updated_at`` (whole seconds), whichever is later. Its items, SDK session row,
    ctxlab state and checkpoints go in one transaction. Returns the removed session ids,
    sorted. ``older_than`` is in seconds (or a ``timedelta``) and must be >= 0.
    """
    seconds = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise ValueError(f"older_than must be a number of seconds >= 0, got {older_than!r}")
    cutoff = (time.time() if now is None else now) - seconds
    if not Path(db_path).exists():
        raise FileNotFoundError(f"no SQLite file at {str(db_path)!r}")
    file = SQLiteFile(db_path)

    def clean(conn: sqlite3.Connection) -> list[str]:
        has_sdk = conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
            (sessions_table, messages_table),
        ).fetchone()[0] == 2
        with transaction(conn):
            sdk = ""
            if has_sdk:
                sdk = (
                    f"SELECT session_id, CAST(strftime('%s', updated_at) AS REAL) AS t "
                    f"FROM {sessions_table} UNION ALL "
                    f"SELECT session_id, CAST(strftime('%s', max(created_at)) AS REAL) "
                    f"FROM {messages_table} GROUP BY session_id UNION ALL "
                )
            rows = conn.execute(
                f"SELECT session_id, max(t) FROM ({sdk}"
                f"SELECT session_id, touched_at AS t FROM {STATE_TABLE} UNION ALL "
                f"SELECT session_id, max(created_at) FROM {CHECKPOINT_TABLE} "
                "GROUP BY session_id) GROUP BY session_id"
            ).fetchall()
            idle = sorted(sid for sid, last in rows if last is None or last < cutoff)
            for sid in idle:
                if has_sdk:
                    conn.execute(f"DELETE FROM {messages_table} WHERE session_id = ?", (sid,))
                    conn.execute(f"DELETE FROM {sessions_table} WHERE session_id = ?", (sid,))
                conn.execute(f"DELETE FROM {STATE_TABLE} WHERE session_id = ?", (sid,))
                conn.execute(f"DELETE FROM {CHECKPOINT_TABLE} WHERE session_id = ?", (sid,))
            return idle

    try:
        return file.call(clean)
    except sqlite3.Error as exc:
        error = translate_sqlite_error(exc) or StoreError(str(exc))
        raise type(error)(f"cleanup_idle on {str(db_path)!r} failed: {cause_text(exc)}. "
                          f"{error}") from None
    finally:
        file.close()
