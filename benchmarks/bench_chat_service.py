"""The example chat service under load: many users, several worker processes, a real HTTP
client in separate processes, then every stored conversation checked.

    python benchmarks/bench_chat_service.py                        # 1,000 users x 20 turns
    python benchmarks/bench_chat_service.py --users 100 --turns 5  # while developing
    python benchmarks/bench_chat_service.py --json benchmarks/results/chat_service.json

For each configuration (store x session layer: ctxlab's ``SummarizingSession`` on
PostgreSQL, on a Redis Cluster and on a Redis server, and the Agents SDK's own
``SQLAlchemySession`` / ``RedisSession`` on the same PostgreSQL and Redis servers; the SDK
has no Redis Cluster session) it starts ``examples/chat_service/serve.py`` with
``--workers`` uvicorn workers, then ``--clients`` client processes (httpx) in which every
user sends ``--turns`` messages one after another, all users at once. Printed per
configuration: turns/s, the turn's latency (p50/p99), the session's own time per turn (the
service measures it inside the session's methods; p50/p99), per operation (``get_items``,
``add_items``, p50), and from the store itself: turns lost, turns stored twice, items in a
conversation that belong to another user. Then the ratio ctxlab / SDK per operation on the
same server (target: at most 1.2x). Servers: CTXLAB_POSTGRES_URL, CTXLAB_REDIS_CLUSTER_URL,
CTXLAB_REDIS_URL, else throwaway ones on loopback (stopped at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from examples.chat_service.harness import (  # noqa: E402
    check,
    message,
    start_service,
    stop_service,
    stored_conversations,
)

#: (name, store, layer) of every configuration, in the order they run.
CONFIGS = [("postgres/ctxlab", "postgres", "ctxlab"), ("postgres/sdk", "postgres", "sdk"),
           ("redis-cluster/ctxlab", "redis-cluster", "ctxlab"),
           ("redis/ctxlab", "redis", "ctxlab"), ("redis/sdk", "redis", "sdk")]
TARGET = 1.2


# ------------------------------------------------------------------------ the load client


async def client_main(spec: dict[str, Any]) -> dict[str, Any]:
    import httpx

    base, prefix = spec["base"], spec["prefix"]
    rows: list[list[Any]] = []
    failures: list[str] = []
    limits = httpx.Limits(max_connections=spec["concurrency"],
                          max_keepalive_connections=spec["concurrency"])
    semaphore = asyncio.Semaphore(spec["concurrency"])
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        async def user(u: int) -> None:
            for t in range(spec["turns"]):
                async with semaphore:
                    began = time.perf_counter()
                    reply = await http.post("/chat", json={"user": f"{prefix}{u}",
                                                           "message": message(u, t)})
                    took = 1000 * (time.perf_counter() - began)
                if reply.status_code != 200:
                    failures.append(f"{u}/{t}: HTTP {reply.status_code} {reply.text[:200]}")
                    return
                ms = reply.json()["session_ms"]
                rows.append([took, sum(ms.get("get_items", [])) + sum(ms.get("add_items", [])),
                             ms.get("get_items", []), ms.get("add_items", [])])

        await asyncio.gather(*(user(u) for u in spec["users"]))
    return {"rows": rows, "failures": failures}


# --------------------------------------------------------------------------- the service


# ------------------------------------------------------------------- what the store holds


# -------------------------------------------------------------------------------- a run


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run_config(name: str, store: str, layer: str, env: dict[str, str],
               args: argparse.Namespace) -> dict[str, Any]:
    prefix = re.sub(r"[^a-z]", "", name) + f"{int(time.time()) % 100000}-u"
    proc, base = start_service(store, layer, args.workers, env)
    try:
        slices = [list(range(c, args.users, args.clients)) for c in range(args.clients)]
        began = time.perf_counter()
        clients = [subprocess.Popen(
            [sys.executable, __file__, "--client", json.dumps({
                "base": base, "prefix": prefix, "users": users, "turns": args.turns,
                "concurrency": args.concurrency})],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for users in slices]
        results = []
        try:
            for client in clients:
                out, err = client.communicate(timeout=7200)
                if client.returncode != 0:
                    raise RuntimeError(f"a client failed: {err[-2000:]}")
                results.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            for client in clients:
                if client.poll() is None:
                    client.kill()
        wall = time.perf_counter() - began
    finally:
        stop_service(proc)
    rows = [r for res in results for r in res["rows"]]
    failures = [f for res in results for f in res["failures"]]
    ids = [f"chat-{prefix}{u}" for u in range(args.users)]
    stored = asyncio.run(stored_conversations(store, layer, env, ids))
    verdict = check(stored, prefix, args.users, args.turns)
    gets = [g for r in rows for g in r[2]]
    adds = [a for r in rows for a in r[3]]
    return {
        "config": name, "turns": len(rows), "failed_requests": len(failures),
        "wall_s": round(wall, 1), "turns_per_s": round(len(rows) / wall, 1),
        "latency_p50_ms": round(statistics.median(r[0] for r in rows), 1),
        "latency_p99_ms": round(quantile([r[0] for r in rows], 0.99), 1),
        "session_p50_ms": round(statistics.median(r[1] for r in rows), 2),
        "session_p99_ms": round(quantile([r[1] for r in rows], 0.99), 2),
        "get_items_p50_ms": round(statistics.median(gets), 2),
        "add_items_p50_ms": round(statistics.median(adds), 2),
        **verdict, "first_failures": failures[:3],
    }


def servers(needed: set[str]) -> tuple[dict[str, dict[str, str]], list[Any]]:
    """The environment per store kind, starting what is not given (stopped by the caller)."""
    from ctxlab.stores.local_servers import LocalPostgres, LocalRedis, LocalRedisCluster

    def folder() -> str:
        return tempfile.mkdtemp(prefix="bench-chat-")

    kinds = (  # kind, the variable that names a running server, how to start one, chat's
        ("postgres", "CTXLAB_POSTGRES_URL", lambda: LocalPostgres(fast=False),
         "CHAT_POSTGRES_URL"),
        ("redis-cluster", "CTXLAB_REDIS_CLUSTER_URL", lambda: LocalRedisCluster(folder()),
         "CHAT_REDIS_URL"),
        ("redis", "CTXLAB_REDIS_URL", lambda: LocalRedis(folder()), "CHAT_REDIS_URL"),
    )
    env: dict[str, dict[str, str]] = {}
    started: list[Any] = []
    for kind, variable, start, chat_variable in kinds:
        if kind not in needed:
            continue
        url = os.environ.get(variable)
        if not url:
            started.append(start().start())
            url = started[-1].url
        env[kind] = {variable: url, chat_variable: url}
    return env, started


def report(rows: list[dict[str, Any]]) -> list[str]:
    lines = [f"{'configuration':22} {'turns/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
             f"{'session p50':>12} {'p99':>8} {'get p50':>8} {'add p50':>8} "
             f"{'lost':>5} {'dup':>4} {'cross':>6}"]
    for r in rows:
        lines.append(f"{r['config']:22} {r['turns_per_s']:>8} {r['latency_p50_ms']:>8} "
                     f"{r['latency_p99_ms']:>8} {r['session_p50_ms']:>12} "
                     f"{r['session_p99_ms']:>8} {r['get_items_p50_ms']:>8} "
                     f"{r['add_items_p50_ms']:>8} {r['lost']:>5} {r['duplicated']:>4} "
                     f"{r['cross_user']:>6}")
    by = {r["config"]: r for r in rows}
    for server in ("postgres", "redis"):
        ours, sdk = by.get(f"{server}/ctxlab"), by.get(f"{server}/sdk")
        if ours and sdk:
            parts = [f"{op} {ours[key] / sdk[key]:.2f}x" for op, key in (
                ("get_items", "get_items_p50_ms"), ("add_items", "add_items_p50_ms"),
                ("per turn", "session_p50_ms"))]
            lines.append(f"ctxlab / SDK on {server} (p50, target <= {TARGET}x): "
                         + ", ".join(parts))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="requests in flight per client process (above the service's "
                             "capacity, times measure queueing, not the session)")
    parser.add_argument("--configs", default=",".join(c[0] for c in CONFIGS))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        print(json.dumps(asyncio.run(client_main(json.loads(args.client)))))
        return
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # clean up on kill, too
    chosen = [c for c in CONFIGS if c[0] in args.configs.split(",")]
    env, started = servers({c[1] for c in chosen})
    rows = []
    began = time.time()
    try:
        print(f"{args.users} users x {args.turns} turns, {args.workers} service workers, "
              f"{args.clients} client processes", flush=True)
        for name, store, layer in chosen:
            rows.append(run_config(name, store, layer, env[store], args))
            print(json.dumps(rows[-1]), flush=True)
    finally:
        for server in started:
            server.stop()
    print("\n".join(report(rows)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "benchmark": "benchmarks/bench_chat_service.py",
            "measured_at": time.strftime("%Y-%m-%d %H:%M", time.gmtime(began)) + " UTC",
            "machine": os.environ.get("CTXLAB_BENCH_MACHINE", "unspecified"),
            "settings": {k: v for k, v in vars(args).items() if k not in ("client", "json")},
            "rows": rows, "report": report(rows)}, indent=1))


if __name__ == "__main__":
    main()
