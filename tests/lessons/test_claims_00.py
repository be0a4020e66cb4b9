"""Lesson 00 says what its outputs show."""

from __future__ import annotations

import re

import pytest

from lesson_outputs import Lesson


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    return Lesson.load("00_quickstart")


def rows(shown: str) -> list[str]:
    return re.findall(r"^\s+\d+ (\w+)", shown, re.M)


def test_the_session_stored_four_items(lesson):
    cell = lesson.find("Here is everything the session stored")
    text, shown = lesson.markdown(cell), lesson.output(lesson.find("raw_items()", kind="code"))
    assert "four items: two user messages, two replies" in " ".join(text.split())
    assert rows(shown) == ["user", "assistant", "user", "assistant"]


def test_the_trimmed_view_is_the_last_two_turns(lesson):
    text = " ".join(lesson.markdown(lesson.find("eight-message example")).split())
    shown = lesson.output(lesson.find('trimmed = TrimmingSession("trim-demo"', kind="code"))
    table = lesson.output(lesson.find("ledger.table()", kind="code"))
    assert "(four user turns" in text and "trimmed to the last two turns" in text
    assert rows(shown) == ["user", "assistant"] * 2
    assert "8 entries: 4 kept, 4 dropped" in table
    assert table.count("↳ older than the last 2 turns") == 4


def test_the_real_model_recommendation_is_the_course_wide_one(lesson):
    text = " ".join(lesson.markdown(lesson.find("## Try it with a real model")).split())
    assert "7B-or-larger instruct model with tool calling" in text
    assert "`CTXLAB_MODEL=qwen2.5:7b`" in text and "OLLAMA_CONTEXT_LENGTH=16384" in text
    assert "llama3.2" not in text
