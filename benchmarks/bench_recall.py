"""Recall over evicted turns: index build time and query latency (FTS5, optional dense).

    python benchmarks/bench_recall.py                  # 10,000 indexed turns, FTS5
    python benchmarks/bench_recall.py --turns 2000 --dense

The corpus is real conversation text: the 200 tau-bench airline transcripts and the
course's seed support conversations, cycled until ``--turns`` turns, with the identifiers of
each copy made unique (so an id query has exactly one right answer). Queries are the kind a
user sends: a question about an identifier given long ago, a topic question, a paraphrase.
Reported: index build time (snippets per second), and query latency (median, p95) of
``Recall.recall`` (search, merge into turns, render). Target: under 20 ms per query at
10,000 turns with FTS5.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from typing import Any

from ctxlab import load_tau_bench, seed_router_flow, seed_support_conversation, segment_turns
from ctxlab.memory import FTS5Index, Recall

QUERIES = [
    "What was the reservation code for my Seattle trip? It was {code}",
    "can you check ticket {ticket} again",
    "I want to change my flight to a later one",
    "my laptop overheats and shows a blinking red light",
    "which firmware version did I give you",
    "cancel my booking, I have travel insurance",
]

_CODE = re.compile(r"\b(?=[A-Z0-9]*\d)[A-Z0-9]{6}\b|\bTCK-\d{5}\b")


def corpus_turns(n_turns: int) -> list[list[dict[str, Any]]]:
    """``n_turns`` turns of real conversation text, identifiers unique per copy."""
    conversations = [c.items for c in load_tau_bench()]
    conversations += [seed_support_conversation().items, seed_router_flow().items]
    base: list[list[dict[str, Any]]] = []
    for items in conversations:
        seg = segment_turns(items)
        base += [list(items[t.start : t.end]) for t in seg.turns]
    turns: list[list[dict[str, Any]]] = []
    copy = 0
    while len(turns) < n_turns:
        for turn in base:
            if len(turns) == n_turns:
                break
            turns.append(_suffix(turn, copy) if copy else turn)
        copy += 1
    return turns


def _suffix(turn: list[dict[str, Any]], copy: int) -> list[dict[str, Any]]:
    import json

    text = json.dumps(turn)
    text = _CODE.sub(lambda m: f"{m.group(0)}{copy}", text)
    return json.loads(text)


def bench(n_turns: int, dense: bool, repeats: int) -> None:
    turns = corpus_turns(n_turns)
    index: Any = FTS5Index()
    if dense:
        from ctxlab.memory import DenseIndex

        index = DenseIndex()
        _ = index.model  # load the model before timing
    recall = Recall(index=index, k=4, threshold=0.5)
    began = time.perf_counter()
    chunk = 100  # turns are evicted a few at a time; index them in batches of 100
    for start in range(0, len(turns), chunk):
        recall.index_turns(
            (number, turn, None)
            for number, turn in enumerate(turns[start : start + chunk], start + 1)
        )
    build = time.perf_counter() - began
    snippets = len(index)
    print(f"\n{index.backend}: {n_turns:,} turns, {snippets:,} snippets")
    print(f"  index build      {build:8.2f} s   ({snippets / build:,.0f} snippets/s)")
    target, code = _id_turn(turns)
    latencies: list[float] = []
    per_query: dict[str, list[float]] = {q: [] for q in QUERIES}
    found = 0
    for r in range(repeats):
        for q in QUERIES:
            query = q.format(code=code, ticket="TCK-48213") + (" " * r)  # defeat the cache
            began = time.perf_counter()
            result = recall.recall(query)
            elapsed = (time.perf_counter() - began) * 1000
            latencies.append(elapsed)
            per_query[q].append(elapsed)
            found += bool(result)
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    print(
        f"  query latency    median {statistics.median(latencies):6.2f} ms   p95 {p95:6.2f} ms   "
        f"max {latencies[-1]:6.2f} ms   ({len(latencies)} queries, {found} with results)"
    )
    for q, times in per_query.items():
        print(f"    {statistics.median(times):6.2f} ms  {q.format(code=code, ticket='TCK-48213')}")
    hits = recall.recall(f"what was the reservation code again? {code}")
    print(
        f"  id query {code!r}: turns {[t.turn for t in hits]} (said in turn {target}), "
        f"scores {[round(t.score, 2) for t in hits]}"
    )


def _id_turn(turns: list[list[dict[str, Any]]]) -> tuple[int, str]:
    """A turn about a third of the way in whose user message names a reservation code."""
    for number in range(len(turns) // 3, len(turns)):
        text = str(turns[number][0].get("content", ""))
        match = re.search(r"\b(?=[A-Z0-9]*\d)[A-Z0-9]{6,8}\b", text)
        if match:
            return number + 1, match.group(0)
    return 1, "ABC123"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--dense", action="store_true", help="also run the MiniLM backend")
    parser.add_argument("--dense-turns", type=int, default=1_000, help="turns for --dense")
    args = parser.parse_args()
    bench(args.turns, dense=False, repeats=args.repeats)
    if args.dense:
        bench(min(args.turns, args.dense_turns), dense=True, repeats=args.repeats)


if __name__ == "__main__":
    main()
