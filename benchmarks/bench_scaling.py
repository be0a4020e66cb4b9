"""Per-turn cost at any history size, measured side by side against the source tutorial's
design (re-implemented here from its description, not imported).

    python benchmarks/bench_scaling.py                    # 1k / 10k / 100k stored items
    python benchmarks/bench_scaling.py --sizes 1000 10000 --turns 200 --runs 7

A turn is what the Runner writes for one tool-using exchange (~400 B per item): the user
message, a function call with its output, the assistant reply; the timed unit is "add the
user input + add the rest + get_items" (median ms over ``--turns`` turns after pre-filling
the log). The sessions are measured *interleaved*: every turn is timed on each of them in
turn (the order rotating), so a busy neighbour on a shared machine slows all of them alike;
``--runs`` blocks of ``--turns`` turns each give one median per session, and each ratio is
printed as the median over the runs with its spread (min-max). Each is a ratio to the seed
TrimmingSession measured in the same run:

* seed TrimmingSession(8): a deque trimmed in place on every write and read; it deletes
  history and hands out its own dicts (no copies, no checks);
* seed TrimmingSession, verbatim: the tutorial's own class as printed in it (it copies
  the deque into a list on every write and read);
* SDK SQLiteSession(":memory:") read with limit=24 (timed in blocks of its own after the
  others: interleaved with it, every other session runs slower, the seed's least);
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


class SeedTutorialTrimming:
    """The tutorial's TrimmingSession as printed in it (the SessionABC base, the object
    fallback of ``_is_user_msg`` and the optional API left out: they cost nothing per turn)."""

    def __init__(self, session_id: str, max_turns: int = 8):
        self.session_id = session_id
        self.max_turns = max(1, int(max_turns))
        self._items: deque[dict[str, Any]] = deque()
        self._lock = asyncio.Lock()

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        async with self._lock:
            trimmed = self._trim_to_last_turns(list(self._items))
            return trimmed[-limit:] if (limit is not None and limit >= 0) else trimmed

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        if not items:
            return
        async with self._lock:
            self._items.extend(items)
            trimmed = self._trim_to_last_turns(list(self._items))
            self._items.clear()
            self._items.extend(trimmed)

    def _trim_to_last_turns(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not items:
            return items
        count = 0
        start_idx = 0
        for i in range(len(items) - 1, -1, -1):
            if _seed_is_user_msg(items[i]):
                count += 1
                if count == self.max_turns:
                    start_idx = i
                    break
        return items[start_idx:]


def _seed_is_user_msg(item: Any) -> bool:
    if isinstance(item, dict):
        role = item.get("role")
        if role is not None:
            return bool(role == "user")
        if item.get("type") == "message":
            return bool(item.get("role") == "user")
    return getattr(item, "role", None) == "user"


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


async def one_turn(session: Any, batches: list[list[dict[str, Any]]], limit: int | None
                   ) -> float:
    """Seconds for one turn: the Runner's add_items batches, then its get_items."""
    began = time.perf_counter()
    for batch in batches:
        await session.add_items(batch)
    await (session.get_items(limit) if limit else session.get_items())
    return time.perf_counter() - began


async def interleaved_ms(sessions: dict[str, Any], start: int, turns: int) -> dict[str, float]:
    """Median ms per turn of each session, the sessions timed turn by turn in rotating
    order (each gets its own copy of the turn's items)."""
    times: dict[str, list[float]] = {kind: [] for kind in sessions}
    kinds = list(sessions)
    for t in range(start, start + turns):
        shift = t % len(kinds)
        for kind in kinds[shift:] + kinds[:shift]:
            limit = 24 if kind == "sdk sqlite" else None
            times[kind].append(await one_turn(sessions[kind], turn_batches(t), limit))
    return {kind: statistics.median(ts) * 1000 for kind, ts in times.items()}


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
    if kind == "seed trim verbatim":
        return SeedTutorialTrimming("bench", 8)
    if kind == "sdk sqlite":
        return SQLiteSession("bench")
    if kind == "ctxlab trim":
        return TrimmingSession("bench", max_turns=8)
    if kind == "seed summarize":
        return SeedSummarizing(3, 6)
    return SummarizingSession(3, 6, StubSummarizer(), session_id="bench")


KINDS = ("seed trim", "seed trim verbatim", "ctxlab trim", "seed summarize",
         "ctxlab summarize")


async def run_size(size: int, turns: int, runs: int) -> list[dict[str, float]]:
    """One dict of median ms per turn for each of ``runs`` interleaved blocks of turns."""
    sessions = {kind: make(kind) for kind in KINDS}
    base = size // ITEMS_PER_TURN
    for session in sessions.values():
        await fill(session, base)
    out = []
    for run in range(runs):
        out.append(await interleaved_ms(sessions, base + run * turns, turns))
    for session in sessions.values():
        if hasattr(session, "close"):
            session.close()
    del sessions
    gc.collect()
    sqlite = make("sdk sqlite")  # timed on its own: next to it, every session runs slower
    await fill(sqlite, base)
    sqlite_ms = [(await interleaved_ms({"sdk sqlite": sqlite}, base + run * turns, turns))
                 ["sdk sqlite"] for run in range(runs)]
    sqlite.close()
    manager = [await context_manager_ms(size, min(turns, 50)) for _ in range(min(runs, 3))]
    for row, ms in zip(out, sqlite_ms, strict=True):
        row["context manager"] = statistics.median(manager)
        row["sdk sqlite"] = ms
    return out


def spread(values: list[float]) -> str:
    """``median (min-max)`` of ratios."""
    return f"{statistics.median(values):4.2f}x ({min(values):.2f}-{max(values):.2f})"


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
    parser.add_argument("--runs", type=int, default=5,
                        help="interleaved blocks of --turns turns (the spread is over these)")
    parser.add_argument("--memory-items", type=int, default=20_000)
    args = parser.parse_args()
    results = {size: asyncio.run(run_size(size, args.turns, args.runs)) for size in args.sizes}

    def ratios(size: int, kind: str, base: str = "seed trim") -> list[float]:
        return [row[kind] / row[base] for row in results[size]]

    def median_ms(size: int, kind: str) -> float:
        return statistics.median(row[kind] for row in results[size])

    print(f"median ms per turn over {args.runs} interleaved runs of {args.turns} turns; "
          "ratio to the seed trim: median (min-max over the runs)")
    head = f"{'':<20}" + "".join(f"{f'{s:,} items':>30}" for s in args.sizes)
    print(head)
    print("-" * len(head))
    for kind in (*KINDS, "sdk sqlite", "context manager"):
        cells = [f"{median_ms(size, kind):7.3f} {spread(ratios(size, kind))}"
                 for size in args.sizes]
        print(f"{kind:<20}" + "".join(f"{c:>30}" for c in cells))
    if len(args.sizes) > 1:
        cm = exponent(args.sizes, [median_ms(s, "context manager") for s in args.sizes])
        tr = exponent(args.sizes, [median_ms(s, "ctxlab trim") for s in args.sizes])
        print(f"\nexponent of time vs size: ctxlab trim {tr:.3f}, context manager {cm:.3f} "
              "(target < 0.1)")
    worst_trim = max(statistics.median(ratios(s, "ctxlab trim")) for s in args.sizes)
    highest = max(max(ratios(s, "ctxlab trim")) for s in args.sizes)
    verbatim = max(statistics.median(ratios(s, "ctxlab trim", "seed trim verbatim"))
                   for s in args.sizes)
    worst_sum = max(statistics.median(ratios(s, "ctxlab summarize")) for s in args.sizes)
    print(f"target TrimmingSession <= 3x seed: worst median {worst_trim:.2f}x, highest single "
          f"run {highest:.2f}x ({'met' if worst_trim <= 3 else 'NOT met'}); vs the verbatim "
          f"tutorial class: worst median {verbatim:.2f}x")
    print(f"target SummarizingSession <= 5x seed: worst median {worst_sum:.2f}x "
          f"({'met' if worst_sum <= 5 else 'NOT met'})")
    caller, kept = retained_per_item(args.memory_items)
    print(f"retained memory per item: caller's own {caller:.0f} B, ctxlab {kept:.0f} B "
          f"({kept / caller:.2f}x; target <= 1.2x)")


if __name__ == "__main__":
    main()
