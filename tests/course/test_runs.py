"""run_conversation under the real Runner: per-turn usage and window parts add up."""

from __future__ import annotations

import pytest
from agents import SQLiteSession, set_tracing_disabled

from ctxlab import TrimmingSession, make_support_agent
from ctxlab.course.costs import PRICES, Price, cost_usd, price_for
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.runs import WINDOW_PARTS, run_conversation

from conftest import arun

set_tracing_disabled(True)

MESSAGES = [
    "Hi, my ticket is TCK-48213 and the laptop shows a blinking red light.",
    "The serial is SN-4Q7K-22981. Is it still under warranty?",
    "What was my ticket number?",
]


@pytest.mark.parametrize("streamed", [False, True])
def test_each_turn_records_calls_parts_and_billed_tokens(streamed):
    agent = make_support_agent(OfflineSupportModel())
    records = arun(run_conversation(agent, MESSAGES, SQLiteSession("runs"), streamed=streamed))
    assert [r.turn for r in records] == [1, 2, 3]
    assert records[1].tool_calls == ["check_warranty"]
    assert len(records[1].calls) == 2  # the tool loop: call, then answer
    for record in records:
        for call in record.calls:
            assert set(call.parts) == set(WINDOW_PARTS)
            assert call.sent_tokens == call.input_tokens  # exact counts on both sides
    assert records[0].first_call_parts["history"] == 0
    assert records[1].calls[1].parts["tool_results"] > 0
    assert "TCK-48213" in records[2].reply
    assert records[2].first_call_parts["history"] > records[1].first_call_parts["history"]


def test_trimming_shrinks_history_and_forgets():
    agent = make_support_agent(OfflineSupportModel())
    filler = [f"Step {n} done, nothing changed." for n in range(4)]
    records = arun(run_conversation(agent, [MESSAGES[0], *filler, MESSAGES[2]],
                                    TrimmingSession("trim", max_turns=2)))
    assert "TCK-48213" not in records[-1].reply and "don't see" in records[-1].reply


def test_empty_message_is_rejected():
    with pytest.raises(ValueError, match="user message 2 must be a non-empty string"):
        arun(run_conversation(make_support_agent(OfflineSupportModel()), ["hi", " "],
                              SQLiteSession("x")))


def test_costs():
    assert cost_usd(1_000_000, 0, "gpt-4.1-mini") == pytest.approx(PRICES["gpt-4.1-mini"].input)
    assert cost_usd(2000, 500, "m", {"m": Price(1.0, 4.0)}) == pytest.approx(0.004)
    with pytest.raises(KeyError, match="no price for model 'gpt-9'"):
        price_for("gpt-9")
    with pytest.raises(ValueError):
        cost_usd(-1)
