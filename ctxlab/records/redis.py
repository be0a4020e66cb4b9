"""Records in Redis: two keys per user, every operation one Lua script.

Keys of the user whose id hashes to ``H`` (:func:`~ctxlab.records.base.namespace_hash`),
with the store's prefix ``P`` (``ctxlab:records`` by default):

====================  ===================================================================
``P:{H}:rec``         hash: ``d:<key>`` -> JSON data, ``v:<key>`` -> version, ``:ns`` ->
                      the user id (deleted with the records)
``P:{H}:meta``        hash: ``seq`` (version counter), ``epoch`` (deletions); the only key
                      a deleted user leaves behind
====================  ===================================================================

Both keys carry the hash tag ``{H}``, so they live in one slot of a Redis Cluster and every
script touches one slot only: the same scripts run on a cluster client. Record keys cannot
contain ``:`` (see :func:`~ctxlab.records.base.check_user_id`), so ``d:``/``v:`` fields never
collide. A client is made per event loop (a ``redis.asyncio`` client belongs to the loop
that opened its connections).
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any, ClassVar

from .base import (
    RecordStore,
    RecordsUnavailableError,
    Versioned,
    backend_failure,
    conflict,
    decode,
    namespace_hash,
)

DEFAULT_PREFIX = "ctxlab:records"

_GET = """
local epoch = tonumber(redis.call('HGET', KEYS[2], 'epoch') or '0')
local v = tonumber(redis.call('HGET', KEYS[1], 'v:' .. ARGV[1]) or '0')
local d = redis.call('HGET', KEYS[1], 'd:' .. ARGV[1])
return {v, epoch, d}
"""

# ARGV: key, expected version, expected epoch ('' = any), data, user id
_PUT = """
local epoch = tonumber(redis.call('HGET', KEYS[2], 'epoch') or '0')
local v = tonumber(redis.call('HGET', KEYS[1], 'v:' .. ARGV[1]) or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= epoch then return {-1, v, epoch} end
if v ~= tonumber(ARGV[2]) then return {0, v, epoch} end
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('HSET', KEYS[1], 'v:' .. ARGV[1], seq, 'd:' .. ARGV[1], ARGV[4], ':ns', ARGV[5])
return {1, seq, epoch}
"""

_DELETE = """
local n = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'd:' then n = n + 1 end
end
redis.call('DEL', KEYS[1])
redis.call('HINCRBY', KEYS[2], 'epoch', 1)
return n
"""


class RedisRecords(RecordStore):
    """Records in the Redis server at ``url`` (or through an existing ``client``);
    ``cluster=True`` connects to a Redis Cluster at ``url`` (one of its nodes)."""

    kind: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True

    def __init__(self, url: str | None = None, *, client: Any = None,
                 prefix: str = DEFAULT_PREFIX, cluster: bool = False):
        if (url is None) == (client is None):
            raise ValueError("RedisRecords needs exactly one of url= and client=")
        if not isinstance(prefix, str) or not prefix or "{" in prefix or "}" in prefix:
            raise ValueError(f"prefix must be a non-empty string without braces, got {prefix!r}")
        self.url = url
        self.cluster = bool(cluster)
        self.prefix = prefix
        self._client = client
        self._guard = threading.Lock()
        self._per_loop: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()

    def describe(self) -> str:
        return f"redis records {self.prefix!r}"

    def keys_of(self, namespace: str) -> tuple[str, str]:
        """The two Redis keys of user ``namespace``: records and meta."""
        base = f"{self.prefix}:{{{namespace_hash(namespace)}}}"
        return f"{base}:rec", f"{base}:meta"

    def _new_client(self) -> Any:
        """A client for a loop that has none yet (the caller's, a clone of it, or a new one)."""
        if self._client is not None and not self._per_loop:
            return self._client
        if self._client is not None:
            pool = getattr(self._client, "connection_pool", None)
            if pool is None:
                raise RecordsUnavailableError(
                    f"{self.describe()}: this Redis client (a cluster client?) belongs to "
                    "another event loop; pass url= (and cluster=True for a Redis Cluster) so "
                    "that every event loop gets a client of its own")
            return type(self._client)(connection_pool=type(pool)(
                connection_class=pool.connection_class, **pool.connection_kwargs))
        if self.cluster:
            from redis.asyncio.cluster import RedisCluster

            return RedisCluster.from_url(self.url)
        import redis.asyncio as aioredis

        return aioredis.Redis.from_url(self.url)

    async def _redis(self) -> Any:
        """The client of the running loop. A cluster client is initialized once, before any
        command: redis-py's async cluster client initializes lazily, and commands sent
        concurrently during that first initialization fail (``'NoneType' object has no
        attribute 'writelines'``)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            entry = self._per_loop.get(loop)
            first = entry is None
            if first:
                client = self._new_client()
                ready = loop.create_future() if hasattr(client, "initialize") else None
                entry = self._per_loop[loop] = (client, ready)
        client, ready = entry
        if ready is None:
            return client
        if first:
            try:
                await client.initialize()
            except BaseException as exc:
                with self._guard:
                    self._per_loop.pop(loop, None)
                ready.set_exception(exc)
                ready.exception()  # retrieved here: waiters see it, no "never retrieved" log
                raise
            ready.set_result(True)
        else:
            await asyncio.shield(ready)
        return client

    async def _eval(self, what: str, script: str, keys: tuple[str, ...], *args: Any) -> Any:
        try:
            return await (await self._redis()).eval(script, len(keys), *keys, *args)
        except Exception as exc:
            if type(exc).__module__.startswith("redis"):
                raise backend_failure(self, what, exc) from None
            raise

    async def _get(self, namespace: str, key: str) -> Versioned:
        v, epoch, data = await self._eval(f"read record {key!r} of user {namespace!r}", _GET,
                                          self.keys_of(namespace), key)
        return Versioned(int(v), int(epoch), decode(data) if data else None)

    async def _put(self, namespace: str, key: str, text: str, expected_version: int,
                   expected_epoch: int | None) -> Versioned:
        status, v, epoch = await self._eval(
            f"write record {key!r} of user {namespace!r}", _PUT, self.keys_of(namespace), key,
            expected_version, "" if expected_epoch is None else expected_epoch, text, namespace)
        if int(status) == -1:
            raise conflict(self, namespace, key, expected_version, int(v), deleted=True)
        if int(status) == 0:
            raise conflict(self, namespace, key, expected_version, int(v))
        return Versioned(int(v), int(epoch), decode(text))

    async def _delete_namespace(self, namespace: str) -> int:
        return int(await self._eval(f"delete the records of user {namespace!r}", _DELETE,
                                    self.keys_of(namespace)))

    async def _keys(self, namespace: str) -> list[str]:
        rec, _ = self.keys_of(namespace)
        try:
            fields = await (await self._redis()).hkeys(rec)
        except Exception as exc:
            raise backend_failure(self, f"list the records of user {namespace!r}", exc) from None
        names = [f.decode() if isinstance(f, bytes) else f for f in fields]
        return [n[2:] for n in names if n.startswith("d:")]

    async def _namespaces(self) -> list[str]:
        found: list[str] = []
        try:
            client = await self._redis()
            async for key in client.scan_iter(match=f"{self.prefix}:*:rec", count=500):
                name = await client.hget(key, ":ns")
                if name:
                    found.append(name.decode() if isinstance(name, bytes) else name)
        except Exception as exc:
            raise backend_failure(self, "list users", exc) from None
        return found

    async def aclose(self) -> None:
        """Close the client this store made for the running loop (never the caller's)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            entry = self._per_loop.pop(loop, None)
        if entry is not None and entry[0] is not self._client:
            await entry[0].aclose()
