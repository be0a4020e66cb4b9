"""The extractive summary stays the same size however long the conversation gets.

    python benchmarks/bench_summary_size.py                  # 20,000 turns
    python benchmarks/bench_summary_size.py --turns 5000

Drives a SummarizingSession with the ExtractiveSummarizer turn by turn, the way the Runner
writes items (user message, a tool call and its output, the reply; ~400-byte items), with
values that keep coming: a new ticket every turn (five-digit numbers after a while), error
codes, serial numbers of a few devices, firmware upgrades, an occasional new email
address, constraints and promises. Prints the summary's tokens at 1k / 5k / 10k / 20k turns
and the fold time around 1k and around 20k turns (the summarizer's own time per fold, the
median of the folds near each point). Issue 15's targets: summary size flat, fold time at
20k within 2x of 1k. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from ctxlab import SummarizingSession, count_tokens
from ctxlab.summarizers import ExtractiveSummarizer

CHECKPOINTS = (1_000, 5_000, 10_000, 20_000)
NOUNS = ("laptop", "printer", "router", "monitor")


def turn_items(t: int) -> list[dict]:
    noun = NOUNS[(t // 400) % len(NOUNS)]
    serial = f"SN{(t // 400) % 97:02d}X{(t // 400):04d}Q"
    call_id = f"call_{t}"
    user = (f"Turn {t}: my {noun} still fails with error E{1000 + t % 50}; ticket "
            f"TCK-{40000 + t} please, the serial is {serial}.")
    if t % 500 == 7:
        user = f"Please use person{t}@example.com from now on."
    elif t % 700 == 11:
        user = "Please reach me by email only, never call."
    output = {"serial": serial, "ticket_id": f"TCK-{40000 + t}", "status": "open",
              "firmware": f"v{1 + t // 1000}.{t % 10}.0", "queue": "hardware",
              "notes": "customer called again; diagnostics attached; awaiting parts " * 2}
    reply = (f"Step {t}: please restart the {noun} and tell me what you see. "
             + ("I'll send the replacement label by Friday." if t % 900 == 5 else ""))
    return [
        {"role": "user", "content": user},
        {"type": "function_call", "call_id": call_id, "name": "create_ticket",
         "arguments": json.dumps({"serial": serial, "summary": f"{noun} fails"})},
        {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output)},
        {"role": "assistant", "content": reply},
    ]


async def run(turns: int, keep: int, limit: int) -> None:
    session = SummarizingSession(keep, limit, ExtractiveSummarizer(), session_id="bench")
    folds: list[tuple[int, float]] = []  # (turn, seconds the summarizer took)
    last_generation = 0
    began = time.perf_counter()
    print(f"{'turns':>7} {'summary tokens':>15} {'record bytes':>13} {'elapsed s':>10}")
    for t in range(1, turns + 1):
        for item in turn_items(t):
            await session.add_items([item])
        summary = session.summary
        if summary is not None and summary.generation != last_generation:
            last_generation = summary.generation
            folds.append((t, summary.duration_s))
        if t in CHECKPOINTS and summary is not None:
            print(f"{t:>7,} {count_tokens(summary.text):>15,} "
                  f"{len(json.dumps(summary.state)):>13,} {time.perf_counter() - began:>10.1f}")
    near = {point: [d for turn, d in folds if abs(turn - point) <= 150]
            for point in (1_000, turns)}
    first, last = (statistics.median(v) * 1000 if v else float("nan") for v in near.values())
    print(f"fold time (median of the folds near each point): {first:.2f} ms at 1,000 turns, "
          f"{last:.2f} ms at {turns:,} turns: {last / first:.2f}x "
          f"(target <= 2x: {'met' if last <= 2 * first else 'MISSED'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--keep", type=int, default=3)
    parser.add_argument("--limit", type=int, default=6)
    args = parser.parse_args()
    print(f"{args.turns:,} turns, keep_last_n_turns={args.keep}, context_limit={args.limit}, "
          f"ExtractiveSummarizer(max_tokens=1200)")
    asyncio.run(run(args.turns, args.keep, args.limit))


if __name__ == "__main__":
    main()
