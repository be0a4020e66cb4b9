"""The checks of lessons 09 and 10 accept a right answer and reject each wrong one: the
lesson's own printed answers, degenerate settings, duck-typed fakes, code that raises."""

from __future__ import annotations

import pytest
from agents import set_tracing_disabled
from agents.extensions.handoff_filters import remove_all_tools

from ctxlab.core.items import item_text
from ctxlab.core.turns import segment_turns
from ctxlab.eval.exercises import check_erase, check_issue_filter
from ctxlab.eval.multi_issue import multi_issue_case
from ctxlab.handoffs import (
    FullHistory,
    HandoverSummary,
    IssueHandover,
    TrimmedHistory,
    handoff_items,
    split_issues,
)
from ctxlab.longterm import DeletionReport, forget_user
from ctxlab.records import UnknownUserError

from conftest import arun
from handoff_data import handoff_data

set_tracing_disabled(True)


def only_this_issue(data):
    before, step = handoff_items(data)
    split = split_issues(before)
    keep = [n + 1 for n, i in enumerate(split.turn_issue) if i in (0, split.current.number)]
    return data.clone(input_history=tuple(split.turn_items(keep) + step), pre_handoff_items=(),
                      input_items=())


async def only_this_issue_async(data):
    return only_this_issue(data)


def test_the_issue_filter_check_accepts_a_right_filter_sync_or_async():
    assert arun(check_issue_filter(only_this_issue)).passed is True
    assert arun(check_issue_filter(only_this_issue_async)).passed is True


LESSON = multi_issue_case(5)  # the lesson's chat: a fixed view made from it is a fake
FIXED = only_this_issue(handoff_data([*LESSON.items, {"role": "user",
                                                      "content": LESSON.resume}]))


def without_outputs(data):
    before, step = handoff_items(data)
    kept = [i for i in before if i.get("type") != "function_call_output"]
    return data.clone(input_history=tuple(kept + step), pre_handoff_items=(), input_items=())


def _right_items(data):
    return list(only_this_issue(data).input_history)


async def with_the_summary(data):
    """The right turns, plus IssueHandover's summary of the issue before the current turn
    (the exercise says no summary)."""
    summary = [i for i in (await IssueHandover()(data)).input_history
               if i.get("role") == "assistant" and "handover" in item_text(i).lower()]
    assert summary, "IssueHandover wrote no summary message"
    items = _right_items(data)
    current = max(n for n, i in enumerate(items) if i.get("role") == "user")
    return data.clone(input_history=tuple(items[:current] + summary + items[current:]),
                      pre_handoff_items=(), input_items=())


def no_agent_replies(data):
    """The right customer turns, every agent reply dropped (a valid sequence still)."""
    items = [i for i in _right_items(data) if i.get("role") != "assistant"]
    return data.clone(input_history=tuple(items), pre_handoff_items=(), input_items=())


def plus_other_replies(data):
    """The right turns plus the other issue's agent replies, in the chat's order."""
    before, step = handoff_items(data)
    split = split_issues(before)
    mine = {0, split.current.number}
    keep = []
    for turn, issue in zip(segment_turns(before).turns, split.turn_issue, strict=True):
        items = [before[i] for i in turn.indices]
        keep += items if issue in mine else [i for i in items if i.get("role") == "assistant"]
    return data.clone(input_history=tuple(keep + step), pre_handoff_items=(), input_items=())


def raises(data):
    raise RuntimeError("boom")


@pytest.mark.parametrize("candidate,reason", [
    (None, None),
    ("IssueHandover", "HandoffInputData"),
    (FullHistory(), "reaches the repair desk"),
    (TrimmedHistory(3), "is lost"),
    (HandoverSummary(), "reaches the repair desk"),
    (IssueHandover(), "as they were said"),  # the lesson's per-issue handover: a summary
    (remove_all_tools, "the handoff call"),
    (lambda data: FIXED, "resume request"),  # duck-typed: the lesson chat's view, every time
    (without_outputs, "not a valid item sequence"),
    (raises, "RuntimeError: boom"),
    (lambda data: data, "reaches the repair desk"),  # degenerate: hands everything on
    (with_the_summary, "never said in this chat reaches the repair desk"),
    (no_agent_replies, "agent reply"),
    (plus_other_replies, "issue's agent reply"),
], ids=["pending", "not callable", "full", "trim", "handover", "per-issue summary",
        "sdk remove_all_tools", "fixed view", "broken pairs", "raises", "identity",
        "right turns + summary", "agent replies dropped", "+ other issue's replies"])
def test_the_issue_filter_check_rejects_wrong_answers(candidate, reason):
    result = arun(check_issue_filter(candidate))
    if reason is None:
        assert result.passed is None
    else:
        assert result.passed is False and reason in result.message, result.message


async def erase(user_id, *, memory, hub, open_session):
    return await forget_user(user_id, memory=memory, hub=hub, open_session=open_session)


def test_the_erase_check_accepts_forgetting_everywhere():
    assert arun(check_erase(erase)).passed is True


async def lesson_answer(user_id, *, memory, hub, open_session):  # as lesson 10 prints it
    return await forget_user(user_id, memory=memory, hub=hub)


async def memory_only(user_id, *, memory, hub, open_session):
    return await forget_user(user_id, memory=memory, open_session=open_session)


async def everyone(user_id, *, memory, hub, open_session):
    report = await forget_user(user_id, memory=memory, hub=hub, open_session=open_session)
    await forget_user("bob", memory=memory, hub=hub, open_session=open_session)
    return report


async def forgiving(user_id, *, memory, hub, open_session):
    try:
        return await forget_user(user_id, memory=memory, hub=hub, open_session=open_session)
    except UnknownUserError:
        return DeletionReport(user_id)


async def plain_clear(user_id, *, memory, hub, open_session):
    sessions = [open_session(s) for s in (await memory.get(user_id)).session_ids()]
    report = await forget_user(user_id, memory=memory, hub=hub)
    for session in sessions:  # cleared, but the rows' bytes stay in the file
        await session.clear_session()
    return report


async def only_zoe(user_id, *, memory, hub, open_session):
    """Right for the customer the check names first, UnknownUserError for anyone else."""
    if user_id != "zoe":
        raise UnknownUserError(user_id)
    return await forget_user(user_id, memory=memory, hub=hub, open_session=open_session)


async def nothing(user_id, *, memory, hub, open_session):  # degenerate: claims, erases none
    return DeletionReport(user_id)


async def as_dict(user_id, *, memory, hub, open_session):
    report = await forget_user(user_id, memory=memory, hub=hub, open_session=open_session)
    return report.as_dict()


@pytest.mark.parametrize("candidate,reason", [
    (None, None),
    (42, "must be a function"),
    (lesson_answer, "conversation history"),
    (memory_only, "the shared hub"),
    (everyone, "bob's"),
    (forgiving, "UnknownUserError"),
    (plain_clear, "still readable"),
    (as_dict, "DeletionReport"),
    (nothing, "still readable"),
    (lambda user_id, **kw: 1 / 0, "ZeroDivisionError"),
    (only_zoe, "erase('bob', ...) raised UnknownUserError"),
], ids=["pending", "not callable", "lesson answer", "memory only", "everyone", "swallows",
        "clear without vacuum", "dict", "empty report", "raises", "knows only zoe"])
def test_the_erase_check_rejects_wrong_answers(candidate, reason):
    result = arun(check_erase(candidate))
    if reason is None:
        assert result.passed is None
    else:
        assert result.passed is False and reason in result.message, result.message
