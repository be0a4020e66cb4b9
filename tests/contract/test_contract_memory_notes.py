"""Lesson 11's memory on both SDK model classes (Responses and Chat Completions), through the
fake OpenAI API that enforces the request rules: the memory tools' schemas, their calls and
outputs, and the notes in force injected by long-term memory's input filter are requests
both classes send and the API accepts. The LLM consolidator's structured request too."""

from __future__ import annotations

import json

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession
from test_contract_handoffs import check_bodies, model_on

from ctxlab import LLMConsolidator, LongTermMemory, MemoryNotes, UserContext, memory_tools
from ctxlab.course.backends import Backend

from conftest import arun
from contract_runs import KINDS
from openai_fake_api import BrainInput, FakeOpenAI, Reply


def model_of(fake: FakeOpenAI, kind: str):
    chosen = model_on(fake, kind)
    return chosen.model if isinstance(chosen, Backend) else chosen  # a backend: its model


def brain(request: BrainInput) -> Reply:
    """Saves what the customer says (save_memory), then answers from the tool's output."""
    if request.json_schema is not None:  # the consolidator: what the rules would propose
        data = json.loads(request.items[-1]["content"] if isinstance(
            request.items[-1]["content"], str) else request.items[-1]["content"][0]["text"])
        kept = [*data["durable"], *(n for n in data["session"] if n["scope"] == "durable")]
        return Reply(text=json.dumps({"durable": [{"id": n["id"], "text": n["text"]}
                                                  for n in kept]}))
    last = max(n for n, i in enumerate(request.items) if i.get("role") == "user"
               and not str(i.get("content")).startswith("Notes the customer"))
    outputs = [i for i in request.items[last:] if i.get("type") == "function_call_output"]
    if outputs:  # this turn's note is saved: answer
        return Reply(text=f"Saved: {outputs[-1]['output']}")
    said = request.items[last]
    text = said["content"] if isinstance(said["content"], str) else said["content"][0]["text"]
    return Reply(calls=(("save_memory", json.dumps({"note": text, "scope": "auto"})),))


@pytest.mark.parametrize("kind", KINDS)
def test_memory_tools_and_notes_in_force_on_both_model_classes(kind):
    fake = FakeOpenAI(brain=brain)
    notes = MemoryNotes()
    memory = LongTermMemory(notes.records, notes=notes)
    agent = Agent(name="support", instructions="Help the customer.",
                  model=model_of(fake, kind), tools=memory_tools(notes))
    me = UserContext("ana", session_id="day-1")

    async def go():
        session = SQLiteSession("notes")
        config = RunConfig(tracing_disabled=True, call_model_input_filter=memory.input_filter())
        await Runner.run(agent, "From now on, email only, never call.", session=session,
                         context=me, run_config=config)
        await Runner.run(agent, "Ship it to the hotel this time only.", session=session,
                         context=me, run_config=config)
        return await notes.book("ana")

    book = arun(go())
    assert [n.scope for n in book.session_notes("day-1")] == ["durable", "session"]
    bodies = check_bodies(fake, kind)
    sent = json.dumps(bodies[-1], ensure_ascii=False)
    assert "(this conversation) From now on, email only, never call." in sent  # in force


@pytest.mark.parametrize("kind", KINDS)
def test_the_llm_consolidators_request_is_accepted(kind):
    fake = FakeOpenAI(brain=brain)
    notes = MemoryNotes(consolidator=LLMConsolidator(fake.async_client(), "gpt-4.1-mini",
                                                     api=kind))

    async def go():
        await notes.save("ana", "s1", "From now on, email only.", at="2026-03-02")
        await notes.end_session("ana", "s1", at="2026-03-02")

    arun(go())
    assert [n.text for n in arun(notes.book("ana")).durable] == ["From now on, email only."]
    assert fake.rejections == [] and len(fake.requests) == 1
    assert notes.consolidator.calls == 1
