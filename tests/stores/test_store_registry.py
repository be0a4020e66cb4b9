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
    register_store,
    store_adapters,
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
    assert {"sqlite", "redis", "sqlalchemy", "encrypted"} <= set(names)
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
        register_store(StoreAdapter("notebook", lambda s: False), replace=True)


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
