"""Expiry of idle sessions: Redis TTL on every key of a session, cleanup_idle for SQLite."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import timedelta

import pytest
from agents import SQLiteSession

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.stores import cleanup_idle

from conftest import arun
from fakes import RecordingSummarizer
from store_backends import Backend, feed


def test_cleanup_idle_removes_only_sessions_idle_for_longer(tmp_path):
    db = tmp_path / "chat.db"

    async def go():
        old = SummarizingSession(1, 1, RecordingSummarizer(), store=SQLiteSession("old", db))
        await feed(old, 3)
        await old.checkpoint("c")
        sdk_only = SQLiteSession("sdk-only", db)  # written without ctxlab
        await sdk_only.add_items([{"role": "user", "content": "hi"}])
        await asyncio.sleep(1.6)
        recent = TrimmingSession(store=SQLiteSession("recent", db))
        await feed(recent, 1)

        assert cleanup_idle(db, older_than=timedelta(seconds=1.2)) == ["old", "sdk-only"]
        assert await TrimmingSession(store=SQLiteSession("old", db)).raw_items() == []
        assert await SQLiteSession("sdk-only", db).get_items() == []
        assert len(await TrimmingSession(store=SQLiteSession("recent", db)).raw_items()) == 4
        with sqlite3.connect(db) as conn:
            for table in ("ctxlab_state", "ctxlab_checkpoints", "agent_sessions"):
                ids = {r[0] for r in conn.execute(f"SELECT session_id FROM {table}")}
                assert ids <= {"recent"}, table
        # the object that still has "old" open sees the empty store on its next read
        assert await old.get_items() == [] and old.summary is None
        assert cleanup_idle(db, older_than=3600) == []
        assert cleanup_idle(db, older_than=0, now=time.time() + 5) == ["recent"]

    arun(go())


def test_cleanup_idle_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="older_than must be a number of seconds >= 0"):
        cleanup_idle(tmp_path / "x.db", older_than=-1)
    with pytest.raises(ValueError, match="older_than"):
        cleanup_idle(tmp_path / "x.db", older_than="1h")  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError, match="no SQLite file"):
        cleanup_idle(tmp_path / "missing.db", older_than=10)


@pytest.mark.redis
def test_redis_ttl_covers_every_key_of_the_session(redis_url, tmp_path):
    backend = Backend("redis", tmp_path, redis_url)

    async def go():
        try:
            session = SummarizingSession(1, 1, RecordingSummarizer(),
                                         store=backend.sdk("ttl", ttl=30))
            await feed(session, 3)
            await session.checkpoint("c")
            keys = await backend.keys("ttl")
            base = f"{backend.prefix}:ttl"
            assert {k for k in keys if ":writer:" not in k} == {
                base, f"{base}:messages", f"{base}:ctxlab:state", f"{base}:ctxlab:checkpoints"}
            for key in keys:
                ttl_ms = await backend.client.pttl(key)
                assert 0 < ttl_ms <= 30_000, (key, ttl_ms)

            short = SummarizingSession(1, 1, RecordingSummarizer(),
                                       store=backend.sdk("short", ttl=1))
            await feed(short, 3)
            assert short.summary is not None and await backend.keys("short")
            await asyncio.sleep(1.3)
            assert await backend.keys("short") == []  # every key expired, side keys too
            fresh = SummarizingSession(1, 1, RecordingSummarizer(),
                                       store=backend.sdk("short", ttl=1))
            assert await fresh.get_items() == [] and fresh.summary is None
            assert await short.get_items() == [] and short.summary is None
        finally:
            await backend.aclose()

    arun(go())
