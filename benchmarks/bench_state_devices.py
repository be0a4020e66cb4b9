"""Does structured state keep every device the customer has? (issue 26, item 4), printed.

    python benchmarks/bench_state_devices.py                    # planted:24, three +state
    python benchmarks/bench_state_devices.py --corpus planted:8:30-50 --strategy trim:4+state
    PYTHONPATH=/path/to/an/old/checkout python benchmarks/bench_state_devices.py   # before

Each planted chat names one or more devices, each with its product model ("the laptop",
"ThinkPad X1"). Every chat is replayed through each strategy the way the Runner writes
items; at the chat's last model call, each device noun and each model is looked for in
what the model is sent. Printed per strategy: values kept out of all, and the values missed
most often. (``python -m ctxlab eval --corpus planted:24 --no-answers`` gives the recall of
every planted fact, not only devices.) Only the public API is used, so the same script
measures any checkout put first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from typing import Any

DEFAULT_STRATEGIES = ("trim:4+state", "trim:8+state", "summarize:2/4+state")


async def last_view(items: list[dict[str, Any]], spec: str) -> str:
    from ctxlab.eval.replay import StrategyReplay, items_text

    last = None
    async for call in StrategyReplay(items, spec, ledgers=False).calls():
        last = call
    return items_text(last.items) if last is not None else ""


async def measure(corpus: str, specs: list[str]) -> dict[str, dict[str, Any]]:
    from ctxlab.eval import load_cases

    cases = load_cases(corpus)
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        kept = total = 0
        missed: Counter[str] = Counter()
        for case in cases:
            text = await last_view(case.items, spec)
            for issue in case.meta["issues"]:
                for slot in ("device", "model"):
                    total += 1
                    if issue[slot] in text:
                        kept += 1
                    else:
                        missed[f"{slot} {issue[slot]!r}"] += 1
        out[spec] = {"chats": len(cases), "kept": kept, "total": total,
                     "missed": missed.most_common(3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="planted:24")
    parser.add_argument("--strategy", action="append", dest="strategies")
    args = parser.parse_args()
    import ctxlab

    print(f"ctxlab from {ctxlab.__file__.rsplit('/', 1)[0]}; corpus {args.corpus}", flush=True)
    rows = asyncio.run(measure(args.corpus, args.strategies or list(DEFAULT_STRATEGIES)))
    for spec, row in rows.items():
        share = row["kept"] / row["total"] if row["total"] else 0.0
        missed = ", ".join(f"{name} x{n}" for name, n in row["missed"]) or "-"
        print(f"{spec:22} {row['kept']:4} of {row['total']:4} device/model values kept "
              f"({share:.1%}) over {row['chats']} chats; most missed: {missed}")


if __name__ == "__main__":
    main()
