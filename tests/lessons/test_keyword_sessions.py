"""Issue 22 §5: every lesson calls ``SummarizingSession(...)`` with keyword arguments
(``keep_last_n_turns=..., context_limit=...``), in code and in prose, never ``(2, 3)``."""

from __future__ import annotations

import re

import pytest

from lesson_outputs import Lesson

LESSONS = ["00_quickstart", "01_support_agent", "02_trimming", "02b_build_your_own_session",
           "03_summarizing", "04_token_budgets", "05_structured_and_recall_memory",
           "05b_chinese_conversations"]
POSITIONAL = re.compile(r"SummarizingSession\(\s*\d")


def positional_calls(text: str) -> list[str]:
    return [m.group(0) for m in POSITIONAL.finditer(text)]


@pytest.mark.parametrize("name", LESSONS)
def test_summarizing_sessions_are_built_with_keywords(name):
    lesson = Lesson.load(name)
    for cell in lesson.cells:
        found = positional_calls("".join(cell["source"]))
        assert not found, (name, cell.get("id"), found)


def test_the_check_finds_a_positional_call():
    assert positional_calls("s = SummarizingSession(2, 3)\nSummarizingSession(\n    1, 4)")
    assert not positional_calls("SummarizingSession(keep_last_n_turns=2, context_limit=3)")
