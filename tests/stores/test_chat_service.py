"""The example chat service (examples/chat_service) for real: uvicorn with two worker
processes, users talking at once over HTTP, on PostgreSQL and on a Redis Cluster. Checked:
every turn answered, no turn lost or stored twice, no item in another user's conversation.
(Its speed is measured by benchmarks/bench_chat_service.py, not here.)"""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from examples.chat_service.harness import check, message, start_service, stop_service

from conftest import arun

pytestmark = pytest.mark.redis

USERS, TURNS = 12, 3


async def talk(base: str, prefix: str) -> list[str]:
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        async def user(u: int) -> list[str]:
            replies = []
            for t in range(TURNS):
                r = await http.post("/chat", json={"user": f"{prefix}{u}",
                                                   "message": message(u, t)})
                assert r.status_code == 200, r.text
                replies.append(r.json()["reply"])
            return replies

        answers = await asyncio.gather(*(user(u) for u in range(USERS)))
        histories = {}
        for u in range(USERS):
            r = await http.get(f"/history/{prefix}{u}")
            histories[f"chat-{prefix}{u}"] = r.json()["items"]
    for u, replies in enumerate(answers):  # each reply answers that user's own ticket
        assert replies == [f"Ticket TCK-{u * 1000 + t} is open; message {t + 1} noted."
                           for t in range(TURNS)]
    return histories


@pytest.mark.parametrize("store", ["postgres", "redis-cluster"])
def test_users_talking_at_once_each_keep_their_own_whole_conversation(store, request):
    need = "postgres_url" if store == "postgres" else "redis_cluster_url"
    url = request.getfixturevalue(need)
    env = ({"CTXLAB_POSTGRES_URL": url} if store == "postgres"
           else {"CTXLAB_REDIS_CLUSTER_URL": url})
    proc, base = start_service(store, "ctxlab", 2, env)
    try:
        prefix = f"smoke{uuid.uuid4().hex[:8]}-u"
        histories = arun(talk(base, prefix))
    finally:
        stop_service(proc)
    verdict = check(histories, prefix, USERS, TURNS)
    assert verdict == {"lost": 0, "duplicated": 0, "cross_user": 0}, verdict
    for items in histories.values():
        assert len(items) == TURNS * 4  # question, tool call, tool output, reply


def test_store_ops_benchmark_runs_and_reports_round_trips_and_ratios(postgres_url, redis_url):
    """benchmarks/bench_store_ops.py (per-operation cost, ctxlab vs the SDK) still runs: a
    tiny run on both servers prints, per store, both layers' round trips and the ratios."""
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "CTXLAB_POSTGRES_URL": postgres_url, "CTXLAB_REDIS_URL": redis_url}
    done = subprocess.run([sys.executable, "benchmarks/bench_store_ops.py", "--users", "2",
                           "--turns", "3", "--repeat", "1"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    for store in ("postgres", "redis"):
        part = done.stdout.split(f"== {store}:")[1].split("==")[0]
        for layer in ("sdk", "ctxlab"):
            assert f"round 0 {layer:6} get_items p50" in part, part
            assert f"round 0 {layer:6} add_items p50" in part, part
        assert "round trips/call" in part, part
        assert f"{store}: ratio over rounds, median (min-max):" in part, part
