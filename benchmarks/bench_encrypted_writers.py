"""Concurrent writers and readers on one ``EncryptedSession`` key: are errors true?

    python benchmarks/bench_encrypted_writers.py            # 5 writers x 64 items, 3 runs
    python benchmarks/bench_encrypted_writers.py --writers 2 --items 150

Writers: ``--writers`` ctxlab ``TrimmingSession`` objects, each over its own SDK
``EncryptedSession`` (same key, same session id) on one SQLite file, append ``--items``
items each, one ``add_items`` per item, all at once. Printed: writes refused, how many of
the refused writes were stored anyway (an error that says "nothing was written" must then
be false), and items that never reached the store.

Readers: one writer appends while a reader calls ``get_items`` in a loop; printed: reads
that raised (a read racing a write is not a wrong key) out of all reads.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

KEY = "bXktdGVzdC1rZXktZm9yLWN0eGxhYi1zdG9yZS1zdWl0ZS0xMjM="


def store(db: Path) -> Any:
    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession

    return EncryptedSession("shared", SQLiteSession("shared", db), KEY)


async def writers(db: Path, count: int, items: int) -> dict[str, int]:
    from ctxlab import TrimmingSession

    refused = landed_anyway = 0
    sessions = [TrimmingSession(store=store(db), max_turns=1000) for _ in range(count)]

    async def write(w: int) -> None:
        nonlocal refused, landed_anyway
        for k in range(items):
            text = f"w{w} item {k}"
            try:
                await sessions[w].add_items([{"role": "user", "content": text}])
            except Exception:
                refused += 1
                stored = await store(db).get_items()
                landed_anyway += any(i.get("content") == text for i in stored)

    await asyncio.gather(*(write(w) for w in range(count)))
    stored_texts = {i.get("content") for i in await store(db).get_items()}
    missing = sum(f"w{w} item {k}" not in stored_texts
                  for w in range(count) for k in range(items))
    return {"writes": count * items, "refused": refused, "landed_anyway": landed_anyway,
            "missing": missing}


async def reader(db: Path, items: int) -> dict[str, int]:
    from ctxlab import TrimmingSession

    writer = TrimmingSession(store=store(db), max_turns=1000)
    reading = TrimmingSession(store=store(db), max_turns=1000)
    done = False
    reads = errors = 0

    async def write() -> None:
        nonlocal done
        for k in range(items):
            await writer.add_items([{"role": "user", "content": f"r item {k}"}])
        done = True

    async def read() -> None:
        nonlocal reads, errors
        while not done:
            reads += 1
            try:
                await reading.get_items()
            except Exception:
                errors += 1
            await asyncio.sleep(0)

    await asyncio.gather(write(), read())
    return {"reads": reads, "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=5)
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as folder:
            w = asyncio.run(writers(Path(folder) / "w.db", args.writers, args.items))
            r = asyncio.run(reader(Path(folder) / "r.db", args.items * 2))
        print(f"run {run + 1}: {args.writers} writers: {w['refused']} of {w['writes']} writes "
              f"refused, {w['landed_anyway']} of those stored anyway, {w['missing']} items "
              f"never stored | reader: {r['errors']} of {r['reads']} reads raised")


if __name__ == "__main__":
    main()
