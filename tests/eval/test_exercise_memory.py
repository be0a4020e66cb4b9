"""Lesson 05's exercise: a memory setup that answers the five probes with at most 30% of
the full history's tokens. Each rejection is its own test: the lesson's printed setups,
degenerate ones and stand-ins that hand the model the answers."""

from __future__ import annotations

import pytest
from agents import SQLiteSession

from ctxlab import (
    ContextManager,
    Recall,
    StateMemory,
    SummarizingSession,
    ToolOutputCompactor,
    TrimmingSession,
)
from ctxlab.course.corpora import support_chat_script
from ctxlab.eval.exercise_memory import SetupRejected, check_parts
from ctxlab.eval.exercises import check_memory_setup

from conftest import arun

WORDS = {"email": "my email is", "rma": "the RMA is", "firmware": "it runs firmware",
         "serial": "the serial is", "ticket_id": "my ticket is"}
FACTS = " ".join(f"{WORDS.get(p.fact, p.fact)} {p.expected}." for p in support_chat_script()[1])


def verdict(make_session, make_manager):
    return arun(check_memory_setup(make_session, make_manager))


def with_state(session):
    return ContextManager(8000, state=StateMemory(session=session), session=session)


def with_recall(session):
    return ContextManager(8000, retriever=Recall(session=session), session=session)


class AnswerSheet:
    """Duck-typed: a 'session' that tells the model every probed fact, and stores nothing."""

    session_id = "sheet"

    def __init__(self):
        self.items = []

    async def get_items(self, limit=None):
        return [{"role": "user", "content": f"My details: {FACTS}"},
                {"role": "assistant", "content": "Noted."}, *self.items[-2:]]

    async def add_items(self, items):
        self.items += items

    async def pop_item(self):
        return self.items.pop() if self.items else None

    async def clear_session(self):
        self.items = []


class ForgetfulTrim(TrimmingSession):
    """A library session whose get_items is replaced by the learner's own."""

    async def get_items(self, limit=None):
        return [{"role": "user", "content": f"My details: {FACTS}"}]


def compacted_state(session):
    return ContextManager(8000, state=StateMemory(session=session), session=session,
                          compactor=ToolOutputCompactor())


def test_the_answer_passes():
    # the hint's answer: the state carries the facts, so one turn of history is enough, and
    # tool outputs are compacted (lesson 04); without compaction, trim 1 + state is within a
    # point of the target since memory travels framed as quoted data (issue 32)
    result = verdict(lambda: TrimmingSession("m1", max_turns=1), compacted_state)
    assert result.passed is True and "all 5 probes answered" in result.message


@pytest.mark.parametrize(("make_session", "make_manager", "expected"), [
    (lambda: SQLiteSession("full"), lambda s: None, "30%"),  # the lesson's full history
    (lambda: TrimmingSession("t3", max_turns=3), lambda s: None, "could not recall"),
    (lambda: SummarizingSession(keep_last_n_turns=2, context_limit=3, session_id="s23"),
     lambda s: None, "30%"),  # the lesson's summarize 2/3: its folds count
    (lambda: TrimmingSession("t3s", max_turns=3), with_state, "30%"),  # trim 3 + state
    (lambda: TrimmingSession("t3r", max_turns=3), with_recall, "could not recall"),
    (lambda: TrimmingSession("t1", max_turns=1), lambda s: None, "could not recall"),
    (lambda: TrimmingSession("t1r", max_turns=1), with_recall, "could not recall"),
], ids=["full-history", "trim-3", "summarize-2/3", "trim-3+state", "trim-3+recall",
        "trim-1-alone", "trim-1+recall"])
def test_the_lessons_setups_and_degenerate_ones_are_rejected(make_session, make_manager,
                                                             expected):
    result = verdict(make_session, make_manager)
    assert result.passed is False and expected in result.message, result.message


def prefilled_state(session):
    memory = StateMemory()  # filled before the chat (built outside the check's event loop)
    memory.state = PREFILLED.state
    return ContextManager(8000, state=memory, session=session)


PREFILLED = StateMemory()
arun(PREFILLED.feed([{"role": "user", "content": f"My details: {FACTS}"}]))


def other_session(session):
    other = TrimmingSession("other", max_turns=100)
    return ContextManager(8000, state=StateMemory(session=other), session=session)


@pytest.mark.parametrize(("make_session", "make_manager", "expected"), [
    (AnswerSheet, lambda s: None, "got AnswerSheet"),
    (lambda: ForgetfulTrim("f", max_turns=1), lambda s: None, "replaces get_items"),
    (lambda: TrimmingSession("p", max_turns=1), prefilled_state, "starts filled in"),
    (lambda: TrimmingSession("o", max_turns=1), other_session, "reads another session"),
    (lambda: TrimmingSession("cb", max_turns=1),
     lambda s: ContextManager(8000, state=StateMemory(session=s), session=s,
                              on_assemble=print), "on_assemble"),
    (lambda: TrimmingSession("nm", max_turns=1), lambda s: "a manager", "got str"),
], ids=["duck-typed-session", "overridden-get_items", "prefilled-state", "another-session",
        "on_assemble", "not-a-manager"])
def test_stand_ins_that_hand_over_the_answers_are_rejected(make_session, make_manager,
                                                           expected):
    result = verdict(make_session, make_manager)
    assert result.passed is False and expected in result.message, result.message


def test_without_the_guard_the_answer_sheet_would_pass(monkeypatch):
    """The broken variant: with check_parts disabled, the duck-typed stand-in passes (so the
    guard is what rejects it)."""
    from ctxlab.eval import exercise_memory

    monkeypatch.setattr(exercise_memory, "check_parts", lambda session, manager: None)
    assert verdict(AnswerSheet, lambda s: None).passed is True


def test_check_parts_accepts_the_library_parts():
    session = TrimmingSession("ok", max_turns=2)
    check_parts(session, ContextManager(8000, state=StateMemory(session=session),
                                        session=session, compactor=ToolOutputCompactor()))
    check_parts(SQLiteSession("sdk"), None)
    with pytest.raises(SetupRejected):
        check_parts(AnswerSheet(), None)


def test_no_answer_yet():
    assert verdict(None, None).passed is None
