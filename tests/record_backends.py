"""Real record stores for the long-term memory and hub suites: every ctxlab.records backend.

* ``memory``: :class:`~ctxlab.records.MemoryRecords`;
* ``sqlite``: :class:`~ctxlab.records.SQLiteRecords` on a file;
* ``redis``: :class:`~ctxlab.records.redis.RedisRecords` on a real server (``redis_url``
  in conftest), with a key prefix of its own per test;
* ``sqlalchemy``: :class:`~ctxlab.records.sqlalchemy.SQLAlchemyRecords` on an aiosqlite file;
* ``postgres`` and ``redis-cluster``, only when ``CTXLAB_POSTGRES_URL`` (an async SQLAlchemy
  URL, ``postgresql+asyncpg://...``) or ``CTXLAB_REDIS_CLUSTER_URL`` (a cluster node,
  ``redis://host:port/0``) name a server: the same suites then run there too.

:func:`raw_dump` reads everything a backend holds behind ctxlab's back (the file's bytes,
every Redis key and value), so a test can check that a deletion left nothing readable.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from ctxlab.records import MemoryRecords, RecordStore, SQLiteRecords

#: Record kinds on servers that the tests do not start themselves (see the module docstring).
SERVER_KINDS = {"postgres": "CTXLAB_POSTGRES_URL", "redis-cluster": "CTXLAB_REDIS_CLUSTER_URL"}
RECORD_KINDS = ("memory", "sqlite", "redis", "sqlalchemy",
                *(kind for kind, env in SERVER_KINDS.items() if os.environ.get(env)))


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
    if kind == "postgres":
        from ctxlab.records.sqlalchemy import SQLAlchemyRecords

        # a table prefix of its own per test: tests never see each other's rows
        return SQLAlchemyRecords(os.environ["CTXLAB_POSTGRES_URL"],
                                 table_prefix=f"t{uuid.uuid4().hex[:10]}")
    if kind == "redis-cluster":
        from ctxlab.records.redis import RedisRecords

        return RedisRecords(os.environ["CTXLAB_REDIS_CLUSTER_URL"], cluster=True,
                            prefix=f"ctxlab-test-{uuid.uuid4().hex[:10]}")
    raise ValueError(kind)


def records_for(request: Any, folder: Path) -> RecordStore:
    """The store of the kind a parametrized fixture's ``request.param`` names (``redis`` on
    the session's real server, the ``redis_url`` fixture)."""
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    return make_records(request.param, folder, url)


async def raw_dump(store: RecordStore) -> bytes:
    """Every byte the backend holds for this store (files with their WAL, Redis keys and
    values under the store's prefix, the memory store's repr)."""
    if isinstance(store, MemoryRecords):
        return store.dump().encode()
    if isinstance(store, SQLiteRecords):
        return _files(Path(store.path))
    if store.kind == "sqlalchemy" and store.engine.url.get_backend_name() == "postgresql":
        return await _postgres_dump(store)
    if store.kind == "sqlalchemy":
        await store.aclose()  # let the pool go so the file is complete on disk
        database = store.engine.url.database  # type: ignore[attr-defined]
        return _files(Path(database))
    if store.kind == "redis":
        client: Any = await store._redis()  # type: ignore[attr-defined]
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


async def _postgres_dump(store: Any) -> bytes:
    """Every row of the store's two tables, as text (PostgreSQL keeps deleted rows in its
    files until VACUUM: what the database returns is what a reader can get)."""
    from sqlalchemy import select

    chunks = []
    async with store.engine.connect() as conn:
        for table in (store._meta_table, store._records):
            rows = await conn.execute(select(table))
            chunks += [repr(tuple(row)).encode() for row in rows]
    return b"\n".join(chunks)


def _files(path: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm", "-journal"):
        candidate = Path(str(path) + suffix)
        if candidate.exists():
            data += candidate.read_bytes()
    return data
