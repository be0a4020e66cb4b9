"""Each exercise check accepts the reference solution and rejects wrong answers."""

from __future__ import annotations

from agents import SQLiteSession, set_tracing_disabled

from ctxlab import TrimmingSession, make_support_agent, seed_trimming_flow
from ctxlab.course.costs import cost_usd
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.runs import run_conversation
from ctxlab.eval.exercises import (
    check_quickstart,
    check_run_cost,
    quickstart_items,
)

from conftest import arun

set_tracing_disabled(True)


async def session_with(max_turns: int, items=None, session=None):
    session = session or TrimmingSession("ex", max_turns=max_turns)
    for item in items if items is not None else quickstart_items():
        await session.add_items([item])
    return session


def test_quickstart_check():
    assert arun(check_quickstart(arun(session_with(3)))).passed is True
    # what the lesson itself shows (the trimming flow, max_turns=2) is not the answer
    assert arun(check_quickstart(arun(session_with(2, seed_trimming_flow().items)))).passed \
        is False
    assert arun(check_quickstart(arun(session_with(2)))).passed is False
    # an SDK session holding only the last turns keeps no log: rejected
    sliced = SQLiteSession("sliced")
    arun(sliced.add_items(quickstart_items()[6:]))
    assert arun(check_quickstart(sliced)).passed is False
    assert arun(check_quickstart(None)).passed is None
    assert "not answered yet" in str(arun(check_quickstart(None)))


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


def test_budget_check():
    from ctxlab import ContextManager, ToolOutputCompactor
    from ctxlab.eval.exercises import check_budget_setup

    assert arun(check_budget_setup(ContextManager(1800, role_aware=True))).passed
    # what the lesson shows (2,500 tokens with compaction) is over budget, and compaction
    # alone no longer fits into 1,800 tokens; a plain budget forgets
    shown = ContextManager(2500, compactor=ToolOutputCompactor())
    assert arun(check_budget_setup(shown)).passed is False
    squeezed = arun(check_budget_setup(ContextManager(1800, compactor=ToolOutputCompactor())))
    assert squeezed.passed is False and "ticket_id" in squeezed.message
    forgetful = arun(check_budget_setup(ContextManager(1800)))
    assert forgetful.passed is False and "forgot" in forgetful.message
    assert arun(check_budget_setup(None)).passed is None


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

    assert arun(check_memory_setup(short, with_state)).passed is True
    assert arun(check_memory_setup(
        lambda: TrimmingSession("m2", max_turns=2),
        lambda s: ContextManager(8000, state=StateMemory(session=s), session=s,
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


def test_redaction_check():
    from ctxlab import Redactor
    from ctxlab.eval.exercises import check_redaction

    assert check_redaction(Redactor(drop_fields=["customer_name", "home_address"])).passed
    assert check_redaction(Redactor()).passed is False
    assert check_redaction(Redactor(drop_fields=["customer_name", "home_address", "order_id"],
                                    )).passed is False
    assert check_redaction("redact please").passed is False
    assert check_redaction(None).passed is None
