"""Store errors tell the truth about where they happened: a Redis Cluster error names the
node that serves the session's slot (where the call went), not the seed node the client
was started from (before: "redis cluster at 127.0.0.1:<seed port>" whatever node failed)."""

from __future__ import annotations

import pytest

from ctxlab import TrimmingSession
from ctxlab.stores import StoreError

from conftest import arun, user
from store_backends import make_backend

pytestmark = pytest.mark.redis


def test_a_cluster_error_names_the_slots_node_not_the_seed(request, tmp_path):
    backend = make_backend("redis-cluster", request, tmp_path)

    async def go() -> None:
        try:
            client = backend.client
            await client.initialize()
            seed = next(iter(client.nodes_manager.startup_nodes))
            kind = backend.spec_of_kind
            for k in range(64):  # a session whose slot another node serves than the seed
                sid = f"node-{k}"
                node = client.get_node_from_key(kind.keys(backend, sid)[0])
                if f"{node.host}:{node.port}" != seed:
                    break
            else:
                raise AssertionError("every session id hashed to the seed node's slots")
            session = TrimmingSession(store=backend.store_arg(sid))
            await session.add_items([user("before")])
            assert await backend.refuse_appends(sid), "the cluster did not refuse the append"
            with pytest.raises(StoreError) as caught:
                await session.add_items([user("refused")])
            message = str(caught.value)
            slot = client.keyslot(kind.keys(backend, sid)[0])
            assert f"redis cluster node {node.host}:{node.port} (slot {slot})" in message, (
                f"the error does not name the slot's node {node.host}:{node.port}: {message}")
            assert seed not in message, f"the error names the seed node {seed}: {message}"
        finally:
            await backend.aclose()

    arun(go())


@pytest.fixture
def own_cluster():
    """A cluster only this test uses (it kills one of its masters)."""
    from redis_helpers import own_cluster as start_own_cluster

    yield from start_own_cluster("ctxlab-errors-", "this test starts its own cluster")


def test_a_dead_masters_error_names_that_master(own_cluster):
    """The master serving a session's slot dies: the calls that fail before its replica
    takes over raise StoreUnavailableError naming that master as the store, not the seed
    node the client started from."""
    import asyncio
    import time

    from redis.asyncio.cluster import RedisCluster

    from ctxlab.stores import RedisStore, StoreUnavailableError
    from ctxlab.stores.redis import RedisKeys

    async def go() -> tuple[str, int, int]:
        client = RedisCluster.from_url(own_cluster.url, socket_connect_timeout=2,
                                       socket_timeout=2)
        try:
            await client.initialize()
            seed = own_cluster.nodes[0].port
            for k in range(64):
                sid = f"dead-{k}"
                node = client.get_node_from_key(RedisKeys("p", sid, tagged=True).messages)
                if node.port != seed:
                    break
            session = TrimmingSession(store=RedisStore(sid, client=client, key_prefix="p"))
            await session.add_items([user("before")])
            victim = next(n for n in own_cluster.nodes if n.port == node.port)
            victim.kill()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                try:
                    await session.add_items([user("during")])
                except StoreUnavailableError as exc:
                    return str(exc), victim.port, seed
                await asyncio.sleep(0.05)
            raise AssertionError("no write failed after the session's master was killed")
        finally:
            await client.aclose()

    message, victim, seed = arun(go())
    store = message.split(" could not ", 1)[0]
    assert f"127.0.0.1:{victim}" in store, (
        f"the error does not name the dead master 127.0.0.1:{victim} as the store: {message}")
    assert f"127.0.0.1:{seed}" not in store, f"the error names the seed node: {message}"


# -- a Redis server of the test's own: a full memory, a missing permission, a replica ------


def _redis_refusals(folder, store_for) -> dict[str, BaseException]:
    """Append to a session on a server that (1) reached maxmemory, (2) lost its write
    permission, (3) became a replica; after each the session still reads what it had, and
    the next append succeeds once the server is put back."""
    from redis.asyncio import Redis

    from redis_helpers import own_server, refusing_commands, run_commands

    server = own_server(folder, "this test caps, locks and demotes its server")

    async def go() -> dict[str, BaseException]:
        client = Redis.from_url(server.url)
        errors: dict[str, BaseException] = {}
        try:
            for reason, (commands, undo) in refusing_commands().items():
                session = TrimmingSession(store=store_for(client, f"refused-{reason}"))
                await session.add_items([user("before")])
                await run_commands(server.url, *commands)
                with pytest.raises(StoreError) as caught:
                    await session.add_items([user("refused")])
                errors[reason] = caught.value
                assert [i["content"] for i in await session.get_items()] == ["before"]
                await run_commands(server.url, undo)
                await session.add_items([user("after")])
                assert [i["content"] for i in await session.get_items()] == ["before", "after"]
        finally:
            await client.aclose()
        return errors

    try:
        return arun(go())
    finally:
        server.stop()


def _redis_store(client, sid):
    from ctxlab.stores import RedisStore

    return RedisStore(sid, client=client, key_prefix="errors")


def _sdk_redis_session(client, sid):
    from agents.extensions.memory import RedisSession

    return RedisSession(sid, redis_client=client, key_prefix="errors")


def refusal_problems(errors: dict[str, BaseException]) -> list[str]:
    """A full memory and a missing permission are refusals (StoreError, not unavailable);
    a replica answering READONLY is unavailable (a failover: retry)."""
    from ctxlab.stores import StoreUnavailableError

    problems = [f"{reason}: called unavailable ({errors[reason]})"
                for reason in ("memory", "permission")
                if isinstance(errors[reason], StoreUnavailableError)]
    if not isinstance(errors["replica"], StoreUnavailableError):
        problems.append(f"replica: called a refusal ({errors['replica']})")
    return problems


@pytest.mark.parametrize("store_for", [_redis_store, _sdk_redis_session])
def test_a_full_memory_or_a_missing_permission_is_a_refusal_and_a_replica_an_outage(
        tmp_path, store_for):
    errors = _redis_refusals(tmp_path / "redis", store_for)
    assert refusal_problems(errors) == []
    assert "OutOfMemoryError" in str(errors["memory"]), errors["memory"]
    for error in errors.values():
        assert "refused" not in str(error).split("could not", 1)[0]  # the store named first
        assert "'refused-" in str(error), error  # the session named, no content


def test_the_refusal_check_catches_a_classifier_that_calls_everything_unavailable(
        tmp_path, monkeypatch):
    import ctxlab.stores.redis as redis_stores

    monkeypatch.setattr(redis_stores, "classify_backend_error",
                        lambda exc: "unavailable")
    errors = _redis_refusals(tmp_path / "redis", _redis_store)
    assert refusal_problems(errors)[:2] == [
        f"memory: called unavailable ({errors['memory']})",
        f"permission: called unavailable ({errors['permission']})"]
