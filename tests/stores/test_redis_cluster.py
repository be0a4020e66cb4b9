"""ctxlab's RedisStore on a real Redis Cluster (3 masters, 3 replicas): one hash slot per
session, session ids with braces, the SDK's layout refused where it cannot work, moving
sessions the SDK's RedisSession wrote, and a master killed mid-run."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message

from ctxlab import SummarizingSession, TrimmingSession, validate_items
from ctxlab.stores import RedisStore
from ctxlab.stores.redis import RedisKeys, hash_tag

from conftest import arun, user
from fakes import RecordingSummarizer
from store_backends import TIMEOUTS, conversation, feed
from store_failover import failover_run

pytestmark = pytest.mark.redis
set_tracing_disabled(True)


def fresh(name: str) -> str:
    """A key prefix no earlier run used (a cluster from CTXLAB_REDIS_CLUSTER_URL persists)."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def cluster_client(url: str):
    from redis.asyncio.cluster import RedisCluster

    return RedisCluster.from_url(url, **TIMEOUTS)


def test_every_key_of_a_session_shares_one_slot_and_sessions_spread(redis_cluster_url):
    async def go():
        client = cluster_client(redis_cluster_url)
        try:
            masters = set()
            prefix = fresh("spread")
            for k in range(24):
                store = RedisStore(f"user-{k}", client=client, key_prefix=prefix)
                session = SummarizingSession(1, 1, RecordingSummarizer(), store=store)
                await feed(session, 2)
                await session.checkpoint("c")
                await session.store.state.acquire_lease("me", 5)
                names = RedisKeys(prefix, f"user-{k}", tagged=True)
                keys = [names.hash, names.messages, names.state, names.checkpoints,
                        names.lease]
                assert [await client.exists(key) for key in keys] == [1] * 5, keys
                slots = {client.keyslot(key) for key in keys}
                assert len(slots) == 1, f"keys of one session on slots {slots}"
                masters.add(client.get_node_from_key(keys[0]).name)
            assert len(masters) == 3, "24 sessions all landed on fewer than 3 masters"
        finally:
            await client.aclose()

    arun(go())


def test_session_ids_with_braces_stay_in_their_own_slot(redis_cluster_url):
    ids = ["a}b", "{x}", "}", "{}", "x", "a{b}c"]
    assert len({hash_tag(i) for i in ids}) == len(ids)  # the encoding is injective

    async def go():
        client = cluster_client(redis_cluster_url)
        prefix = fresh("braces")
        try:
            for sid in ids:
                store = RedisStore(sid, client=client, key_prefix=prefix)
                session = TrimmingSession(store=store, max_turns=3)
                await session.add_items([user(f"hello from {sid}")])
                keys = RedisKeys(prefix, sid, tagged=True)
                assert len({client.keyslot(k) for k in keys.all()}) == 1
            for sid in ids:  # no two ids share keys
                again = TrimmingSession(store=RedisStore(sid, client=client,
                                                         key_prefix=prefix))
                assert await again.raw_items() == [user(f"hello from {sid}")]
        finally:
            await client.aclose()

    arun(go())
    with pytest.raises(ValueError, match="contains a brace"):
        RedisStore("s", url=redis_cluster_url, cluster=True, key_prefix="app{1}")


def test_the_sdk_redis_session_refuses_a_cluster_and_redis_store_runs_the_runner(
        redis_cluster_url):
    from agents.extensions.memory import RedisSession

    async def go():
        client = cluster_client(redis_cluster_url)
        try:
            with pytest.raises(TypeError, match="RedisCluster"):
                await RedisSession("sdk", redis_client=client).add_items([user("hi")])
            model = ScriptedModel([[assistant_message(f"Reply {t}.", item_id=f"m{t}")]
                                   for t in range(3)])
            agent = Agent(name="support", instructions="Help.", model=model)
            store = RedisStore("runner", client=client, key_prefix=fresh("runner"))
            for t in range(3):  # the SDK Runner with RedisStore alone, as a plain session
                await Runner.run(agent, f"question {t}", session=store)
            items = await store.get_items()
            assert [i.get("content") for i in items if i.get("role") == "user"] == [
                "question 0", "question 1", "question 2"]
            assert await store.get_items(limit=2) == items[-2:]
            assert (await store.pop_item()) == items[-1]
            await store.clear_session()
            assert await store.get_items() == []
        finally:
            await client.aclose()

    arun(go())


def test_sessions_the_sdk_wrote_are_imported_once_with_their_summary(redis_url,
                                                                     redis_cluster_url):
    """The migration path: a conversation (and ctxlab's summary of it) written through the
    SDK's RedisSession on a standalone server moves to a RedisStore on the cluster; the new
    session resumes the identical view without summarizing again."""
    import redis.asyncio as aioredis
    from agents.extensions.memory import RedisSession

    async def go():
        old_client = aioredis.from_url(redis_url, **TIMEOUTS)
        client = cluster_client(redis_cluster_url)
        try:
            legacy, prefix = fresh("legacy"), fresh("imported")
            old = SummarizingSession(2, 3, RecordingSummarizer(), store=RedisSession(
                "moving", redis_client=old_client, key_prefix=legacy))
            await feed(old, 5)
            await old.checkpoint("before-move", note="kept")
            view = await old.get_items()

            store = RedisStore("moving", client=client, key_prefix=prefix)
            sdk = RedisSession("moving", redis_client=old_client, key_prefix=legacy)
            assert await store.import_sdk_session(sdk) == 20
            assert await store.import_sdk_session(sdk) == 0  # at most once
            summarizer = RecordingSummarizer()
            new = SummarizingSession(2, 3, summarizer, store=store)
            assert await new.get_items() == view and summarizer.calls == []
            assert new.summary == old.summary
            assert [c.note for c in await new.checkpoints()] == ["kept"]
            await feed(new, 1, start=5)
            assert await new.raw_items() == conversation(6)
            assert validate_items(await new.get_items()) == []
        finally:
            await old_client.aclose()
            await client.aclose()

    arun(go())


@pytest.fixture
def own_cluster():
    """A cluster only this test uses (it kills one of its masters)."""
    from redis_helpers import own_cluster as start_own_cluster

    yield from start_own_cluster("ctxlab-failover-", "the failover test starts its own cluster")


def test_a_master_killed_mid_run_loses_only_what_the_default_promises(own_cluster):
    """Default (replicas=0): a write returns once the master has it. With the replica frozen
    just before the master dies, turns the master acknowledged are lost: the failure mode
    the default admits, shown happening. Durable (replicas=1, WAIT): nothing acknowledged
    is lost. In both, writing goes on after the failover and no item is stored twice."""
    fast = asyncio.run(failover_run(own_cluster, replicas=0, sessions=3, after=5,
                                    kill_at=8, freeze=0.5, prefix="default"))
    print(f"default: {fast}")
    assert fast.lost >= 1, "the frozen replica should have missed acknowledged turns"
    assert fast.duplicated == 0 and fast.after_failover > 0

    durable = asyncio.run(failover_run(own_cluster, replicas=1, sessions=3, after=5,
                                       kill_at=8, freeze=0.5, prefix="durable"))
    print(f"durable: {durable}")
    assert durable.lost == 0, f"{durable.lost} acknowledged turns lost in durable mode"
    assert durable.duplicated == 0 and durable.after_failover > 0
    assert durable.errors.get("StoreNotDurableError", 0) >= 1  # it refused to pretend
