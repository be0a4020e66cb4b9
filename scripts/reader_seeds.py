#!/usr/bin/env python3
"""Compute the realistic reader's answers over several seeds for lesson 06.

    .venv/bin/python scripts/reader_seeds.py   # writes benchmarks/results/reader_seeds.json

Each seed is a full evaluation (about 10 s for the first spread on a quiet 2-core machine,
several times that for the long chats), more than a lesson may take, so lesson 06 loads the
file this writes. ``tests/eval/test_reader_seeds.py`` recomputes one seed and checks that
the file still says what the library computes. Offline backend only.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "reader_seeds.json"
#: The seeds every spread uses.
SEEDS = (0, 1, 2, 3, 4)
#: name -> (corpus spec, strategies): lesson 06's chats with its realistic-reader
#: strategies and the exercise's passing answer; longer chats of the same kind.
SPREADS = {
    "lesson": ("planted:2:30-50", ("full", "summarize:2/4", "trim:4+state",
                                    "trim:1+state+recall")),
    "long": ("planted:3:80-120", ("full", "summarize:2/4", "trim:4+state")),
}


async def compute() -> dict:
    from ctxlab.eval.seeds import reader_spread

    spreads = {}
    for name, (corpus, strategies) in SPREADS.items():
        began = time.perf_counter()
        spreads[name] = await reader_spread(corpus, strategies, SEEDS)
        print(f"{name} ({corpus}): {time.perf_counter() - began:.0f} s", flush=True)
        print(spreads[name].table(), flush=True)
    return spreads


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__)
        return 0
    os.environ["CTXLAB_BACKEND"] = "offline"
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("OPENAI_BASE_URL", None)
    sys.path.insert(0, str(ROOT))
    from agents import set_tracing_disabled

    from ctxlab.eval.seeds import save_seed_spreads

    set_tracing_disabled(True)
    spreads = asyncio.run(compute())
    save_seed_spreads(spreads, OUT, provenance=(
        "scripts/reader_seeds.py: offline model, RealisticReader(seed) for each seed, every "
        "answerable probe asked (evaluate(..., max_answer_probes=None))"))
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
