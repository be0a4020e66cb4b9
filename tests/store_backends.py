"""Real stores for the shared store tests and the store contract: every backend ctxlab has
an adapter for, each on a real server or file.

* ``memory``: the default in-process log (one session object, no other readers);
* ``sqlite``: the SDK's ``SQLiteSession`` on a file (ctxlab's direct adapter);
* ``redis``: the SDK's ``RedisSession`` on a real server (``redis_url`` in conftest);
* ``redis-store``: ctxlab's :class:`ctxlab.stores.RedisStore` (hash-tagged keys) on the same
  standalone server;
* ``redis-cluster``: the same ``RedisStore`` on a real 3-master, 3-replica Redis Cluster
  (``redis_cluster_url``);
* ``sqlalchemy``: the SDK's ``SQLAlchemySession`` on an SQLite file (aiosqlite);
* ``postgres``: the SDK's ``SQLAlchemySession`` on a real PostgreSQL server (asyncpg;
  ``postgres_url``), each backend in a schema of its own;
* ``postgres-psycopg``: the same through psycopg 3;
* ``encrypted``: the SDK's ``EncryptedSession`` over an SQLite file;
* ``dict``: a third-party adapter a user registers (``store_mutants.py``), optionally with
  one deliberate bug (``mutation``).

A :class:`Backend` hands out SDK sessions (:meth:`Backend.sdk`) and ctxlab log stores
(:meth:`Backend.open`) on one store; every backend gets its own key prefix, schema or file,
so tests never see each other's data. :meth:`Backend.spec` tells a subprocess how to open
the same store (``Backend.from_spec``). Adding a backend: one branch in :meth:`Backend.sdk`,
:meth:`Backend.stored_state_text` and :data:`NEEDS`, and its name in :data:`KINDS`.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from pathlib import Path
from typing import Any

from agents.memory import SQLiteSession

from ctxlab.stores import LogStore, MemoryLog, open_store

from conftest import assistant, call, output, user

#: Every persistent store kind the shared suites run on (CTXLAB_TEST_STORES=sqlite,redis
#: narrows them while developing; CI runs them all).
KINDS = tuple(k for k in ("sqlite", "redis", "redis-store", "redis-cluster", "sqlalchemy",
                          "postgres", "postgres-psycopg", "encrypted")
              if k in os.environ.get("CTXLAB_TEST_STORES", k).split(","))
#: Every kind the store contract runs on (the persistent ones, memory and a user's adapter).
CONTRACT_KINDS = ("memory", *KINDS, "dict")
#: The server fixture (conftest) each kind needs.
NEEDS = {"redis": "redis_url", "redis-store": "redis_url", "redis-cluster": "redis_cluster_url",
         "postgres": "postgres_url", "postgres-psycopg": "postgres_url"}
#: Kinds several OS processes can share (the others live in one process).
MULTIPROCESS = tuple(k for k in KINDS)
#: Which registered store adapter opens each kind (the contract covers every adapter).
ADAPTER_OF = {"sqlite": "sqlite", "redis": "redis", "redis-store": "redis-store",
              "redis-cluster": "redis-store", "sqlalchemy": "sqlalchemy",
              "postgres": "sqlalchemy", "postgres-psycopg": "sqlalchemy",
              "encrypted": "encrypted", "dict": "dict"}
#: Generous socket timeouts: on a loaded 2-core machine, several worker processes starting
#: at once can take longer than redis-py's default 5 s to get a connection going.
TIMEOUTS = {"socket_connect_timeout": 30, "socket_timeout": 30}
#: A fixed Fernet key for the encrypted backend (any 32 url-safe base64 bytes).
ENCRYPTION_KEY = "bXktdGVzdC1rZXktZm9yLWN0eGxhYi1zdG9yZS1zdWl0ZS0xMjM="


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
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / "chat.db"
        self.url = url
        self.mutation = mutation
        self.prefix = prefix or f"ctxlab-test-{uuid.uuid4().hex[:10]}"
        self.schema = schema
        if kind.startswith("postgres") and schema is None:
            assert url is not None
            self.schema = f"t_{uuid.uuid4().hex[:12]}"
            create_schema(url, self.schema)
        self._client: Any = None
        self._engine: Any = None
        self._memory: dict[str, MemoryLog] = {}

    # -- what the backend can do ----------------------------------------------------------
    @property
    def shared(self) -> bool:
        """Several session objects can share one session id (memory: one object only)."""
        return self.kind != "memory"

    @property
    def multiprocess(self) -> bool:
        return self.kind in MULTIPROCESS

    @property
    def is_redis(self) -> bool:
        return self.kind.startswith("redis")

    # -- clients --------------------------------------------------------------------------
    @property
    def client(self) -> Any:
        """The Redis client (a cluster client for ``redis-cluster``) of this loop."""
        if self._client is None:
            if self.kind == "redis-cluster":
                from redis.asyncio.cluster import RedisCluster

                self._client = RedisCluster.from_url(self.url, **TIMEOUTS)
            else:
                import redis.asyncio as aioredis

                self._client = aioredis.from_url(self.url, **TIMEOUTS)
        return self._client

    @property
    def engine(self) -> Any:
        if self._engine is None:
            from sqlalchemy.ext.asyncio import create_async_engine

            if self.kind == "postgres":
                self._engine = create_async_engine(
                    postgres_driver_url(self.url, "asyncpg"),
                    connect_args={"server_settings": {"search_path": self.schema}})
            elif self.kind == "postgres-psycopg":
                self._engine = create_async_engine(
                    postgres_driver_url(self.url, "psycopg"),
                    connect_args={"options": f"-csearch_path={self.schema}"})
            else:
                self._engine = create_async_engine(f"sqlite+aiosqlite:///{self.path}")
        return self._engine

    # -- sessions and stores ----------------------------------------------------------------
    def sdk(self, session_id: str, *, ttl: int | None = None) -> Any:
        """A plain SDK session on this store (what an app without ctxlab would use)."""
        kind = self.kind
        if kind == "sqlite":
            return SQLiteSession(session_id, self.path)
        if kind in ("sqlalchemy", "postgres", "postgres-psycopg"):
            from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

            return SQLAlchemySession(session_id, engine=self.engine, create_tables=True)
        if kind == "encrypted":
            from agents.extensions.memory import EncryptedSession

            return EncryptedSession(session_id, SQLiteSession(session_id, self.path),
                                    ENCRYPTION_KEY)
        if kind == "redis":
            from agents.extensions.memory import RedisSession

            return RedisSession(session_id, redis_client=self.client, key_prefix=self.prefix,
                                ttl=ttl)
        if kind in ("redis-store", "redis-cluster"):
            from ctxlab.stores import RedisStore

            return RedisStore(session_id, client=self.client, key_prefix=self.prefix, ttl=ttl)
        if kind == "dict":
            from store_mutants import DictSession

            return DictSession(session_id, self.mutation)
        raise ValueError(f"no SDK session for store kind {kind!r}")

    def open(self, session_id: str) -> LogStore:
        """A ctxlab log store on ``session_id`` (a fresh object: another 'process')."""
        if self.kind == "memory":
            return self._memory.setdefault(session_id, MemoryLog(session_id))
        return open_store(self.sdk(session_id))

    def store_arg(self, session_id: str) -> Any:
        """What a ctxlab session's ``store=`` gets for ``session_id``."""
        return self.open(session_id) if self.kind == "memory" else self.sdk(session_id)

    async def stored_items(self, session_id: str) -> list[dict[str, Any]]:
        """The whole log of ``session_id`` as a fresh reader sees it."""
        if self.kind == "memory":
            return list(self._memory[session_id]._items) if session_id in self._memory else []
        log = self.open(session_id)
        try:
            delta = await log.sync()
            assert delta.keep == 0
            return delta.items
        finally:
            await log.aclose()

    async def stored_state_text(self, session_id: str) -> str | None:
        """The strategy state of ``session_id`` exactly as the backend stores it (read with
        the backend's own client, not through ctxlab)."""
        kind = self.kind
        if kind in ("sqlite", "sqlalchemy", "encrypted"):
            import sqlite3

            with sqlite3.connect(self.path) as db:
                row = db.execute("SELECT data FROM ctxlab_state WHERE session_id = ?",
                                 (session_id,)).fetchone()
            return None if row is None else row[0]
        if kind.startswith("postgres"):
            from sqlalchemy import text

            async with self.engine.connect() as conn:
                row = (await conn.execute(text(
                    "SELECT data FROM ctxlab_state WHERE session_id = :s"),
                    {"s": session_id})).first()
            return None if row is None else row[0]
        if kind == "redis":
            raw = await self.client.hget(f"{self.prefix}:{session_id}:ctxlab:state", "data")
            return None if raw is None else raw.decode()
        if kind in ("redis-store", "redis-cluster"):
            from ctxlab.stores.redis import RedisKeys

            keys = RedisKeys(self.prefix, session_id, tagged=True)
            raw = await self.client.hget(keys.state, "data")
            return None if raw is None else raw.decode()
        raise NotImplementedError(f"stored_state_text does not know store kind {kind!r}")

    async def write_raw(self, session_id: str, raws: list[str]) -> None:
        """Append entries to the session's log as another program would: raw text straight
        into the backend (junk, poison rows), not through any session class."""
        kind = self.kind
        if kind in ("sqlite", "sqlalchemy", "encrypted"):
            import sqlite3

            with sqlite3.connect(self.path) as db:
                db.executemany("INSERT INTO agent_messages (session_id, message_data) "
                               "VALUES (?, ?)", [(session_id, raw) for raw in raws])
            return
        if kind.startswith("postgres"):
            from sqlalchemy import text

            async with self.engine.begin() as conn:
                for raw in raws:
                    await conn.execute(text(
                        "INSERT INTO agent_messages (session_id, message_data) "
                        "VALUES (:s, :m)"), {"s": session_id, "m": raw})
            return
        if kind == "redis":
            await self.client.rpush(f"{self.prefix}:{session_id}:messages", *raws)
            return
        if kind in ("redis-store", "redis-cluster"):
            from ctxlab.stores.redis import RedisKeys

            await self.client.rpush(RedisKeys(self.prefix, session_id, tagged=True).messages,
                                    *raws)
            return
        raise NotImplementedError(f"write_raw does not know store kind {kind!r}")

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
