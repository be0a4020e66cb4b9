"""Per-turn latency of SummarizingSession with a slow summarizer: blocking vs background.

    python benchmarks/bench_summarizing.py                 # 60 turns, 500 ms summarizer
    python benchmarks/bench_summarizing.py --turns 20 --delay 0.1

Each turn does what the Runner does with a session: get_items, add_items(user input),
add_items(reply); between turns a simulated model call (``--model-ms``, not timed) lets
background folds run. The summarizer (ctxlab.summarizers.testing.SlowSummarizer around the
extractive one) takes ``--delay`` seconds per fold. In blocking mode the turn that triggers
a fold waits for it; in background mode nothing waits. Target: background p95 under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from ctxlab import SummarizingSession
from ctxlab.summarizers.testing import SlowSummarizer


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(background: bool, turns: int, delay: float, keep: int, limit: int,
              model_ms: float = 0.0):
    session = SummarizingSession(keep, limit, SlowSummarizer(delay=delay), "bench",
                                 background=background)
    latencies = []
    for t in range(turns):
        began = time.perf_counter()
        await session.get_items()
        await session.add_items([{"role": "user", "content": f"Turn {t}: error {t % 50}, "
                                                             f"ticket TCK-{40000 + t}."}])
        await session.add_items([{"role": "assistant", "content": f"Step {t}: restart it."}])
        latencies.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(model_ms / 1000)  # the model call between turns (not timed)
    await session.flush()
    return latencies, session.summaries_applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per summary")
    parser.add_argument("--keep", type=int, default=3)
    parser.add_argument("--limit", type=int, default=6)
    parser.add_argument("--model-ms", type=float, default=100.0,
                        help="simulated model call between turns (not timed)")
    args = parser.parse_args()
    print(f"{args.turns} turns, summarizer {args.delay * 1000:.0f} ms, "
          f"keep_last_n_turns={args.keep}, context_limit={args.limit}, "
          f"{args.model_ms:.0f} ms model call between turns (not timed)")
    print(f"{'mode':<11} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'folds':>6}")
    results = {}
    for background in (False, True):
        latencies, folds = asyncio.run(run(background, args.turns, args.delay, args.keep,
                                           args.limit, args.model_ms))
        mode = "background" if background else "blocking"
        results[mode] = percentile(latencies, 0.95)
        print(f"{mode:<11} {statistics.median(latencies):>8.2f} "
              f"{percentile(latencies, 0.95):>8.2f} {max(latencies):>8.2f} {folds:>6}")
    verdict = "met" if results["background"] < 50 else "MISSED"
    print(f"target background p95 < 50 ms: {results['background']:.2f} ms: {verdict}")


if __name__ == "__main__":
    main()
