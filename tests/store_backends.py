"""Real stores for the shared store suite: every backend ctxlab has an adapter for.

* ``sqlite``: the SDK's ``SQLiteSession`` on a file (ctxlab's direct adapter);
* ``redis``: the SDK's ``RedisSession`` on a real server (see ``redis_url`` in conftest);
* ``sqlalchemy``: the SDK's ``SQLAlchemySession`` (aiosqlite file): the log through the
  session's public methods, the state in ctxlab tables through its engine;
* ``encrypted``: the SDK's ``EncryptedSession`` over an SQLite file: state encrypted too.

A :class:`Backend` hands out Agents SDK sessions on one store. Redis sessions share one
client, created inside the running event loop and closed by :meth:`Backend.aclose`; every
test gets its own key prefix so tests never see each other's keys. A new backend adds one
branch to :meth:`Backend.sdk` and its name to :data:`KINDS`.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from agents.memory import SQLiteSession

from conftest import assistant, call, output, user

#: Every store kind the shared suite runs on (redis needs a server: CTXLAB_REDIS_URL).
KINDS = ("sqlite", "redis", "sqlalchemy", "encrypted")
#: A fixed Fernet key for the encrypted backend (any 32 url-safe base64 bytes).
ENCRYPTION_KEY = "bXktdGVzdC1rZXktZm9yLWN0eGxhYi1zdG9yZS1zdWl0ZS0xMjM="


class Backend:
    def __init__(self, kind: str, folder: Path, redis_url: str | None = None):
        self.kind = kind
        self.path = folder / "chat.db"
        self.url = redis_url
        self.prefix = f"ctxlab-test-{uuid.uuid4().hex[:10]}"
        self._client: Any = None
        self._engine: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            import redis.asyncio as aioredis

            self._client = aioredis.from_url(self.url)
        return self._client

    @property
    def engine(self) -> Any:
        if self._engine is None:
            from sqlalchemy.ext.asyncio import create_async_engine

            self._engine = create_async_engine(f"sqlite+aiosqlite:///{self.path}")
        return self._engine

    def sdk(self, session_id: str, *, ttl: int | None = None) -> Any:
        """A plain SDK session on this store (what an app without ctxlab would use)."""
        if self.kind == "sqlite":
            return SQLiteSession(session_id, self.path)
        if self.kind == "sqlalchemy":
            from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

            return SQLAlchemySession(session_id, engine=self.engine, create_tables=True)
        if self.kind == "encrypted":
            from agents.extensions.memory import EncryptedSession

            return EncryptedSession(session_id, SQLiteSession(session_id, self.path),
                                    ENCRYPTION_KEY)
        from agents.extensions.memory import RedisSession

        return RedisSession(session_id, redis_client=self.client, key_prefix=self.prefix,
                            ttl=ttl)

    def spec(self) -> dict[str, Any]:
        """How a subprocess opens the same store (see store_worker.py)."""
        return {"kind": self.kind, "path": str(self.path), "url": self.url,
                "prefix": self.prefix}

    async def keys(self, session_id: str) -> list[str]:
        found = await self.client.keys(f"{self.prefix}:{session_id}*")
        return sorted(k.decode() for k in found)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None


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
