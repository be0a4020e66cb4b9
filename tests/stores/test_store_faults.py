"""Faults: the store goes away or stays locked mid-run. The error is clear, nothing is
half-written, and the session (and the Runner) carry on once the store is back."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from agents import Agent, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel

from ctxlab import SummarizingSession, TrimmingSession, item_text, validate_items
from ctxlab.stores import SQLiteLog, StoreUnavailableError

from conftest import arun, redis_unavailable, user
from fakes import RecordingSummarizer, warranty_script
from redis_helpers import RedisServer

set_tracing_disabled(True)


@function_tool
def check_warranty(serial: str) -> str:
    """Warranty status for a device serial number."""
    return json.dumps({"serial": serial, "warranty": "covered"})


def test_a_locked_sqlite_file_raises_store_unavailable_and_loses_nothing(tmp_path):
    db = tmp_path / "chat.db"

    async def go():
        session = TrimmingSession(store=SQLiteLog(SQLiteSession("locked", db),
                                                  busy_timeout=0.2))
        await session.add_items([user("before")])
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(StoreUnavailableError) as err:
                await session.add_items([user("during 1"), user("during 2")])
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        message = str(err.value)
        assert "could not append items for session 'locked'" in message
        assert "database is locked" in message and "Nothing was half-written" in message
        assert await session.raw_items() == [user("before")]
        await session.add_items([user("after")])
        assert await SQLiteSession("locked", db).get_items() == [user("before"), user("after")]

    arun(go())


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server only this test uses, so it can be stopped and restarted."""
    try:
        server = RedisServer(tmp_path / "redis").start()
    except (FileNotFoundError, RuntimeError) as exc:
        redis_unavailable(f"this test stops and restarts its own redis-server ({exc})")
        return
    try:
        yield server
    finally:
        server.stop()


def fast_failing_client(url: str):
    """A client that reports a dead server at once (redis-py retries with backoff by
    default, which only makes the test slow)."""
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return aioredis.from_url(url, retry=Retry(NoBackoff(), 0), socket_connect_timeout=1,
                             socket_timeout=2)


@pytest.mark.redis
def test_redis_down_mid_run_fails_clearly_and_the_run_resumes(own_redis):
    from agents.extensions.memory import RedisSession

    model = ScriptedModel(warranty_script(3))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[check_warranty])

    async def go():
        client = fast_failing_client(own_redis.url)
        try:
            session = TrimmingSession(max_turns=2,
                                      store=RedisSession("run", redis_client=client))
            for t in range(2):
                await Runner.run(agent, f"question {t}", session=session)
            own_redis.stop()
            with pytest.raises(StoreUnavailableError) as err:
                await Runner.run(agent, "question 2", session=session)
            message = str(err.value)
            assert f"redis at 127.0.0.1:{own_redis.port}" in message
            assert "session 'run'" in message and "Nothing was half-written" in message
            with pytest.raises(StoreUnavailableError):
                await session.add_items([user("while down")])

            own_redis.start()  # same port, same append-only file
            raw = await session.raw_items()
            assert len(raw) == 8 and validate_items(raw) == []  # two whole turns, no more
            result = await Runner.run(agent, "question 2", session=session)
            assert result.final_output == "Turn 2 done."
            raw = await session.raw_items()
            users = [item_text(i) for i in raw if i.get("role") == "user"]
            assert users == ["question 0", "question 1", "question 2"]
            assert len(raw) == 12 and validate_items(await session.get_items()) == []
            model.assert_complete()
        finally:
            await client.aclose()

    arun(go())


@pytest.mark.redis
def test_redis_down_while_a_fold_is_in_flight(own_redis):
    from agents.extensions.memory import RedisSession

    async def go():
        client = fast_failing_client(own_redis.url)
        gate = asyncio.Event()
        summarizer = RecordingSummarizer(gate=gate)
        try:
            session = SummarizingSession(1, 1, summarizer, background=True,
                                         store=RedisSession("fold", redis_client=client))
            await session.add_items([user("q0"), user("q1")])
            while not summarizer.calls:
                await asyncio.sleep(0.01)
            own_redis.stop()
            gate.set()
            await session.flush()  # the fold's result cannot be saved: a failure, no crash
            assert session.summary is None and "Nothing was half-written" in session.last_error
            own_redis.start()
            assert await session.raw_items() == [user("q0"), user("q1")]
            await session.add_items([user("q2")])
            await session.flush()
            assert session.summary is not None and session.summaries_applied == 1
            assert session.last_error is None
            fresh = SummarizingSession(1, 1, RecordingSummarizer(),
                                       store=RedisSession("fold", redis_client=client))
            assert await fresh.get_items() == await session.get_items()
        finally:
            await client.aclose()

    arun(go())
