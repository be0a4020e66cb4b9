"""Lesson 05b's exercise check: memory for the Chinese fridge chat after a late change of
phone number. Right answers pass; each kind of wrong answer gets a verdict that says why."""

from __future__ import annotations

from agents import SQLiteSession, set_tracing_disabled

from ctxlab import (
    ContextManager,
    FirstLastSession,
    Recall,
    StateMemory,
    SummarizingSession,
    TrimmingSession,
)
from ctxlab.eval.exercises import (
    ZH_EXERCISE_QUESTIONS,
    check_zh_memory_setup,
    zh_exercise_history,
)

from conftest import arun

set_tracing_disabled(True)


def verdict(make_session, make_manager=None):
    return arun(check_zh_memory_setup(make_session, make_manager))


def test_the_history_ends_with_the_new_phone_number_and_two_unrelated_turns():
    history = zh_exercise_history()
    users = [item["content"] for item in history if item.get("role") == "user"]
    assert len(users) == 15 and "13600001234" in users[-3]
    assert ZH_EXERCISE_QUESTIONS[0][0] == "你们记的我的手机号是多少？"


def test_state_or_a_summary_pass():
    state = verdict(lambda: TrimmingSession("ex-state", max_turns=3),
                    lambda s: ContextManager(8000, state=StateMemory(session=s), session=s))
    assert state.passed is True and "of the full history" in state.message
    summary = verdict(lambda: SummarizingSession(2, 4, session_id="ex-sum"))
    assert summary.passed is True


def test_unanswered_and_malformed_answers():
    assert verdict(None).passed is None
    wrong_type = verdict("TrimmingSession")
    assert wrong_type.passed is False and "must be a function" in wrong_type.message
    broken = verdict(lambda: TrimmingSession("ex-bad", max_turns=0))
    assert broken.passed is False and "max_turns" in broken.message


def test_trimming_alone_forgets_the_model_and_the_constraint():
    result = verdict(lambda: TrimmingSession("ex-trim", max_turns=3))
    assert result.passed is False
    assert "BCD-123" in result.message and "只能周末上门" in result.message


def test_recall_alone_misses_the_constraint():
    result = verdict(lambda: TrimmingSession("ex-recall", max_turns=3),
                     lambda s: ContextManager(8000, retriever=Recall(session=s), session=s))
    assert result.passed is False and "只能周末上门" in result.message


def test_the_full_history_is_too_expensive():
    result = verdict(lambda: SQLiteSession("ex-full"))
    assert result.passed is False and "100% of the full history" in result.message


def test_a_window_that_keeps_the_old_number_but_not_the_new_one():
    # the first five turns (the old number is in turn 4) and the last one: the change of
    # number in turn 13 is out of view, so the old number is presented as current
    result = verdict(lambda: FirstLastSession("ex-first", first_turns=5, last_turns=1))
    assert result.passed is False and "old number 13912345678" in result.message
