"""Each exercise check accepts the reference solution and rejects wrong answers."""

from __future__ import annotations

from agents import SQLiteSession, set_tracing_disabled

from ctxlab import TrimmingSession, make_support_agent
from ctxlab.course.costs import cost_usd
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.runs import run_conversation
from ctxlab.eval.exercises import (
    check_run_cost,
)

from conftest import arun

set_tracing_disabled(True)


# lesson 00's check: tests/eval/test_exercise_quickstart.py


def test_run_cost_check():
    records = arun(run_conversation(make_support_agent(OfflineSupportModel()),
                                    ["hi, red light blinking", "still blinking"],
                                    SQLiteSession("cost")))
    inputs = sum(r.input_tokens for r in records)
    outputs = sum(r.output_tokens for r in records)
    assert check_run_cost(cost_usd(inputs, outputs, "gpt-4.1"), records).passed is True
    wrong = check_run_cost(cost_usd(inputs, 0, "gpt-4.1"), records)
    assert wrong.passed is False and "input tokens only" in wrong.message
    assert check_run_cost(cost_usd(inputs, outputs, "gpt-4.1-mini"), records).passed is False
    assert check_run_cost("3 dollars", records).passed is False
    assert check_run_cost(None, records).passed is None


# lesson 04's check: tests/eval/test_exercise_budget.py


def test_memory_check():
    from ctxlab import ContextManager, StateMemory, SummarizingSession
    from ctxlab.eval.exercises import check_memory_setup

    def trimmed():
        return TrimmingSession("m", max_turns=3)

    def with_state(session):
        return ContextManager(8000, state=StateMemory(session=session), session=session)

    from ctxlab import Recall, ToolOutputCompactor

    def short():
        return TrimmingSession("m1", max_turns=1)

    def compacted(session):
        return ContextManager(8000, state=StateMemory(session=session), session=session,
                              compactor=ToolOutputCompactor())

    assert arun(check_memory_setup(short, compacted)).passed is True
    assert arun(check_memory_setup(
        lambda: TrimmingSession("m2", max_turns=2),  # two turns: a leaner state pays for them
        lambda s: ContextManager(8000, state=StateMemory(
            session=s, render_options={"max_milestones": 2}), session=s,
                                 compactor=ToolOutputCompactor()))).passed is True
    # what lesson 05 shows: trim 3 + state and summarize 2/3 cost too much, recall forgets
    shown = arun(check_memory_setup(trimmed, with_state))
    assert shown.passed is False and "30%" in shown.message
    costly = arun(check_memory_setup(lambda: SummarizingSession(2, 3), lambda s: None))
    assert costly.passed is False and "30%" in costly.message
    forgets = arun(check_memory_setup(
        short, lambda s: ContextManager(8000, retriever=Recall(session=s), session=s)))
    assert forgets.passed is False and "could not recall" in forgets.message
    assert arun(check_memory_setup(short, lambda s: None)).passed is False  # forgets
    assert arun(check_memory_setup(None, None)).passed is None


# lesson 07's check: tests/eval/test_exercise_redaction.py
