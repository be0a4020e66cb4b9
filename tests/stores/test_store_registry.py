"""How a ``store=`` argument finds its adapter: the registry, not type probing."""

from __future__ import annotations

import logging

import pytest
from agents.memory import SQLiteSession

from ctxlab import TrimmingSession
from ctxlab.stores import (
    MemoryLog,
    MemoryStateStore,
    SessionLog,
    StoreAdapter,
    open_store,
    register_native_store,
    register_store,
    store_adapters,
    unregister_store,
)
from ctxlab.stores.redis import redis_session_config

from conftest import arun, user


class NotebookSession:
    """An SDK-protocol session of a library ctxlab has never heard of."""

    def __init__(self, session_id: str):
        self.session_id = session_id
        self.session_settings = None
        self.items: list = []

    async def get_items(self, limit=None):
        return list(self.items)

    async def add_items(self, items):
        self.items.extend(items)

    async def pop_item(self):
        return self.items.pop() if self.items else None

    async def clear_session(self):
        self.items.clear()


def test_builtin_adapters_are_registered_in_priority_order():
    names = [a.name for a in store_adapters()]
    assert {"sqlite", "redis", "redis-store", "sqlalchemy", "encrypted"} <= set(names)
    assert names.index("encrypted") < names.index("sqlite")  # a wrapper is asked first


def test_a_new_backend_is_one_registration(tmp_path):
    states: dict[str, MemoryStateStore] = {}

    def state_for(store, session_id):
        return states.setdefault(session_id, MemoryStateStore(session_id))

    register_store(StoreAdapter("notebook", lambda s: isinstance(s, NotebookSession),
                                None, state_for), replace=True)
    try:
        store = NotebookSession("nb-1")
        log = open_store(store)
        assert isinstance(log, SessionLog) and log.state is states["nb-1"]

        async def go():
            session = TrimmingSession(store=store, max_turns=1)
            await session.add_items([user("q1"), user("q2")])
            assert store.items == [user("q1"), user("q2")]  # written through the adapter
            assert await session.get_items() == [user("q2")]

        arun(go())
        with pytest.raises(ValueError, match="already registered"):
            register_store(StoreAdapter("notebook", lambda s: False))
    finally:
        assert unregister_store("notebook")
    assert "notebook" not in [a.name for a in store_adapters()]


def test_a_store_without_persistent_state_says_so(caplog):
    with caplog.at_level(logging.WARNING, logger="ctxlab.stores"):
        log = open_store(SQLiteSession("mem"))  # an in-memory SQLiteSession: no file
    assert isinstance(log, SessionLog) and not log.persistent
    assert "kept in this process only" in caplog.text


def test_open_store_rejects_what_it_cannot_open():
    with pytest.raises(ValueError, match="store must be an Agents SDK session"):
        open_store(object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="does not match the store's session_id"):
        open_store(MemoryLog("a"), "b")


def test_the_pinned_sdk_still_exposes_what_the_redis_adapter_reads():
    pytest.importorskip("redis")
    import redis.asyncio as aioredis
    from agents.extensions.memory import RedisSession

    client = aioredis.Redis()  # never connects here
    session = RedisSession("r1", redis_client=client, key_prefix="p", ttl=60)
    assert redis_session_config(session) == (client, "p", 60.0)


def test_the_pinned_sdk_still_exposes_what_the_sqlalchemy_adapter_reads(tmp_path):
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy.ext.asyncio import create_async_engine

    from ctxlab.stores.sqlalchemy_log import SQLAlchemyLog, sdk_tables

    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    session = SQLAlchemySession("s1", engine=engine)
    meta, sessions, messages = sdk_tables(session)
    assert sessions.name == "agent_sessions"
    assert {t.name for t in meta.sorted_tables} == {"agent_sessions", "agent_messages"}
    assert {"id", "session_id", "message_data", "created_at"} <= set(messages.c.keys())
    assert isinstance(open_store(session), SQLAlchemyLog)


def test_an_adapter_given_a_foreign_state_store_keeps_the_state_there(tmp_path):
    """open_store(store, state=...) asks the adapter itself (no special case for any
    adapter): the direct ones fall back to the generic log with that state."""
    side = MemoryStateStore("s")
    log = open_store(SQLiteSession("s", tmp_path / "x.db"), state=side)
    assert isinstance(log, SessionLog) and log.state is side


def test_a_native_session_type_is_one_call():
    """A library's session class that already satisfies the SDK's Session protocol: one
    call, and every ctxlab session opens it (its side state where ``state_for`` says)."""
    states: dict[str, MemoryStateStore] = {}
    adapter = register_native_store(
        NotebookSession, state_for=lambda store, sid: states.setdefault(
            sid, MemoryStateStore(sid)))
    try:
        store = NotebookSession("native-1")
        log = open_store(store)
        assert isinstance(log, SessionLog) and log.state is states["native-1"], (
            "the native store's log does not keep its state where state_for says")

        async def go():
            session = TrimmingSession(store=store, max_turns=1)
            await session.add_items([user("q1"), user("q2")])
            assert store.items == [user("q1"), user("q2")], "not written through the store"
            assert await session.get_items() == [user("q2")]

        arun(go())
    finally:
        assert unregister_store(adapter.name), "the native adapter was not registered"


def test_a_class_that_is_not_an_sdk_session_is_refused_by_name():
    class Half:  # no pop_item, a synchronous clear_session
        session_id = "half"

        async def get_items(self, limit=None):
            return []

        async def add_items(self, items):
            return None

        def clear_session(self):
            return None

    with pytest.raises(ValueError, match=r"lacks async def pop_item\(\.\.\.\), async def "
                                         r"clear_session\(\.\.\.\)"):
        register_native_store(Half)
    assert not [a for a in store_adapters() if "Half" in a.name], "a refused class registered"
