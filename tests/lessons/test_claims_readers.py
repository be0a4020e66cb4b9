"""Every table of answers says who answered (issue 31): the offline model's perfect reader
(every fact in the window is found) or the realistic reader, which misses facts the way a
measured model does. Without the line, a reader of lesson 03's 5/5 cannot tell it from
lesson 06's 49/61."""

from __future__ import annotations

import pytest

from ctxlab.course.offline.reader import PERFECT_LABEL

from lesson_outputs import Lesson

#: (lesson, code cell id) of every table of probe answers a lesson prints
PERFECT_TABLES = [
    ("03_summarizing", "dab01111"),
    ("04_token_budgets", "f8eef171"),
    ("05_structured_and_recall_memory", "b586aeca"),
    ("06_evaluation", "1388dc66"),
]


@pytest.mark.parametrize(("name", "cell"), PERFECT_TABLES)
def test_each_answer_table_names_the_perfect_reader(name, cell):
    shown = Lesson.load(name).output(cell)
    assert shown.splitlines()[0] == f"answers by the offline model, {PERFECT_LABEL}", shown[:200]


def test_the_realistic_tables_name_their_reader_and_seed():
    for name, cell in (("06_evaluation", "6ceb32fb"), ("01_support_agent", None)):
        lesson = Lesson.load(name)
        cell = cell or lesson.find("realistic = make_support_agent(", kind="code")
        first = lesson.output(cell).splitlines()[0]
        assert first.startswith("answers by the offline model, realistic reader"), first
        assert "seed 0" in first
