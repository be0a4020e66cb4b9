"""``RedisStore``: an Agents SDK session in Redis that works the same on one server and on a
Redis Cluster.

The SDK's ``RedisSession`` refuses cluster clients (it needs ``MULTI`` across keys), and its
keys (``agents:session:S:messages``, ...) hash to different slots, so no script can touch
them atomically on a cluster. ``RedisStore`` keeps every key of one session in one slot
with a hash tag (``ctxlab:{S}:messages``, ...; see :mod:`ctxlab.stores.redis`), so each
operation is one atomic Lua script on whichever master owns that slot, and sessions spread
over the masters. It is a complete SDK session (``get_items``, ``add_items``, ``pop_item``,
``clear_session``), usable with ``Runner.run(..., session=store)`` alone, and ctxlab's
memory sessions take it as ``store=`` (their summaries, leases and checkpoints then live in
the same slot).

Durability: by default a write returns when the master has it; Redis replicates
asynchronously, so if that master dies before its replica got the write, a failover loses
it (the failover benchmark measures how many acknowledged turns that is). ``replicas=1``
makes every write wait (``WAIT``) until a replica holds it, at the cost of a replication
round trip per write (measured by ``benchmarks/bench_failover.py``).

Moving from the SDK's ``RedisSession``: :meth:`RedisStore.import_sdk_session` copies a
session the SDK wrote (items, and ctxlab's summary state and checkpoints if a ctxlab
session ran on it) into this layout, once, atomically; until then ctxlab keeps reading the
SDK's layout directly (``store=RedisSession(...)``, standalone servers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from agents.memory import SessionSettings

from ..core.session_ids import check_session_id
from .base import decode_entry
from .redis import (
    LoopClients,
    RedisKeys,
    RedisLog,
    check_key_prefix,
    is_cluster,
    new_mark,
)
from .redis_lua import IMPORT

DEFAULT_PREFIX = "ctxlab"


class RedisStore:
    """An Agents SDK session on a Redis server or Redis Cluster (see the module doc).

    Args:
        session_id: the conversation's id (any safe id; braces are fine: they are encoded
            inside the hash tag).
        client: a ``redis.asyncio.Redis`` or ``redis.asyncio.cluster.RedisCluster`` client.
        url: instead of ``client``, a ``redis://`` URL; ``cluster=True`` for a cluster.
            With a URL the store makes one client per event loop itself (a client is bound
            to the loop it was first used on).
        key_prefix: the first part of every key (no braces).
        ttl: seconds after the last write when every key of the session expires.
        replicas: how many replicas must hold each write before it returns (``WAIT``);
            0 (the default): the master's acknowledgement, replication is asynchronous.
        wait_timeout: seconds to wait for them; past it the write raises
            :class:`ctxlab.stores.StoreNotDurableError` (it is on the master).
        session_settings: the SDK's ``SessionSettings`` (``limit`` for ``get_items``).
    """

    def __init__(self, session_id: str, *, client: Any = None, url: str | None = None,
                 cluster: bool = False, key_prefix: str = DEFAULT_PREFIX,
                 ttl: float | None = None, replicas: int = 0, wait_timeout: float = 1.0,
                 session_settings: SessionSettings | None = None,
                 clients: LoopClients | None = None):
        self.session_id = check_session_id(session_id)
        self.key_prefix = check_key_prefix(key_prefix, tagged=True)
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            raise ValueError(f"replicas must be an integer >= 0, got {replicas!r}")
        if not isinstance(wait_timeout, (int, float)) or wait_timeout <= 0:
            raise ValueError(f"wait_timeout must be a number of seconds > 0, got "
                             f"{wait_timeout!r}")
        if ttl is not None and (not isinstance(ttl, (int, float)) or ttl <= 0):
            raise ValueError(f"ttl must be None or a number of seconds > 0, got {ttl!r}")
        if clients is None:
            if (client is None) == (url is None):
                raise ValueError("RedisStore needs exactly one of client= or url=")
            clients = (LoopClients(None, _factory(url, cluster)) if url
                       else LoopClients.of(client))
        self.clients = clients
        self.url = url
        self.ttl = ttl
        self.replicas = replicas
        self.wait_timeout = float(wait_timeout)
        self.session_settings = session_settings or SessionSettings()
        self.keys = RedisKeys(self.key_prefix, self.session_id, tagged=True)
        self._plain = self.log(blind=True)

    @classmethod
    def from_url(cls, session_id: str, url: str, **kwargs: Any) -> RedisStore:
        """``RedisStore(session_id, url=url, ...)``."""
        return cls(session_id, url=url, **kwargs)

    def for_session(self, session_id: str) -> RedisStore:
        """The same store (clients, prefix, durability) for another session id."""
        return RedisStore(session_id, clients=self.clients, key_prefix=self.key_prefix,
                          ttl=self.ttl, replicas=self.replicas,
                          wait_timeout=self.wait_timeout, url=self.url)

    def log(self, *, blind: bool = False) -> RedisLog:
        """A ctxlab :class:`~ctxlab.stores.redis.RedisLog` on this session's keys."""
        return RedisLog(self, clients=self.clients, key_prefix=self.key_prefix, ttl=self.ttl,
                        tagged=True, replicas=self.replicas, wait_timeout=self.wait_timeout,
                        blind=blind)

    @property
    def client(self) -> Any:
        """The client of the running event loop."""
        return self.clients.current()[0]

    @property
    def is_cluster(self) -> bool:
        return is_cluster(self.client)

    # -- the SDK Session protocol ----------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The stored items, oldest first (the newest ``limit`` ones; entries that are not
        items are skipped, as the SDK's sessions do)."""
        if limit is None:
            limit = self.session_settings.limit
        if limit is not None and limit <= 0:
            return []
        start = 0 if limit is None else -limit
        raws = await self.client.lrange(self.keys.messages, start, -1)
        items = [decode_entry(raw) for raw in raws]
        return [item for item in items if item.get("type") != "ctxlab.invalid"]

    async def add_items(self, items: list[Any]) -> None:
        if items:
            await self._plain.append([_as_dict(item) for item in items])

    async def pop_item(self) -> dict[str, Any] | None:
        popped, _ = await self._plain.pop()
        return popped

    async def clear_session(self) -> None:
        await self._plain.clear()

    async def aclose(self) -> None:
        """Close the clients this store made on the running loop."""
        await self.clients.aclose_clones()

    # -- moving from the SDK's RedisSession ------------------------------------------------
    async def import_sdk_session(self, sdk_session: Any) -> int:
        """Copy a session the SDK's ``RedisSession`` wrote (same session id; any server this
        store's client does not have to reach) into this store: its items, and ctxlab's
        summary state and checkpoints when a ctxlab session ran on it. Nothing is copied if
        this store already holds the session (the copy happens at most once, atomically).
        Returns how many items were copied. The SDK's keys are left as they were: stop the
        old writers first, then delete them."""
        from .redis import redis_session_config

        if sdk_session.session_id != self.session_id:
            raise ValueError(f"the SDK session is {sdk_session.session_id!r}, this store is "
                             f"{self.session_id!r}")
        client, prefix, _ = redis_session_config(sdk_session)
        old = RedisKeys(prefix, self.session_id)
        async with client.pipeline(transaction=True) as pipe:
            pipe.lrange(old.messages, 0, -1)
            pipe.hgetall(old.state)
            pipe.hgetall(old.checkpoints)
            raws, state, checkpoints = await pipe.execute()
        state = {_str(k): _str(v) for k, v in state.items()}
        pairs = [part for name, record in checkpoints.items()
                 for part in (_str(name), _str(record))]
        args = [self.session_id, repr(time.time()),
                int(self.ttl * 1000) if self.ttl else 0,
                state.get("version", "0"), state.get("epoch", "0"), state.get("data", ""),
                len(pairs) // 2, new_mark(), *pairs, *[_str(r) for r in raws]]
        script = self.client.register_script(IMPORT)
        copied = await script(keys=self.keys.all(), args=args)
        return int(copied)

    def __repr__(self) -> str:
        return f"RedisStore({self.session_id!r}, key_prefix={self.key_prefix!r})"


def _str(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, dict):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(exclude_unset=True)  # type: ignore[no-any-return]
    return dict(item)


def _factory(url: str, cluster: bool) -> Callable[[], Any]:
    def make() -> Any:
        if cluster:
            from redis.asyncio.cluster import RedisCluster

            return RedisCluster.from_url(url)
        import redis.asyncio as aioredis

        return aioredis.from_url(url)

    return make
