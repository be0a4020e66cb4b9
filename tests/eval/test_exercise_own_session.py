"""Lesson 02b's exercise: the check accepts a session written by hand and rejects the
lesson's own starting point, ctxlab's sessions (the exercise is to write one), degenerate
windows and the classic wrong answers: each rejection below is a test."""

from __future__ import annotations

import copy
import functools

import pytest
from agents import SQLiteSession
from agents.memory import SessionSettings

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.course.pitfalls import flatten_tool_items, last_n_items
from ctxlab.eval.exercises import check_own_session

from conftest import arun


class LessonSession:
    """The lesson's 30-line session (its section 2): right for plain turns, wrong for a
    pending call."""

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


def set_aside_pending(view: list) -> list:
    """The exercise's repair: calls whose output never came, with the reasoning before them."""
    answered = {it.get("call_id") for it in view if it.get("type") == "function_call_output"}
    keep = [it.get("type") != "function_call" or it.get("call_id") in answered for it in view]
    for k in range(len(view) - 1):
        if view[k].get("type") == "reasoning" and not keep[k + 1]:
            keep[k] = False
    return [it for it, kept in zip(view, keep, strict=True) if kept]


class Answer(LessonSession):
    """A right answer: the lesson's session with the pending calls set aside."""

    def window(self) -> list:
        return set_aside_pending(super().window())


class SQLiteAnswer:
    """A right answer that stores its items in the SDK's SQLiteSession (a store, not a
    memory strategy: the window is still written by hand)."""

    def __init__(self, max_turns: int = 3):
        self.session_id, self.max_turns = "sqlite-answer", max_turns
        self.session_settings = SessionSettings()
        self.store = SQLiteSession(self.session_id)

    async def get_items(self, limit=None):
        items = await self.store.get_items()
        starts = [i for i, it in enumerate(items) if it.get("role") == "user"]
        first = starts[-self.max_turns] if len(starts) >= self.max_turns else 0
        return set_aside_pending(items[first:])

    async def add_items(self, items):
        await self.store.add_items(items)

    async def pop_item(self):
        return await self.store.pop_item()

    async def clear_session(self):
        await self.store.clear_session()


# ---------------------------------------------------------------------- wrong answers


class SubclassedTrimming(TrimmingSession):
    """A thin subclass of ctxlab's session: nothing written by hand."""


class WrappedTrimming(LessonSession):
    """Delegates the window to a ctxlab session it holds."""

    def __init__(self, max_turns: int = 3):
        super().__init__(max_turns=max_turns)
        self.inner = {"memory": TrimmingSession("inner", max_turns=max_turns)}

    async def get_items(self, limit=None):
        return await self.inner["memory"].get_items()

    async def add_items(self, items):
        await self.inner["memory"].add_items(items)


def trimming_factory(max_turns: int = 3):
    """A plain function that hands over the library's session."""
    return TrimmingSession("factory", max_turns=max_turns)


#: Where a wrapper keeps its TrimmingSession out of the instance's attributes.
_HIDDEN: dict[int, TrimmingSession] = {}


class ModuleDictWrapper(LessonSession):
    """Keeps a TrimmingSession in a module-level dict and delegates to it."""

    def __init__(self, max_turns: int = 3):
        super().__init__(max_turns=max_turns)
        _HIDDEN[id(self)] = TrimmingSession(f"hidden-{id(self)}", max_turns=max_turns)

    async def get_items(self, limit=None):
        return await _HIDDEN[id(self)].get_items()

    async def add_items(self, items):
        await _HIDDEN[id(self)].add_items(items)


async def _trimmed(items: list, max_turns: int) -> list:
    """A helper the wrapper below calls: a throwaway TrimmingSession computes the view."""
    session = TrimmingSession("throwaway", max_turns=max_turns)
    await session.add_items(items)
    return await session.get_items()


class HelperWrapper(LessonSession):
    """Reaches TrimmingSession only through a module-level helper function."""

    async def get_items(self, limit=None):
        return await _trimmed(self.items, self.max_turns)


class ItemCut(LessonSession):
    def window(self) -> list:
        return last_n_items(self.items, 3 * self.max_turns)


class Flattening(Answer):
    async def add_items(self, items):
        self.items.extend(flatten_tool_items(items))


class Everything(Answer):
    """Ignores max_turns: sends the whole history."""

    def window(self) -> list:
        return set_aside_pending(self.items)


class Nothing(Answer):
    def window(self) -> list:
        return []


class NoToolTraffic(LessonSession):
    """Avoids the problem by never sending tool items: the model loses every tool result."""

    def window(self) -> list:
        return [it for it in super().window()
                if it.get("type") not in ("function_call", "function_call_output", "reasoning")]


class KeepsReasoning(LessonSession):
    """Sets the pending call aside but leaves the reasoning item that preceded it."""

    def window(self) -> list:
        view = super().window()
        answered = {it.get("call_id") for it in view
                    if it.get("type") == "function_call_output"}
        return [it for it in view if it.get("type") != "function_call"
                or it.get("call_id") in answered]


class CrashesOnLongWindows(Answer):
    """``starts[-max_turns]`` without the guard: fails when the window exceeds the history."""

    def window(self) -> list:
        starts = [i for i, it in enumerate(self.items) if it.get("role") == "user"]
        return set_aside_pending(self.items[starts[-self.max_turns]:])


class NoSettings(Answer):
    """Misses ``session_settings``: the Runner's protocol check fails."""

    def __init__(self, max_turns: int = 3):
        super().__init__(max_turns=max_turns)
        del self.session_settings


class PopDoesNothing(Answer):
    async def pop_item(self):
        return None


def verdict(answer):
    return arun(check_own_session(answer))


def test_right_answers_pass():
    assert verdict(Answer).passed is True
    assert verdict(SQLiteAnswer).passed is True  # an SDK store underneath is fine


@pytest.mark.parametrize(("answer", "expected"), [
    (LessonSession, "an approval that never comes"),  # what the lesson itself shows
    (TrimmingSession, "is ctxlab's TrimmingSession"),  # the hint used to suggest it
    (SummarizingSession, "is ctxlab's SummarizingSession"),
    (SubclassedTrimming, "subclass of ctxlab's TrimmingSession"),
    (WrappedTrimming, "WrappedTrimming hands the work to ctxlab's TrimmingSession"),
    (lambda max_turns=3: TrimmingSession("lambda", max_turns=max_turns),
     "the lambda hands the work to ctxlab's TrimmingSession"),
    (functools.partial(TrimmingSession, "partial"),
     "partial returns ctxlab's TrimmingSession"),  # no code to read: seen in what it returns
    (trimming_factory, "trimming_factory hands the work to ctxlab's TrimmingSession"),
    (ModuleDictWrapper, "ModuleDictWrapper hands the work to ctxlab's TrimmingSession"),
    (HelperWrapper, "ctxlab's TrimmingSession (through the global TrimmingSession)"),
    (ItemCut, "it shows 3 user turns"),
    (Flattening, "never stored (a changed or invented item)"),
    (Everything, "user turns"),
    (Nothing, "missing"),
    (NoToolTraffic, "missing"),
    (KeepsReasoning, "the API would reject"),
    (CrashesOnLongWindows, "the session raised IndexError"),
    (NoSettings, "would not accept it as a session"),
    (PopDoesNothing, "pop_item() returned None"),
    (lambda **kw: 1 / 0, "raised ZeroDivisionError"),  # a broken answer is a verdict
], ids=lambda value: getattr(value, "__name__", None) if callable(value) else None)
def test_wrong_answers_are_rejected_and_told_why(answer, expected):
    result = verdict(answer)
    assert result.passed is False and expected in result.message, result.message


def test_no_answer_yet():
    assert verdict(None).passed is None
