"""The first read of a long stored conversation: the SDK's session vs ctxlab on top of it.

    python benchmarks/bench_first_read.py                        # 100,000 and 1,000,000 items
    python benchmarks/bench_first_read.py --items 100000 --backends sqlite,redis

A conversation of ``--items`` items (turns of question, tool call, output, answer) is
stored once per backend: an SQLite file, PostgreSQL (CTXLAB_POSTGRES_URL, in a schema of
its own, dropped at the end), Redis through the SDK's ``RedisSession`` and through ctxlab's
``RedisStore`` (CTXLAB_REDIS_URL; the keys are deleted at the end). Then a *fresh* session
object reads ``get_items(limit=10)``, as a new worker does:

* ``sdk``: the SDK's own session (``SQLiteSession``, ``SQLAlchemySession``, ``RedisSession``;
  ``RedisStore`` for the ctxlab layout), which fetches the newest 10 rows;
* ``ctxlab``: a ``TrimmingSession(max_turns=3)`` over that store, reading the log's ends
  (:mod:`ctxlab.sessions.first_read`); with ``--strategies ...,summarize`` also a
  ``SummarizingSession(keep_last_n_turns=2, context_limit=4)`` whose fold (made once, with
  a constant summarizer: the read is measured, not the summary) left a checkpoint in the
  store, reading it and the tail after it (:mod:`ctxlab.sessions.fold_checkpoint`; a store
  that cannot say where a tail starts reads the whole log: its ``fetched`` shows it);
* ``before``: the same session made to load the whole log first (what every first read
  did before; ``--no-before`` skips it, it takes seconds at a million items).

Printed per backend and size: the best of ``--repeat`` reads (s), the items the ctxlab read
fetched, its peak Python allocation (tracemalloc, a separate run) and ctxlab / SDK. (The
full load's allocation is not traced on Redis at a million items: traced, it outlasts the
socket timeout.)
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

from ctxlab import SummarizingSession, TrimmingSession


class FullLoadTrimming(TrimmingSession):
    """Trimming whose first read loads the whole log (the behaviour before)."""

    strategy = dataclasses.replace(TrimmingSession.strategy, tail_read=None)


class FullLoadSummarizing(SummarizingSession):
    """Summarizing whose first read loads the whole log (the behaviour before)."""

    first_read = None


class ConstantSummarizer:
    """A summary in constant time (the benchmark measures reads, not summaries)."""

    def summarize(self, items: list[dict[str, Any]]) -> str:
        return f"{len(items)} items: the customer's router shows errors; restart advised"


def sessions(strategy: str) -> tuple[Any, Any]:
    """(the session class as it is, the class loading the whole log), as factories."""
    if strategy == "trim":
        return (lambda store: TrimmingSession(store=store, max_turns=3),
                lambda store: FullLoadTrimming(store=store, max_turns=3))
    kw = {"keep_last_n_turns": 2, "context_limit": 4, "summarizer": ConstantSummarizer(),
          "max_input_tokens": None}
    return (lambda store: SummarizingSession(store=store, **kw),
            lambda store: FullLoadSummarizing(store=store, **kw))


def conversation(n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    t = 0
    while len(items) < n:
        cid = f"call-{t}"
        items += [{"role": "user", "content": f"question {t}: my router shows error {t % 97}"},
                  {"type": "function_call", "call_id": cid, "name": "lookup",
                   "arguments": f'{{"ticket": "TCK-{t}"}}'},
                  {"type": "function_call_output", "call_id": cid, "output": '{"ok": true}'},
                  {"type": "message", "role": "assistant", "status": "completed",
                   "id": f"msg_{t}", "content": [{"type": "output_text",
                                                   "text": f"answer {t}: restart it",
                                                   "annotations": []}]}]
        t += 1
    return items[:n]


class Backend:
    """Opens SDK sessions on one store and cleans up after itself."""

    def __init__(self, kind: str, folder: Path):
        self.kind, self.folder = kind, folder
        self.prefix = f"bench-first-{uuid.uuid4().hex[:8]}"
        self.schema = f"bench_first_{uuid.uuid4().hex[:8]}"
        self.client: Any = None
        self.engine: Any = None

    async def open(self) -> None:
        if self.kind.startswith("redis"):
            import redis.asyncio as aioredis

            self.client = aioredis.from_url(os.environ["CTXLAB_REDIS_URL"], socket_timeout=600)
        elif self.kind == "postgres":
            import asyncpg
            from sqlalchemy.ext.asyncio import create_async_engine

            url = os.environ["CTXLAB_POSTGRES_URL"]
            conn = await asyncpg.connect(url)
            await conn.execute(f'CREATE SCHEMA "{self.schema}"')
            await conn.close()
            self.engine = create_async_engine(
                "postgresql+asyncpg://" + url.split("://", 1)[1],
                connect_args={"server_settings": {"search_path": self.schema}})

    def sdk(self, sid: str) -> Any:
        if self.kind == "sqlite":
            from agents.memory import SQLiteSession

            return SQLiteSession(sid, self.folder / "chat.db")
        if self.kind == "postgres":
            from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

            return SQLAlchemySession(sid, engine=self.engine, create_tables=True)
        if self.kind == "redis":
            from agents.extensions.memory import RedisSession

            return RedisSession(sid, redis_client=self.client, key_prefix=self.prefix)
        from ctxlab.stores import RedisStore

        return RedisStore(sid, client=self.client, key_prefix=self.prefix)

    async def close(self) -> None:
        if self.client is not None:
            keys = [k async for k in self.client.scan_iter(match=f"{self.prefix}*")]
            for start in range(0, len(keys), 500):
                await self.client.delete(*keys[start:start + 500])
            await self.client.aclose()
        if self.engine is not None:
            await self.engine.dispose()
            import asyncpg

            conn = await asyncpg.connect(os.environ["CTXLAB_POSTGRES_URL"])
            await conn.execute(f'DROP SCHEMA "{self.schema}" CASCADE')
            await conn.close()


async def timed(make: Any, repeat: int) -> tuple[float, Any]:
    best, last = float("inf"), None
    for _ in range(repeat):
        session = make()
        began = time.perf_counter()
        items = await session.get_items(limit=10)
        best = min(best, time.perf_counter() - began)
        last = (session, items)
        closer = getattr(session, "aclose", None)
        if closer is not None and session.__class__.__module__.startswith("ctxlab"):
            pass  # (the SDK sessions are the backend's; nothing of ours to close)
    return best, last


async def fetched_items(session: Any) -> int:
    store, count = session.store, [0]
    read_ends, sync = store.read_ends, store.sync

    async def ends(head: int, tail: int, **kw: Any) -> Any:
        found = await read_ends(head, tail, **kw)
        count[0] += 0 if found is None else len(found.head) + len(found.tail)
        return found

    async def synced() -> Any:
        delta = await sync()
        count[0] += len(delta.items)
        return delta

    store.read_ends, store.sync = ends, synced
    await session.get_items(limit=10)
    return count[0]


async def peak_mb(make: Any) -> float:
    session = make()
    tracemalloc.start()
    await session.get_items(limit=10)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 1e6


async def bench(kind: str, n: int, repeat: int, before: bool, strategy: str = "trim"
                ) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="bench-first-read-"))
    backend = Backend(kind, folder)
    await backend.open()
    ours, full = sessions(strategy)
    try:
        sid = f"long-{n}"
        items = conversation(n)
        writer = backend.sdk(sid)
        for start in range(0, n, 20_000):
            await writer.add_items(items[start:start + 20_000])
        del items
        if strategy == "summarize":  # one fold (all but the last 2 turns): the checkpoint
            await ours(backend.sdk(sid)).add_items(conversation(4)[-4:])
        sdk_s, (_, sdk_items) = await timed(lambda: backend.sdk(sid), repeat)
        ours_s, (_, our_items) = await timed(lambda: ours(backend.sdk(sid)), repeat)
        row: dict[str, Any] = {"backend": kind, "items": n, "sdk_s": sdk_s, "ctxlab_s": ours_s,
                               "fetched": await fetched_items(ours(backend.sdk(sid))),
                               "ctxlab_mb": await peak_mb(lambda: ours(backend.sdk(sid)))}
        if before:
            row["before_s"], (_, old_items) = await timed(lambda: full(backend.sdk(sid)), 1)
            if n <= 100_000 or kind in ("sqlite", "postgres"):  # (traced: 5x slower)
                row["before_mb"] = await peak_mb(lambda: full(backend.sdk(sid)))
            assert old_items == our_items, "the bounded read changed the view"
        assert sdk_items[-1] == our_items[-1]
        return row
    finally:
        await backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", default="100000,1000000")
    parser.add_argument("--backends", default="sqlite,postgres,redis,redis-store")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-before", action="store_true")
    parser.add_argument("--strategies", default="trim", help="trim and/or summarize")
    args = parser.parse_args()
    print(f"{'strategy':9} {'backend':12} {'items':>9} {'sdk s':>8} {'ctxlab s':>9} "
          f"{'x sdk':>6} {'fetched':>8} {'MB':>6} {'before s':>9} {'before MB':>10}")
    for n, strategy, kind in ((int(x), s, k) for x in args.items.split(",")
                              for s in args.strategies.split(",")
                              for k in args.backends.split(",")):
        if kind != "sqlite" and not os.environ.get(
                "CTXLAB_POSTGRES_URL" if kind == "postgres" else "CTXLAB_REDIS_URL"):
            print(f"{strategy:9} {kind:12} skipped: no server URL in the environment")
            continue
        r = asyncio.run(bench(kind, n, args.repeat, not args.no_before, strategy))
        before = (f"{r['before_s']:9.3f} {r.get('before_mb', float('nan')):10.1f}"
                  if "before_s" in r else f"{'-':>9} {'-':>10}")
        print(f"{strategy:9} {kind:12} {n:9,} {r['sdk_s']:8.4f} {r['ctxlab_s']:9.4f} "
              f"{r['ctxlab_s'] / r['sdk_s']:6.1f} {r['fetched']:8} "
              f"{r['ctxlab_mb']:6.2f} {before}", flush=True)


if __name__ == "__main__":
    main()
