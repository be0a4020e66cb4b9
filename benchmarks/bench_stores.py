"""Appends from several processes to one session: the bare SDK store vs ctxlab on top of it.

    python benchmarks/bench_stores.py                      # 2 processes x 5,000 appends
    python benchmarks/bench_stores.py --appends 500 --backends sqlite

For each backend (an SQLite file; a Redis server from CTXLAB_REDIS_URL, else a
``redis-server`` started on a free 127.0.0.1 port and stopped at the end) and each layer
(the SDK's ``SQLiteSession`` / ``RedisSession`` alone, then a ctxlab ``TrimmingSession``
with that SDK session as its ``store``), ``--processes`` OS processes start together and each
appends ``--appends`` single items to the *same* session, timing every ``add_items``.
Printed: throughput (appends/s over the wall time of the slowest process), p50 and p95
latency per append, and the overhead of the ctxlab layer (its p50 / the SDK's p50, and the
SDK's throughput / ctxlab's). Target: overhead at most 1.2x. The stored item count is checked.
``--repeat N`` runs the SDK and ctxlab rounds N times, interleaved, and keeps each layer's
best round (the machine's other work only ever slows a round down).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 1.2


def item(n: int, writer: str) -> dict[str, Any]:
    if n % 2 == 0:
        return {"role": "user", "content": f"{writer}: my router shows error {n % 97}"}
    return {"type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": f"{writer}: step {n}: restart it",
                         "annotations": []}]}


def open_sdk(spec: dict[str, Any], session_id: str) -> tuple[Any, Any]:
    if spec["backend"] == "sqlite":
        from agents import SQLiteSession

        return SQLiteSession(session_id, spec["path"]), None
    import redis.asyncio as aioredis
    from agents.extensions.memory import RedisSession

    client = aioredis.from_url(spec["url"])
    return RedisSession(session_id, redis_client=client, key_prefix=spec["prefix"]), client


def wrap(layer: str, sdk: Any) -> Any:
    if layer == "sdk":
        return sdk
    from ctxlab import TrimmingSession

    return TrimmingSession(max_turns=8, store=sdk)


async def worker(spec: dict[str, Any]) -> dict[str, Any]:
    writer = f"w{os.getpid()}"
    warm_sdk, warm_client = open_sdk(spec, f"warm-{writer}")
    sdk, client = open_sdk(spec, spec["session_id"])
    try:
        warm = wrap(spec["layer"], warm_sdk)
        for n in range(20):  # connections, tokenizer, scripts: not part of the measurement
            await warm.add_items([item(n, writer)])
        session = wrap(spec["layer"], sdk)
        Path(spec["ready"] + writer).write_text("ready")
        while not Path(spec["go"]).exists():
            await asyncio.sleep(0.002)
        latencies = []
        start = time.time()
        for n in range(spec["appends"]):
            began = time.perf_counter()
            await session.add_items([item(n, writer)])
            latencies.append(time.perf_counter() - began)
        return {"start": start, "end": time.time(), "latencies": latencies}
    finally:
        for c in (warm_client, client):
            if c is not None:
                await c.aclose()


def run_round(spec: dict[str, Any], processes: int, folder: Path) -> dict[str, Any]:
    spec = {**spec, "ready": str(folder / f"ready-{spec['session_id']}-"),
            "go": str(folder / f"go-{spec['session_id']}")}
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    deadline = time.monotonic() + 120
    while len(list(folder.glob(f"ready-{spec['session_id']}-*"))) < processes:
        if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
            errors = [p.communicate()[1][-2000:] for p in procs if p.poll() is not None]
            raise RuntimeError(f"a worker failed to start: {errors}")
        time.sleep(0.01)
    Path(spec["go"]).write_text("go")
    results = []
    for p in procs:
        out, err = p.communicate(timeout=1800)
        if p.returncode != 0:
            raise RuntimeError(f"worker failed:\n{err[-3000:]}")
        results.append(json.loads(out.strip().splitlines()[-1]))
    lat = sorted(x for r in results for x in r["latencies"])
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    return {"throughput": len(lat) / wall, "p50_ms": statistics.median(lat) * 1e3,
            "p95_ms": lat[int(0.95 * (len(lat) - 1))] * 1e3, "appends": len(lat)}


async def stored_count(spec: dict[str, Any], session_id: str) -> int:
    sdk, client = open_sdk(spec, session_id)
    try:
        return len(await sdk.get_items())
    finally:
        if client is not None:
            await client.aclose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_redis(folder: Path) -> tuple[str, subprocess.Popen[bytes] | None]:
    url = os.environ.get("CTXLAB_REDIS_URL")
    if url:
        return url, None
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("no Redis: set CTXLAB_REDIS_URL or install redis-server "
                         "(or pass --backends sqlite)")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return f"redis://127.0.0.1:{port}/0", proc
        except OSError:
            time.sleep(0.02)
    proc.terminate()
    raise SystemExit("redis-server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--appends", type=int, default=5000, help="appends per process")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="rounds per layer (best kept)")
    parser.add_argument("--backends", nargs="+", default=["sqlite", "redis"],
                        choices=["sqlite", "redis"])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(worker(json.loads(args.worker)))), flush=True)
        return

    load = os.getloadavg()[0]
    folder = Path(tempfile.mkdtemp(prefix="ctxlab-bench-"))
    redis_proc = None
    rows = []
    incomplete: list[str] = []
    try:
        for backend in args.backends:
            spec: dict[str, Any] = {"backend": backend, "appends": args.appends,
                                    "path": str(folder / "bench.db"),
                                    "prefix": f"ctxlab-bench-{os.getpid()}"}
            if backend == "redis":
                spec["url"], redis_proc = start_redis(folder)
            best: dict[str, dict[str, Any]] = {}
            for round_no in range(args.repeat):
                for layer in ("sdk", "ctxlab"):
                    sid = f"{backend}-{layer}-{round_no}"
                    result = run_round({**spec, "layer": layer, "session_id": sid},
                                       args.processes, folder)
                    result["stored"] = asyncio.run(stored_count(spec, sid))
                    if result["stored"] != args.processes * args.appends:
                        incomplete.append(sid)
                    print(f"  {backend:<6} {layer:<6} round {round_no + 1}: "
                          f"{result['throughput']:.0f} appends/s, p50 {result['p50_ms']:.3f} ms",
                          file=sys.stderr, flush=True)
                    if layer not in best or result["throughput"] > best[layer]["throughput"]:
                        best[layer] = result
            rows += [{"backend": backend, "layer": layer, **best[layer]}
                     for layer in ("sdk", "ctxlab")]
    finally:
        if redis_proc is not None:
            redis_proc.terminate()
            redis_proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)

    print(f"{args.processes} processes x {args.appends} appends (one item per add_items) "
          f"to one shared session; best of {args.repeat} round(s); load average before the "
          f"run {load:.2f} on {os.cpu_count()} CPUs")
    print(f"{'backend':<8}{'layer':<8}{'appends/s':>11}{'p50 ms':>9}{'p95 ms':>9}"
          f"{'stored':>9}")
    for r in rows:
        print(f"{r['backend']:<8}{r['layer']:<8}{r['throughput']:>11.0f}{r['p50_ms']:>9.3f}"
              f"{r['p95_ms']:>9.3f}{r['stored']:>9}")
    for backend in args.backends:
        sdk = next(r for r in rows if r["backend"] == backend and r["layer"] == "sdk")
        ours = next(r for r in rows if r["backend"] == backend and r["layer"] == "ctxlab")
        p50 = ours["p50_ms"] / sdk["p50_ms"]
        p95 = ours["p95_ms"] / sdk["p95_ms"]
        tput = sdk["throughput"] / ours["throughput"]
        worst = max(p50, tput)
        verdict = "met" if worst <= TARGET else "MISSED"
        complete = not [s for s in incomplete if s.startswith(f"{backend}-")]
        print(f"{backend}: ctxlab overhead p50 {p50:.2f}x, p95 {p95:.2f}x, throughput "
              f"{tput:.2f}x (target <= {TARGET}x: {verdict}); every append stored: "
              f"{'yes' if complete else 'NO'}")


if __name__ == "__main__":
    main()
