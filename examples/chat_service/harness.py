"""Driving the example service from outside: start it, what users say, and a check of what
the store holds afterwards (used by benchmarks/bench_chat_service.py and the smoke test in
tests/stores/test_chat_service.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
_TICKET = re.compile(r"TCK-(\d+)")


def message(user: int, turn: int) -> str:
    return f"user {user} turn {turn}: what about TCK-{user * 1000 + turn}?"


def start_service(store: str, layer: str, workers: int, env: dict[str, str]
                  ) -> tuple[subprocess.Popen[bytes], str]:
    """The service in a subprocess (its output in a temp file), once every worker answers."""
    import httpx

    from ctxlab.stores.local_servers import free_port

    port = free_port()
    log = Path(tempfile.mkstemp(prefix="chat-service-", suffix=".log")[1])
    with log.open("wb") as sink:  # a file, not a pipe nobody reads (a full pipe blocks)
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "chat_service" / "serve.py"), "--store",
             store, "--layer", layer, "--workers", str(workers), "--port", str(port)],
            env={**os.environ, **env}, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                # every worker answers once it has imported everything: warm them all up
                pids = {httpx.get(f"{base}/health", timeout=30).json()["worker"]
                        for _ in range(8 * workers)}
                if len(pids) >= workers:
                    return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(1)
    proc.terminate()
    raise RuntimeError("the service did not come up within 300 s")


def stop_service(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (uvicorn stops its workers), then SIGKILL if it does not exit in 30 s."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


async def stored_conversations(store: str, layer: str, env: dict[str, str],
                               session_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Every user's stored items, read from the store itself (not through the service)."""
    found: dict[str, list[dict[str, Any]]] = {}
    if store == "postgres":
        import asyncpg

        conn = await asyncpg.connect(env["CHAT_POSTGRES_URL"])
        try:
            rows = await conn.fetch("SELECT session_id, message_data FROM agent_messages "
                                    "WHERE session_id = ANY($1::text[]) ORDER BY id",
                                    session_ids)
        finally:
            await conn.close()
        for sid, data in rows:
            found.setdefault(sid, []).append(json.loads(data))
        return found
    from ctxlab.stores.redis import RedisKeys

    if store == "redis-cluster":
        from redis.asyncio.cluster import RedisCluster

        client: Any = RedisCluster.from_url(env["CHAT_REDIS_URL"])
    else:
        import redis.asyncio as aioredis

        client = aioredis.from_url(env["CHAT_REDIS_URL"])
    try:
        for sid in session_ids:
            key = (f"chat-sdk:{sid}:messages" if layer == "sdk"
                   else RedisKeys("chat", sid, tagged=True).messages)
            found[sid] = [json.loads(r) for r in await client.lrange(key, 0, -1)]
    finally:
        await client.aclose()
    return found


def item_texts(item: dict[str, Any]) -> str:
    content = item.get("content")
    parts = [content] if isinstance(content, str) else [
        p.get("text", "") for p in content or [] if isinstance(p, dict)]
    extra = [str(item.get(k)) for k in ("arguments", "output") if item.get(k)]
    return " ".join(p for p in [*parts, *extra] if p)


def check(conversations: dict[str, list[dict[str, Any]]], prefix: str, users: int,
          turns: int) -> dict[str, int]:
    """Turns lost (the question or its answer missing), items stored twice, and items that
    mention another user's ticket."""
    lost = duplicated = cross = 0
    for u in range(users):
        items = conversations.get(f"chat-{prefix}{u}", [])
        texts = [item_texts(i) for i in items if i.get("role") in ("user", "assistant")]
        for t in range(turns):
            asked = message(u, t) in texts
            answered = any(f"Ticket TCK-{u * 1000 + t} is" in x for x in texts)
            lost += not (asked and answered)
        duplicated += len(texts) - len(set(texts))
        for item in items:
            for number in _TICKET.findall(item_texts(item)):
                cross += int(number) // 1000 != u
    return {"lost": lost, "duplicated": duplicated, "cross_user": cross}
