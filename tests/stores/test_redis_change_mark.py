"""The Redis change mark (``ctxlab.stores.redis_lua``): a reader whose cursor is in step is
told "nothing changed" by the mark alone, yet sees every change anyone makes.

Every scenario puts a reader in step (by its own write, or by a read), lets someone else
change the session, and asserts the reader's next sync brings exactly that change: another
ctxlab writer's append, a pop and an append that leave the length as it was, a summary
saved by another writer (the log untouched), a program pushing behind ctxlab's back (the
mark untouched), keys that expired and were written anew to the same length, the SDK's own
``RedisSession`` popping and appending on its layout, and another session object's turn
seen through ``get_items``. A first read by the log's ends takes in the cursor and its mark
only when the caller places it (``place_ends``, ``place_located``): placed, the reader is in
step and sees the next append in the caller's positions; not placed, its next sync reads
the whole log; and a summarizing session's bounded first read (the fold checkpoint) sees
another session's later turn. Then the deliberately broken fast paths: a read that skips
the store when it knows a mark, a shortcut by length alone, one by mark alone, a summary
write that sets no mark, marks trusted on the SDK's layout, and an ends read that takes in
the cursor before it is placed; each must fail the scenarios that guard what it breaks.
The scenarios run on a Redis server and on a Redis Cluster.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.core.partial_log import PartialLog
from ctxlab.stores import RedisStore
from ctxlab.stores import redis as redis_module
from ctxlab.stores.base import Delta
from ctxlab.stores.redis import RedisLog, RedisStateStore
from ctxlab.stores.redis_lua import CAS, SYNC

from conftest import arun, assistant, user
from store_backends import TIMEOUTS, conversation, turn

pytestmark = pytest.mark.redis

Scenario = Callable[[Any, str], Awaitable[None]]


def client_for(url: str, cluster: bool) -> Any:
    if cluster:
        from redis.asyncio.cluster import RedisCluster

        return RedisCluster.from_url(url, **TIMEOUTS)
    import redis.asyncio as aioredis

    return aioredis.from_url(url, **TIMEOUTS)


def fresh(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def caught_up(known: list[Any], delta: Delta) -> list[Any]:
    """The reader's items after applying ``delta``."""
    return [*known[: delta.keep], *delta.items]


START = [user("q0"), assistant("a0")]


async def in_step(client: Any, prefix: str, by: str) -> tuple[RedisStore, RedisLog]:
    """A session holding START and a reader in step with it: it wrote START itself
    (``by="write"``) or read it (``by="read"``)."""
    store = RedisStore(fresh("mark"), client=client, key_prefix=prefix)
    reader = store.log()
    if by == "write":
        await reader.append(START)
    else:
        await store.log().append(START)
        assert caught_up([], await reader.sync()) == START
    quiet = await reader.sync()  # nothing changed: answered by the mark
    assert quiet.keep == 2 and quiet.items == [] and quiet.state is None, \
        "an in-step reader was told of a change nobody made"
    return store, reader


async def another_writer_appends(client: Any, prefix: str) -> None:
    for by in ("write", "read"):
        store, reader = await in_step(client, prefix, by)
        await store.log().append([user("q1")])
        delta = await reader.sync()
        assert caught_up(START, delta) == [*START, user("q1")], \
            f"a reader in step by its own {by} missed another writer's append"


async def a_pop_and_an_append_keep_the_length(client: Any, prefix: str) -> None:
    store, reader = await in_step(client, prefix, "write")
    other = store.log()
    await other.sync()
    await other.pop()
    await other.append([user("instead")])
    delta = await reader.sync()
    assert caught_up(START, delta) == [user("q0"), user("instead")], \
        "a pop and an append by another writer (same length) were missed"


async def another_writer_saves_a_summary(client: Any, prefix: str) -> None:
    store, reader = await in_step(client, prefix, "write")
    other = store.log()
    version = (await other.state.load()).version
    assert await other.state.compare_and_set(version, {"summary": "s"}) is not None
    delta = await reader.sync()
    assert delta.state is not None and delta.state.data == {"summary": "s"}, \
        "a summary another writer saved (the log untouched) was missed"


async def a_program_pushes_behind_ctxlabs_back(client: Any, prefix: str) -> None:
    store, reader = await in_step(client, prefix, "write")
    pushed = user("pushed")
    await client.rpush(store.keys.messages, json.dumps(pushed))  # no mark set
    delta = await reader.sync()
    assert caught_up(START, delta) == [*START, pushed], \
        "an item another program pushed straight into the list was missed"


async def expired_and_written_anew(client: Any, prefix: str) -> None:
    store, reader = await in_step(client, prefix, "write")
    for key in store.keys.all():  # what a ttl does to every key of the session
        await client.delete(key)
    anew = [user("new q0"), assistant("new a0")]
    await store.log().append(anew)  # same length, epoch and version as before
    delta = await reader.sync()
    assert caught_up(START, delta) == anew, \
        "a session that expired and was written anew read as the old one"


async def the_sdk_pops_and_appends_on_its_layout(client: Any, prefix: str) -> None:
    from agents.extensions.memory import RedisSession

    sdk = RedisSession(fresh("sdk"), redis_client=client, key_prefix=prefix)
    reader = RedisLog(sdk)
    await reader.append(START)
    assert (await reader.sync()).items == []
    await sdk.pop_item()
    await sdk.add_items([user("sdk")])  # the SDK sets no mark; the length is as it was
    delta = await reader.sync()
    assert caught_up(START, delta) == [user("q0"), user("sdk")], \
        "the SDK's own pop and append on its layout were missed"


async def another_sessions_turn_through_get_items(client: Any, prefix: str) -> None:
    sid = fresh("turns")
    mine = TrimmingSession(sid, store=RedisStore(sid, client=client, key_prefix=prefix),
                           max_turns=5)
    theirs = TrimmingSession(sid, store=RedisStore(sid, client=client, key_prefix=prefix),
                             max_turns=5)
    await mine.add_items(START)
    assert await mine.get_items() == START
    await theirs.add_items([user("q1"), assistant("a1")])
    assert await mine.get_items() == [*START, user("q1"), assistant("a1")], \
        "get_items missed another session object's turn"


LONG = conversation(30)  # 120 items: more than a first read's ends (16 + 64)


async def a_located_read_then_an_append(client: Any, prefix: str) -> None:
    store = RedisStore(fresh("ends"), client=client, key_prefix=prefix)
    await store.log().append(LONG)
    reader = store.log()
    ends = await reader.read_ends(2, 3, locate=True)
    assert ends is not None and not ends.complete and ends.tail_start == len(LONG) - 3
    reader.place_located(2, 0, ends.tail_start - 2)  # (the middle as its true length)
    quiet = await reader.sync()
    assert quiet.keep == len(LONG) and quiet.items == [], \
        "a reader placed after a located read missed nothing yet was told of a change"
    await store.log().append([user("q1")])
    delta = await reader.sync()
    assert (delta.keep, delta.items) == (len(LONG), [user("q1")]), \
        "a reader placed after a located read missed another writer's append"


async def an_ends_read_not_yet_placed(client: Any, prefix: str) -> None:
    store = RedisStore(fresh("ends"), client=client, key_prefix=prefix)
    await store.log().append(LONG)
    reader = store.log()
    for locate in (False, True):
        ends = await reader.read_ends(2, 3, locate=locate)
        assert ends is not None and not ends.complete
        delta = await reader.sync()  # (not placed: the caller's index holds nothing)
        assert caught_up([], delta) == LONG, \
            "a sync after an ends read that was not placed missed the log"
        reader.reset_cursor()


async def a_turn_after_a_checkpoint_read(client: Any, prefix: str) -> None:
    sid, settings = fresh("fold"), {"keep_last_n_turns": 2, "context_limit": 4}

    def opened() -> SummarizingSession:
        return SummarizingSession(store=RedisStore(sid, client=client, key_prefix=prefix),
                                  **settings)

    writer = opened()
    await writer.store.append(LONG)
    for batch in turn(30):
        await writer.add_items(batch)
    assert writer.summary is not None
    mine = opened()
    await mine.get_items()
    assert isinstance(mine._log, PartialLog), "the first read did not use the checkpoint"
    assert await mine.get_items() == await writer.get_items()
    theirs = opened()
    for batch in turn(31, "later"):
        await theirs.add_items(batch)
    assert await mine.get_items() == await theirs.get_items(), \
        "a session read by its fold checkpoint missed another session's turn"


SCENARIOS: dict[str, Scenario] = {
    "another writer appends": another_writer_appends,
    "a pop and an append keep the length": a_pop_and_an_append_keep_the_length,
    "another writer saves a summary": another_writer_saves_a_summary,
    "a program pushes behind ctxlab's back": a_program_pushes_behind_ctxlabs_back,
    "expired and written anew": expired_and_written_anew,
    "the SDK pops and appends on its layout": the_sdk_pops_and_appends_on_its_layout,
    "another session's turn through get_items": another_sessions_turn_through_get_items,
    "a located read then an append": a_located_read_then_an_append,
    "an ends read not yet placed": an_ends_read_not_yet_placed,
    "a turn after a checkpoint read": a_turn_after_a_checkpoint_read,
}

#: The SDK's RedisSession refuses cluster clients.
ON_A_CLUSTER = [name for name in SCENARIOS if "SDK" not in name]


def run(scenario: str, url: str, cluster: bool = False) -> None:
    async def go() -> None:
        client = client_for(url, cluster)
        try:
            await SCENARIOS[scenario](client, fresh("mark"))
        finally:
            await client.aclose()

    arun(go())


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_an_in_step_reader_sees_every_change(scenario, redis_url):
    run(scenario, redis_url)


@pytest.mark.parametrize("scenario", ON_A_CLUSTER)
def test_an_in_step_reader_sees_every_change_on_a_cluster(scenario, redis_cluster_url):
    run(scenario, redis_cluster_url, cluster=True)


def test_an_in_step_read_is_answered_by_the_mark(redis_url, monkeypatch):
    """The fast path exists: an in-step read gets the one-integer reply (no items, no
    state), a read after another writer's append the full one."""
    replies: list[Any] = []
    run_script = RedisStateStore.run

    async def recording(self: Any, script: Any, keys: Any, args: Any) -> Any:
        reply = await run_script(self, script, keys, args)
        replies.append(reply)
        return reply

    monkeypatch.setattr(RedisStateStore, "run", recording)

    async def go() -> None:
        client = client_for(redis_url, False)
        try:
            store, reader = await in_step(client, fresh("mark"), "write")
            replies.clear()
            await reader.sync()
            assert replies == [1], f"an in-step read was answered {replies}"
            await store.log().append([user("q1")])
            replies.clear()
            await reader.sync()
            assert len(replies) == 1 and isinstance(replies[0], list), \
                "a read after another writer's append was not answered in full"
        finally:
            await client.aclose()

    arun(go())


# ------------------------------------------------------------ deliberately broken fast paths


def skip_the_store(monkeypatch: Any) -> None:
    """A read that trusts the mark it knows and asks the store nothing."""
    sync = RedisLog._sync

    async def trusting(self: RedisLog) -> Delta:
        if self._mark is not None:
            return Delta(self._length - self._shift, [], None)
        return await sync(self)

    monkeypatch.setattr(RedisLog, "_sync", trusting)


def shortcut(condition: str) -> Callable[[Any], None]:
    """SYNC answering "nothing changed" on ``condition`` instead of mark and length."""
    right = "if mark == ARGV[5] and len == known then return 1 end"
    assert right in SYNC

    def apply(monkeypatch: Any) -> None:
        monkeypatch.setattr(redis_module, "SYNC",
                            SYNC.replace(right, f"if {condition} then return 1 end"))

    return apply


def cas_sets_no_mark(monkeypatch: Any) -> None:
    """A summary write that changes the state but not the mark."""
    call = "touch()\nreturn {1, result()}"
    assert call in CAS
    monkeypatch.setattr(redis_module, "CAS", CAS.replace(call, "return {1, result()}"))


def marks_on_the_sdk_layout(monkeypatch: Any) -> None:
    """Marks trusted on the SDK's layout too, where the SDK's own writes set none."""
    init = RedisLog.__init__

    def marked(self: RedisLog, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self._marked = not self._blind

    monkeypatch.setattr(RedisLog, "__init__", marked)


def ends_taken_before_placed(monkeypatch: Any) -> None:
    """An ends read that takes in the length, last item and mark it read at once (before
    the caller places its cursor, or decides not to)."""
    read = RedisLog._ends_read

    async def eager(self: RedisLog, head: int, tail: int, *, locate: bool) -> Any:
        ends = await read(self, head, tail, locate=locate)
        self._length, _, self._last_raw, self._mark = self._ends_cursor
        return ends

    monkeypatch.setattr(RedisLog, "_ends_read", eager)


BROKEN: dict[str, tuple[Callable[[Any], None], list[str]]] = {
    "a read that skips the store": (skip_the_store, [
        "another writer appends", "a pop and an append keep the length",
        "another writer saves a summary", "a program pushes behind ctxlab's back",
        "expired and written anew", "another session's turn through get_items"]),
    "a shortcut by length alone": (shortcut("ARGV[5] ~= '' and len == known"), [
        "a pop and an append keep the length", "another writer saves a summary",
        "expired and written anew"]),
    "a shortcut by mark alone": (shortcut("mark == ARGV[5]"), [
        "a program pushes behind ctxlab's back"]),
    "a summary write that sets no mark": (cas_sets_no_mark, [
        "another writer saves a summary"]),
    "marks trusted on the SDK's layout": (marks_on_the_sdk_layout, [
        "the SDK pops and appends on its layout"]),
    "an ends read that takes in the cursor before it is placed": (ends_taken_before_placed, [
        "an ends read not yet placed"]),
}


@pytest.mark.parametrize("variant", BROKEN)
def test_each_broken_fast_path_is_caught(variant, redis_url, monkeypatch):
    """Each broken variant fails every scenario that guards what it breaks (the correct
    code passed them above), with that scenario's own message."""
    apply, breaks = BROKEN[variant]
    apply(monkeypatch)
    for scenario in breaks:
        with pytest.raises(AssertionError) as failed:
            run(scenario, redis_url)
        assert "missed" in str(failed.value) or "read as the old one" in str(failed.value), \
            f"{scenario} failed {variant!r} for another reason: {failed.value}"
