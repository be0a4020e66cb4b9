"""Issue 22 §5: every lesson calls ``SummarizingSession(...)`` with keyword arguments
(``keep_last_n_turns=..., context_limit=...``), in code and in prose, never ``(2, 3)``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lesson_outputs import Lesson

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSONS = sorted(path.stem for path in NOTEBOOKS.glob("[0-9]*.ipynb"))
POSITIONAL = re.compile(r"SummarizingSession\(\s*\d")


def positional_calls(text: str) -> list[str]:
    return [m.group(0) for m in POSITIONAL.finditer(text)]


@pytest.mark.parametrize("name", LESSONS)
def test_summarizing_sessions_are_built_with_keywords(name):
    lesson = Lesson.load(name)
    for cell in lesson.cells:
        found = positional_calls("".join(cell["source"]))
        assert not found, (name, cell.get("id"), found)


def test_every_lesson_is_checked():
    assert len(LESSONS) >= 15 and "11_long_term_memory" in LESSONS


def test_the_check_finds_a_positional_call():
    assert positional_calls("s = SummarizingSession(2, 3)\nSummarizingSession(\n    1, 4)")
    assert not positional_calls("SummarizingSession(keep_last_n_turns=2, context_limit=3)")
