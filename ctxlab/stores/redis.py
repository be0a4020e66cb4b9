"""The raw log in Redis and the side state in side keys, on a server or a Redis Cluster.

Two key layouts, one set of Lua scripts:

* **the SDK's** (an Agents SDK ``RedisSession``, standalone servers only): the keys below
  with ``B = P:S``;
* **ctxlab's hash-tagged one** (:class:`ctxlab.stores.RedisStore`, servers and clusters):
  ``B = P:{S}``, so every key of one session hashes to the same cluster slot (the part in
  braces is the hash tag). Each Lua script touches one session's keys only, so it stays
  atomic on a cluster, and sessions spread over the cluster's masters. Braces and ``%`` in
  a session id are percent-encoded inside the tag (:func:`hash_tag`), so an id can never
  move its keys to another slot or collide with another id.

Keys of session ``S`` with the key prefix ``P`` (``agents:session`` for the SDK's layout):

==============================  ===========================================================
``B``                           SDK: hash with session_id, created_at, updated_at
``B:messages``                  SDK: list of items as JSON
``B:counter``                   SDK: counter
``B:ctxlab:state``              hash: ``version`` (CAS token), ``epoch``, ``data`` (JSON),
                                ``touched_at``, ``mark`` (changes with every write)
``B:ctxlab:checkpoints``        hash: checkpoint name -> JSON
``B:ctxlab:lease``              the fold lease (owner, with its own expiry)
``B:ctxlab:writer:<id>``        the last batch token of one writer (makes retries idempotent)
==============================  ===========================================================

Every operation is one Lua script, so it is atomic and costs one round trip: it reports
what changed since the caller's cursor (the log length, the SHA-1 of the last known item's
raw JSON and the epoch), applies the change, sets the session's change mark (a random token
of the writer's) and refreshes the session's TTL on *every* key above when the session has
a ``ttl``. A read whose cursor took in everything up to the mark it finds (and the same list
length) is answered "nothing changed" without further checks (see
:data:`ctxlab.stores.redis_lua.SYNC`); on the SDK's layout, where the SDK's own
``RedisSession`` writes without setting a mark, every read makes the full check.

Session ids may not contain ``:`` (see :func:`ctxlab.check_session_id`), so one session's
keys can never be another's.

Durability: Redis replicates asynchronously, so a write acknowledged by a master that dies
before its replica received it is lost when the replica is promoted. With ``replicas=N``
every write is followed, on the same connection, by ``WAIT N timeout``: the call returns
once N replicas hold the write, and raises :class:`StoreNotDurableError` (saying the write
is on the master and may yet be lost) when they do not confirm in time.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.backend_errors import classify_backend_error
from .base import (
    UNAVAILABLE_HINT,
    Checkpoint,
    Delta,
    Ends,
    LogStore,
    StateStore,
    StoreConflictError,
    StoredState,
    StoreError,
    StoreUnavailableError,
    decode_data,
    decode_entry,
    encode_data,
)
from .redis_lua import (
    ACQUIRE,
    APPEND,
    BUMP,
    CAS,
    CLEAR,
    ENDS,
    POP,
    PUT_CHECKPOINT,
    RELEASE,
    SYNC,
    TRUNCATE,
)
from .redis_retry import DEFAULT_PATIENCE, did_not_run, retry_redirects


class StoreNotDurableError(StoreError):
    """A durable write reached the master but fewer replicas than asked confirmed it in
    time: it is stored, and would be lost only if the master failed before replicating."""


logger = logging.getLogger("ctxlab.stores")

DEFAULT_KEY_PREFIX = "agents:session"


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def translate_redis_error(exc: BaseException) -> StoreError | None:
    """A server or a cluster slot down or moving (or a replica answering READONLY during a
    failover): unavailable; any other Redis error: refused
    (:mod:`ctxlab.core.backend_errors`)."""
    kind = classify_backend_error(exc)
    if kind == "unavailable":
        return StoreUnavailableError(UNAVAILABLE_HINT)
    if kind == "refused" and type(exc).__module__.startswith("redis"):
        return StoreError("Redis rejected the operation; nothing was changed by this call.")
    return None


def cluster_node_of(client: Any, key: str) -> str:
    """The cluster node that serves ``key``'s slot, as the client's slot table has it now
    (the node a failed call went to; the seed node the client started from may be any
    other), for error messages: ``redis cluster node 127.0.0.1:27003 (slot 1234)``."""
    try:
        slot = client.keyslot(key)
        node = client.get_node_from_key(key)
        return f"redis cluster node {node.host}:{node.port} (slot {slot})"
    except Exception:  # no slot table yet (the cluster was never reached): the seed
        nodes = getattr(client.nodes_manager, "startup_nodes", {}) or {}
        return f"redis cluster at {next(iter(nodes), '?')} (seed node)"


class _Scripts:
    """Lua scripts registered once per client."""

    def __init__(self, client: Any):
        self.sync = client.register_script(SYNC)
        self.append = client.register_script(APPEND)
        self.pop = client.register_script(POP)
        self.clear = client.register_script(CLEAR)
        self.ends = client.register_script(ENDS)
        self.truncate = client.register_script(TRUNCATE)
        self.cas = client.register_script(CAS)
        self.bump = client.register_script(BUMP)
        self.put_checkpoint = client.register_script(PUT_CHECKPOINT)
        self.acquire = client.register_script(ACQUIRE)
        self.release = client.register_script(RELEASE)


class LoopClients:
    """The Redis client (and its scripts) to use on the running event loop.

    A ``redis.asyncio`` client binds its connections to the loop that opened them, so one
    session object used from several threads or ``asyncio.run`` calls needs one client per
    loop: the first loop uses the caller's client; every other loop gets a client with the
    same connection settings, dropped when its loop is garbage-collected.
    """

    _shared: ClassVar[weakref.WeakKeyDictionary[Any, LoopClients]] = (
        weakref.WeakKeyDictionary())
    _shared_guard: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def of(cls, client: Any) -> LoopClients:
        """The one :class:`LoopClients` of ``client`` (every store on a client shares it, so
        the client itself serves one loop only)."""
        if isinstance(client, LoopClients):
            return client
        with cls._shared_guard:
            found = cls._shared.get(client)
            if found is None:
                found = cls._shared[client] = cls(client)
            return found

    def __init__(self, client: Any, factory: Any = None):
        self.original = client
        self.factory = factory  # makes a client for another loop (None: clone the original)
        self._guard = threading.Lock()
        self._per_loop: weakref.WeakKeyDictionary[Any, tuple[Any, _Scripts]] = (
            weakref.WeakKeyDictionary())
        self._nodes: weakref.WeakKeyDictionary[Any, dict[tuple[str, int], Any]] = (
            weakref.WeakKeyDictionary())
        self._original_taken = False
        # the last loop asked for and its pair: every operation asks, nearly always from
        # the same loop as the one before (no lock, no weak-key lookup then)
        self._last: tuple[weakref.ref[Any], tuple[Any, _Scripts]] | None = None

    def current(self) -> tuple[Any, _Scripts]:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not in a coroutine (describe(), tests): the caller's client
            client = self.original if self.original is not None else self.factory()
            return client, _Scripts(client)
        last = self._last
        if last is not None and last[0]() is loop:
            return last[1]
        with self._guard:
            found = self._per_loop.get(loop)
            if found is None:
                if not self._original_taken and self.original is not None:
                    client = self.original
                    self._original_taken = True
                elif self.factory is not None:
                    client = self.factory()
                else:
                    client = _clone(self.original)
                found = self._per_loop[loop] = (client, _Scripts(client))
            self._last = (weakref.ref(loop), found)
            return found

    async def aclose_clones(self) -> None:
        """Close the clients made for this loop (others belong to loops that are gone)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            found = self._per_loop.pop(loop, None)
            nodes = self._nodes.pop(loop, {})
            self._last = None
        for client in nodes.values():
            await client.aclose()
        if found is not None and found[0] is not self.original:
            await found[0].aclose()


    def node_client(self, host: str, port: int) -> Any:
        """A plain client to one node of a cluster (on this loop), for commands that must
        share the connection of a write (``WAIT``)."""
        import redis.asyncio as aioredis

        loop = asyncio.get_running_loop()
        kwargs = _cluster_kwargs(self.current()[0])
        with self._guard:
            nodes = self._nodes.setdefault(loop, {})
            client = nodes.get((host, port))
            if client is None:
                client = nodes[(host, port)] = aioredis.Redis(host=host, port=port, **kwargs)
            return client


#: Connection settings a cluster client's clone keeps (the rest are per-node internals).
_CLUSTER_KEEP = ("username", "password", "socket_timeout", "socket_connect_timeout",
                 "decode_responses", "encoding", "client_name", "credential_provider")


def is_cluster(client: Any) -> bool:
    """True for a ``redis.asyncio.cluster.RedisCluster`` client."""
    return type(client).__name__ == "RedisCluster" and hasattr(client, "nodes_manager")


def _cluster_kwargs(client: Any) -> dict[str, Any]:
    kwargs = getattr(client.nodes_manager, "connection_kwargs", {}) or {}
    return {k: v for k, v in kwargs.items() if k in _CLUSTER_KEEP}


def _clone(client: Any) -> Any:
    if is_cluster(client):
        from redis.asyncio.cluster import ClusterNode, RedisCluster

        nodes = [ClusterNode(n.host, n.port) for n in client.nodes_manager.startup_nodes.values()]
        return RedisCluster(startup_nodes=nodes, **_cluster_kwargs(client))
    pool = client.connection_pool
    new_pool = type(pool)(connection_class=pool.connection_class, **pool.connection_kwargs)
    return type(client)(connection_pool=new_pool)


def hash_tag(session_id: str) -> str:
    """The hash tag of a session's keys: the id with ``%``, ``{`` and ``}`` percent-encoded
    (an injective map, and the result can never end the tag early)."""
    return session_id.replace("%", "%25").replace("{", "%7B").replace("}", "%7D")


def check_key_prefix(prefix: Any, *, tagged: bool) -> str:
    if not isinstance(prefix, str) or not prefix:
        raise ValueError(f"key_prefix must be a non-empty string, got {prefix!r}")
    if tagged and ("{" in prefix or "}" in prefix):
        raise ValueError(
            f"key_prefix {prefix!r} contains a brace: on a Redis Cluster the braces of the "
            "prefix would become the hash tag of every session's keys (all sessions on one "
            "slot); use a prefix without '{' and '}'")
    return prefix


class RedisKeys:
    """The key names of one session (see the module doc): the SDK's layout, or ctxlab's
    hash-tagged one (``tagged``: every key in the slot of the session id)."""

    def __init__(self, prefix: str, session_id: str, *, tagged: bool = False):
        self.tagged = tagged
        base = (f"{check_key_prefix(prefix, tagged=True)}:{{{hash_tag(session_id)}}}"
                if tagged else f"{prefix}:{session_id}")
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


async def evalsha(script: Any, keys: list[str], args: list[Any]) -> Any:
    """``script(keys=keys, args=args)`` without redis-py's wrapper around it (every read
    runs a script): ``EVALSHA`` on the script's client, loading the script first only when
    the server does not have it (a restarted server, a new cluster node)."""
    from redis.exceptions import NoScriptError

    try:
        return await script.registered_client.execute_command(
            "EVALSHA", script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await script(keys=keys, args=args)


def _ttl_ms(ttl: float | None) -> int:
    return 0 if not ttl else max(1, int(ttl * 1000))


def new_mark() -> str:
    """A fresh change mark: random (``os.urandom``: distinct in forked workers too), so a
    mark never comes back, not even after the session's keys expired and were written anew."""
    return os.urandom(12).hex()


def digest(raw: Any) -> str:
    """The SHA-1 (hex) of an item's raw JSON, as the scripts' ``redis.sha1hex`` computes it
    over the stored bytes ("" for no item)."""
    if not raw:
        return ""
    return hashlib.sha1(raw if isinstance(raw, bytes) else str(raw).encode()).hexdigest()


class RedisStateStore(StateStore):
    """Side state of one session in Redis side keys (see the module doc)."""

    kind: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True
    #: Seconds a script waits through a cluster slot migration (``TRYAGAIN``, ``ASK``) before
    #: the store reports itself unavailable (see :mod:`ctxlab.stores.redis_retry`).
    migration_patience: float = DEFAULT_PATIENCE

    def __init__(self, client: Any, session_id: str, *, key_prefix: str = DEFAULT_KEY_PREFIX,
                 ttl: float | None = None, tagged: bool = False, replicas: int = 0,
                 wait_timeout: float = 1.0):
        self.clients = LoopClients.of(client)
        self.session_id = session_id
        self.key_prefix = key_prefix
        self.ttl = ttl
        self.keys = RedisKeys(key_prefix, session_id, tagged=tagged)
        self.replicas = replicas
        self.wait_timeout = wait_timeout

    async def write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a writing script; with ``replicas`` wait (``WAIT``, same connection) until
        that many replicas hold the write, or raise :class:`StoreNotDurableError`."""
        if not self.replicas:
            return await self.run(script, keys, args)
        reply, acked = await retry_redirects(
            lambda: self._write_and_wait(script, keys, args), patience=self.migration_patience)
        if int(acked) < self.replicas:
            raise StoreNotDurableError(
                f"session {self.session_id!r}: the write is on the Redis master, but only "
                f"{int(acked)} of {self.replicas} replicas confirmed it within "
                f"{self.wait_timeout}s; it is stored, and would be lost only if that master "
                "failed before replicating it. Do not repeat the write: read the session "
                "to see it.")
        return reply

    async def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a script, waiting through a cluster slot migration (at most
        :attr:`migration_patience` seconds: see :mod:`ctxlab.stores.redis_retry`)."""
        try:  # (the common case: one await, no closure)
            return await evalsha(script, keys, args)
        except Exception as exc:
            if not did_not_run(exc):
                raise
        return await retry_redirects(lambda: script(keys=keys, args=args),
                                     patience=self.migration_patience)

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
        return [_ttl_ms(self.ttl), repr(time.time()), new_mark(), *extra]

    async def _write_and_wait(self, script: Any, keys: list[str], args: list[Any]
                              ) -> tuple[Any, Any]:
        """The script and ``WAIT`` in one pipeline, so on one connection (on a cluster: a
        plain client to the master of the session's slot, found again after a failover)."""
        from redis.exceptions import (
            AskError,
            MovedError,
            SlotNotCoveredError,
            TimeoutError,
            TryAgainError,
        )
        from redis.exceptions import ConnectionError as RedisConnectionError

        wait_ms = max(1, int(self.wait_timeout * 1000))
        client = self.client
        cluster = is_cluster(client)
        attempts = 5 if cluster else 1
        asked: tuple[str, int] | None = None  # the node an ASK redirect named
        for attempt in range(attempts):
            try:
                target = client
                if cluster:
                    node = client.get_node_from_key(keys[0])
                    host, port = asked or (node.host, node.port)
                    target = self.clients.node_client(host, port)
                pipe = target.pipeline(transaction=False)
                if asked:  # (ASKING holds for the next command on this connection only)
                    pipe.execute_command("ASKING")
                await script(keys=keys, args=args, client=pipe)
                pipe.execute_command("WAIT", self.replicas, wait_ms)
                *_, reply, acked = await pipe.execute()
                return reply, acked
            except AskError as exc:  # a slot migration: the key is on the importing node
                if not cluster:
                    raise
                asked = (exc.host, exc.port)
                continue
            except MovedError:  # the slot moved (a failover): nothing ran; ask the cluster
                retry = True
            except (SlotNotCoveredError, RedisConnectionError, TimeoutError):
                retry = False  # the master may be down (the script may or may not have run)
                if attempt == attempts - 1 or not cluster:
                    raise
            asked = None
            if attempt == attempts - 1 or not cluster:
                raise
            await client.aclose()  # as redis-py does itself: forget the old slot map ...
            await client.initialize()  # ... and read the cluster's current one
            await asyncio.sleep(0.05 * (attempt + 1) * (1 if retry else 4))
        raise TryAgainError("ASK redirections did not end")  # (the caller retries, bounded)

    @staticmethod
    def _state(row: list[Any]) -> StoredState:
        return StoredState(int(row[0]), int(row[1]), decode_data(_text(row[2])))

    async def load(self) -> StoredState:
        row = await self.client.hmget(self.keys.state, "version", "epoch", "data")
        return StoredState(int(row[0] or 0), int(row[1] or 0), decode_data(_text(row[2])))

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        done, row = await self.write(
            self._scripts.cas, self._state_keys(),
            self._args(expected_version, encode_data(data) or ""))
        return self._state(row) if int(done) else None

    async def bump_epoch(self) -> StoredState:
        return self._state(await self.write(self._scripts.bump, self._state_keys(),
                                            self._args("0")))

    async def reset(self) -> StoredState:
        return self._state(await self.write(self._scripts.bump, self._state_keys(),
                                            self._args("1")))

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        return bool(int(await self.run(self._scripts.acquire, [self.keys.lease],
                                       [owner, _ttl_ms(ttl), replacing or ""])))

    async def lease_holder(self) -> str | None:
        return _text(await self.client.get(self.keys.lease))

    async def release_lease(self, owner: str) -> None:
        await self.run(self._scripts.release, [self.keys.lease], [owner])

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        await self.write(self._scripts.put_checkpoint, self._state_keys(),
                         self._args(checkpoint.name, checkpoint.to_json()))

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
                               ttl=self.ttl, tagged=self.keys.tagged, replicas=self.replicas,
                               wait_timeout=self.wait_timeout)


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
    """The raw log of a session in Redis, read and written by ctxlab's Lua scripts, with the
    side state in side keys of the same server (the same slot on a cluster).

    ``RedisLog(sdk_redis_session)`` works on the SDK's keys (same keys, same JSON);
    :class:`ctxlab.stores.RedisStore` opens it on its hash-tagged keys (``tagged``), with
    its client(s) and its durability (``replicas``, see the module doc)."""

    kind: ClassVar[str] = "redis"
    persistent: ClassVar[bool] = True

    def __init__(self, session: Any, *, clients: Any = None, key_prefix: str | None = None,
                 ttl: float | None = None, tagged: bool = False, replicas: int = 0,
                 wait_timeout: float = 1.0, blind: bool = False):
        super().__init__()
        self._blind = blind  # writes that report nothing back (the SDK-style session API)
        if clients is None:
            clients, key_prefix, ttl = redis_session_config(session)
        self.ttl = ttl
        self.sdk_session = session
        self.session_id: str = session.session_id
        self.state = RedisStateStore(clients, self.session_id,
                                     key_prefix=key_prefix or DEFAULT_KEY_PREFIX, ttl=ttl,
                                     tagged=tagged, replicas=replicas,
                                     wait_timeout=wait_timeout)
        self.keys = self.state.keys
        self._writer_key = f"{self.keys.writer_prefix}{uuid.uuid4().hex}"
        self._length = 0
        self._last_raw: Any = ""
        self._digest: tuple[Any, str] = ("", "")  # (raw, its SHA-1): computed once per raw
        self._epoch = 0
        # the store's change mark as of the cursor (None: unknown, every read checks in
        # full); never on the SDK's layout, whose own writers set no mark
        self._mark: str | None = None
        self._marked = tagged and not blind
        # positions the caller's index does not have (a first read by the ends: the middle
        # of the log stands there as one item; see place_ends. None after place_located)
        self._shift = 0
        # the cursor of the last ends read, taken in when placed: (length, tail size, last
        # raw item, change mark)
        self._ends_cursor: tuple[int, int, Any, str | None] = (0, 0, "", None)

    # -- helpers ---------------------------------------------------------------------------
    def _last_digest(self) -> str:
        raw, found = self._digest
        if raw is not self._last_raw:
            found = digest(self._last_raw)
            self._digest = (self._last_raw, found)
        return found

    def _call_args(self, *extra: Any) -> tuple[list[str], list[Any]]:
        keys = [*self.keys.all(), self._writer_key]
        seen = -1 if self._state_version is None else self._state_version
        args = [-1 if self._blind else self._length, self._last_digest(), self._epoch, seen,
                _ttl_ms(self.ttl), str(int(time.time())), new_mark(), *extra]
        return keys, args

    def _batch_token(self, payloads: list[str]) -> str:
        """The idempotency key of a batch: this writer, where its cursor stands and what it
        writes. A call repeated after an error whose outcome is unknown (a connection lost
        after the script ran, a failover) has the same key, so the script recognises a
        batch that already landed and does not store it twice; the same items written
        again later have another cursor, so another key."""
        digest = hashlib.sha1(f"{self._writer_key}\n{self._length}\n".encode())
        last = self._last_raw
        digest.update(last if isinstance(last, bytes) else str(last).encode())
        for payload in payloads:
            digest.update(b"\x00" + payload.encode())
        return digest.hexdigest()

    def _decode(self, raws: list[Any]) -> list[dict[str, Any]]:
        return [decode_entry(raw) for raw in raws]

    def _finish(self, reply: list[Any]) -> tuple[bool, StoredState]:
        """The reply's state; takes in its change mark (the caller's cursor takes in the
        rest of the reply: every log script reports all that changed)."""
        ok, version, epoch, data = int(reply[0]), int(reply[1]), int(reply[2]), reply[3]
        state = StoredState(version, epoch, decode_data(_text(data)))  # (may raise: first)
        self._epoch = epoch
        self._mark = _text(reply[5]) if self._marked else None
        return bool(ok), state

    def _seen(self, ok: bool, raws: list[Any]) -> tuple[int, list[dict[str, Any]]]:
        """(where the new items go in the caller's positions, the items)."""
        if not ok:
            self._shift = 0
        keep = self._length if ok else 0
        items = self._decode(raws)
        self._length = keep + len(raws)
        if raws:
            self._last_raw = raws[-1]
        elif not self._length:
            self._last_raw = ""
        return keep - self._shift, items

    # -- operations ------------------------------------------------------------------------
    async def _sync(self) -> Delta:
        seen = -1 if self._state_version is None else self._state_version
        keys = [self.keys.messages, self.keys.state]  # (the lean read: see redis_lua.SYNC)
        args = [-1 if self._blind else self._length, self._last_digest(), self._epoch, seen,
                self._mark or ""]
        reply = await self.state.run(self._scripts.sync, keys, args)
        if type(reply) is int:  # in step by the change mark: nothing changed
            return Delta(self._length - self._shift, [], None)
        ok, state = self._finish(reply)
        keep, items = self._seen(ok, reply[4][0])
        return Delta(keep, items, self._state_delta(state))

    async def _read_ends(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=False)

    #: The ENDS script reads the list's length in the same snapshot: where the tail starts.
    locates_tail: ClassVar[bool] = True

    async def _read_ends_located(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=True)

    async def _ends_read(self, head: int, tail: int, *, locate: bool) -> Ends:
        keys, args = self._call_args(head, tail)
        reply = await self.state.run(self._scripts.ends, keys, args)
        _, state = self._finish(reply)
        length, first, last = int(reply[4][0]), reply[4][1], reply[4][2]
        complete = len(first) + len(last) >= length
        last_raw = (last or first or [""])[-1]
        self._shift = 0
        self._ends_cursor = (length, len(last), last_raw, self._mark)
        if complete:
            self._length, self._last_raw = length, last_raw
        else:  # (the cursor, mark included, is taken in when the caller places it: until
            # then a sync reads the whole log and never takes the in-step shortcut)
            self._length, self._last_raw, self._mark = 0, "", None
        return Ends(self._decode(first), self._decode(last), self._state_delta(state),
                    complete=complete,
                    tail_start=length - len(last) if locate and not complete else None)

    def place_ends(self, head_kept: int, tail_from: int) -> None:
        # the caller's positions: head_kept items, one for the middle, then the tail's rest
        self._place(head_kept + 1, tail_from)

    def place_located(self, head_kept: int, tail_from: int, hole: int) -> None:
        # the middle as ``hole`` items: the caller's positions are the log's (no shift)
        self._place(head_kept + hole, tail_from)

    def _place(self, before_tail: int, tail_from: int) -> None:
        """Take in the cursor of the last ends read (length, last item and change mark, all
        of one snapshot), the caller holding ``before_tail`` items before its tail's item
        ``tail_from``."""
        length, tail, last_raw, mark = self._ends_cursor
        self._length, self._last_raw, self._mark = length, last_raw, mark
        self._shift = (length - tail + tail_from) - before_tail

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        payloads = [json.dumps(item, separators=(",", ":")) for item in items]
        keys, args = self._call_args(self._batch_token(payloads), self.session_id, *payloads)
        reply = await self.state.write(self._scripts.append, keys, args)
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
        reply = await self.state.write(self._scripts.pop, keys, args)
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
        reply = await self.state.write(self._scripts.clear, keys, args)
        _, state = self._finish(reply)
        self._length, self._last_raw = 0, ""
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        if self._shift:  # (positions are the caller's: a fold syncs the whole log first)
            raise StoreConflictError("the log was read by its ends; sync it whole first")
        keys, args = self._call_args(length, expected_version, encode_data(data) or "")
        reply = await self.state.write(self._scripts.truncate, keys, args)
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
        self._length, self._last_raw, self._epoch, self._shift = 0, "", -1, 0
        self._state_version, self._mark = None, None

    @property
    def client(self) -> Any:
        """The client for the running event loop."""
        return self.state.client

    @property
    def _scripts(self) -> _Scripts:
        return self.state._scripts

    def spawn(self, session_id: str) -> RedisLog:
        if self.keys.tagged:
            return self.sdk_session.for_session(session_id).log()
        from agents.extensions.memory import RedisSession

        session = RedisSession(session_id, redis_client=self.state.clients.original,
                               key_prefix=self.state.key_prefix,
                               ttl=int(self.ttl) if self.ttl else None)
        return RedisLog(session)

    def describe(self) -> str:
        client = self.state.clients.original
        if client is None:  # a RedisStore made from a URL (host and port only: no password)
            from urllib.parse import urlparse

            url = urlparse(str(getattr(self.sdk_session, "url", "") or ""))
            return f"redis at {url.hostname or '?'}:{url.port or '?'}"
        if is_cluster(client):
            return cluster_node_of(client, self.keys.messages)
        pool = getattr(client, "connection_pool", None)
        kwargs = getattr(pool, "connection_kwargs", {}) or {}
        where = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}"
        return f"redis at {where}"

    def _translate(self, exc: BaseException) -> StoreError | None:
        return translate_redis_error(exc)
