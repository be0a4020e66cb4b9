"""A Redis Cluster slot migration under a writer, for the migration test and benchmark.

:func:`migration_run` writes turns to one session (ctxlab ``TrimmingSession`` over
:class:`ctxlab.stores.RedisStore`) while the session's slot is moved to another master the
way ``redis-cli --cluster reshard`` does it, slowed down: ``CLUSTER SETSLOT IMPORTING`` on
the target, ``MIGRATING`` on the source, then ``MIGRATE`` one key every ``key_every``
seconds, then ``SETSLOT NODE`` everywhere. While the session's keys are split between the
two nodes, a script over several of them gets ``TRYAGAIN`` (and a key that is gone gets
``ASK``). A write that raises counts as failed (the writer then retries the same call: a
retry never stores twice); afterwards the session is read back and compared with what was
acknowledged.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ctxlab import TrimmingSession, item_text
from ctxlab.stores import RedisStore, StoreError
from ctxlab.stores.local_servers import LocalRedisCluster

from conftest import assistant, user


@dataclass
class MigrationOutcome:
    acknowledged: int = 0  # turns acknowledged
    failed: int = 0  # add_items calls that raised
    lost: int = 0  # acknowledged turns missing afterwards
    duplicated: int = 0  # items stored more than once
    moved_keys: int = 0  # keys MIGRATE moved
    migration_s: float = 0.0  # from MIGRATING to SETSLOT NODE
    gap_s: float = 0.0  # longest time between two acknowledged writes
    during: int = 0  # writes acknowledged while the slot was migrating
    errors: dict[str, int] = field(default_factory=dict)


def migrate_slot(cluster: LocalRedisCluster, slot: int, key_every: float,
                 started: threading.Event, out: MigrationOutcome) -> None:
    """Move ``slot`` from its master to another one, one key every ``key_every`` s."""
    import redis

    source = cluster.master_of_slot(slot)
    nodes = cluster.topology()
    masters = [i for i in nodes if i["role"] == "master" and not i["failed"]]
    target = next(i for i in masters if i["port"] != source.port)
    ids = {i["port"]: i["id"] for i in nodes}
    conns = {i["port"]: redis.Redis(port=i["port"], socket_timeout=5) for i in masters}
    src, dst = conns[source.port], conns[target["port"]]
    try:
        dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[source.port])
        src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target["id"])
        began = time.monotonic()
        started.set()
        while keys := src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1):
            time.sleep(key_every)
            src.execute_command("MIGRATE", "127.0.0.1", target["port"], keys[0], 0, 5000)
            out.moved_keys += 1
        for conn in (dst, src, *conns.values()):
            conn.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target["id"])
        out.migration_s = time.monotonic() - began
    finally:
        for conn in conns.values():
            conn.close()


async def migration_run(cluster: LocalRedisCluster, *, key_every: float = 0.7,
                        before: int = 10, after: int = 10, prefix: str = "migrate",
                        replicas: int = 0,
                        deadline_s: float = 90.0) -> MigrationOutcome:
    """Write turns to one session; once ``before`` turns are acknowledged, migrate its slot
    (see the module doc); stop ``after`` turns after the migration ended. ``replicas``:
    the store's durability (``WAIT`` after every write, on the node's own connection)."""
    from redis.asyncio.cluster import RedisCluster

    client = RedisCluster.from_url(cluster.url, socket_connect_timeout=2, socket_timeout=2)
    out = MigrationOutcome()
    store = RedisStore(f"{prefix}-s", client=client, key_prefix=prefix, replicas=replicas)
    slot = int(client.keyslot(store.keys.messages))
    session = TrimmingSession(store=store, max_turns=1000)
    started, finished = threading.Event(), threading.Event()
    acked: list[int] = []
    ack_times: list[float] = []
    deadline = time.monotonic() + deadline_s

    async def write(batch: list[dict[str, Any]]) -> None:
        while True:
            try:
                await session.add_items(batch)
                ack_times.append(time.monotonic())
                if started.is_set() and not finished.is_set():
                    out.during += 1
                return
            except StoreError as exc:
                out.failed += 1
                name = type(exc).__name__
                out.errors[name] = out.errors.get(name, 0) + 1
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.05)

    def mover() -> None:
        try:
            migrate_slot(cluster, slot, key_every, started, out)
        finally:
            finished.set()

    move_task: asyncio.Future[None] | None = None
    try:
        t, after_done = 0, 0
        while after_done < after:
            await write([user(f"{prefix} question {t}")])
            await write([assistant(f"{prefix} answer {t}")])
            acked.append(t)
            t += 1
            if t == before:
                move_task = asyncio.ensure_future(asyncio.to_thread(mover))
            if finished.is_set():
                after_done += 1
            await asyncio.sleep(0.02)
        if move_task is not None:
            await move_task
        reader = store.for_session(store.session_id)
        texts = [item_text(i) for i in await reader.get_items()]
        out.lost = sum(f"{prefix} question {k}" not in texts or f"{prefix} answer {k}"
                       not in texts for k in acked)
        out.duplicated = len(texts) - len(set(texts))
        out.acknowledged = len(acked)
        out.gap_s = max((b - a for a, b in itertools.pairwise(ack_times)), default=0.0)
    finally:
        await client.aclose()
    return out
