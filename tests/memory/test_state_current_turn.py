"""The state sent to the model covers the model input's current turn in every Runner mode.

``Runner.run`` stores the new input before the first model call; ``Runner.run_streamed``
stores it after. A state that only read what the session stored was one turn behind in
streamed runs (the customer's new email missing from the state sent with the very turn
that gave it). :meth:`StateMemory.message_for` reads the unstored part of the current turn
on a copy, so both modes send the same state, and nothing is read twice.
"""

from __future__ import annotations

import pytest
from agents import RunConfig, Runner, set_tracing_disabled

from ctxlab import ContextManager, StateMemory, TrimmingSession, item_text, make_support_agent
from ctxlab.memory import StatePatch

from conftest import arun, assistant, call, output, user

set_tracing_disabled(True)
MESSAGES = ["Hi, my ticket is TCK-48213.", "My serial is SN-4Q7K-22981.",
            "Thanks. My new email is a.b@example.com"]


def sent_state(manager: ContextManager) -> str | None:
    last = manager.last
    assert last is not None
    return next((item_text(item) for item, section in zip(last.items, last.item_sections,
                                                          strict=True)
                 if section == "structured_state"), None)


async def converse(streamed: bool) -> tuple[list[str | None], StateMemory, TrimmingSession]:
    session = TrimmingSession(f"state-{streamed}", max_turns=2)
    memory = StateMemory(session=session)
    manager = ContextManager(8000, state=memory, session=session)
    config = RunConfig(call_model_input_filter=manager, tracing_disabled=True)
    agent = make_support_agent()
    states = []
    for message in MESSAGES:
        if streamed:
            result = Runner.run_streamed(agent, message, session=session, run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            await Runner.run(agent, message, session=session, run_config=config)
        states.append(sent_state(manager))
    return states, memory, session


def test_streamed_and_plain_runs_send_the_same_state_with_the_current_turn_in_it():
    plain, _, _ = arun(converse(streamed=False))
    streamed, _, _ = arun(converse(streamed=True))
    assert streamed == plain
    assert "as of turn 3" in streamed[-1] and "a.b@example.com" in streamed[-1]
    assert "TCK-48213" in streamed[0] and "as of turn 1" in streamed[0]


def test_the_preview_changes_nothing_and_the_stored_turn_is_read_once():
    _, memory, _ = arun(converse(streamed=True))
    assert memory.state.user.email is None  # the streamed last turn was only previewed
    arun(memory.sync())
    assert memory.state.user.email == "a.b@example.com" and memory.state.turn == 3
    emails = [c for _, c in memory.changes if c.field == "user.email"]
    assert len(emails) == 1


class CountingExtractor:
    """Counts calls; finds nothing (stands in for an LLM extractor, which costs a call)."""

    def __init__(self) -> None:
        self.calls = 0

    async def extract(self, items, *, state=None, turn=None):
        self.calls += 1
        return StatePatch()


@pytest.mark.parametrize(("stored", "current", "reads"), [
    ([], [user("q1")], True),                                   # nothing stored yet
    ([user("q1")], [user("q1")], False),                        # the turn is stored
    ([user("q1")], [user("q1"), call("c1"), output("c1")], True),  # its tool round is not
    ([user("q0"), assistant("a0")], [user("q1")], True),        # a new turn, not stored
])
def test_only_the_unstored_part_of_the_current_turn_is_read(stored, current, reads):
    async def go():
        session = TrimmingSession("unstored", max_turns=4)
        if stored:
            await session.add_items(stored)
        extractor = CountingExtractor()
        memory = StateMemory(extractor, session=session, include_unstored=True)
        await memory.sync()
        before = extractor.calls
        await memory.message_for(current)
        return extractor.calls - before

    assert (arun(go()) > 0) == reads


def test_a_model_extractor_is_not_called_twice_unless_asked():
    extractor = CountingExtractor()
    assert StateMemory(extractor).include_unstored is False
    assert StateMemory().include_unstored is True

    async def go():
        session = TrimmingSession("llm", max_turns=4)
        memory = StateMemory(extractor, session=session)
        await memory.message_for([user("My email is a@b.co")])
        return extractor.calls

    assert arun(go()) == 0


def test_a_failing_preview_still_sends_the_stored_state():
    class Failing(CountingExtractor):
        async def extract(self, items, *, state=None, turn=None):
            if any(item.get("role") == "user" and "boom" in item.get("content", "")
                   for item in items):
                raise RuntimeError("extractor down")
            return StatePatch()

    async def go():
        session = TrimmingSession("fail", max_turns=4)
        await session.add_items([user("My ticket is TCK-48213."), assistant("Noted.")])
        memory = StateMemory(session=session)
        await memory.sync()
        memory.extractor = Failing()
        memory.include_unstored = True
        return await memory.message_for([user("boom")]), memory

    message, memory = arun(go())
    assert message is not None and "TCK-48213" in item_text(message)
    assert memory.state.issue.ticket_id == "TCK-48213"
