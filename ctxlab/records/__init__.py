"""Versioned JSON records per user with compare-and-swap and real deletion: the storage
under long-term user memory (:mod:`ctxlab.longterm`) and the shared state hub
(:mod:`ctxlab.hub`). Backends: memory, SQLite, Redis (also a Redis Cluster: one hash slot
per user), SQLAlchemy (SQLite, PostgreSQL, MySQL, ...). :func:`open_records` picks one from
a URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import (
    InvalidUserIdError,
    RecordConflictError,
    RecordError,
    RecordsRefusedError,
    RecordStore,
    RecordsUnavailableError,
    UnknownUserError,
    Versioned,
    check_user_id,
    namespace_hash,
)
from .memory import MemoryRecords
from .sqlite import SQLiteRecords


def open_records(target: Any = "memory") -> RecordStore:
    """A record store for ``target``.

    ``"memory"``; an SQLite file path (``"memory.db"``, a ``Path``) or ``sqlite:///file``;
    ``"redis://host:port/db"``; any SQLAlchemy async URL (``"postgresql+asyncpg://..."``,
    ``"sqlite+aiosqlite:///file"``); or a :class:`RecordStore` (returned as is).
    """
    if isinstance(target, RecordStore):
        return target
    if isinstance(target, Path):
        return SQLiteRecords(target)
    if not isinstance(target, str) or not target:
        raise ValueError(f"open_records needs 'memory', a file path or a URL, got {target!r}")
    if target == "memory":
        return MemoryRecords()
    if target.startswith(("redis://", "rediss://", "unix://")):
        from .redis import RedisRecords

        return RedisRecords(target)
    if target.startswith("sqlite:///"):
        return SQLiteRecords(target[len("sqlite:///"):])
    if "://" in target:
        from .sqlalchemy import SQLAlchemyRecords

        return SQLAlchemyRecords(target)
    return SQLiteRecords(target)


__all__ = [
    "InvalidUserIdError",
    "MemoryRecords",
    "RecordConflictError",
    "RecordError",
    "RecordStore",
    "RecordsRefusedError",
    "RecordsUnavailableError",
    "SQLiteRecords",
    "UnknownUserError",
    "Versioned",
    "check_user_id",
    "namespace_hash",
    "open_records",
]
