"""RunConfig.session_input_callback: how the SDK merges history and new input, what it
stores (the new input and anything the callback adds), retry_once (a re-sent message is
kept once), and the pitfall of injecting memory there (copies pile up in the session)."""

from __future__ import annotations

from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message

from ctxlab import LongTermMemory, MemoryNotes, UserContext
from ctxlab.course.pitfalls import recall_in_session_input
from ctxlab.longterm.session_input import retry_once, stored_copies

from conftest import arun, assistant, user

set_tracing_disabled(True)
QUESTION = "Where is my parcel?"


def agent(n: int) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel([[assistant_message("It is on its way.", item_id=f"m{n}")]])
    return Agent(name="support", instructions="Help.", model=model), model


def resent(callback) -> tuple[list, list]:
    """The message failed once (stored, no reply) and is sent again."""
    async def go():
        session = SQLiteSession("retry")
        await session.add_items([user("Hi"), assistant("Hello!"), user(QUESTION)])
        bot, model = agent(1)
        await Runner.run(bot, QUESTION, session=session,
                         run_config=RunConfig(session_input_callback=callback))
        return await session.get_items(), model.calls[0].input

    return arun(go())


def test_without_a_callback_a_resent_message_is_stored_and_read_twice():
    stored, sent = resent(None)
    assert stored_copies(stored, QUESTION) == 2 and stored_copies(sent, QUESTION) == 2


def test_retry_once_keeps_the_resent_message_once():
    stored, sent = resent(retry_once)
    assert stored_copies(stored, QUESTION) == 1 and stored_copies(sent, QUESTION) == 1
    assert [i.get("role") for i in stored] == ["user", "assistant", "user", "assistant"]
    assert retry_once([user("a")], [user("b")]) == [user("a"), user("b")]  # a new message


def test_memory_injected_by_the_callback_piles_up_in_the_session():
    async def go():
        notes = MemoryNotes()
        memory = LongTermMemory(notes.records, notes=notes)
        for n, where in enumerate(("my office", "the Leeds office", "my home")):
            await notes.save("ana", f"s{n}", f"From now on ship to {where}.", at="2026-01-01")
            await notes.end_session("ana", f"s{n}", at="2026-01-01")
        wrong = SQLiteSession("wrong")
        right = SQLiteSession("right")
        for n in range(3):
            await notes.save("ana", "today", f"This time only, ship order {n} to the hotel.",
                             at="2026-02-01")  # the recollection changes every run
            bot, _ = agent(n)
            await Runner.run(bot, f"question {n}", session=wrong, run_config=RunConfig(
                session_input_callback=recall_in_session_input(memory, "ana", "today")))
            await Runner.run(bot.clone(model=agent(n)[1]), f"question {n}", session=right,
                             context=UserContext("ana", session_id="today"),
                             run_config=RunConfig(call_model_input_filter=memory.input_filter()))
        head = "Notes the customer asked us to keep"
        assert stored_copies(await wrong.get_items(), head) == 3  # one per run, all read back
        assert stored_copies(await right.get_items(), head) == 0

    arun(go())
