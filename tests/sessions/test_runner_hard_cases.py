"""SummarizingSession under the real Runner in the situations real agents hit: a tool call
that waits for an approval that never comes, a tool that raises, an output that arrives a
turn late, pops. In every case no stored item is lost from the model's view: each is shown,
folded into the summary, or pending (a call waiting for its output)."""

from __future__ import annotations

import json

import pytest
from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import SummarizingSession, validate_items

from conftest import arun, assistant, call, output, user
from fakes import RecordingSummarizer

set_tracing_disabled(True)


@function_tool(needs_approval=True)
def issue_refund(order_id: str) -> str:
    """Refund an order (a human must approve)."""
    return json.dumps({"order_id": order_id, "refunded": True})


@function_tool
def lookup(order_id: str) -> str:
    """Look an order up."""
    if order_id == "BROKEN":
        raise RuntimeError("the order service is down")
    return json.dumps({"order_id": order_id, "status": "shipped"})


async def check_nothing_lost(session: SummarizingSession) -> None:
    view = await session.get_items()
    assert validate_items(view) == []
    ledger = await session.ledger()
    states = [e.state for e in ledger if e.index is not None]
    assert "dropped" not in states, ledger.table()
    summary = session.summary
    if summary is not None:  # the summary's range is exact: it ends inside its last turn
        raw = await session.raw_items()  # (at its end, with K=0: a tail may come later)
        starts = [i for i, it in enumerate(raw) if it.get("role") == "user"]
        last = summary.turns[1]
        end = summary.items[1]
        assert starts[last - 1] < end <= (starts[last] if last < len(starts) else len(raw))


def test_an_approval_that_never_comes_does_not_stop_summarizing():
    steps = [[function_call("issue_refund", {"order_id": "ORD-77"}, call_id="call_refund")]]
    for t in range(8):
        steps.append([assistant_message(f"answer {t}", item_id=f"msg_{t}")])
    model = ScriptedModel(steps)
    agent = Agent(name="support", instructions="Help.", model=model, tools=[issue_refund])
    session = SummarizingSession(keep_last_n_turns=2, context_limit=2,
                                 summarizer=RecordingSummarizer())

    async def go():
        first = await Runner.run(agent, "refund ORD-77 please", session=session)
        assert first.interruptions  # waiting for a human; never approved
        raw = await session.raw_items()
        assert [it.get("type") for it in raw[1:]] == ["function_call"]
        ledger = await session.ledger()
        assert ledger[1].state == "pending"
        for t in range(8):
            await Runner.run(agent, f"something else {t}", session=session)
            await check_nothing_lost(session)
        assert session.summary is not None and session.summary.turns[1] >= 6
        assert "call_refund" in session.summary.pending_calls
        assert session.last_error is None
        model.assert_complete()

    arun(go())


def test_a_tool_that_raises_loses_nothing():
    steps = []
    for t in range(5):
        order = "BROKEN" if t == 1 else f"ORD-{t}"
        steps.append([function_call("lookup", {"order_id": order}, call_id=f"call_{t}")])
        steps.append([assistant_message(f"answer {t}", item_id=f"msg_{t}")])
    model = ScriptedModel(steps)
    agent = Agent(name="support", instructions="Help.", model=model, tools=[lookup])
    session = SummarizingSession(1, 2, RecordingSummarizer())

    async def go():
        for t in range(5):
            await Runner.run(agent, f"where is my order {t}", session=session)
            await check_nothing_lost(session)
        raw = await session.raw_items()
        outputs = [str(it.get("output", "")) for it in raw if it.get("type", "").endswith("output")]
        assert any("error" in o.lower() for o in outputs), outputs
        model.assert_complete()

    arun(go())


@pytest.mark.parametrize("background", [False, True])
def test_a_late_output_is_shown_with_its_folded_call(background):
    async def go():
        session = SummarizingSession(0, 1, RecordingSummarizer(), background=background)
        await session.add_items([user("refund ORD-1"), call("c1", name="issue_refund")])
        await session.add_items([user("hello?")])  # a new turn before the output arrives
        await session.flush()
        assert session.summary is not None and "c1" in session.summary.pending_calls
        await session.add_items([output("c1", "refunded"), assistant("done")])
        view = await session.get_items()
        assert validate_items(view) == []
        types = [it.get("type") for it in view]
        assert "function_call" in types and "function_call_output" in types
        await check_nothing_lost(session)
        await session.add_items([user("thanks")])
        await session.flush()
        await check_nothing_lost(session)

    arun(go())


def test_pops_keep_the_last_turns_verbatim():
    async def go():
        session = SummarizingSession(2, 2, RecordingSummarizer())
        for t in range(5):
            await session.add_items([user(f"q{t}"), assistant(f"a{t}")])
        assert session.summary is not None
        for _ in range(3):
            await session.pop_item()
            await check_nothing_lost(session)
            view = await session.get_items()
            users = [it["content"] for it in view if it.get("role") == "user"][1:]
            raw = await session.raw_items()
            last_two = [it["content"] for it in raw if it.get("role") == "user"][-2:]
            assert users[-2:] == last_two  # the last K turns are verbatim after a pop

    arun(go())
