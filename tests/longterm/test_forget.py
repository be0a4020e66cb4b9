"""Forgetting a user really deletes, in every store: long-term memory, the shared hub, the
session logs (read back from the files and the Redis server), and late background writes
cannot bring anything back. The agent does it with a tool instead of saying it can't."""

from __future__ import annotations

import asyncio

import pytest
from agents import RunConfig, Runner, SQLiteSession, set_tracing_disabled

from ctxlab import TrimmingSession
from ctxlab.course.team import OfflineTeamModel, make_support_team
from ctxlab.hub import MemoryHub
from ctxlab.longterm import LongTermMemory, forget_me_tool, forget_user
from ctxlab.memory import RuleBasedStateExtractor, StatePatch
from ctxlab.records import UnknownUserError
from ctxlab.records.users import UserContext

from conftest import arun, assistant, user
from record_backends import RECORD_KINDS, make_records, raw_dump

set_tracing_disabled(True)
EMAIL = "zq.private.4417@example.org"
CHAT = [user(f"Hi, I'm Zoe Quist, write to {EMAIL}. My serial is C02QQ4417ZQ."),
        assistant("Thanks Zoe."),
        user("I dropped the laptop at the FixIt shop on Park Row."), assistant("Noted.")]


@pytest.fixture(params=RECORD_KINDS)
def kind(request):
    return request.param


def stores(kind, tmp_path, request):
    url = request.getfixturevalue("redis_url") if kind == "redis" else None
    return make_records(kind, tmp_path, url)


def test_forget_user_deletes_memory_hub_and_sessions_and_leaves_nothing_readable(
        kind, tmp_path, request):
    records = stores(kind, tmp_path, request)
    memory, hub = LongTermMemory(records), MemoryHub(records)
    log = tmp_path / "sessions.db"

    async def go():
        session = SQLiteSession("zoe-day-1", log)
        await session.add_items(CHAT)
        await memory.end_session("zoe", session)
        await memory.drain()
        await hub.apply("zoe", StatePatch(values={"user.email": EMAIL}), agent="support")
        await memory.write_session("bob", [user("I'm Bob, bob@example.org."),
                                           assistant("Hi Bob.")], session_id="bob-1", at="d")
        assert EMAIL.encode() in await raw_dump(records)
        report = await forget_user("zoe", memory=memory, hub=hub,
                                   open_session=lambda sid: SQLiteSession(sid, log))
        assert sum(report.records.values()) == 2  # the memory record and the hub state
        assert report.sessions == {"zoe-day-1": 4}
        assert "forgot user 'zoe'" in str(report)
        assert EMAIL.encode() not in await raw_dump(make_records(kind, tmp_path, getattr(
            records, "url", None)) if kind == "memory" else records)
        assert EMAIL.encode() not in log.read_bytes() + (
            (tmp_path / "sessions.db-wal").read_bytes()
            if (tmp_path / "sessions.db-wal").exists() else b"")
        assert await SQLiteSession("zoe-day-1", log).get_items() == []
        assert "bob" in await memory.users()  # another user is untouched
        with pytest.raises(UnknownUserError, match="nothing is stored for user 'zoe'"):
            await forget_user("zoe", memory=memory, hub=hub)
        await memory.aclose()

    arun(go())


def test_a_memory_store_holds_no_trace_after_forgetting():
    memory = LongTermMemory()

    async def go():
        await memory.write_session("zoe", CHAT, session_id="s1", at="d")
        await forget_user("zoe", memory=memory)
        dump = memory.records.dump()  # type: ignore[attr-defined]
        assert EMAIL not in dump and "zoe" not in dump and "FixIt" not in dump

    arun(go())


def test_forgetting_an_unknown_user_changes_nothing(tmp_path):
    memory = LongTermMemory(str(tmp_path / "m.db"))

    async def go():
        await memory.write_session("bob", CHAT, session_id="s1", at="d")
        with pytest.raises(UnknownUserError, match=r"nothing is stored for user 'nobody'.*"
                                                   r"nothing was deleted"):
            await forget_user("nobody", memory=memory,
                              sessions=[SQLiteSession("empty", tmp_path / "s.db")])
        with pytest.raises(UnknownUserError, match="holds nothing for user 'nobody'"):
            await memory.forget("nobody")
        assert (await memory.get("bob")).profile.email == EMAIL
        assert (await memory.records.get("nobody", "long-term")).epoch == 0  # no deletion ran

    arun(go())


def test_a_background_write_started_before_the_deletion_cannot_bring_the_user_back(tmp_path):
    path = str(tmp_path / "m.db")
    reading = asyncio.Event()
    release = asyncio.Event()

    class Slow(RuleBasedStateExtractor):
        async def extract(self, items, *, state=None, turn=None):
            reading.set()
            await release.wait()
            return await super().extract(items, state=state, turn=turn)

    writer = LongTermMemory(path, extractor=Slow())
    other_process = LongTermMemory(path)  # the deletion comes from elsewhere: no task to cancel

    async def go():
        await other_process.write_session("zoe", CHAT[:2], session_id="s0", at="d0")
        task = await writer.end_session("zoe", CHAT, session_id="s1", at="d1")
        await reading.wait()  # the write has read the record and is consolidating
        await forget_user("zoe", memory=other_process)
        release.set()
        assert await task is None  # refused: the user was deleted after it read
        with pytest.raises(UnknownUserError):
            await writer.get("zoe")
        assert writer.errors == []

    arun(go())


def test_pending_writes_of_the_same_process_are_cancelled(tmp_path):
    release = asyncio.Event()

    class Never(RuleBasedStateExtractor):
        async def extract(self, items, *, state=None, turn=None):
            await release.wait()
            return await super().extract(items, state=state, turn=turn)

    memory = LongTermMemory(str(tmp_path / "m.db"), extractor=Never())

    async def go():
        await memory.end_session("zoe", CHAT, session_id="s1", at="d1")
        report = await forget_user("zoe", memory=memory)
        assert report.cancelled_writes == 1 and memory.pending == 0
        release.set()
        await memory.drain()
        with pytest.raises(UnknownUserError):
            await memory.get("zoe")

    arun(go())


def test_the_agent_deletes_with_a_tool_instead_of_saying_it_cannot(tmp_path):
    memory = LongTermMemory(str(tmp_path / "m.db"))
    hub = MemoryHub(memory.records)
    sessions: dict[str, list] = {}

    def current(user_id: str) -> list:
        return sessions.get(user_id, [])

    tool = forget_me_tool(memory=memory, hub=hub, sessions_of=current,
                          open_session=lambda sid: TrimmingSession(sid, max_turns=4))
    team = make_support_team(OfflineTeamModel(), extra_tools=[tool])

    async def go():
        me = UserContext("zoe")
        await memory.write_session("zoe", CHAT, session_id="day-1", at="d1")
        today = TrimmingSession("today", max_turns=4)
        sessions["zoe"] = [today]
        await Runner.run(team["support"], f"My email is {EMAIL}.", session=today, context=me)
        result = await Runner.run(team["support"], "Please delete everything you know about me.",
                                  session=today, context=me)
        names = [getattr(i.raw_item, "name", None) for i in result.new_items]
        assert "delete_my_data" in names
        assert result.final_output.startswith("Done: I deleted everything we stored about you")
        with pytest.raises(UnknownUserError):
            await memory.get("zoe")
        kept = await today.raw_items()
        assert EMAIL not in str(kept)  # only the deletion receipt is left in the session
        sessions["zoe"] = []
        again = await Runner.run(team["support"], "Please delete my data.", context=me)
        assert "nothing to delete" in again.final_output
        zh = await Runner.run(team["support"], "请删除你们掌握的关于我的所有信息",
                              context=UserContext("nobody"))
        assert "没有保存您的任何信息" in zh.final_output
        plain = make_support_team(OfflineTeamModel())["support"]  # no tool: the honest refusal
        refusal = await Runner.run(plain, "Please delete everything you know about me.",
                                   context=me, run_config=RunConfig(tracing_disabled=True))
        assert "delete" in refusal.final_output.lower() and "Done" not in refusal.final_output

    arun(go())
