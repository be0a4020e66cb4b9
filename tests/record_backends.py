"""Real record stores for the long-term memory and hub suites: every ctxlab.records backend.

* ``memory``: :class:`~ctxlab.records.MemoryRecords`;
* ``sqlite``: :class:`~ctxlab.records.SQLiteRecords` on a file;
* ``redis``: :class:`~ctxlab.records.redis.RedisRecords` on a real server (``redis_url``
  in conftest), with a key prefix of its own per test;
* ``sqlalchemy``: :class:`~ctxlab.records.sqlalchemy.SQLAlchemyRecords` on an aiosqlite file.

:func:`raw_dump` reads everything a backend holds behind ctxlab's back (the file's bytes,
every Redis key and value), so a test can check that a deletion left nothing readable.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from ctxlab.records import MemoryRecords, RecordStore, SQLiteRecords

RECORD_KINDS = ("memory", "sqlite", "redis", "sqlalchemy")


def make_records(kind: str, folder: Path, redis_url: str | None = None) -> RecordStore:
    if kind == "memory":
        return MemoryRecords()
    if kind == "sqlite":
        return SQLiteRecords(folder / "records.db")
    if kind == "redis":
        from ctxlab.records.redis import RedisRecords

        assert redis_url is not None
        return RedisRecords(redis_url, prefix=f"ctxlab-test-{uuid.uuid4().hex[:10]}")
    if kind == "sqlalchemy":
        from ctxlab.records.sqlalchemy import SQLAlchemyRecords

        return SQLAlchemyRecords(f"sqlite+aiosqlite:///{folder / 'records-sa.db'}")
    raise ValueError(kind)


async def raw_dump(store: RecordStore) -> bytes:
    """Every byte the backend holds for this store (files with their WAL, Redis keys and
    values under the store's prefix, the memory store's repr)."""
    if isinstance(store, MemoryRecords):
        return store.dump().encode()
    if isinstance(store, SQLiteRecords):
        return _files(Path(store.path))
    if store.kind == "sqlalchemy":
        await store.aclose()  # let the pool go so the file is complete on disk
        database = store.engine.url.database  # type: ignore[attr-defined]
        return _files(Path(database))
    if store.kind == "redis":
        client: Any = store._redis()  # type: ignore[attr-defined]
        chunks = []
        async for key in client.scan_iter(match=f"{store.prefix}:*"):  # type: ignore[attr-defined]
            chunks.append(key)
            kind = (await client.type(key)).decode()
            if kind == "hash":
                for field, value in (await client.hgetall(key)).items():
                    chunks += [field, value]
            else:
                chunks.append(repr(await client.dump(key)).encode())
        return b"\n".join(chunks)
    raise ValueError(store.kind)


def _files(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        candidate = Path(str(path) + suffix)
        if candidate.exists():
            data += candidate.read_bytes()
    return data
