"""One test object per store kind: everything the shared store tests need to know about a
backend, in one place.

A :class:`StoreKind` says which server fixture the kind needs, which registered adapter opens
it, how to make a plain SDK session on it (:meth:`StoreKind.sdk`), how to read the strategy
state and write raw rows with the backend's own client (no ctxlab in between), and how to
make the backend refuse the next append (for the privacy tests). :class:`store_backends.
Backend` holds the per-test resources (folder, key prefix, schema, clients) and asks its
kind. Adding a store to the shared suites is adding one object to :data:`STORE_KINDS`
(DEVELOPERS.md, "Adding a store").
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any, ClassVar

from agents.memory import SQLiteSession

from ctxlab.stores import LogStore, MemoryLog, open_store

#: A fixed Fernet key for the encrypted kind (any 32 url-safe base64 bytes).
ENCRYPTION_KEY = "bXktdGVzdC1rZXktZm9yLWN0eGxhYi1zdG9yZS1zdWl0ZS0xMjM="


class StoreKind:
    """The default answers; each kind overrides what differs."""

    name: ClassVar[str] = "abstract"
    #: The conftest fixture giving the server URL this kind needs (None: a file or memory).
    needs: ClassVar[str | None] = None
    #: The registered store adapter (``ctxlab.stores.store_adapters``) that opens it.
    adapter: ClassVar[str | None] = None
    #: Several session objects may share one session id (memory: one object only).
    shared: ClassVar[bool] = True
    #: Several OS processes can share it.
    multiprocess: ClassVar[bool] = True
    #: In the shared suites (the persistent kinds); the contract runs every kind.
    persistent: ClassVar[bool] = True

    def prepare(self, backend: Any) -> None:
        """Set up what a new backend of this kind needs (a schema, ...)."""

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        """A plain SDK session on the backend (what an app without ctxlab would use)."""
        raise ValueError(f"no SDK session for store kind {self.name!r}")

    def open(self, backend: Any, session_id: str) -> LogStore:
        """A ctxlab log store on ``session_id`` (a fresh object: another 'process')."""
        return open_store(self.sdk(backend, session_id, None))

    def store_arg(self, backend: Any, session_id: str) -> Any:
        """What a ctxlab session's ``store=`` gets for ``session_id``."""
        return self.sdk(backend, session_id, None)

    async def stored_items(self, backend: Any, session_id: str) -> list[dict[str, Any]]:
        """The whole log of ``session_id`` as a fresh reader sees it."""
        log = self.open(backend, session_id)
        try:
            delta = await log.sync()
            assert delta.keep == 0, f"a fresh reader of {self.name} kept {delta.keep} items"
            return delta.items
        finally:
            await log.aclose()

    async def stored_state_text(self, backend: Any, session_id: str) -> str | None:
        """The strategy state exactly as the backend stores it (its own client)."""
        raise NotImplementedError(f"stored_state_text does not know store kind {self.name!r}")

    async def write_raw(self, backend: Any, session_id: str, raws: list[str]) -> None:
        """Append raw entries as another program would (junk, poison rows)."""
        raise NotImplementedError(f"write_raw does not know store kind {self.name!r}")

    async def refuse_appends(self, backend: Any, session_id: str) -> bool:
        """Make the backend refuse the next append of ``session_id`` (a constraint, a key
        of the wrong type, ...); False when this kind cannot refuse one."""
        return False

    def __repr__(self) -> str:
        return f"<store kind {self.name}>"


# ------------------------------------------------------------------------------ in process


class MemoryKind(StoreKind):
    """The default in-process log: one session object per id, no other readers."""

    name = "memory"
    shared = False
    multiprocess = False
    persistent = False

    def open(self, backend: Any, session_id: str) -> LogStore:
        return backend.memory.setdefault(session_id, MemoryLog(session_id))

    def store_arg(self, backend: Any, session_id: str) -> Any:
        return self.open(backend, session_id)

    async def stored_items(self, backend: Any, session_id: str) -> list[dict[str, Any]]:
        log = backend.memory.get(session_id)
        return [] if log is None else list(log._items)


class DictKind(StoreKind):
    """A third-party adapter a user registers (``store_mutants.py``)."""

    name = "dict"
    adapter = "dict"
    multiprocess = False
    persistent = False

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        from store_mutants import DictSession

        return DictSession(session_id, backend.mutation)


# ---------------------------------------------------------------------------------- SQLite


class SQLiteFileKind(StoreKind):
    """Kinds whose rows are in the backend's SQLite file (read with ``sqlite3``)."""

    async def stored_state_text(self, backend: Any, session_id: str) -> str | None:
        with sqlite3.connect(backend.path) as db:
            row = db.execute("SELECT data FROM ctxlab_state WHERE session_id = ?",
                             (session_id,)).fetchone()
        return None if row is None else row[0]

    async def write_raw(self, backend: Any, session_id: str, raws: list[str]) -> None:
        with sqlite3.connect(backend.path) as db:
            db.executemany("INSERT INTO agent_messages (session_id, message_data) "
                           "VALUES (?, ?)", [(session_id, raw) for raw in raws])

    async def refuse_appends(self, backend: Any, session_id: str) -> bool:
        with sqlite3.connect(backend.path) as db:
            db.execute(
                "CREATE TRIGGER IF NOT EXISTS refuse_rows BEFORE INSERT ON agent_messages "
                f"WHEN NEW.session_id = '{session_id}' "
                "BEGIN SELECT RAISE(ABORT, 'rows of this session are refused'); END")
        return True


class SQLiteKind(SQLiteFileKind):
    name = "sqlite"
    adapter = "sqlite"

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        return SQLiteSession(session_id, backend.path)


class SQLAlchemyKind(SQLiteFileKind):
    """The SDK's ``SQLAlchemySession`` on an SQLite file (aiosqlite)."""

    name = "sqlalchemy"
    adapter = "sqlalchemy"

    def engine_url(self, backend: Any) -> tuple[str, dict[str, Any]]:
        return f"sqlite+aiosqlite:///{backend.path}", {}

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

        return SQLAlchemySession(session_id, engine=backend.engine, create_tables=True)


class EncryptedKind(SQLiteFileKind):
    """The SDK's ``EncryptedSession`` over an SQLite file."""

    name = "encrypted"
    adapter = "encrypted"

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        from agents.extensions.memory import EncryptedSession

        return EncryptedSession(session_id, SQLiteSession(session_id, backend.path),
                                ENCRYPTION_KEY)


# ------------------------------------------------------------------------------ PostgreSQL


class PostgresKind(SQLAlchemyKind):
    """The SDK's ``SQLAlchemySession`` on a real PostgreSQL server, in a schema of its own."""

    name = "postgres"
    needs = "postgres_url"
    driver: ClassVar[str] = "asyncpg"

    def prepare(self, backend: Any) -> None:
        if backend.schema is None:
            from store_backends import create_schema

            assert backend.url is not None, f"{self.name} needs a server URL"
            backend.schema = f"t_{uuid.uuid4().hex[:12]}"
            create_schema(backend.url, backend.schema)

    def engine_url(self, backend: Any) -> tuple[str, dict[str, Any]]:
        from store_backends import postgres_driver_url

        if self.driver == "asyncpg":
            args = {"server_settings": {"search_path": backend.schema}}
        else:
            args = {"options": f"-csearch_path={backend.schema}"}
        return postgres_driver_url(backend.url, self.driver), args

    async def stored_state_text(self, backend: Any, session_id: str) -> str | None:
        from sqlalchemy import text

        async with backend.engine.connect() as conn:
            row = (await conn.execute(text(
                "SELECT data FROM ctxlab_state WHERE session_id = :s"),
                {"s": session_id})).first()
        return None if row is None else row[0]

    async def write_raw(self, backend: Any, session_id: str, raws: list[str]) -> None:
        from sqlalchemy import text

        async with backend.engine.begin() as conn:
            for raw in raws:
                await conn.execute(text(
                    "INSERT INTO agent_messages (session_id, message_data) "
                    "VALUES (:s, :m)"), {"s": session_id, "m": raw})

    async def refuse_appends(self, backend: Any, session_id: str) -> bool:
        """A check constraint: PostgreSQL's refusal repeats the failing row (DETAIL) and
        SQLAlchemy the statement's parameters, the text ctxlab must not pass on."""
        from sqlalchemy import text

        async with backend.engine.begin() as conn:
            await conn.execute(text(
                f"ALTER TABLE agent_messages ADD CONSTRAINT refuse_{abs(hash(session_id))} "
                f"CHECK (session_id <> '{session_id}') NOT VALID"))
        return True


class PostgresPsycopgKind(PostgresKind):
    name = "postgres-psycopg"
    driver = "psycopg"


# ----------------------------------------------------------------------------------- Redis


class RedisKind(StoreKind):
    """The SDK's ``RedisSession`` on a real server."""

    name = "redis"
    adapter = "redis"
    needs = "redis_url"
    cluster: ClassVar[bool] = False

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        from agents.extensions.memory import RedisSession

        return RedisSession(session_id, redis_client=backend.client,
                            key_prefix=backend.prefix, ttl=ttl)

    def keys(self, backend: Any, session_id: str) -> tuple[str, str]:
        """(the messages list, the state hash) of ``session_id``."""
        return (f"{backend.prefix}:{session_id}:messages",
                f"{backend.prefix}:{session_id}:ctxlab:state")

    async def stored_state_text(self, backend: Any, session_id: str) -> str | None:
        raw = await backend.client.hget(self.keys(backend, session_id)[1], "data")
        return None if raw is None else raw.decode()

    async def write_raw(self, backend: Any, session_id: str, raws: list[str]) -> None:
        await backend.client.rpush(self.keys(backend, session_id)[0], *raws)

    async def refuse_appends(self, backend: Any, session_id: str) -> bool:
        """The messages key holds a string: Redis answers WRONGTYPE."""
        await backend.client.set(self.keys(backend, session_id)[0], "not a list")
        return True


class RedisStoreKind(RedisKind):
    """ctxlab's :class:`ctxlab.stores.RedisStore` (hash-tagged keys) on a server."""

    name = "redis-store"
    adapter = "redis-store"

    def sdk(self, backend: Any, session_id: str, ttl: int | None) -> Any:
        from ctxlab.stores import RedisStore

        return RedisStore(session_id, client=backend.client, key_prefix=backend.prefix,
                          ttl=ttl)

    def keys(self, backend: Any, session_id: str) -> tuple[str, str]:
        from ctxlab.stores.redis import RedisKeys

        keys = RedisKeys(backend.prefix, session_id, tagged=True)
        return keys.messages, keys.state


class RedisClusterKind(RedisStoreKind):
    """The same ``RedisStore`` on a real 3-master, 3-replica Redis Cluster."""

    name = "redis-cluster"
    needs = "redis_cluster_url"
    cluster = True


#: Every kind, by name, in the order the suites run them.
STORE_KINDS: dict[str, StoreKind] = {k.name: k for k in (
    MemoryKind(), SQLiteKind(), RedisKind(), RedisStoreKind(), RedisClusterKind(),
    SQLAlchemyKind(), PostgresKind(), PostgresPsycopgKind(), EncryptedKind(), DictKind(),
)}
