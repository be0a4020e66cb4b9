"""Cost per turn of add_items + get_items: TrimmingSession vs the SDK's SQLiteSession.

    python benchmarks/bench_trimming.py            # 100 / 1,000 / 10,000 stored items
    python benchmarks/bench_trimming.py --sizes 100 --turns 5

Each stored turn is what the Runner writes for one tool-using exchange: the user message,
a function call with its output, and the assistant reply, in three add_items batches.
For each log size the sessions are pre-filled, then ``--turns`` more turns are timed:
the three add_items calls and the one get_items call the Runner makes per run.
Target: TrimmingSession.get_items at 10,000 stored items under 1 ms, and no slower than
SQLiteSession.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from agents import SQLiteSession

from ctxlab import TrimmingSession

ITEMS_PER_TURN = 4


def turn_batches(t: int) -> list[list[dict[str, Any]]]:
    call_id = f"call_{t}"
    return [
        [{"role": "user", "content": f"My router shows error {t % 97}; serial SN-{t:05d}."}],
        [
            {"type": "function_call", "call_id": call_id, "name": "lookup_device",
             "arguments": json.dumps({"serial": f"SN-{t:05d}"})},
            {"type": "function_call_output", "call_id": call_id,
             "output": json.dumps({"model": "RT-AX58", "firmware": "v1.0.3", "status": "ok"})},
        ],
        [{"type": "message", "role": "assistant", "status": "completed",
          "content": [{"type": "output_text", "text": f"Step {t}: restart it.",
                       "annotations": []}]}],
    ]


async def fill(session: Any, turns: int) -> None:
    for t in range(turns):
        for batch in turn_batches(t):
            await session.add_items(batch)


async def measure(session: Any, start_turn: int, turns: int, limit: int | None):
    add_us: list[float] = []
    get_us: list[float] = []
    for t in range(start_turn, start_turn + turns):
        began = time.perf_counter()
        for batch in turn_batches(t):
            await session.add_items(batch)
        added = time.perf_counter()
        await session.get_items(limit) if limit else await session.get_items()
        done = time.perf_counter()
        add_us.append((added - began) * 1e6 / 3)
        get_us.append((done - added) * 1e6)
    return statistics.median(add_us), statistics.median(get_us)


async def bench(sizes: list[int], turns: int, max_turns: int) -> list[dict[str, Any]]:
    rows = []
    for size in sizes:
        base_turns = size // ITEMS_PER_TURN
        trimming = TrimmingSession("bench", max_turns=max_turns)
        sqlite = SQLiteSession("bench", ":memory:")
        sqlite_window = SQLiteSession("bench", ":memory:")
        for session in (trimming, sqlite, sqlite_window):
            await fill(session, base_turns)
        view = max_turns * ITEMS_PER_TURN
        for name, session, limit in (
            ("TrimmingSession", trimming, None),
            ("SQLiteSession (all items)", sqlite, None),
            (f"SQLiteSession (limit={view})", sqlite_window, view),
        ):
            add, get = await measure(session, base_turns, turns, limit)
            rows.append({"stored": size, "session": name, "add_us": add, "get_us": get})
        sqlite.close()
        sqlite_window.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1_000, 10_000])
    parser.add_argument("--turns", type=int, default=200, help="timed turns per size")
    parser.add_argument("--max-turns", type=int, default=8)
    args = parser.parse_args()
    rows = asyncio.run(bench(args.sizes, args.turns, args.max_turns))
    print(f"median over {args.turns} turns; add_items per call, get_items per run (µs)")
    print(f"{'stored':>7}  {'session':<28} {'add_items':>10} {'get_items':>10} {'per turn':>10}")
    for r in rows:
        per_turn = 3 * r["add_us"] + r["get_us"]
        print(f"{r['stored']:>7}  {r['session']:<28} {r['add_us']:>10.1f} {r['get_us']:>10.1f}"
              f" {per_turn:>10.1f}")
    largest = max(args.sizes)
    ours = next(r for r in rows if r["stored"] == largest and r["session"] == "TrimmingSession")
    theirs = [r for r in rows if r["stored"] == largest and r["session"] != "TrimmingSession"]
    fastest_sdk = min(r["get_us"] for r in theirs)
    verdict = "met" if ours["get_us"] < 1000 and ours["get_us"] <= fastest_sdk else "MISSED"
    print(f"target at {largest} stored items: get_items {ours['get_us']:.1f} µs < 1000 µs and "
          f"<= SQLiteSession's {fastest_sdk:.1f} µs: {verdict}")


if __name__ == "__main__":
    main()
