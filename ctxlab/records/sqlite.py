"""Records in an SQLite file: two tables, every operation one transaction.

* ``ctxlab_record_meta``: per user (keyed by the SHA-256 of the id) the version counter and
  the deletion epoch; the only row a deleted user leaves behind;
* ``ctxlab_records``: one row per record (user hash, key, user id, version, JSON data).

Writes take the file's write lock (``BEGIN IMMEDIATE``) for the few statements of one
compare-and-swap, so several processes can share the file; every call opens its own
connection in a worker thread (WAL mode, a busy timeout), so one store object is safe from
any thread and event loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar, TypeVar

from ..core.backend_errors import classify_backend_error
from .base import (
    RecordConflictError,
    RecordStore,
    Versioned,
    backend_failure,
    check_expected,
    decode,
    namespace_hash,
)

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ctxlab_record_meta (
    h TEXT PRIMARY KEY,
    seq INTEGER NOT NULL DEFAULT 0,
    epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ctxlab_records (
    h TEXT NOT NULL,
    key TEXT NOT NULL,
    namespace TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (h, key)
);
"""


class SQLiteRecords(RecordStore):
    """Records in the SQLite file at ``path`` (created on first use)."""

    kind: ClassVar[str] = "sqlite"
    persistent: ClassVar[bool] = True

    def __init__(self, path: str | Path, *, busy_timeout: float = 30.0):
        if str(path) in ("", ":memory:"):
            raise ValueError("SQLiteRecords needs a file path (each call opens its own "
                             "connection, so ':memory:' would start empty every time); use "
                             "MemoryRecords for records in memory")
        self.path = str(path)
        self.busy_timeout = float(busy_timeout)
        self._ready = False

    def describe(self) -> str:
        return f"sqlite file {Path(self.path).name!r}"

    # -- plumbing -----------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        conn.execute("PRAGMA secure_delete = ON")  # deleted rows are overwritten with zeros
        if not self._ready:
            deadline = time.monotonic() + self.busy_timeout
            while True:  # the first setup can meet another process's transient lock
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.executescript(_SCHEMA)
                    break
                except sqlite3.OperationalError as exc:  # a refusal (read-only) is final
                    if time.monotonic() > deadline or classify_backend_error(exc) == "refused":
                        raise
                    time.sleep(0.05)
            self._ready = True
        return conn

    async def _run(self, what: str, fn: Callable[[sqlite3.Connection], T]) -> T:
        def work() -> T:
            conn = self._connect()
            try:
                return fn(conn)
            finally:
                conn.close()

        try:
            return await asyncio.to_thread(work)
        except (RecordConflictError, ValueError):
            raise
        except sqlite3.Error as exc:
            raise backend_failure(self, what, exc) from None

    # -- operations ---------------------------------------------------------------------
    async def _get(self, namespace: str, key: str) -> Versioned:
        h = namespace_hash(namespace)

        def read(conn: sqlite3.Connection) -> Versioned:
            with _transaction(conn, write=False):
                meta = conn.execute("SELECT epoch FROM ctxlab_record_meta WHERE h = ?",
                                    (h,)).fetchone()
                row = conn.execute("SELECT version, data FROM ctxlab_records WHERE h = ? AND "
                                   "key = ?", (h, key)).fetchone()
            epoch = meta[0] if meta else 0
            return Versioned(row[0], epoch, decode(row[1])) if row else Versioned(0, epoch)

        return await self._run(f"read record {key!r} of user {namespace!r}", read)

    async def _put(self, namespace: str, key: str, text: str, expected_version: int,
                   expected_epoch: int | None) -> Versioned:
        h = namespace_hash(namespace)

        def write(conn: sqlite3.Connection) -> Versioned:
            with _transaction(conn, write=True):
                conn.execute("INSERT OR IGNORE INTO ctxlab_record_meta (h) VALUES (?)", (h,))
                seq, epoch = conn.execute("SELECT seq, epoch FROM ctxlab_record_meta WHERE "
                                          "h = ?", (h,)).fetchone()
                row = conn.execute("SELECT version FROM ctxlab_records WHERE h = ? AND key = ?",
                                   (h, key)).fetchone()
                current = row[0] if row else 0
                check_expected(self, namespace, key, expected_version, expected_epoch,
                               current, epoch)
                seq += 1
                conn.execute("UPDATE ctxlab_record_meta SET seq = ? WHERE h = ?", (seq, h))
                conn.execute("INSERT OR REPLACE INTO ctxlab_records (h, key, namespace, "
                             "version, data) VALUES (?, ?, ?, ?, ?)",
                             (h, key, namespace, seq, text))
            return Versioned(seq, epoch, decode(text))

        return await self._run(f"write record {key!r} of user {namespace!r}", write)

    async def _delete_namespace(self, namespace: str) -> int:
        h = namespace_hash(namespace)

        def delete(conn: sqlite3.Connection) -> int:
            with _transaction(conn, write=True):
                count = conn.execute("DELETE FROM ctxlab_records WHERE h = ?", (h,)).rowcount
                conn.execute("INSERT OR IGNORE INTO ctxlab_record_meta (h) VALUES (?)", (h,))
                conn.execute("UPDATE ctxlab_record_meta SET epoch = epoch + 1 WHERE h = ?", (h,))
            # secure_delete zeroed the rows in the new page images; the old images still
            # sit in the write-ahead log until a checkpoint: copy and truncate it now
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return count

        return await self._run(f"delete the records of user {namespace!r}", delete)

    async def _keys(self, namespace: str) -> list[str]:
        h = namespace_hash(namespace)
        return await self._run(f"list the records of user {namespace!r}", lambda conn: [
            r[0] for r in conn.execute("SELECT key FROM ctxlab_records WHERE h = ?", (h,))])

    async def _namespaces(self) -> list[str]:
        return await self._run("list users", lambda conn: [
            r[0] for r in conn.execute("SELECT DISTINCT namespace FROM ctxlab_records")])


@contextmanager
def _transaction(conn: sqlite3.Connection, *, write: bool) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
