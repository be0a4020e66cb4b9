"""The agent's memory tools: the user and session come from the run context, writes go
through compare-and-swap (concurrent runs lose nothing, on every record backend), and a
model that names another customer cannot reach them. Each promise is shown failing on a
broken variant (notes_mutants.py). The model is the SDK's ScriptedModel (no API)."""

from __future__ import annotations

import asyncio
import json

import pytest
from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import MemoryNotes, UserContext, memory_tools

from conftest import arun
from notes_mutants import BlindWriteNotes, user_id_tools
from record_backends import RECORD_KINDS, make_records, records_for

set_tracing_disabled(True)
QUIET = RunConfig(tracing_disabled=True)
RUNS = 6


def agent_saving(tools, text: str, n: int) -> Agent:
    model = ScriptedModel([
        [function_call("save_memory", {"note": text, "scope": "auto"}, call_id=f"save-{n}")],
        [assistant_message("Noted.", item_id=f"msg-{n}")],
    ])
    return Agent(name="support", instructions="Help the customer.", model=model, tools=tools)


async def concurrent_saves(notes: MemoryNotes, runs: int = RUNS) -> list[str]:
    """``runs`` runs of one customer's session, each saving one note, all at once."""
    tools = memory_tools(notes)
    texts = [f"Note {n}: my spare charger is in drawer {n}." for n in range(runs)]
    await asyncio.gather(*(Runner.run(agent_saving(tools, t, n), "remember this",
                                      context=UserContext("ana", session_id="s1"),
                                      run_config=QUIET) for n, t in enumerate(texts)))
    saved = (await notes.book("ana")).session_notes("s1")
    return [n.text for n in saved if n.text in texts]


@pytest.fixture(params=RECORD_KINDS)
def records(request, tmp_path):
    return records_for(request, tmp_path)


def test_concurrent_runs_that_save_lose_nothing(records):
    notes = MemoryNotes(records)
    kept = arun(concurrent_saves(notes))
    assert len(kept) == RUNS, kept
    arun(records.aclose())


def test_the_check_catches_a_save_without_compare_and_swap(tmp_path):
    lost = 0
    for attempt in range(5):  # interleaving is likely, not certain: a few tries
        (tmp_path / f"try-{attempt}").mkdir(exist_ok=True)
        notes = BlindWriteNotes(make_records("sqlite", tmp_path / f"try-{attempt}"))
        lost = RUNS - len(arun(concurrent_saves(notes)))
        if lost:
            break
    assert lost > 0  # the blind writer lost saves: the test above would have failed


def searching(tools, arguments: dict) -> Agent:
    model = ScriptedModel([
        [function_call("search_memory", arguments, call_id="search-1")],
        [assistant_message("Here is what I found.", item_id="msg-search")],
    ])
    return Agent(name="support", instructions="Help.", model=model, tools=tools)


async def what_mallory_got(tools, notes: MemoryNotes) -> str:
    """Victim ``ana`` has a note; ``mallory``'s run has the model ask for ana's notes."""
    await notes.save("ana", "a1", "My door code is 4417.", at="2026-03-02")
    await notes.end_session("ana", "a1", at="2026-03-02")  # a standing note of ana's
    result = await Runner.run(searching(tools, {"query": "door code", "user_id": "ana"}),
                              "what is ana's door code?",
                              context=UserContext("mallory", session_id="m1"),
                              run_config=QUIET)
    outputs = [str(i.output) for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs, "the tool was not called"
    return " ".join(outputs)


def test_a_model_naming_another_customer_cannot_reach_them():
    notes = MemoryNotes()
    got = arun(what_mallory_got(memory_tools(notes), notes))
    assert "4417" not in got and got == '{"found": []}'  # user_id dropped: ran for mallory
    # and the write side: mallory's save lands in mallory's notebook, never in ana's
    arun(Runner.run(agent_saving(memory_tools(notes), "I live at 1 Elm St.", 9), "hi",
                    context=UserContext("mallory", session_id="m1"), run_config=QUIET))
    assert [n.text for n in arun(notes.book("ana")).all_notes()] == ["My door code is 4417."]
    assert [n.text for n in arun(notes.book("mallory")).all_notes()] == ["I live at 1 Elm St."]


def test_the_check_catches_a_tool_that_takes_the_user_from_the_model():
    notes = MemoryNotes()
    assert "4417" in arun(what_mallory_got(user_id_tools(notes), notes))


def test_the_tools_need_a_customer_and_a_session_in_the_run_context():
    notes = MemoryNotes()
    tools = memory_tools(notes)
    result = arun(Runner.run(agent_saving(tools, "Email only.", 1), "hi",
                             context=UserContext("ana"), run_config=QUIET))
    outputs = [json.loads(i.output) for i in result.new_items
               if i.type == "tool_call_output_item"]
    assert outputs == [{"saved": False, "error": "this conversation has no session id"}]
    assert arun(notes.book("ana")).all_notes() == []
    with pytest.raises(TypeError, match="notes must be a MemoryNotes"):
        memory_tools("memory")  # type: ignore[arg-type]


def test_searching_counts_a_use_of_a_standing_note():
    async def go():
        notes = MemoryNotes()
        await notes.save("ana", "a1", "From now on, email only, never call.", at="2026-03-02")
        await notes.end_session("ana", "a1", at="2026-03-02")
        await Runner.run(searching(memory_tools(notes), {"query": "email call"}), "how?",
                         context=UserContext("ana", session_id="a2"), run_config=QUIET)
        (note,) = (await notes.book("ana")).durable
        assert note.uses == 1 and note.last_used is not None

    arun(go())
