"""A Redis Cluster failover under writers, for the failover test and benchmark.

:func:`failover_run` starts writers on several sessions (ctxlab ``TrimmingSession`` over
:class:`ctxlab.stores.RedisStore`), then kills the master that serves the first session's
slot (SIGKILL: a crash) while they write, lets its replica be promoted, and keeps writing.
A turn is *acknowledged* when both of its ``add_items`` calls returned; a writer that gets
an error retries the same call (RedisStore recognises a batch that already landed, so a
retry never stores twice) until it succeeds. Afterwards every session is read back and
compared with what was acknowledged.

``freeze``: the replica is stopped (SIGSTOP) and its replication link cut for that long
just before the master dies, so the master acknowledges writes its replica never receives:
the worst case of asynchronous replication, made certain instead of left to timing. The
killed node is restarted once the replica took over (it rejoins as the new master's
replica), so the shard is whole again.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from ctxlab import TrimmingSession, item_text
from ctxlab.stores import RedisStore, StoreError
from ctxlab.stores.local_servers import LocalRedisCluster, redis_command

from conftest import assistant, user


@dataclass
class Outcome:
    acknowledged: int = 0  # turns acknowledged, all sessions
    lost: int = 0  # acknowledged turns missing afterwards
    duplicated: int = 0  # items stored more than once
    after_failover: int = 0  # turns acknowledged after the master died
    retries: int = 0  # calls repeated after an error
    outage_s: float = 0.0  # longest gap between two acknowledged turns of the victim
    errors: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list, repr=False)  # s per add_items


def slot_of(store: RedisStore) -> int:
    return int(store.client.keyslot(store.keys.messages))


async def _write(session: Any, batch: list[dict[str, Any]], out: Outcome, deadline: float
                 ) -> None:
    while True:
        began = time.perf_counter()
        try:
            await session.add_items(batch)
            out.latencies.append(time.perf_counter() - began)
            return
        except StoreError as exc:
            name = type(exc).__name__
            out.errors[name] = out.errors.get(name, 0) + 1
            out.retries += 1
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def failover_run(cluster: LocalRedisCluster, *, replicas: int, sessions: int = 6,
                       after: int = 10, kill_at: int = 20, freeze: float = 0.0,
                       pace: float = 0.0, wait_timeout: float = 0.3,
                       deadline_s: float = 90.0, prefix: str = "failover") -> Outcome:
    """Write turns to each of ``sessions`` sessions; kill the first session's master when
    it acknowledged ``kill_at`` turns; stop once every session acknowledged ``after`` turns
    after the shard is whole again (see the module doc)."""
    from redis.asyncio.cluster import RedisCluster

    await asyncio.to_thread(cluster.wait_replicated, 60)
    client = RedisCluster.from_url(cluster.url, socket_connect_timeout=2, socket_timeout=2)
    out = Outcome()
    deadline = time.monotonic() + deadline_s
    stores = [RedisStore(f"{prefix}-{k}", client=client, key_prefix=prefix,
                         replicas=replicas, wait_timeout=wait_timeout) for k in range(sessions)]
    victim = cluster.master_of_slot(slot_of(stores[0]))
    replica = cluster.replica_of(victim)
    acked: list[list[int]] = [[] for _ in range(sessions)]
    ack_times: list[float] = []
    killed_at: list[float] = []
    reached = asyncio.Event()

    whole = asyncio.Event()
    after_whole = [0] * sessions

    async def writer(k: int) -> None:
        session = TrimmingSession(store=stores[k], max_turns=1000)
        t = 0
        while after_whole[k] < after:
            await _write(session, [user(f"{prefix}-{k} question {t}")], out, deadline)
            await _write(session, [assistant(f"{prefix}-{k} answer {t}")], out, deadline)
            acked[k].append(t)
            if k == 0:
                ack_times.append(time.monotonic())
                if t + 1 == kill_at:
                    reached.set()
            if killed_at:
                out.after_failover += 1
            if whole.is_set():
                after_whole[k] += 1
            t += 1
            await asyncio.sleep(pace)  # (0: still lets the other writers run)

    async def crash() -> None:
        await reached.wait()
        if freeze:
            os.kill(replica.pid or 0, signal.SIGSTOP)
            # and cut its link (what the kernel already buffered for it would still arrive)
            redis_command(victim.port, "CLIENT", "KILL", "TYPE", "replica")
            began, before = time.monotonic(), len(acked[0])
            # the master acknowledges writes nobody copies (without WAIT, at least two)
            while time.monotonic() - began < freeze or (
                    not replicas and len(acked[0]) < before + 2
                    and time.monotonic() - began < 10):
                await asyncio.sleep(0.02)
        victim.kill()
        killed_at.append(time.monotonic())
        if freeze:
            os.kill(replica.pid or 0, signal.SIGCONT)
        await asyncio.to_thread(_wait_promoted, cluster, replica)
        await asyncio.to_thread(victim.start)  # rejoins as the new master's replica
        await asyncio.to_thread(cluster.wait_replicated, 60)
        whole.set()

    try:
        await asyncio.gather(crash(), *(writer(k) for k in range(sessions)))
        await asyncio.to_thread(cluster.wait_ok, 60)
        for k, store in enumerate(stores):
            lost, duplicated = await _compare(store, acked[k], f"{prefix}-{k}")
            out.lost += lost
            out.duplicated += duplicated
        out.acknowledged = sum(len(a) for a in acked)
        gaps = [b - a for a, b in itertools.pairwise(ack_times)]
        out.outage_s = max(gaps, default=0.0)
    finally:
        await client.aclose()
    return out


def _wait_promoted(cluster: LocalRedisCluster, replica: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if cluster.roles().get(replica.port) == "master":
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"replica {replica.port} was not promoted within {timeout}s")


async def _compare(store: RedisStore, acked: list[int], tag: str) -> tuple[int, int]:
    reader = store.for_session(store.session_id)
    texts = [item_text(i) for i in await reader.get_items()]
    lost = sum(f"{tag} question {t}" not in texts or f"{tag} answer {t}" not in texts
               for t in acked)
    return lost, len(texts) - len(set(texts))
