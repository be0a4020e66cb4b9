"""The raw log in Redis (the SDK's ``RedisSession`` keys) and the side state in side keys.

Keys of session ``S`` with the session's key prefix ``P`` (``agents:session`` by default):

==============================  ===========================================================
``P:S``                         SDK: hash with session_id, created_at, updated_at
``P:S:messages``                SDK: list of items as JSON
``P:S:counter``                 SDK: counter
``P:S:ctxlab:state``            hash: ``version`` (CAS token), ``epoch``, ``data`` (JSON),
                                ``touched_at``
``P:S:ctxlab:checkpoints``      hash: checkpoint name -> JSON
``P:S:ctxlab:lease``            the fold lease (owner, with its own expiry)
``P:S:ctxlab:writer:<id>``      the last batch token of one writer (makes retries idempotent)
==============================  ===========================================================

Every operation is one Lua script, so it is atomic and costs one round trip: it reports
what changed since the caller's cursor (the log length, the raw JSON of the last known item
and the epoch), applies the change and refreshes the session's TTL on *every* key above when
the ``RedisSession`` has a ``ttl``. Session ids may not contain ``:`` (see
:func:`ctxlab.check_session_id`), so one session's keys can never be another's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
import weakref
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.items import invalid_entry
from .base import (
    UNAVAILABLE_HINT,
    Checkpoint,
    Delta,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
    StoreUnavailableError,
    decode_data,
    encode_data,
)

logger = logging.getLogger("ctxlab.stores")

DEFAULT_KEY_PREFIX = "agents:session"
#: How long a writer's last batch token is kept to recognise a retried call (ms).
DEDUP_MS = 300_000

# KEYS: 1 hash, 2 messages, 3 counter, 4 state, 5 checkpoints, 6 writer token
# ARGV: 1 known length, 2 raw JSON of the last known item, 3 known epoch, 4 known version,
#       5 ttl in ms (0: none), 6 now (unix seconds), 7... per script
_PRELUDE = """
local known = tonumber(ARGV[1])
local ttl = tonumber(ARGV[5])
local function state()
  local st = redis.call('HMGET', KEYS[4], 'version', 'epoch')
  return tonumber(st[1]) or 0, tonumber(st[2]) or 0
end
local version, epoch = state()
local len = redis.call('LLEN', KEYS[2])
local ok = epoch == tonumber(ARGV[3])
if ok and known > 0 then
  ok = len >= known and redis.call('LINDEX', KEYS[2], known - 1) == ARGV[2]
end
local from = known
if not ok then from = 0 end
local function seen_items()
  if len > from then return redis.call('LRANGE', KEYS[2], from, len - 1) end
  return {}
end
local function refresh()
  if ttl > 0 then
    for i = 1, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function finish(extra)
  local v, e = state()
  local data = false
  if v ~= tonumber(ARGV[4]) then data = redis.call('HGET', KEYS[4], 'data') end
  return {ok and 1 or 0, v, e, data, extra}
end
"""

_SYNC = _PRELUDE + """
return finish({seen_items()})
"""

# ARGV 7: batch token, 8: session id, 9...: items
_APPEND = _PRELUDE + """
local seen = seen_items()
if redis.call('GET', KEYS[6]) == ARGV[7] then
  return finish({seen, 1})
end
redis.call('HSET', KEYS[1], 'session_id', ARGV[8])
redis.call('HSETNX', KEYS[1], 'created_at', ARGV[6])
for i = 9, #ARGV, 1000 do
  redis.call('RPUSH', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[6])
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
local keep_token = DEDUP_MS
if ttl > 0 and ttl < keep_token then keep_token = ttl end
redis.call('SET', KEYS[6], ARGV[7], 'PX', keep_token)
refresh()
return finish({seen, 0})
""".replace("DEDUP_MS", str(DEDUP_MS))

_POP = _PRELUDE + """
local seen = seen_items()
local popped = redis.call('RPOP', KEYS[2])
if popped then
  redis.call('HINCRBY', KEYS[4], 'version', 1)
  redis.call('HINCRBY', KEYS[4], 'epoch', 1)
  redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
  refresh()
end
return finish({seen, popped, redis.call('LINDEX', KEYS[2], -1)})
"""

_CLEAR = _PRELUDE + """
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[5])
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
redis.call('HDEL', KEYS[4], 'data')
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
refresh()
return finish({})
"""

# ARGV 7: length to keep, 8: expected version, 9: new data ('' for none)
_TRUNCATE = _PRELUDE + """
if version ~= tonumber(ARGV[8]) then return {-1} end
local seen = seen_items()
local length = tonumber(ARGV[7])
local removed = {}
if len > length then
  removed = redis.call('LRANGE', KEYS[2], length, -1)
  if length == 0 then redis.call('DEL', KEYS[2])
  else redis.call('LTRIM', KEYS[2], 0, length - 1) end
end
redis.call('HINCRBY', KEYS[4], 'version', 1)
redis.call('HINCRBY', KEYS[4], 'epoch', 1)
if ARGV[9] == '' then redis.call('HDEL', KEYS[4], 'data') else
  redis.call('HSET', KEYS[4], 'data', ARGV[9]) end
redis.call('HSET', KEYS[4], 'touched_at', ARGV[6])
refresh()
return finish({seen, removed, redis.call('LINDEX', KEYS[2], -1)})
"""

# State scripts. KEYS: 1 state, 2 checkpoints, 3 hash, 4 messages, 5 counter
# ARGV: 1 ttl ms, 2 now, 3... per script
_STATE_PRELUDE = """
local ttl = tonumber(ARGV[1])
local function refresh()
  if ttl > 0 then
    for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ttl) end
  end
end
local function result()
  local st = redis.call('HMGET', KEYS[1], 'version', 'epoch', 'data')
  return {tonumber(st[1]) or 0, tonumber(st[2]) or 0, st[3]}
end
"""

# ARGV 3: expected version, 4: data ('' for none)
_CAS = _STATE_PRELUDE + """
local v = tonumber(redis.call('HGET', KEYS[1], 'version')) or 0
if v ~= tonumber(ARGV[3]) then return {0, result()} end
if ARGV[4] == '' then redis.call('HDEL', KEYS[1], 'data') else
  redis.call('HSET', KEYS[1], 'data', ARGV[4]) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return {1, result()}
"""

# ARGV 3: '1' to reset (drop data and checkpoints) as well
_BUMP = _STATE_PRELUDE + """
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HINCRBY', KEYS[1], 'epoch', 1)
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'data')
  redis.call('DEL', KEYS[2])
end
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return result()
"""

# ARGV 3: name, 4: record
_PUT_CHECKPOINT = _STATE_PRELUDE + """
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[1], 'touched_at', ARGV[2])
refresh()
return 1
"""

# KEYS: lease. ARGV: owner, ttl ms
_ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur == ARGV[1] or (ARGV[3] ~= '' and cur == ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def translate_redis_error(exc: BaseException) -> StoreError | None:
    try:
        from redis import exceptions
    except ImportError:  # pragma: no cover - redis is installed whenever this runs
        return None
    if isinstance(exc, (exceptions.ConnectionError, exceptions.TimeoutError, OSError)):
        return StoreUnavailableError(UNAVAILABLE_HINT)
    if isinstance(exc, exceptions.RedisError):
        return StoreError("Redis rejected the operation; nothing was changed by this call.")
    return None


class _Scripts:
    """Lua scripts registered once per client."""

    def __init__(self, client: Any):
        self.sync = client.register_script(_SYNC)
        self.append = client.register_script(_APPEND)
        self.pop = client.register_script(_POP)
        self.clear = client.register_script(_CLEAR)
        self.truncate = client.register_script(_TRUNCATE)
        self.cas = client.register_script(_CAS)
        self.bump = client.register_script(_BUMP)
        self.put_checkpoint = client.register_script(_PUT_CHECKPOINT)
        self.acquire = client.register_script(_ACQUIRE)
        self.release = client.register_script(_RELEASE)


class LoopClients:
    """The Redis client (and its scripts) to use on the running event loop.

    A ``redis.asyncio`` client binds its connections to the loop that opened them, so one
    session object used from several threads or ``asyncio.run`` calls needs one client per
    loop: the first loop uses the caller's client; every other loop gets a client with the
    same connection settings, dropped when its loop is garbage-collected.
    """

    def __init__(self, client: Any):
        self.original = client
        self._guard = threading.Lock()
        self._per_loop: weakref.WeakKeyDictionary[Any, tuple[Any, _Scripts]] = (
            weakref.WeakKeyDictionary())
        self._original_taken = False

    def current(self) -> tuple[Any, _Scripts]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not in a coroutine (describe(), tests): the caller's client
            return self.original, _Scripts(self.original)
        with self._guard:
            found = self._per_loop.get(loop)
            if found is None:
                if not self._original_taken:
                    client = self.original
                    self._original_taken = True
                else:
                    client = _clone(self.original)
                found = self._per_loop[loop] = (client, _Scripts(client))
            return found

    async def aclose_clones(self) -> None:
        """Close the clients made for this loop (others belong to loops that are gone)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            found = self._per_loop.pop(loop, None)
        if found is not None and found[0] is not self.original:
            await found[0].aclose()


def _clone(client: Any) -> Any:
    pool = client.connection_pool
    new_pool = type(pool)(connection_class=pool.connection_class, **pool.connection_kwargs)
    return type(client)(connection_pool=new_pool)


class RedisKeys:
    """The key names of one session (see the module doc)."""

    def __init__(self, prefix: str, session_id: str):
        base = f"{prefix}:{session_id}"
        self.hash = base
        self.messages = f"{base}:messages"
        self.counter = f"{base}:counter"
        self.state = f"{base}:ctxlab:state"
        self.checkpoints = f"{base}:ctxlab:checkpoints"
        self.lease = f"{base}:ctxlab:lease"
        self.writer_prefix = f"{base}:ctxlab:writer:"

    def all(self) -> list[str]:
        """Every key that lives as long as the session (not the lease or writer tokens)."""
        return [self.hash, self.messages, self.counter, self.state, self.checkpoints]


def _ttl_ms(ttl: float | None) -> int:
    return 0 if not ttl else max(1, int(ttl * 1000))


class RedisStateStore(StateStore):
    """Side state of one session in Redis side keys (see the module doc)."""

    kind: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True

    def __init__(self, client: Any, session_id: str, *, key_prefix: str = DEFAULT_KEY_PREFIX,
                 ttl: float | None = None):
        self.clients = client if isinstance(client, LoopClients) else LoopClients(client)
        self.session_id = session_id
        self.key_prefix = key_prefix
        self.ttl = ttl
        self.keys = RedisKeys(key_prefix, session_id)

    @property
    def client(self) -> Any:
        """The client for the running event loop."""
        return self.clients.current()[0]

    @property
    def _scripts(self) -> _Scripts:
        return self.clients.current()[1]

    def _state_keys(self) -> list[str]:
        k = self.keys
        return [k.state, k.checkpoints, k.hash, k.messages, k.counter]

    def _args(self, *extra: Any) -> list[Any]:
        return [_ttl_ms(self.ttl), repr(time.time()), *extra]

    @staticmethod
    def _state(row: list[Any]) -> StoredState:
        return StoredState(int(row[0]), int(row[1]), decode_data(_text(row[2])))

    async def load(self) -> StoredState:
        row = await self.client.hmget(self.keys.state, "version", "epoch", "data")
        return StoredState(int(row[0] or 0), int(row[1] or 0), decode_data(_text(row[2])))

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        done, row = await self._scripts.cas(
            keys=self._state_keys(), args=self._args(expected_version, encode_data(data) or ""))
        return self._state(row) if int(done) else None

    async def bump_epoch(self) -> StoredState:
        return self._state(await self._scripts.bump(keys=self._state_keys(),
                                                    args=self._args("0")))

    async def reset(self) -> StoredState:
        return self._state(await self._scripts.bump(keys=self._state_keys(),
                                                    args=self._args("1")))

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        return bool(int(await self._scripts.acquire(
            keys=[self.keys.lease], args=[owner, _ttl_ms(ttl), replacing or ""])))

    async def lease_holder(self) -> str | None:
        return _text(await self.client.get(self.keys.lease))

    async def release_lease(self, owner: str) -> None:
        await self._scripts.release(keys=[self.keys.lease], args=[owner])

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        await self._scripts.put_checkpoint(
            keys=self._state_keys(), args=self._args(checkpoint.name, checkpoint.to_json()))

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        raw = await self.client.hget(self.keys.checkpoints, name)
        return None if raw is None else Checkpoint.from_json(raw)

    async def list_checkpoints(self) -> list[Checkpoint]:
        raws = await self.client.hvals(self.keys.checkpoints)
        return sorted((Checkpoint.from_json(r) for r in raws),
                      key=lambda c: (c.created_at, c.name))

    async def aclose(self) -> None:
        await self.clients.aclose_clones()

    def for_session(self, session_id: str) -> RedisStateStore:
        return RedisStateStore(self.clients, session_id, key_prefix=self.key_prefix,
                               ttl=self.ttl)


def redis_session_config(session: Any) -> tuple[Any, str, float | None]:
    """``(client, key prefix, ttl)`` of an SDK ``RedisSession``.

    The SDK keeps these in private attributes; this is the one place ctxlab reads them, and
    ``tests/stores`` checks that the pinned SDK still has them.
    """
    client = getattr(session, "_redis", None)
    prefix = getattr(session, "_key_prefix", None)
    if client is None or not isinstance(prefix, str):
        raise TypeError(
            "this RedisSession does not expose its client and key prefix the way "
            "openai-agents 0.24 does; pass it through ctxlab's generic adapter instead"
        )
    ttl = getattr(session, "_ttl", None)
    return client, prefix, float(ttl) if ttl else None


class RedisLog(LogStore):
    """The raw log of an SDK ``RedisSession``, read and written by ctxlab's Lua scripts
    (same keys, same JSON), with the side state in side keys of the same server."""

    kind: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True

    def __init__(self, session: Any):
        super().__init__()
        client, prefix, self.ttl = redis_session_config(session)
        self.sdk_session = session
        self.session_id: str = session.session_id
        self.state = RedisStateStore(client, self.session_id, key_prefix=prefix, ttl=self.ttl)
        self.keys = self.state.keys
        self._writer_key = f"{self.keys.writer_prefix}{uuid.uuid4().hex}"
        self._length = 0
        self._last_raw: Any = ""
        self._epoch = 0

    # -- helpers ---------------------------------------------------------------------------
    def _call_args(self, *extra: Any) -> tuple[list[str], list[Any]]:
        keys = [*self.keys.all(), self._writer_key]
        seen = -1 if self._state_version is None else self._state_version
        args = [self._length, self._last_raw, self._epoch, seen, _ttl_ms(self.ttl),
                str(int(time.time())), *extra]
        return keys, args

    def _decode(self, raws: list[Any]) -> list[dict[str, Any]]:
        items = []
        for raw in raws:
            try:
                item = json.loads(raw)
            except (TypeError, ValueError):
                item = invalid_entry(raw, "stored entry is not JSON")
            if not isinstance(item, dict):
                item = invalid_entry(raw, f"stored entry is a JSON {type(item).__name__}, "
                                          "not an object")
            items.append(item)
        return items

    def _finish(self, reply: list[Any]) -> tuple[bool, StoredState]:
        ok, version, epoch, data = int(reply[0]), int(reply[1]), int(reply[2]), reply[3]
        self._epoch = epoch
        return bool(ok), StoredState(version, epoch, decode_data(_text(data)))

    def _seen(self, ok: bool, raws: list[Any]) -> tuple[int, list[dict[str, Any]]]:
        keep = self._length if ok else 0
        items = self._decode(raws)
        self._length = keep + len(raws)
        if raws:
            self._last_raw = raws[-1]
        elif not self._length:
            self._last_raw = ""
        return keep, items

    # -- operations ------------------------------------------------------------------------
    async def _sync(self) -> Delta:
        keys, args = self._call_args()
        reply = await self._scripts.sync(keys=keys, args=args)
        ok, state = self._finish(reply)
        keep, items = self._seen(ok, reply[4][0])
        return Delta(keep, items, self._state_delta(state))

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        payloads = [json.dumps(item, separators=(",", ":")) for item in items]
        keys, args = self._call_args(uuid.uuid4().hex, self.session_id, *payloads)
        reply = await self._scripts.append(keys=keys, args=args)
        ok, state = self._finish(reply)
        raws, retried = reply[4][0], int(reply[4][1])
        keep, others = self._seen(ok, raws)
        if retried:  # an earlier attempt of this very call was applied: it is in `others`
            return Delta(keep, others, self._state_delta(state))
        self._length += len(payloads)
        self._last_raw = payloads[-1]
        return Delta(keep, [*others, *items], self._state_delta(state))

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        keys, args = self._call_args()
        reply = await self._scripts.pop(keys=keys, args=args)
        ok, state = self._finish(reply)
        raws, popped_raw, last_raw = reply[4][0], reply[4][1], reply[4][2]
        keep, items = self._seen(ok, raws)
        popped = None
        if popped_raw is not None:
            popped = self._decode([popped_raw])[0]
            if items:
                items.pop()
            else:
                keep -= 1
            self._length -= 1
            self._last_raw = last_raw if last_raw is not None else ""
        return popped, Delta(keep, items, self._state_delta(state))

    async def _clear(self) -> Delta:
        keys, args = self._call_args()
        reply = await self._scripts.clear(keys=keys, args=args)
        _, state = self._finish(reply)
        self._length, self._last_raw = 0, ""
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        keys, args = self._call_args(length, expected_version, encode_data(data) or "")
        reply = await self._scripts.truncate(keys=keys, args=args)
        if int(reply[0]) == -1:
            raise StoreConflictError("the session state changed meanwhile; retry")
        ok, state = self._finish(reply)
        raws, removed, last_raw = reply[4][0], reply[4][1], reply[4][2]
        keep, items = self._seen(ok, raws)
        keep = min(keep, length)
        items = items[: max(0, length - keep)]
        self._length = keep + len(items)
        self._last_raw = last_raw if last_raw is not None else ""
        return self._decode(removed), Delta(keep, items, self._state_delta(state))

    def reset_cursor(self) -> None:
        self._length, self._last_raw, self._epoch = 0, "", -1
        self._state_version = None

    @property
    def client(self) -> Any:
        """The client for the running event loop."""
        return self.state.client

    @property
    def _scripts(self) -> _Scripts:
        return self.state._scripts

    def spawn(self, session_id: str) -> RedisLog:
        from agents.extensions.memory import RedisSession

        session = RedisSession(session_id, redis_client=self.state.clients.original,
                               key_prefix=self.state.key_prefix,
                               ttl=int(self.ttl) if self.ttl else None)
        return RedisLog(session)

    def describe(self) -> str:
        pool = getattr(self.state.clients.original, "connection_pool", None)
        kwargs = getattr(pool, "connection_kwargs", {}) or {}
        where = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
        return f"redis at {where}"

    def _translate(self, exc: BaseException) -> StoreError | None:
        return translate_redis_error(exc)
