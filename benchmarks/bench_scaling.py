"""Per-turn cost at any history size, measured side by side against the source tutorial's
design (re-implemented here from its description, not imported).

    python benchmarks/bench_scaling.py                    # 1k / 10k / 100k stored items
    python benchmarks/bench_scaling.py --sizes 1000 10000 --turns 200

A turn is what the Runner writes for one tool-using exchange (~400 B per item): the user
message, a function call with its output, the assistant reply; the timed unit is "add the
user input + add the rest + get_items" (median ms over ``--turns`` turns after pre-filling
the log). Printed, each as a ratio to the seed TrimmingSession measured in the same run:

* seed TrimmingSession(8): a deque trimmed in place on every write and read; it deletes
  history and hands out its own dicts (no copies, no checks);
* SDK SQLiteSession(":memory:") read with limit=24;
* ctxlab TrimmingSession(8);  target <= 3x the seed, flat;
* seed SummarizingSession(3/6) and ctxlab SummarizingSession(3/6), same stub summarizer;
  target <= 5x the seed TrimmingSession;
* ctxlab ContextManager(2000) driven as a call_model_input_filter over the full history
  (what the Runner passes with a full-history session); target: flat (the fitted exponent
  of time vs size < 0.1).

Then retained memory per item (tracemalloc) for ctxlab vs the caller's own items, after the
caller dropped its copies; target <= 1.2x.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import statistics
import time
import tracemalloc
from collections import deque
from typing import Any

ITEMS_PER_TURN = 4


# ------------------------------------------------------------------ the workload


def turn_batches(t: int) -> list[list[dict[str, Any]]]:
    """One turn in the Runner's batches: input, tool round, reply (~400 B per item)."""
    call_id = f"call_{t}"
    pad = "The device restarts, then the status light blinks amber for a while. " * 3
    return [
        [{"role": "user", "content": f"Turn {t}: my router shows error {t % 97}; serial "
                                      f"SN-{t:05d}. {pad}"}],
        [{"type": "function_call", "call_id": call_id, "name": "lookup_device",
          "arguments": json.dumps({"serial": f"SN-{t:05d}", "detail": pad[:120]})},
         {"type": "function_call_output", "call_id": call_id,
          "output": json.dumps({"model": "RT-AX58", "firmware": "v1.0.3", "status": "ok",
                                "notes": pad})}],
        [{"role": "assistant", "content": f"Step {t}: hold reset for ten seconds. {pad}"}],
    ]


# ------------------------------------------------------------------ the seed's design


def _is_user(item: dict[str, Any]) -> bool:
    return item.get("role") == "user"


class SeedTrimming:
    """The tutorial's trimming session, from its description: a deque trimmed to the last
    N user turns on every write and every read."""

    def __init__(self, max_turns: int = 8):
        self.max_turns = max_turns
        self.items: deque[dict[str, Any]] = deque()
        self.lock = asyncio.Lock()

    def _trim(self) -> None:
        seen = 0
        for i in range(len(self.items) - 1, -1, -1):
            if _is_user(self.items[i]):
                seen += 1
                if seen == self.max_turns:
                    for _ in range(i):
                        self.items.popleft()
                    return

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        async with self.lock:
            self.items.extend(items)
            self._trim()

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        async with self.lock:
            self._trim()
            out = list(self.items)
            return out[-limit:] if limit else out


class StubSummarizer:
    async def summarize(self, items: list[dict[str, Any]],
                        previous_summary: str | None = None) -> str:
        return f"summary of {len(items)} items"


class SeedSummarizing:
    """The tutorial's summarizing session, from its description: records in a deque; past
    ``context_limit`` user turns, everything before the last ``keep`` turns is replaced by
    a synthetic user/assistant pair (the lock is released while the summarizer runs)."""

    def __init__(self, keep: int = 3, limit: int = 6):
        self.keep, self.limit = keep, limit
        self.items: deque[dict[str, Any]] = deque()
        self.lock = asyncio.Lock()
        self.summarizer = StubSummarizer()

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        async with self.lock:
            self.items.extend(items)
            starts = [i for i, it in enumerate(self.items) if _is_user(it)
                      and not it.get("synthetic")]
            if len(starts) <= self.limit:
                return
            cut = starts[-self.keep] if self.keep else len(self.items)
            prefix = list(self.items)[:cut]
        text = await self.summarizer.summarize(prefix)
        async with self.lock:
            rest = list(self.items)[cut:]
            self.items = deque([{"role": "user", "content": "Summarize.", "synthetic": True},
                                {"role": "assistant", "content": text}, *rest])

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        async with self.lock:
            return list(self.items)


# ------------------------------------------------------------------ measuring


async def fill(session: Any, turns: int) -> None:
    for t in range(turns):
        for batch in turn_batches(t):
            await session.add_items(batch)


async def per_turn_ms(session: Any, start: int, turns: int, limit: int | None) -> float:
    times = []
    for t in range(start, start + turns):
        batches = turn_batches(t)
        began = time.perf_counter()
        await session.add_items(batches[0])
        for batch in batches[1:]:
            await session.add_items(batch)
        await (session.get_items(limit) if limit else session.get_items())
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


async def context_manager_ms(size: int, turns: int) -> float:
    from agents import Agent
    from agents.run_config import CallModelData, ModelInputData

    from ctxlab import ContextManager

    history = [it for t in range(size // ITEMS_PER_TURN) for b in turn_batches(t) for it in b]
    manager = ContextManager(2000, tools=[])
    agent = Agent(name="bench", instructions="Help.")
    times = []
    for t in range(turns):
        new = turn_batches(size + t)[0]
        data = CallModelData(model_data=ModelInputData(input=[*history, *new],
                                                       instructions="Help."),
                             agent=agent, context=None)
        began = time.perf_counter()
        await manager(data)
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def make(kind: str) -> Any:
    from agents import SQLiteSession

    from ctxlab import SummarizingSession, TrimmingSession

    if kind == "seed trim":
        return SeedTrimming(8)
    if kind == "sdk sqlite":
        return SQLiteSession("bench")
    if kind == "ctxlab trim":
        return TrimmingSession("bench", max_turns=8)
    if kind == "seed summarize":
        return SeedSummarizing(3, 6)
    return SummarizingSession(3, 6, StubSummarizer(), session_id="bench")


KINDS = ("seed trim", "sdk sqlite", "ctxlab trim", "seed summarize", "ctxlab summarize")


async def run_size(size: int, turns: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for kind in KINDS:
        session = make(kind)
        await fill(session, size // ITEMS_PER_TURN)
        limit = 24 if kind == "sdk sqlite" else None
        out[kind] = await per_turn_ms(session, size // ITEMS_PER_TURN, turns, limit)
        del session
        gc.collect()
    out["context manager"] = await context_manager_ms(size, min(turns, 50))
    return out


def exponent(sizes: list[int], values: list[float]) -> float:
    """Slope of log(time) vs log(size) (0: flat, 1: linear)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(v, 1e-9)) for v in values]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs)


def retained_per_item(n_items: int) -> tuple[float, float]:
    """Bytes retained per item by the caller's own list, and by a ctxlab TrimmingSession
    holding the same items after the caller dropped its list."""
    from ctxlab import TrimmingSession

    def build() -> list[dict[str, Any]]:
        return [it for t in range(n_items // ITEMS_PER_TURN) for b in turn_batches(t) for it in b]

    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    own = build()
    caller = tracemalloc.get_traced_memory()[0] - before
    del own
    gc.collect()
    session = TrimmingSession("mem", max_turns=8)
    base = tracemalloc.get_traced_memory()[0]

    async def load() -> None:
        items = build()
        for i in range(0, len(items), ITEMS_PER_TURN):
            await session.add_items(items[i:i + ITEMS_PER_TURN])
        del items

    asyncio.run(load())
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return caller / n_items, kept / n_items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--memory-items", type=int, default=20_000)
    args = parser.parse_args()
    results = {size: asyncio.run(run_size(size, args.turns)) for size in args.sizes}
    head = f"{'median ms per turn':<22}" + "".join(f"{f'{s:,} items':>20}" for s in args.sizes)
    print(head)
    print("-" * len(head))
    for kind in (*KINDS, "context manager"):
        cells = []
        for size in args.sizes:
            row = results[size]
            ratio = row[kind] / row["seed trim"]
            cells.append(f"{row[kind]:8.3f} ({ratio:5.1f}x)")
        print(f"{kind:<22}" + "".join(f"{c:>20}" for c in cells))
    if len(args.sizes) > 1:
        cm = exponent(args.sizes, [results[s]["context manager"] for s in args.sizes])
        tr = exponent(args.sizes, [results[s]["ctxlab trim"] for s in args.sizes])
        print(f"\nexponent of time vs size: ctxlab trim {tr:.3f}, context manager {cm:.3f} "
              "(target < 0.1)")
    worst_trim = max(results[s]["ctxlab trim"] / results[s]["seed trim"] for s in args.sizes)
    worst_sum = max(results[s]["ctxlab summarize"] / results[s]["seed trim"] for s in args.sizes)
    print(f"target TrimmingSession <= 3x seed: worst {worst_trim:.1f}x "
          f"({'met' if worst_trim <= 3 else 'NOT met'})")
    print(f"target SummarizingSession <= 5x seed: worst {worst_sum:.1f}x "
          f"({'met' if worst_sum <= 5 else 'NOT met'})")
    caller, kept = retained_per_item(args.memory_items)
    print(f"retained memory per item: caller's own {caller:.0f} B, ctxlab {kept:.0f} B "
          f"({kept / caller:.2f}x; target <= 1.2x)")


if __name__ == "__main__":
    main()
