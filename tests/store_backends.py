"""Real stores for the shared store tests and the store contract: every backend ctxlab has
an adapter for, each on a real server or file.

What each kind is (memory, SQLite, Redis, RedisStore on a server and on a Redis Cluster,
SQLAlchemy on SQLite and on PostgreSQL through asyncpg and psycopg, encrypted, and a dict
adapter a user registers) lives in ``store_kinds.py``, one object per kind. A
:class:`Backend` holds one test's resources on one kind (its folder, key prefix, schema,
clients) and hands out SDK sessions (:meth:`Backend.sdk`) and ctxlab log stores
(:meth:`Backend.open`); every backend gets its own key prefix, schema or file, so tests
never see each other's data. :meth:`Backend.spec` tells a subprocess how to open the same
store (``Backend.from_spec``). Adding a backend: one object in
``store_kinds.STORE_KINDS``; nothing here changes.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from pathlib import Path
from typing import Any

from ctxlab.stores import LogStore, MemoryLog

from conftest import assistant, call, output, user
from store_kinds import ENCRYPTION_KEY, STORE_KINDS, StoreKind

__all__ = ["ENCRYPTION_KEY", "STORE_KINDS", "Backend", "StoreKind", "make_backend"]

#: Every persistent store kind the shared suites run on (CTXLAB_TEST_STORES=sqlite,redis
#: narrows them while developing; CI runs them all).
KINDS = tuple(k for k, spec in STORE_KINDS.items() if spec.persistent
              and k in os.environ.get("CTXLAB_TEST_STORES", k).split(","))
#: Every kind the store contract runs on (the persistent ones, memory and a user's adapter).
CONTRACT_KINDS = ("memory", *KINDS, "dict")
#: The server fixture (conftest) each kind needs.
NEEDS = {k: spec.needs for k, spec in STORE_KINDS.items() if spec.needs}
#: Kinds several OS processes can share (the others live in one process).
MULTIPROCESS = tuple(k for k in KINDS if STORE_KINDS[k].multiprocess)
#: Which registered store adapter opens each kind (the contract covers every adapter).
ADAPTER_OF = {k: spec.adapter for k, spec in STORE_KINDS.items() if spec.adapter}
#: Generous socket timeouts: on a loaded 2-core machine, several worker processes starting
#: at once can take longer than redis-py's default 5 s to get a connection going.
TIMEOUTS = {"socket_connect_timeout": 30, "socket_timeout": 30}


def make_backend(kind: str, request: Any, folder: Path, **kw: Any) -> Backend:
    """A backend of ``kind``, asking pytest for the server it needs (which fails under
    CI=true, and skips elsewhere, when that server is missing)."""
    url = request.getfixturevalue(NEEDS[kind]) if kind in NEEDS else None
    return Backend(kind, folder, url, **kw)


def _in_thread(fn: Any) -> Any:
    """Run a coroutine function to completion on a loop of its own (from sync code that
    may itself run inside a loop)."""
    box: dict[str, Any] = {}

    def go() -> None:
        try:
            box["value"] = asyncio.run(fn())
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=go)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def postgres_driver_url(url: str, driver: str) -> str:
    """``postgresql://...`` with an async SQLAlchemy driver."""
    rest = url.split("://", 1)[1]
    return f"postgresql+{driver}://{rest}"


def create_schema(url: str, schema: str) -> None:
    """Create a PostgreSQL schema (each backend keeps its tables in one of its own)."""
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        finally:
            await conn.close()

    _in_thread(go)


class Backend:
    def __init__(self, kind: str, folder: Path, url: str | None = None, *,
                 mutation: str | None = None, prefix: str | None = None,
                 schema: str | None = None):
        self.kind = kind
        self.spec_of_kind: StoreKind = STORE_KINDS[kind]
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "chat.db"
        self.url = url
        self.mutation = mutation
        self.prefix = prefix or f"ctxlab-test-{uuid.uuid4().hex[:10]}"
        self.schema = schema
        self._client: Any = None
        self._engine: Any = None
        self.memory: dict[str, MemoryLog] = {}  # the memory kind's logs, by session id
        self.spec_of_kind.prepare(self)

    # -- what the backend can do ----------------------------------------------------------
    @property
    def shared(self) -> bool:
        """Several session objects can share one session id (memory: one object only)."""
        return self.spec_of_kind.shared

    @property
    def multiprocess(self) -> bool:
        return self.kind in MULTIPROCESS

    @property
    def is_redis(self) -> bool:
        return self.spec_of_kind.needs in ("redis_url", "redis_cluster_url")

    # -- clients --------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The Redis client (a cluster client for a cluster kind) of this loop."""
        if self._client is None:
            if getattr(self.spec_of_kind, "cluster", False):
                from redis.asyncio.cluster import RedisCluster

                self._client = RedisCluster.from_url(self.url, **TIMEOUTS)
            else:
                import redis.asyncio as aioredis

                self._client = aioredis.from_url(self.url, **TIMEOUTS)
        return self._client

    @property
    def engine(self) -> Any:
        """The SQLAlchemy engine of an SQL kind (its URL and connect arguments)."""
        if self._engine is None:
            from sqlalchemy.ext.asyncio import create_async_engine

            url, connect_args = self.spec_of_kind.engine_url(self)  # type: ignore[attr-defined]
            self._engine = create_async_engine(url, connect_args=connect_args)
        return self._engine

    # -- sessions and stores ----------------------------------------------------------------
    def sdk(self, session_id: str, *, ttl: int | None = None) -> Any:
        """A plain SDK session on this store (what an app without ctxlab would use)."""
        return self.spec_of_kind.sdk(self, session_id, ttl)

    def open(self, session_id: str) -> LogStore:
        """A ctxlab log store on ``session_id`` (a fresh object: another 'process')."""
        return self.spec_of_kind.open(self, session_id)

    def store_arg(self, session_id: str) -> Any:
        """What a ctxlab session's ``store=`` gets for ``session_id``."""
        return self.spec_of_kind.store_arg(self, session_id)

    async def stored_items(self, session_id: str) -> list[dict[str, Any]]:
        """The whole log of ``session_id`` as a fresh reader sees it."""
        return await self.spec_of_kind.stored_items(self, session_id)

    async def stored_state_text(self, session_id: str) -> str | None:
        """The strategy state of ``session_id`` exactly as the backend stores it (read with
        the backend's own client, not through ctxlab)."""
        return await self.spec_of_kind.stored_state_text(self, session_id)

    async def write_raw(self, session_id: str, raws: list[str]) -> None:
        """Append entries to the session's log as another program would: raw text straight
        into the backend (junk, poison rows), not through any session class."""
        await self.spec_of_kind.write_raw(self, session_id, raws)

    async def refuse_appends(self, session_id: str) -> bool:
        """Make the backend refuse the next append of ``session_id``; False if it cannot."""
        return await self.spec_of_kind.refuse_appends(self, session_id)

    def spec(self) -> dict[str, Any]:
        """How a subprocess opens the same store (see :meth:`from_spec`)."""
        return {"kind": self.kind, "folder": str(self.folder), "url": self.url,
                "prefix": self.prefix, "schema": self.schema}

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> Backend:
        return cls(spec["kind"], Path(spec["folder"]), spec.get("url"),
                   prefix=spec.get("prefix"), schema=spec.get("schema"))

    async def keys(self, session_id: str) -> list[str]:
        """Redis keys of ``session_id`` (standalone server)."""
        found = await self.client.keys(f"{self.prefix}:{session_id}*")
        return sorted(k.decode() for k in found)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None

    def __repr__(self) -> str:
        return f"Backend({self.kind!r}{f', {self.mutation}' if self.mutation else ''})"


def turn(t: int, tag: str = "w") -> list[list[dict[str, Any]]]:
    """One Runner turn in its three add_items batches: input, tool round, reply."""
    cid = f"call-{tag}-{t}"
    return [
        [user(f"{tag} question {t}: ticket TCK-{40000 + t}")],
        [call(cid, name="lookup", ticket=f"TCK-{40000 + t}"), output(cid, {"status": "open"})],
        [assistant(f"{tag} answer {t}")],
    ]


def conversation(turns: int, tag: str = "w") -> list[dict[str, Any]]:
    return [item for t in range(turns) for batch in turn(t, tag) for item in batch]


async def feed(session: Any, turns: int, tag: str = "w", start: int = 0) -> None:
    for t in range(start, start + turns):
        for batch in turn(t, tag):
            await session.add_items(batch)
