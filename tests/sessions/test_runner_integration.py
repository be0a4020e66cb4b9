"""TrimmingSession under the real Agents SDK Runner, with the SDK's own ScriptedModel."""

from __future__ import annotations

import json

import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import TrimmingSession, item_text, segment_turns, validate_items

from conftest import arun
from fakes import run_turns

set_tracing_disabled(True)

CUSTOMERS = {"SN-100": "covered until 2027-03-01", "SN-200": "expired"}


@function_tool
def check_warranty(serial: str) -> str:
    """Warranty status for a device serial number."""
    return json.dumps({"serial": serial, "warranty": CUSTOMERS.get(serial, "unknown")})


def script(turns: int) -> list:
    """Per user turn: one tool call (ids unique across the conversation), then a reply."""
    steps = []
    for t in range(turns):
        serial = "SN-100" if t % 2 == 0 else "SN-200"
        steps.append([function_call("check_warranty", {"serial": serial}, call_id=f"call_{t}")])
        steps.append([assistant_message(f"Turn {t}: {serial} checked.", item_id=f"msg_{t}")])
    return steps


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_runner_sees_only_the_last_turns(streamed):
    turns, keep = 6, 2
    model = ScriptedModel(script(turns))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[check_warranty])
    session = TrimmingSession("runner", max_turns=keep)

    async def go():
        await run_turns(agent, session, turns, streamed)
        model.assert_complete()

        raw = await session.raw_items()
        assert len(raw) == turns * 4  # user, function_call, function_call_output, assistant
        assert len(segment_turns(raw).turns) == turns
        for i, call in enumerate(model.calls):
            sent = call.input
            assert validate_items(sent, check_keys=False) == []
            users = [item_text(it) for it in sent if it.get("role") == "user"]
            t = i // 2
            # get_items runs once per run: the previous `keep` turns, then the new question
            assert users == [f"question {k}" for k in range(max(0, t - keep), t + 1)]

        view = await session.get_items()
        assert validate_items(view) == []
        assert [item_text(it) for it in view if it.get("role") == "user"] == [
            f"question {k}" for k in range(turns - keep, turns)]
        ledger = await session.ledger()
        assert ledger.counts()["dropped"] == (turns - keep) * 4

    arun(go())


def test_first_model_call_of_a_turn_gets_window_plus_new_input():
    model = ScriptedModel(script(4))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[check_warranty])
    session = TrimmingSession("runner2", max_turns=1)

    async def go():
        for t in range(4):
            await Runner.run(agent, f"question {t}", session=session)
        first_call_of_last_turn = model.calls[6].input
        users = [item_text(it) for it in first_call_of_last_turn if it.get("role") == "user"]
        assert users == ["question 2", "question 3"]
        kinds = [it.get("type", "message") for it in first_call_of_last_turn]
        assert kinds == ["message", "function_call", "function_call_output", "message",
                         "message"]

    arun(go())


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_summarizing_session_under_the_runner(streamed):
    from ctxlab import SummarizingSession

    turns = 6
    model = ScriptedModel(script(turns))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[check_warranty])
    session = SummarizingSession(keep_last_n_turns=1, context_limit=2, session_id="sum-run")

    async def go():
        await run_turns(agent, session, turns, streamed)
        model.assert_complete()
        for call in model.calls:
            assert validate_items(call.input, check_keys=False) == []
        last = model.calls[-2].input  # first call of the last turn: summary pair, then turns
        assert item_text(last[0]).startswith("Please summarize")
        assert "question 0" in item_text(last[1])  # the summary reaches the model
        assert session.summary is not None and session.summary.turns[0] == 1
        assert len(await session.raw_items()) == turns * 4

    arun(go())
