"""Lesson 02b's exercise: the check accepts a correct home-made session and rejects the
lesson's own starting point and the classic wrong answers."""

from __future__ import annotations

import copy

from agents.memory import SessionSettings

from ctxlab import TrimmingSession
from ctxlab.course.pitfalls import flatten_tool_items, last_n_items
from ctxlab.eval.exercises import check_own_session

from conftest import arun


class LessonSession:
    """The lesson's 30-line session: right for plain turns, wrong for a pending call."""

    def __init__(self, session_id: str = "mine", max_turns: int = 3):
        self.session_id, self.max_turns = session_id, max_turns
        self.session_settings = SessionSettings()
        self.items: list = []

    def window(self) -> list:
        starts = [i for i, it in enumerate(self.items) if it.get("role") == "user"]
        first = starts[-self.max_turns] if len(starts) >= self.max_turns else 0
        return self.items[first:]

    async def get_items(self, limit=None):
        return copy.deepcopy(self.window())

    async def add_items(self, items):
        self.items.extend(copy.deepcopy(items))

    async def pop_item(self):
        return self.items.pop() if self.items else None

    async def clear_session(self):
        self.items.clear()


class Answer(LessonSession):
    """A right answer: calls whose output never came are set aside (with their reasoning)."""

    def window(self) -> list:
        view = super().window()
        answered = {it.get("call_id") for it in view if it.get("type") == "function_call_output"}
        out = [it for it in view if it.get("type") != "function_call"
               or it.get("call_id") in answered]
        return [it for k, it in enumerate(out) if it.get("type") != "reasoning"
                or (k + 1 < len(out) and out[k + 1].get("type") != "reasoning"
                    and out[k + 1] in view and view.index(out[k + 1]) == view.index(it) + 1)]


class ItemCut(LessonSession):
    def window(self) -> list:
        return last_n_items(self.items, 3 * self.max_turns)


class Flattening(Answer):
    async def add_items(self, items):
        self.items.extend(flatten_tool_items(items))


def verdict(cls) -> bool | None:
    return arun(check_own_session(cls)).passed


def test_right_answers_pass():
    assert verdict(Answer) is True
    assert verdict(TrimmingSession) is True  # ctxlab's own


def test_the_lessons_starting_point_and_classic_mistakes_fail():
    result = arun(check_own_session(LessonSession))
    assert result.passed is False and "approval" in result.message
    assert verdict(ItemCut) is False
    assert verdict(Flattening) is False
    assert arun(check_own_session(None)).passed is None
    assert verdict(lambda **kw: 1 / 0) is False  # a broken answer is a verdict
