"""Lesson 00's exercise: a ctxlab session that stores the twelve items and shows the last
three turns. The check accepts it and rejects what the lesson printed, degenerate windows,
sessions that are not ctxlab's, duck-typed fakes and subclasses that fake the view or the
ledger: each rejection below is a test."""

from __future__ import annotations

import pytest
from agents import SQLiteSession
from agents.memory import SessionSettings

from ctxlab import FirstLastSession, SummarizingSession, TrimmingSession, seed_trimming_flow
from ctxlab.core.ledger import Ledger
from ctxlab.eval.exercises import check_quickstart, quickstart_items

from conftest import arun

LAST_THREE = quickstart_items()[6:]  # turns 3-5: the answer's view


async def filled(session, items=None):
    for item in items if items is not None else quickstart_items():
        await session.add_items([item])
    return session


def verdict(session):
    return arun(check_quickstart(session))


# ---------------------------------------------------------------------- fakes


class DuckSession:
    """Has the three methods the first edition's check looked for; stores nothing."""

    session_id = "duck"
    session_settings = SessionSettings()

    async def raw_items(self):
        return quickstart_items()

    async def get_items(self, limit=None):
        return list(LAST_THREE)

    async def ledger(self, limit=None):
        return []


class EmptyLedger(TrimmingSession):
    """A real session keeping everything, with the right slice and an empty ledger."""

    async def get_items(self, limit=None):
        return list(LAST_THREE)

    async def ledger(self, limit=None):
        return Ledger([])


class RightSliceWrongLedger(TrimmingSession):
    """A real ``max_turns=5`` session whose get_items hands out the right slice: its own
    ledger says every item is kept."""

    async def get_items(self, limit=None):
        return list(LAST_THREE)


class FrozenView(TrimmingSession):
    """``max_turns=3`` and a consistent ledger, but a view copied from this one
    conversation: it does not follow the conversation."""

    async def get_items(self, limit=None):
        return list(LAST_THREE)


def test_the_answer_passes():
    result = verdict(arun(filled(TrimmingSession("ex", max_turns=3))))
    assert result.passed is True
    assert "6 older items, the tool call and its output among them" in result.message
    # whole batches and an SDK store underneath are fine too
    batched = TrimmingSession("batched", max_turns=3)
    arun(batched.add_items(quickstart_items()))
    assert verdict(batched).passed is True
    stored = TrimmingSession(max_turns=3, store=SQLiteSession("sdk-store"))
    assert verdict(arun(filled(stored))).passed is True


def lesson_printed():
    """The lesson's own `trimmed` session: the trimming flow, max_turns set to 3."""
    session = arun(filled(TrimmingSession("trim-demo", max_turns=2), seed_trimming_flow().items))
    session.set_max_turns(3)
    return session


@pytest.mark.parametrize(("make", "expected"), [
    (lesson_printed, "it stores 8"),
    (lambda: arun(filled(TrimmingSession("t2", max_turns=2))), "the view has 4 items"),
    (lambda: arun(filled(TrimmingSession("t4", max_turns=4))), "the view has 10 items"),
    (lambda: arun(filled(TrimmingSession("t8", max_turns=8))), "the view has 12 items"),
    (lambda: arun(filled(TrimmingSession("t3", max_turns=3), quickstart_items()[:11])),
     "it stores 11"),
    (lambda: arun(filled(TrimmingSession("twice", max_turns=3),
                         quickstart_items() + quickstart_items())), "it stores 24"),
    (lambda: arun(filled(SummarizingSession(3, 4))), "the view has"),
    (lambda: arun(filled(FirstLastSession("fl", 1, 3))), "the view has 8 items"),
    (lambda: arun(filled(SQLiteSession("sliced"), LAST_THREE)), "not a ctxlab session"),
    (DuckSession, "not a ctxlab session"),
    (lambda: arun(filled(EmptyLedger("empty", max_turns=8))),
     "entries for 0 stored items"),
    (lambda: arun(filled(RightSliceWrongLedger("wrong", max_turns=5))),
     "item 0 (turn 1) is 'kept' in the ledger"),
    (lambda: arun(filled(FrozenView("frozen", max_turns=3))), "must follow the conversation"),
    # an item limit that happens to cut at the right place for these twelve items
    (lambda: arun(filled(TrimmingSession("limited", max_turns=8,
                                         session_settings=SessionSettings(limit=6)))),
     "must follow the conversation"),
], ids=["lesson-printed", "max_turns=2", "max_turns=4", "max_turns=8", "an-item-missing",
        "stored-twice", "summarizing", "first-last", "sdk-session", "duck-typed", "empty-ledger",
        "wrong-ledger", "frozen-view", "item-limit"])
def test_wrong_answers_are_rejected_and_told_why(make, expected):
    result = verdict(make())
    assert result.passed is False and expected in result.message, result.message


def test_no_answer_yet():
    assert verdict(None).passed is None
    assert "not answered yet" in str(verdict(None))
