"""Long-term memory for one user: what is written, when (off the hot path), how it is
recalled, and isolation between users on every record backend."""

from __future__ import annotations

import asyncio

import pytest
from agents import RunConfig, Runner, SQLiteSession, set_tracing_disabled

from ctxlab.core.memory_frame import MEMORY_HEADINGS, is_memory_block
from ctxlab.course.team import OfflineTeamModel, make_support_team
from ctxlab.longterm import LongTermMemory, UserMemory, consolidate, informative
from ctxlab.memory import RuleBasedStateExtractor
from ctxlab.records import InvalidUserIdError, UnknownUserError
from ctxlab.records.users import MissingUserError, UserContext

from conftest import arun, assistant, user
from record_backends import RECORD_KINDS, records_for

set_tracing_disabled(True)

DAY_ONE = [
    user("Hi, this is Dana Whitfield. You can reach me at dana.whitfield@example.com."),
    assistant("Hi Dana, what can I do for you?"),
    user("My laptop gets very hot and the fan never stops. The screen says error E4411."),
    assistant("Sorry to hear that. What's the serial number?"),
    user("Sure, the serial is C02XK7ML9Q4."),
    assistant("Thanks. I'll send the replacement label by Friday."),
    user("Please reach me by email only, never call."),
    assistant("Noted."),
    user("I live in Leeds, and I dropped the laptop off at the FixIt repair shop on Park Row."),
    assistant("Good to know."),
    user("What was my ticket number again?"),
    assistant("I don't see one yet."),
]


@pytest.fixture(params=RECORD_KINDS)
def memory(request, tmp_path):
    return LongTermMemory(records_for(request, tmp_path))


def test_a_session_is_written_as_profile_preferences_commitments_cases_and_notes():
    memory = arun(consolidate(UserMemory(user_id="u1"), DAY_ONE, session_id="s1",
                              at="2025-03-02"))
    assert memory.profile.email == "dana.whitfield@example.com"
    assert memory.profile.name == "Dana Whitfield"
    assert [p.text for p in memory.preferences] == ["Please reach me by email only, never call."]
    assert memory.preferences[0].session == "s1" and memory.preferences[0].at == "2025-03-02"
    assert [c.text for c in memory.commitments] == ["I'll send the replacement label by Friday."]
    assert memory.cases[0].serial == "C02XK7ML9Q4" and memory.cases[0].error_codes == ["E4411"]
    notes = [n.text for n in memory.notes]
    assert any("FixIt repair shop" in n for n in notes)
    assert "What was my ticket number again?" not in notes  # a bare question says nothing
    assert [s.session for s in memory.sessions] == ["s1"]
    again = arun(consolidate(memory, DAY_ONE, session_id="s1", at="2025-03-02"))
    assert again == memory  # writing the same session twice changes nothing


def test_a_later_session_revises_preferences_and_closes_promises():
    first = arun(consolidate(UserMemory(user_id="u1"), DAY_ONE, session_id="s1", at="d1"))
    later = [user("Change of plans: calls are fine now, but only after 5 pm."),
             assistant("Noted. I've sent the replacement label this morning."),
             user("Great, the laptop serial is still C02XK7ML9Q4 and now shows error E5000.")]
    second = arun(consolidate(first, later, session_id="s2", at="d4"))
    assert [p.text for p in second.preferences] == [
        "Change of plans: calls are fine now, but only after 5 pm."]
    assert second.commitments == []  # the label was sent in session 2
    assert len(second.cases) == 1 and second.cases[0].error_codes == ["E4411", "E5000"]
    assert [s.session for s in second.sessions] == ["s1", "s2"]


def test_informative_keeps_statements_and_drops_small_talk():
    assert informative("I dropped it off at the FixIt shop on Park Row.")
    assert informative("My serial is C02XK7ML9Q4")
    assert informative("我住在杭州，上周把电脑送到了文三路的维修店。")
    assert not informative("Okay, thanks.")
    assert not informative("Is that shop I mentioned open on Saturday?")
    assert not informative("好的")


def test_end_session_returns_before_the_write_and_drain_waits_for_it(memory):
    release = asyncio.Event()

    class Slow(RuleBasedStateExtractor):
        async def extract(self, items, *, state=None, turn=None):
            await release.wait()
            return await super().extract(items, state=state, turn=turn)

    memory.extractor = Slow()

    async def go():
        task = await memory.end_session("u1", DAY_ONE, session_id="s1", at="d1")
        assert not task.done() and memory.pending == 1  # the caller did not wait for it
        with pytest.raises(UnknownUserError, match="holds nothing for user 'u1'"):
            await memory.get("u1")
        release.set()
        await memory.drain()
        assert memory.pending == 0 and (await memory.get("u1")).profile.name == "Dana Whitfield"
        await memory.aclose()

    arun(go())


def test_two_sessions_of_one_user_ending_together_both_land(memory):
    other = [user("My printer jams on every second page, serial F4KZZ9911QQ."),
             assistant("Let's fix that.")]

    async def go():
        await asyncio.gather(memory.end_session("u1", DAY_ONE, session_id="s1", at="d1"),
                             memory.end_session("u1", other, session_id="s2", at="d1"))
        await memory.drain()
        stored = await memory.get("u1")
        assert sorted(s.session for s in stored.sessions) == ["s1", "s2"]
        assert {c.serial for c in stored.cases} == {"C02XK7ML9Q4", "F4KZZ9911QQ"}
        assert memory.errors == []
        await memory.aclose()

    arun(go())


def test_recall_puts_the_structured_memory_first_and_finds_the_long_tail(memory):
    async def go():
        assert (await memory.recall("u1", "anything")).known is False
        await memory.write_session("u1", DAY_ONE, session_id="s1", at="2025-03-02")
        found = await memory.recall("u1", "Is that shop I mentioned open on Saturdays?")
        text = found.text()
        assert found.known and text.startswith("Long-term memory of this customer")
        assert text.index("email dana.whitfield@example.com") < text.index("FixIt")
        assert [n.text for n, _ in found.notes] == [
            "I live in Leeds, and I dropped the laptop off at the FixIt repair shop on Park Row."]
        plain = await memory.recall("u1", "")
        assert plain.notes == () and "C02XK7ML9Q4" in plain.text()
        message = found.message()
        assert message["role"] == "user" and is_memory_block(message)  # data, not orders
        assert message["content"].startswith(
            f"{MEMORY_HEADINGS['en']} the customer's earlier sessions, as of 2025-03-02\n")
        await memory.aclose()

    arun(go())


def test_users_never_see_each_other(memory):
    users = [f"user-{n}" for n in range(50)]

    async def go():
        async def write(n: int, name: str) -> None:
            items = [user(f"Hi, reach me at person{n}@example.com. My serial is "
                          f"C02AA{n:05d}X."), assistant("Noted.")]
            await memory.write_session(name, items, session_id=f"s-{n}", at="d1")

        await asyncio.gather(*(write(n, u) for n, u in enumerate(users)))
        assert sorted(await memory.users()) == sorted(users)
        for n, name in enumerate(users):
            text = (await memory.recall(name, "serial email")).text()
            assert f"person{n}@example.com" in text
            others = [f"person{k}@example.com" for k in range(50) if k != n]
            assert not any(o in text for o in others)
        for bad in ("dana@example.com", "../u1", "u1:memory", "*", "", "x" * 300):
            with pytest.raises(InvalidUserIdError):
                await memory.recall(bad, "x")
            with pytest.raises(InvalidUserIdError):
                await memory.write_session(bad, DAY_ONE, session_id="s", at="d")
        assert sorted(await memory.users()) == sorted(users)  # nothing stored for them
        await memory.aclose()

    arun(go())


def test_the_input_filter_injects_for_the_runs_user_and_stores_nothing(tmp_path):
    memory = LongTermMemory(str(tmp_path / "m.db"))
    agent = make_support_team(OfflineTeamModel())["support"]
    config = RunConfig(call_model_input_filter=memory.input_filter())

    async def go():
        await memory.write_session("u1", DAY_ONE, session_id="s1", at="2025-03-02")
        session = SQLiteSession("new")
        reply = await Runner.run(agent, "Which serial number did I give you?", session=session,
                                 context=UserContext("u1"), run_config=config)
        assert "C02XK7ML9Q4" in reply.final_output
        stored = await session.get_items()
        assert len(stored) == 2 and "Long-term memory" not in str(stored)
        stranger = await Runner.run(agent, "Which serial number did I give you?",
                                    context=UserContext("u2"), run_config=config)
        assert "C02XK7ML9Q4" not in stranger.final_output
        with pytest.raises(MissingUserError):
            await Runner.run(agent, "hello", run_config=config)

    arun(go())


def test_bad_arguments_get_clear_errors():
    with pytest.raises(ValueError, match="notes_k"):
        LongTermMemory(notes_k=-1)
    with pytest.raises(ValueError, match="threshold"):
        LongTermMemory(threshold=2)
    memory = LongTermMemory()

    async def go():
        with pytest.raises(ValueError, match="needs session_id="):
            await memory.end_session("u1", DAY_ONE)
        with pytest.raises(TypeError, match="query must be a str"):
            await memory.recall("u1", None)
        task = await memory.end_session("u1", 42, session_id="s1")
        assert await task is None and "needs the session's items" in str(memory.errors[0][2])

    arun(go())


def test_a_request_for_this_session_only_never_becomes_a_standing_one():
    async def go():
        memory = LongTermMemory()
        chat = [user("Please don't call me this time only, I'm in a meeting."),
                assistant("Understood."),
                user("And never ship to the parcel locker, from now on."), assistant("Noted."),
                user("这次别打电话，发短信就行。"), assistant("好的。")]
        stored = await memory.write_session("ana", chat, session_id="s1", at="2026-03-02")
        kept = [p.text for p in stored.preferences]
        assert any("parcel locker" in text for text in kept), kept
        assert not any("meeting" in text or "这次" in text for text in kept), kept

    arun(go())
