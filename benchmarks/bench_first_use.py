"""First use of one new session id by several processes at once, on a real PostgreSQL.

    python benchmarks/bench_first_use.py                    # 4 processes x 40 turns, 3 runs
    python benchmarks/bench_first_use.py --runs 1 --turns 10

Each run starts ``--processes`` OS processes together (a go-file) on a session id nobody
used before, in a fresh schema (so the tables do not exist either). Each wraps the SDK's
``SQLAlchemySession`` (asyncpg) in a ctxlab ``SummarizingSession`` and appends ``--turns``
Runner-shaped turns. Printed per run: processes that died (and their first error line),
items stored, lost and duplicated. Uses CTXLAB_POSTGRES_URL, else starts a throwaway
PostgreSQL (``ctxlab.stores.local_servers``) and stops it at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def item(writer: str, t: int, k: int) -> dict[str, Any]:
    if k == 0:
        return {"role": "user", "content": f"{writer} question {t}"}
    return {"type": "message", "role": "assistant", "status": "completed",
            "id": f"msg_{writer}_{t}",
            "content": [{"type": "output_text", "text": f"{writer} answer {t}",
                         "annotations": []}]}


async def worker(spec: dict[str, Any]) -> None:
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy.ext.asyncio import create_async_engine

    from ctxlab import SummarizingSession

    engine = create_async_engine(
        spec["url"].replace("postgresql://", "postgresql+asyncpg://"),
        connect_args={"server_settings": {"search_path": spec["schema"]}})
    store = SQLAlchemySession(spec["session_id"], engine=engine, create_tables=True)
    session = SummarizingSession(2, 4, store=store)
    while not Path(spec["go"]).exists():
        await asyncio.sleep(0.002)
    try:
        for t in range(spec["turns"]):
            await session.add_items([item(spec["writer"], t, 0)])
            await session.add_items([item(spec["writer"], t, 1)])
    finally:
        await engine.dispose()


def create_schema(url: str, schema: str) -> None:
    async def go() -> None:
        import asyncpg

        conn = await asyncpg.connect(url)
        try:
            await conn.execute(f'CREATE SCHEMA "{schema}"')
        finally:
            await conn.close()

    asyncio.run(go())


def stored(url: str, schema: str, session_id: str) -> list[str]:
    async def go() -> list[str]:
        import asyncpg

        conn = await asyncpg.connect(url, server_settings={"search_path": schema})
        try:
            rows = await conn.fetch("SELECT message_data FROM agent_messages "
                                    "WHERE session_id = $1 ORDER BY id", session_id)
        except asyncpg.UndefinedTableError:
            return []
        finally:
            await conn.close()
        return [r[0] for r in rows]

    return asyncio.run(go())


def one_run(url: str, processes: int, turns: int, folder: Path) -> dict[str, Any]:
    schema = f"first_use_{uuid.uuid4().hex[:8]}"
    create_schema(url, schema)
    session_id = f"new-{uuid.uuid4().hex[:8]}"
    go = folder / f"go-{schema}"
    procs = []
    for w in range(processes):
        spec = {"url": url, "schema": schema, "session_id": session_id, "writer": f"p{w}",
                "turns": turns, "go": str(go)}
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(spec)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, cwd=ROOT))
    time.sleep(2.0)  # every interpreter up and waiting
    go.write_text("go")
    died = []
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            lines = [ln for ln in err.strip().splitlines() if "Error" in ln.split(":")[0]]
            died.append(lines[-1][:240] if lines else f"exit {proc.returncode}")
    texts = []
    for raw in stored(url, schema, session_id):
        data = json.loads(raw)
        content = data.get("content")
        texts.append(content if isinstance(content, str) else content[0]["text"])
    expected = {f"p{w} {kind} {t}" for w in range(processes) for t in range(turns)
                for kind in ("question", "answer")}
    return {"died": died, "stored": len(texts), "expected": len(expected),
            "lost": len(expected - set(texts)), "duplicated": len(texts) - len(set(texts))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker(json.loads(args.worker)))
        return
    server = None
    url = os.environ.get("CTXLAB_POSTGRES_URL")
    if not url:
        sys.path.insert(0, str(ROOT))
        from ctxlab.stores.local_servers import LocalPostgres

        server = LocalPostgres().start()
        url = server.url
    try:
        with tempfile.TemporaryDirectory() as folder:
            print(f"{args.processes} processes x {args.turns} turns on one new session id "
                  f"(PostgreSQL, asyncpg), {args.runs} runs")
            for run in range(args.runs):
                r = one_run(url, args.processes, args.turns, Path(folder))
                print(f"run {run + 1}: {len(r['died'])} of {args.processes} processes died; "
                      f"stored {r['stored']} of {r['expected']} items, lost {r['lost']}, "
                      f"duplicated {r['duplicated']}")
                for error in r["died"]:
                    print(f"    {error}")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
