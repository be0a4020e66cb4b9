"""What the record stores' callers do when a write is refused rather than unavailable, on a
real SQLite file (a trigger added behind the store's back refuses every write; another
connection holding the write lock makes it unavailable):

* the hub surfaces :class:`RecordsRefusedError` at once: ``update`` does not retry it as a
  lost race, and the stored state is unchanged;
* long-term memory's background write logs and keeps it (class and store, no content), and
  the user's memory is unchanged;
* the memory tools tell the model it was refused and that retrying will not help (not the
  SDK's "Please try again"), or, when the store is unavailable, that it may retry later;
* the forget tool says a refused deletion is not done and must go to a person.

The first edition's classifier (every failure "unavailable") is shown failing the tools'
check: the model would be told to retry a write that can never land."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import MemoryNotes, UserContext, memory_tools
from ctxlab.hub import MemoryHub
from ctxlab.longterm import LongTermMemory
from ctxlab.longterm.tools import REFUSED_TEXT, UNAVAILABLE_TEXT
from ctxlab.memory import StatePatch
from ctxlab.records import RecordsRefusedError, RecordsUnavailableError, SQLiteRecords
from ctxlab.records import base as records_base

from conftest import arun, assistant, user

set_tracing_disabled(True)
QUIET = RunConfig(tracing_disabled=True)
SECRET = "my card is 4111 1111 1111 1111"
REFUSE_WRITES = "\n".join(
    f"CREATE TRIGGER refuse_{event} BEFORE {event} ON ctxlab_records "
    "BEGIN SELECT RAISE(ABORT, 'writes refused'); END;" for event in ("INSERT", "UPDATE"))


def refuse_writes(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.executescript(REFUSE_WRITES)


def test_the_hub_surfaces_a_refusal_without_retrying_and_keeps_the_state(tmp_path):
    path = tmp_path / "hub.db"
    hub = MemoryHub(SQLiteRecords(path))
    calls = []

    def change(state):
        calls.append(1)
        state.user.member_level = "gold"

    async def go():
        before = await hub.apply("u1", StatePatch(values={"issue.ticket_id": "TCK-1"}),
                                 agent="support")
        refuse_writes(path)
        with pytest.raises(RecordsRefusedError, match="refused to write record") as caught:
            await hub.update("u1", change, agent="sales")
        after = await hub.read("u1")
        return before, after, caught.value

    before, after, error = arun(go())
    assert len(calls) == 1 and hub.lost_races == 0  # not retried as a lost race
    assert (after.version, after.state) == (before.version, before.state)
    assert "Retrying will not help" in str(error)


def test_long_term_memory_logs_a_refused_background_write_and_keeps_the_memory(tmp_path,
                                                                                 caplog):
    path = tmp_path / "memory.db"
    memory = LongTermMemory(SQLiteRecords(path))
    first = [user("Hi, this is Dana Whitfield."), assistant("Hi Dana."),
             user("Please reach me by email only, never call."), assistant("Noted.")]
    later = [user(f"From now on call me, {SECRET}."), assistant("Noted.")]

    async def go():
        await memory.end_session("u1", first, session_id="s1", at="d1")
        await memory.drain()
        kept = await memory.get("u1")
        refuse_writes(path)
        with caplog.at_level(logging.ERROR):
            await memory.end_session("u1", later, session_id="s2", at="d2")
            await memory.drain()
        return kept, await memory.get("u1")

    kept, now = arun(go())
    assert now == kept
    (_, session, error), = memory.errors
    assert session == "s2" and isinstance(error, RecordsRefusedError)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "RecordsRefusedError" in logged and "s2" in logged, logged
    assert "4111" not in logged and "card" not in logged


def saving_agent(notes: MemoryNotes, text: str) -> Agent:
    model = ScriptedModel([
        [function_call("save_memory", {"note": text, "scope": "durable"}, call_id="save-1")],
        [assistant_message("Done.", item_id="msg-1")],
    ])
    return Agent(name="support", instructions="Help the customer.", model=model,
                 tools=memory_tools(notes))


def tool_answer(notes: MemoryNotes, text: str) -> dict:
    result = arun(Runner.run(saving_agent(notes, text), "remember this",
                             context=UserContext("ana", session_id="s1"), run_config=QUIET))
    (output,) = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    return json.loads(output)


def tools_tell_refusal_from_outage(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    notes = MemoryNotes(SQLiteRecords(path, busy_timeout=0.2))
    assert tool_answer(notes, "From now on, email only.")["saved"] is True
    kept = arun(notes.book("ana")).all_notes()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock: unavailable
    try:
        busy = tool_answer(notes, "From now on, no calls.")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert busy == {"saved": False, "error": UNAVAILABLE_TEXT, "retry": True}, busy
    refuse_writes(path)
    refused = tool_answer(notes, f"From now on, {SECRET}.")
    assert refused == {"saved": False, "error": REFUSED_TEXT, "retry": False}, refused
    assert arun(notes.book("ana")).all_notes() == kept


def test_the_memory_tools_tell_the_model_a_refusal_from_an_outage(tmp_path):
    tools_tell_refusal_from_outage(tmp_path)


def test_the_check_catches_the_old_everything_unavailable_classifier(tmp_path, monkeypatch):
    monkeypatch.setattr(records_base, "classify_backend_error", lambda exc: "unavailable")
    with pytest.raises(AssertionError, match="retry': True"):
        tools_tell_refusal_from_outage(tmp_path)
    assert issubclass(RecordsRefusedError, records_base.RecordError)
    assert not issubclass(RecordsRefusedError, RecordsUnavailableError)


def test_a_refused_deletion_is_reported_as_not_done_and_not_to_retry(tmp_path):
    from ctxlab.longterm import forget_me_tool
    from ctxlab.longterm.forget import FORGET_REFUSED

    path = tmp_path / "forget.db"
    memory = LongTermMemory(SQLiteRecords(path))
    tool = forget_me_tool(memory=memory)
    model = ScriptedModel([[function_call("delete_my_data", {}, call_id="forget-1")],
                           [assistant_message("Sorry.", item_id="msg-1")]])
    agent = Agent(name="support", instructions="Help.", model=model, tools=[tool])

    async def go():
        await memory.write_session("zoe", [user("Hi, this is Zoe Park."), assistant("Hi.")],
                                   session_id="s1", at="d1")
        kept = await memory.get("zoe")
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TRIGGER keep BEFORE DELETE ON ctxlab_records "
                         "BEGIN SELECT RAISE(ABORT, 'deletes refused'); END")
        result = await Runner.run(agent, "Delete my data.", context=UserContext("zoe"),
                                  run_config=QUIET)
        (output,) = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
        return kept, await memory.get("zoe"), json.loads(output)

    kept, now, answer = arun(go())
    assert answer == {"deleted": False, "error": FORGET_REFUSED, "retry": False}, answer
    assert now == kept  # the transaction was rolled back: nothing half-deleted
