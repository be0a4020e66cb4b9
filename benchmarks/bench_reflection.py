"""Debounced background reflection: a burst of N session endings of one customer.

    python benchmarks/bench_reflection.py                      # SQLite file, N = 1 5 20 50
    python benchmarks/bench_reflection.py --records memory --bursts 10 100

For each N, the same burst ends twice: through ``LongTermMemory.end_session`` (one
background write per ending) and through a ``Reflector`` (the endings within ``--delay``
seconds of each other are written once). Reported per N: record writes, lost races retried
(compare-and-swap conflicts), and seconds from the first ending to the last write (the
Reflector's time includes its ``--delay`` of quiet). Each ending's session is a real
support chat (the course's seed conversation, 30 items).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from ctxlab import LongTermMemory, Reflector, seed_support_conversation
from ctxlab.longterm import burst_endings
from ctxlab.records import open_records


async def measure(kind: str, folder: Path, n: int, delay: float) -> dict[str, float]:
    items = seed_support_conversation().items
    figures: dict[str, float] = {}
    for label in ("plain", "debounced"):
        target = str(folder / f"{label}-{n}.db") if kind == "sqlite" else "memory"
        memory = LongTermMemory(open_records(target), clock=lambda: "2026-03-02")
        runner = Reflector(memory, delay=delay) if label == "debounced" else memory
        writes, seconds = await burst_endings(runner, "customer-1", n, items=items)
        figures[f"{label}_writes"] = writes
        figures[f"{label}_seconds"] = seconds
        figures[f"{label}_sessions"] = len((await memory.get("customer-1")).sessions)
        figures[f"{label}_lost"] = memory.lost_races
        if label == "debounced":
            assert isinstance(runner, Reflector)
            figures["cancelled"] = runner.stats.cancelled
        await memory.aclose()
    return figures


async def main(kind: str, bursts: list[int], delay: float) -> None:
    print(f"records: {kind}; delay {delay:g} s; one customer, N sessions ending at once")
    print(f"{'N':>4}  {'plain writes':>12} {'lost races':>10} {'time':>8}   "
          f"{'debounced writes':>16} {'time':>8}  {'cancelled':>9}")
    with tempfile.TemporaryDirectory(prefix="ctxlab-bench-reflect-") as folder:
        for n in bursts:
            start = time.perf_counter()
            f = await measure(kind, Path(folder), n, delay)
            assert f["plain_sessions"] == f["debounced_sessions"] == n, f
            print(f"{n:>4}  {f['plain_writes']:>12.0f} {f['plain_lost']:>10.0f} "
                  f"{f['plain_seconds']:>7.2f}s   {f['debounced_writes']:>16.0f} "
                  f"{f['debounced_seconds']:>7.2f}s  {f['cancelled']:>9.0f}"
                  f"   (both kept all {n} sessions; {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", choices=("sqlite", "memory"), default="sqlite")
    parser.add_argument("--bursts", type=int, nargs="+", default=[1, 5, 20, 50])
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    asyncio.run(main(args.records, args.bursts, args.delay))
