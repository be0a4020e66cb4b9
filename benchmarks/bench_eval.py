"""Evaluation speed: 5 strategies over all 200 tau-bench transcripts, offline.

    python benchmarks/bench_eval.py                      # the target: < 60 s on 2 cores
    python benchmarks/bench_eval.py --workers 1          # one process
    python benchmarks/bench_eval.py --planted 24         # also 24 planted chats, 30-90 turns

Everything the CLI's ``eval`` does is timed: replaying every transcript through every
strategy as the Runner writes items (tool loops included), availability and stale checks,
answer probes through the agent on the offline model, validity, token pressure, latency.
Loading the corpus and warming the tokenizer are reported separately. Prints the
recall / token-ratio table of each corpus.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from ctxlab import count_tokens
from ctxlab.eval import evaluate, load_cases, summary_table

STRATEGIES = ("full", "trim:8", "summarize:2/4", "budget:3000", "trim:4+state")
TARGET_S = 60.0


async def bench(corpus: str, strategies: list[str], workers: int, answers: bool) -> float:
    began = time.perf_counter()
    cases = load_cases(corpus)
    loaded = time.perf_counter() - began
    turns = sum(c.n_turns for c in cases)
    began = time.perf_counter()
    run = await evaluate(cases, strategies, workers=workers, answers=answers)
    elapsed = time.perf_counter() - began
    calls = sum(r.calls for r in run.results)
    print(f"\n{corpus}: {len(cases)} conversations, {turns:,} user turns "
          f"(loaded in {loaded:.1f} s)")
    print(f"  {len(strategies)} strategies, workers={workers}, answers={answers}: "
          f"{elapsed:.1f} s  ({calls:,} model calls replayed, "
          f"{calls / elapsed:,.0f} calls/s)")
    print(summary_table(run, ["recall", "stale", "answers", "token_ratio", "cost", "pressure"]))
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", action="append", help="default: " + ", ".join(STRATEGIES))
    parser.add_argument("--workers", type=int, default=1,
                        help="processes (default 1; 2 helps on an otherwise idle 2-core machine)")
    parser.add_argument("--limit", type=int, help="only the first N tau-bench transcripts")
    parser.add_argument("--planted", type=int, default=0, metavar="N",
                        help="also N planted conversations of 30-90 turns")
    parser.add_argument("--no-answers", action="store_true")
    args = parser.parse_args()
    strategies = args.strategy or list(STRATEGIES)
    began = time.perf_counter()
    count_tokens("warm up the tokenizer")
    print(f"tokenizer ready in {time.perf_counter() - began:.1f} s; {os.cpu_count()} cores")
    corpus = "tau" if args.limit is None else f"tau:{args.limit}"
    elapsed = asyncio.run(bench(corpus, strategies, args.workers, not args.no_answers))
    if args.limit is None and len(strategies) == len(STRATEGIES):
        verdict = "met" if elapsed < TARGET_S else "MISSED"
        print(f"target: {len(STRATEGIES)} strategies x 200 transcripts in < {TARGET_S:.0f} s: "
              f"{elapsed:.1f} s ({verdict})")
    if args.planted:
        asyncio.run(bench(f"planted:{args.planted}:30-90", strategies, args.workers,
                          not args.no_answers))


if __name__ == "__main__":
    main()
