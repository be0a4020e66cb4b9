"""Shared helpers: run coroutines, build Responses items the way the SDK stores them."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Tests never call a real API: force the offline backend for this process and for the
# notebook kernels nbval starts (they inherit this environment).
os.environ["CTXLAB_BACKEND"] = "offline"
# Strict policy invariants (ctxlab.policies.invariants): a window that would need repair
# because of its policy (half a turn, a blown budget) raises, naming the policy, here and in
# subprocesses and notebook kernels the tests start.
os.environ["CTXLAB_STRICT"] = "1"

# Property tests explore new random cases on every local run (a failure is a real bug, with
# the case to reproduce it); CI runs a fixed set so that its verdict is reproducible.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    _hypothesis_settings.load_profile("ci")
sys.path.insert(0, str(ROOT / "tests"))

T = TypeVar("T")


def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in a fresh event loop."""
    return asyncio.run(coro)


def user(text: str, typed: bool = False) -> dict[str, Any]:
    if typed:
        part = {"type": "input_text", "text": text}
        return {"type": "message", "role": "user", "content": [part]}
    return {"role": "user", "content": text}


def assistant(text: str, item_id: str | None = None) -> dict[str, Any]:
    """An assistant message as the Runner stores model output: typed, with an id (derived
    from the text when none is given; a typed assistant message without one is rejected by
    the SDK's Chat Completions converter)."""
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "id": item_id or "msg_" + hashlib.sha1(text.encode()).hexdigest()[:16],
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def summary_reply(text: str) -> dict[str, Any]:
    """The assistant half of a summary pair as sessions show it (a plain-text message)."""
    return {"role": "assistant", "content": text}


def call(call_id: str, name: str = "lookup", **args: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(args),
    }


def output(call_id: str, value: Any = "ok") -> dict[str, Any]:
    text = value if isinstance(value, str) else json.dumps(value)
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def reasoning(rid: str, text: str = "thinking") -> dict[str, Any]:
    return {"type": "reasoning", "id": rid, "summary": [{"type": "summary_text", "text": text}]}


SEED_FLOW = [
    {"role": "user", "content": "I am using a macbook pro and it has some overheating issues too."},
    {"role": "assistant", "content": "I see. Let's check your firmware version."},
    {"role": "user", "content": "Firmware v1.0.3; still failing."},
    {"role": "assistant", "content": "Could you please try a factory reset?"},
    {"role": "user", "content": "Reset done; error 42 now."},
    {"role": "assistant", "content": "Leave it on charge for 30 minutes. Any other error?"},
    {"role": "user", "content": "Yes, I see error 404 now."},
    {"role": "assistant", "content": "Do you see it in the browser while opening a site?"},
]


@pytest.fixture
def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture
def dict_adapter():
    """The dict store adapter of ``store_mutants.py`` registered for one test."""
    from store_mutants import register, unregister

    register()
    try:
        yield
    finally:
        unregister()


# ------------------------------------------------------------------------ Redis server


def redis_unavailable(message: str) -> None:
    """Skip, or fail under CI=true: CI must run every Redis test."""
    from redis_helpers import in_ci

    if in_ci():
        pytest.fail(f"{message} (CI=true: Redis tests may not be skipped)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory):
    """URL of a reachable Redis server: CTXLAB_REDIS_URL, else one we start and stop."""
    from redis_helpers import RedisServer, ping

    url = os.environ.get("CTXLAB_REDIS_URL")
    if url:
        if not ping(url):
            redis_unavailable(f"CTXLAB_REDIS_URL={url} does not answer PING")
        yield url
        return
    try:
        server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    except (FileNotFoundError, RuntimeError) as exc:
        redis_unavailable(f"no Redis server for the tests ({exc}): set CTXLAB_REDIS_URL or "
                          "install redis-server (apt-get install -y redis-server)")
        return
    try:
        yield server.url
    finally:
        server.stop()


# ------------------------------------------------- PostgreSQL and Redis Cluster servers


def server_unavailable(what: str, message: str) -> None:
    """Skip, or fail under CI=true: CI must run every test on every real server."""
    from redis_helpers import in_ci

    if in_ci():
        pytest.fail(f"{message} (CI=true: {what} tests may not be skipped)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def postgres_url():
    """URL of a reachable PostgreSQL server: CTXLAB_POSTGRES_URL (``.ci/run`` exports it),
    else one we start (``initdb`` in a temp dir, a free port) and stop."""
    from ctxlab.stores.local_servers import LocalPostgres, ServerError

    url = os.environ.get("CTXLAB_POSTGRES_URL")
    if url:
        from redis_helpers import answers

        if not answers(url):
            server_unavailable("PostgreSQL", f"CTXLAB_POSTGRES_URL={url} does not answer")
        yield url
        return
    try:
        server = LocalPostgres().start()
    except (ServerError, OSError) as exc:
        server_unavailable("PostgreSQL", f"no PostgreSQL server for the tests ({exc}): set "
                           "CTXLAB_POSTGRES_URL or install postgresql (apt-get install -y "
                           "postgresql)")
        return
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_cluster_url():
    """URL of one node of a reachable Redis Cluster: CTXLAB_REDIS_CLUSTER_URL (``.ci/run``
    exports it), else a 3-master, 3-replica cluster we start on loopback and stop."""
    from ctxlab.stores.local_servers import LocalRedisCluster, ServerError

    url = os.environ.get("CTXLAB_REDIS_CLUSTER_URL")
    if url:
        from redis_helpers import ping

        if not ping(url):
            server_unavailable("Redis Cluster",
                               f"CTXLAB_REDIS_CLUSTER_URL={url} does not answer PING")
        yield url
        return
    import tempfile

    folder = tempfile.mkdtemp(prefix="ctxlab-cluster-")
    try:
        cluster = LocalRedisCluster(folder).start()
    except (ServerError, OSError) as exc:
        server_unavailable("Redis Cluster", f"no Redis Cluster for the tests ({exc}): set "
                           "CTXLAB_REDIS_CLUSTER_URL or install redis-server")
        return
    try:
        yield cluster.url
    finally:
        cluster.stop()
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
