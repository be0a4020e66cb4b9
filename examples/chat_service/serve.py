"""Start the chat service with one command:

    python examples/chat_service/serve.py                          # PostgreSQL, 4 workers
    python examples/chat_service/serve.py --store redis-cluster --port 8080
    python examples/chat_service/serve.py --store postgres --layer sdk   # the SDK's sessions

The store's URL comes from CTXLAB_POSTGRES_URL / CTXLAB_REDIS_CLUSTER_URL / CTXLAB_REDIS_URL;
without one, a throwaway server (or 3x3 cluster) is started on loopback for the life of the
service (``ctxlab.stores.local_servers``: needs ``postgresql`` / ``redis-server`` installed).
On PostgreSQL the tables are created once before the workers start, as a migration would.
Ctrl-C stops the workers and any server this command started.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def prepare_postgres(url: str) -> None:
    """Create the SDK's tables and ctxlab's, once (race-free: see ctxlab.stores.sql_dialects)."""
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy.ext.asyncio import create_async_engine

    from ctxlab.stores.sql_dialects import create_tables
    from ctxlab.stores.sqlalchemy import ctxlab_tables

    async def go() -> None:
        engine = create_async_engine(url.replace("postgresql://", "postgresql+asyncpg://", 1))
        try:
            sdk = SQLAlchemySession("setup", engine=engine)
            await create_tables(engine, sdk._metadata, ctxlab_tables()[0])
        finally:
            await engine.dispose()

    asyncio.run(go())


def start_store(store: str) -> tuple[dict[str, str], Any]:
    """The service's environment for ``store``, and a server to stop (or None)."""
    from ctxlab.stores.local_servers import LocalPostgres, LocalRedis, LocalRedisCluster

    server: Any = None
    if store == "postgres":
        url = os.environ.get("CTXLAB_POSTGRES_URL")
        if not url:
            server = LocalPostgres(fast=False).start()
            url = server.url
        prepare_postgres(url)
        return {"CHAT_STORE": store, "CHAT_POSTGRES_URL": url}, server
    if store == "redis-cluster":
        url = os.environ.get("CTXLAB_REDIS_CLUSTER_URL")
        if not url:
            import tempfile

            server = LocalRedisCluster(tempfile.mkdtemp(prefix="ctxlab-chat-")).start()
            url = server.url
        return {"CHAT_STORE": store, "CHAT_REDIS_URL": url}, server
    url = os.environ.get("CTXLAB_REDIS_URL")
    if not url:
        import tempfile

        server = LocalRedis(tempfile.mkdtemp(prefix="ctxlab-chat-")).start()
        url = server.url
    return {"CHAT_STORE": store, "CHAT_REDIS_URL": url}, server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the ctxlab example chat service")
    parser.add_argument("--store", choices=["postgres", "redis-cluster", "redis"],
                        default="postgres")
    parser.add_argument("--layer", choices=["ctxlab", "sdk"], default="ctxlab")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    import uvicorn

    env, server = start_store(args.store)
    os.environ.update(env, CHAT_LAYER=args.layer)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    print(f"chat service: {args.layer} sessions on {args.store}, {args.workers} workers, "
          f"http://{args.host}:{args.port}", flush=True)
    try:
        uvicorn.run("examples.chat_service.app:app", host=args.host, port=args.port,
                    workers=args.workers, log_level="warning", access_log=False)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
