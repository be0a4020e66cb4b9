"""The token tail, a token-triggered summarizing session with a bounded summarizer input, and
a ContextManager whose current turn is over its budget, under the real Agents SDK Runner
(``Runner.run`` and ``Runner.run_streamed``, the SDK's own ScriptedModel)."""

from __future__ import annotations

import json
import warnings

import pytest
from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import (
    ContextManager,
    SummarizingSession,
    TokenTailSession,
    count_items_tokens,
    item_text,
    validate_items,
)

from conftest import arun
from fakes import run_turns

set_tracing_disabled(True)

RECORD = {"serial": "SN-100", "events": [f"2026-11-{d:02d} fan at {40 + d}%" for d in range(1, 29)],
          "notes": "The unit was serviced twice. " * 40}


@function_tool
def lookup(serial: str) -> str:
    """The device record for a serial number (bulky)."""
    return json.dumps({**RECORD, "serial": serial})


def script(turns: int) -> list:
    steps = []
    for t in range(turns):
        steps.append([function_call("lookup", {"serial": f"SN-{t}"}, call_id=f"call_{t}")])
        steps.append([assistant_message(f"Turn {t}: done. " + "Detail. " * 30, item_id=f"m{t}")])
    return steps


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_the_token_tail_under_the_runner(streamed):
    turns = 6
    model = ScriptedModel(script(turns))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[lookup])
    session = TokenTailSession("tail", max_tokens=2500)

    async def go():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await run_turns(agent, session, turns, streamed)
        model.assert_complete()
        for call in model.calls:
            assert validate_items(call.input, check_keys=False) == []
        first_calls = [c.input for c in model.calls[::2]]
        for t, sent in enumerate(first_calls):
            users = [item_text(it) for it in sent if it.get("role") == "user"]
            assert users[0] == "question 0" and users[-1] == f"question {t}"  # pinned, new
        view = await session.get_items()
        assert count_items_tokens(view) <= 2500 and validate_items(view) == []

    arun(go())


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_a_token_triggered_fold_under_the_runner(streamed):
    turns = 6
    model = ScriptedModel(script(turns))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[lookup])
    session = SummarizingSession(keep_last_n_turns=1, context_limit=None, fold_at_tokens=3000,
                                 max_input_tokens=1500)

    async def go():
        await run_turns(agent, session, turns, streamed)
        model.assert_complete()
        assert session.summaries_applied >= 1 and session.summary is not None
        assert session.summary.calls > 1  # the folded span was read in bounded chunks
        for call in model.calls:
            assert validate_items(call.input, check_keys=False) == []
        assert count_items_tokens(await session.get_items()) <= 3000 + 2200  # + one turn

    arun(go())


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_a_bulky_current_turn_is_compacted_under_a_hard_budget(streamed):
    turns = 3
    model = ScriptedModel(script(turns))
    agent = Agent(name="support", instructions="Help.", model=model, tools=[lookup])
    manager = ContextManager(max_tokens=450)

    async def go():
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no ContextBudgetWarning: every call fits
            await run_turns(agent, TokenTailSession("cm", max_tokens=100_000), turns, streamed,
                            run_config=manager.run_config())
        assert all(c.total <= 450 for c in manager.calls)
        assert any("output compacted" in line for c in manager.calls for line in c.dropped)
        for call in model.calls:
            assert validate_items(call.input, check_keys=False) == []

    arun(go())
