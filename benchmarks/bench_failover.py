"""A Redis Cluster master killed mid-run: acknowledged turns lost, default vs durable mode,
and what the durable mode costs.

    python benchmarks/bench_failover.py                 # 2 runs per mode, 6 sessions
    python benchmarks/bench_failover.py --runs 1 --json benchmarks/results/failover.json

Each run starts its own 3-master, 3-replica cluster on loopback (``ctxlab.stores.
local_servers``), writes turns to ``--sessions`` ctxlab ``TrimmingSession`` objects over
``RedisStore`` (each turn: the user's message, then the reply, two ``add_items`` calls),
kills (SIGKILL) the master of the first session's slot after ``--kill-at`` turns, lets its
replica be promoted, restarts the dead node (it rejoins as a replica) and keeps writing.

Two kinds of crash: ``natural`` (the master just dies: what replication had not copied yet
is lost) and ``frozen`` (its replica is stopped and cut off for 0.5 s before: the worst
case, every write of that half second acknowledged by the master alone). Printed per mode
and crash: turns acknowledged, acknowledged turns lost, items stored twice, the longest gap
between two acknowledged turns of the victim session (the outage), and the latency of an
``add_items`` (p50/p99) outside the outage: the price of ``WAIT``. Machine-readable with
``--json`` (``CTXLAB_BENCH_MACHINE`` describes the machine in it). Needs redis-server
(apt-get install redis-server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from ctxlab.stores.local_servers import LocalRedisCluster  # noqa: E402

from store_failover import failover_run  # noqa: E402


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def one(replicas: int, crash: str, sessions: int, kill_at: int, after: int) -> dict:
    folder = tempfile.mkdtemp(prefix="ctxlab-bench-failover-")
    cluster = LocalRedisCluster(folder).start()
    try:
        out = asyncio.run(failover_run(
            cluster, replicas=replicas, sessions=sessions, kill_at=kill_at, after=after,
            freeze=0.5 if crash == "frozen" else 0.0, prefix=f"bench-{replicas}-{crash}"))
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
    steady = [s for s in out.latencies if s < 0.25]  # outside the outage
    return {"mode": "durable (replicas=1, WAIT)" if replicas else "default (replicas=0)",
            "crash": crash, "acknowledged": out.acknowledged, "lost": out.lost,
            "duplicated": out.duplicated, "outage_s": round(out.outage_s, 2),
            "p50_ms": round(1000 * statistics.median(steady), 2) if steady else None,
            "p99_ms": round(1000 * quantile(steady, 0.99), 2) if steady else None,
            "errors": out.errors}


async def steady(cluster: LocalRedisCluster, replicas: int, writes: int) -> list[float]:
    """Seconds per ``add_items`` of one item on a healthy cluster."""
    from redis.asyncio.cluster import RedisCluster

    from ctxlab import TrimmingSession
    from ctxlab.stores import RedisStore

    client = RedisCluster.from_url(cluster.url)
    try:
        session = TrimmingSession(store=RedisStore(
            f"steady-{replicas}-{time.time_ns()}", client=client, key_prefix="steady",
            replicas=replicas), max_turns=1000)
        times = []
        for k in range(writes):
            began = time.perf_counter()
            await session.add_items([{"role": "user", "content": f"message {k}"}])
            times.append(time.perf_counter() - began)
        return times
    finally:
        await client.aclose()


def cost(writes: int, rounds: int) -> dict:
    """Latency of add_items without and with WAIT, interleaved rounds, best round kept."""
    folder = tempfile.mkdtemp(prefix="ctxlab-bench-wait-")
    cluster = LocalRedisCluster(folder).start()
    try:
        best: dict[int, list[float]] = {}
        for _ in range(rounds):
            for replicas in (0, 1):
                times = asyncio.run(steady(cluster, replicas, writes))
                if replicas not in best or statistics.median(times) < statistics.median(
                        best[replicas]):
                    best[replicas] = times
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return {str(r): {"p50_ms": round(1000 * statistics.median(t), 3),
                     "p99_ms": round(1000 * quantile(t, 0.99), 3)} for r, t in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--kill-at", type=int, default=20)
    parser.add_argument("--after", type=int, default=20,
                        help="turns per session after the shard is whole again")
    parser.add_argument("--writes", type=int, default=500,
                        help="add_items per round when measuring the price of WAIT")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args()
    rows = []
    began = time.time()
    print(f"{'mode':28} {'crash':8} {'acked':>6} {'lost':>5} {'dup':>4} {'outage s':>9} "
          f"{'p50 ms':>7} {'p99 ms':>7}")
    for _ in range(args.runs):
        for replicas in (0, 1):
            for crash in ("natural", "frozen"):
                row = one(replicas, crash, args.sessions, args.kill_at, args.after)
                rows.append(row)
                print(f"{row['mode']:28} {crash:8} {row['acknowledged']:>6} {row['lost']:>5} "
                      f"{row['duplicated']:>4} {row['outage_s']:>9} {row['p50_ms']!s:>7} "
                      f"{row['p99_ms']!s:>7}", flush=True)
    price = cost(args.writes, 3)
    ratio = price["1"]["p50_ms"] / price["0"]["p50_ms"]
    print(f"\nadd_items on a healthy cluster ({args.writes} writes, best of 3 rounds): "
          f"default p50 {price['0']['p50_ms']} ms / p99 {price['0']['p99_ms']} ms; durable "
          f"p50 {price['1']['p50_ms']} ms / p99 {price['1']['p99_ms']} ms ({ratio:.2f}x)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "benchmark": "benchmarks/bench_failover.py", "measured_at": time.strftime(
                "%Y-%m-%d %H:%M", time.gmtime(began)) + " UTC",
            "machine": os.environ.get("CTXLAB_BENCH_MACHINE", "unspecified"),
            "settings": {k: v for k, v in vars(args).items() if k != "json"}, "rows": rows,
            "wait_cost": price}, indent=1))


if __name__ == "__main__":
    main()
