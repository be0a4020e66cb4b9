"""Issue 30: per-service handovers and long-term recall on SGD and CrossWOZ, per strategy.

Regenerates ``benchmarks/results/issue30_handoffs_sessions.txt``::

    python benchmarks/bench_issue30.py                       # the shipped subsets
    python benchmarks/bench_issue30.py --sgd /work/shared/data/sgd \\
        --crosswoz /work/shared/data/crosswoz --mode full --mode per-issue \\
        --mode per-service --setting notes --setting topics \\
        --out benchmarks/results/issue30_full_splits.txt     # the full dev / validation splits
    python benchmarks/bench_issue30.py --limit 2 --out -      # a quick look, printed

Each corpus is run on its ``tune`` half (where the rules were tuned) and its ``report``
half (where they were not): the handover modes (:mod:`ctxlab.eval.dialogue_handoffs`) and
the long-term memory settings (:mod:`ctxlab.eval.dialogue_sessions`), with the share of
issues handed over right (all current values, no other issue's value, no superseded value
without the current one), questions recalled, and customers with a false profile or fault.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from ctxlab.eval.dialogue_handoffs import MODES, score_dialogue_handoffs
from ctxlab.eval.dialogue_sessions import SETTINGS, score_dialogue_sessions

RESULT = Path(__file__).resolve().parent / "results" / "issue30_handoffs_sessions.txt"


def _spec(corpus: str, half: str, limit: int | None, directory: str | None) -> str:
    spec = f"{corpus}:{half}" + (f":{limit}" if limit else "")
    return spec + (f"@{directory}" if directory else "")


async def tables(args: argparse.Namespace) -> str:
    parts = []
    for corpus, directory in (("sgd", args.sgd), ("crosswoz", args.crosswoz)):
        for half in ("tune", "report"):
            spec = _spec(corpus, half, args.limit, directory)
            start = time.perf_counter()
            handoffs = await score_dialogue_handoffs(spec, args.modes or MODES)
            sessions = await score_dialogue_sessions(spec, args.settings or SETTINGS)
            took = time.perf_counter() - start
            parts += [handoffs.text(), "", sessions.text(), f"({took:.0f} s)", ""]
    head = [
        "Issue 30: per-service handovers and long-term recall on real task dialogues",
        ("Regenerate: python benchmarks/bench_issue30.py " + " ".join(args.argv)).rstrip(),
        "Customers: 4 dialogues chained over days; tune = even customers, report = odd ones.",
        "Handover right = all the issue's current values, no other issue's value, no "
        "superseded value without the current one (a small count may be said in words). "
        "Tokens: the receiver's view.",
        "Recall: the recollection for the question holds the current value; stale: only an "
        "older one. Tokens: the recollection.",
        "",
    ]
    return "\n".join(head + parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sgd", metavar="DIR", help="the full SGD dev split (default: subset)")
    parser.add_argument("--crosswoz", metavar="DIR",
                        help="the full CrossWOZ validation split (default: subset)")
    parser.add_argument("--limit", type=int, metavar="N", help="first N customers per half")
    parser.add_argument("--mode", dest="modes", action="append", help="handover modes")
    parser.add_argument("--setting", dest="settings", action="append",
                        help="long-term memory settings")
    parser.add_argument("--out", default=str(RESULT), help="the result file ('-': print)")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    text = asyncio.run(tables(args))
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
