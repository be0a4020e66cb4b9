"""How soon summarizing resumes after a process is killed (SIGKILL) in the middle of a fold.

    python benchmarks/bench_recovery.py                  # SQLite file and Redis
    python benchmarks/bench_recovery.py --backends sqlite --repeat 5

A child process opens a SummarizingSession on the store, adds turns until a fold is due and
starts it with a summarizer that never returns; it holds the fold lease. The parent kills
it with SIGKILL, then a fresh session (as a restarted worker would) adds one item and calls
``flush()``; the time from the kill to the applied summary is the recovery time. Printed
per backend: the recovery time (min / median / max over ``--repeat`` runs) next to the
lease TTL (30 s by default), which bounds recovery when the dead owner ran on another host
(ctxlab takes a lease over at once only when it can prove the owner dead: same host, pid
gone). Also checked each time: no stored turn was missing from the view meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stores import start_redis

CHILD = r"""
import asyncio, sys, pathlib
from ctxlab import SummarizingSession

kind, where, sid, marker = sys.argv[1:5]

class Hang:
    async def summarize(self, items, previous_summary=None):
        pathlib.Path(marker).write_text("folding")
        await asyncio.Event().wait()

def store():
    if kind == "sqlite":
        from agents.memory import SQLiteSession
        return SQLiteSession(sid, where)
    from agents.extensions.memory import RedisSession
    return RedisSession.from_url(sid, url=where)

async def main():
    session = SummarizingSession(1, 2, Hang(), store=store(), summary_timeout=None)
    for t in range(3):
        await session.add_items([{"role": "user", "content": f"q{t} ticket TCK-{t}"},
                                 {"role": "assistant", "content": f"a{t}"}])

asyncio.run(main())
"""


class Quick:
    async def summarize(self, items: list[Any], previous_summary: str | None = None) -> str:
        return f"summary of {len(items)} items"


def open_store(kind: str, where: str, sid: str) -> Any:
    if kind == "sqlite":
        from agents.memory import SQLiteSession

        return SQLiteSession(sid, where)
    from agents.extensions.memory import RedisSession

    return RedisSession.from_url(sid, url=where)


async def recover(kind: str, where: str, sid: str, killed_at: float) -> tuple[float, bool]:
    from ctxlab import SummarizingSession

    session = SummarizingSession(1, 2, Quick(), store=open_store(kind, where, sid))
    raw = await session.raw_items()
    with_all = len(await session.get_items()) == len(raw)  # nothing dropped meanwhile
    await session.add_items([{"role": "user", "content": "still there?"}])
    await session.flush()
    took = time.monotonic() - killed_at
    assert session.summary is not None, "no fold after recovery"
    await session.aclose()
    return took, with_all


def one_run(kind: str, where: str, folder: Path, n: int) -> tuple[float, bool]:
    sid = f"recovery-{kind}-{n}-{os.getpid()}"
    marker = folder / f"{sid}.folding"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, kind, where, sid, str(marker)])
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the child did not start a fold (exit {proc.returncode})")
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    proc.wait()
    return asyncio.run(recover(kind, where, sid, killed_at))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "redis"],
                        choices=["sqlite", "redis"])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from ctxlab.sessions.summarizing import DEFAULT_LEASE_TTL

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        redis_proc = None
        print(f"{'backend':<8} {'recovery after SIGKILL (s)':>30} {'lease TTL (s)':>14} "
              f"{'view kept every turn':>21}")
        try:
            for kind in args.backends:
                if kind == "redis":
                    where, redis_proc = start_redis(folder)
                else:
                    where = str(folder / "recovery.db")
                runs = [one_run(kind, where, folder, n) for n in range(args.repeat)]
                times = [t for t, _ in runs]
                spread = (f"{min(times):.2f} / {statistics.median(times):.2f} / "
                          f"{max(times):.2f}")
                print(f"{kind:<8} {spread:>30} {DEFAULT_LEASE_TTL:>14.0f} "
                      f"{all(ok for _, ok in runs)!s:>21}")
        finally:
            if redis_proc is not None:
                redis_proc.terminate()
    print("(min / median / max; on the same host the dead owner's lease is taken over at once;"
          " a dead owner on another host is outlived by the lease TTL)")


if __name__ == "__main__":
    main()
