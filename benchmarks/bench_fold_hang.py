"""Does a fold on Redis hang with a slow sync summarizer? (issue 26, item 1), printed.

    python benchmarks/bench_fold_hang.py                 # 20 trials on a throwaway Redis
    python benchmarks/bench_fold_hang.py --trials 40 --url redis://127.0.0.1:6379/0
    PYTHONPATH=/path/to/an/old/checkout python benchmarks/bench_fold_hang.py   # before

One trial: a fresh ``SummarizingSession`` on the SDK's ``RedisSession`` (background folds
off, ``lease_ttl=0.3``) with a plain *sync* summarizer that sleeps longer than
``lease_ttl / 3``, and two ``add_items`` calls that each trigger a fold. A trial that has
not returned after ``--patience`` seconds hangs. Trials run one after another in a child
process; after a hang the child is killed (its stuck heartbeat would spin for ever) and a
new one takes the remaining trials. Only the public API is used, so the same script
measures any checkout put first on ``PYTHONPATH``.

Printed: hung trials out of all, and how many folds the finished trials applied (2 each).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

TTL = 0.3


class SlowSyncSummarizer:
    """A plain (sync) summarizer slower than a third of the lease TTL."""

    def summarize(self, items: list[dict[str, Any]]) -> str:
        time.sleep(TTL / 3 + 0.05)
        return f"summary of {len(items)} items"


def one_trial(url: str) -> int:
    """Two folds on a fresh Redis session; returns how many were applied."""
    import redis.asyncio as aioredis
    from agents.extensions.memory import RedisSession

    from ctxlab import SummarizingSession

    async def go() -> int:
        client = aioredis.from_url(url)
        sid = f"hang-{uuid.uuid4().hex[:8]}"
        store = RedisSession(sid, redis_client=client, key_prefix=f"ctxlab-bench-{sid}")
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1, store=store,
                                     summarizer=SlowSyncSummarizer(), lease_ttl=TTL)
        try:
            await session.add_items([{"role": "user", "content": "q1"},
                                     {"role": "assistant", "content": "a1"},
                                     {"role": "user", "content": "q2"}])
            await session.add_items([{"role": "assistant", "content": "a2"},
                                     {"role": "user", "content": "q3"}])
            return session.summaries_applied
        finally:
            await client.aclose()

    return asyncio.run(go())


def child(url: str, trials: int, patience: float) -> None:
    """Run trials until one hangs; print one JSON line per finished or hung trial."""
    import redis.asyncio  # noqa: F401  - imports are slow: not part of any trial's time
    from agents.extensions.memory import RedisSession  # noqa: F401

    import ctxlab  # noqa: F401

    for _ in range(trials):
        out: dict[str, Any] = {}

        def target(out: dict[str, Any] = out) -> None:
            try:
                out["applied"] = one_trial(url)
            except Exception as exc:  # reported, not a hang
                out["error"] = f"{type(exc).__name__}: {exc}"

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(patience)
        print(json.dumps({"hung": True} if thread.is_alive() else out), flush=True)
        if thread.is_alive():
            break
    os._exit(0)  # a stuck daemon thread must not keep the process alive


def measure(url: str, trials: int, patience: float) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    while len(rows) < trials:
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--url", url,
             "--trials", str(trials - len(rows)), "--patience", str(patience)],
            capture_output=True, text=True, timeout=(trials + 2) * (patience + 10))
        got = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if not got:
            raise RuntimeError(f"the trial process printed nothing:\n{done.stderr[-2000:]}")
        rows.extend(got)
    hung = sum(1 for r in rows if r.get("hung"))
    applied = [r["applied"] for r in rows if "applied" in r]
    errors = [r["error"] for r in rows if "error" in r]
    return {"trials": len(rows), "hung": hung, "applied": applied, "errors": errors}


def local_servers() -> Any:
    """ctxlab/stores/local_servers.py of *this* checkout (stdlib only), by path."""
    path = Path(__file__).resolve().parents[1] / "ctxlab" / "stores" / "local_servers.py"
    spec = importlib.util.spec_from_file_location("ctxlab_local_servers", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--patience", type=float, default=8.0,
                        help="seconds after which a trial counts as hung (default 8)")
    parser.add_argument("--url", help="a Redis server (default: start a throwaway one)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.url, args.trials, args.patience)
    import ctxlab

    print(f"ctxlab from {Path(ctxlab.__file__).parent}", flush=True)
    if args.url:
        result = measure(args.url, args.trials, args.patience)
    else:
        with tempfile.TemporaryDirectory(prefix="ctxlab-bench-redis-") as folder:
            server = local_servers().LocalRedis(folder).start()
            try:
                result = measure(server.url, args.trials, args.patience)
            finally:
                server.stop()
    finished = len(result["applied"])
    print(f"{result['hung']} of {result['trials']} trials hung (no return within "
          f"{args.patience:g} s); {finished} finished, applying "
          f"{sum(result['applied'])} of {2 * finished} folds; errors: {len(result['errors'])}")
    for error in result["errors"][:3]:
        print(f"  error: {error}")


if __name__ == "__main__":
    main()
