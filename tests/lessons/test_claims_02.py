"""Lesson 02: every number its prose states is the number the cell above it printed."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after, numbers

LESSON = Lesson.load("02_trimming")


def test_the_goals_do_not_call_the_simulated_customers_real():
    goals = LESSON.markdown(LESSON.find("**In this lesson you will**"))
    assert "real airline" not in goals and "simulated customers" in goals
    corpus = LESSON.markdown(LESSON.find("## 5. Choosing `max_turns` from data"))
    assert "simulated customers" in corpus


def test_savings_start_at_turn_n_plus_two_as_printed():
    prose = LESSON.markdown(LESSON.find("The offline model is not being difficult"))
    shown = LESSON.output(LESSON.find("first saves at turn", kind="code"))
    offsets = [int(n) for n in re.findall(r"\(N \+ (\d)\)", shown)]
    assert offsets == [2, 2]
    assert "from turn N + 2 on" in prose and "at turn N + 1" in prose
    assert "lesson 00" in prose


def test_the_task_claims_match_the_task_figures():
    cell = LESSON.find("Most of these customers come with one task")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    assert number_after(shown, "tasks per conversation: median") == 1
    assert "nine turns" in prose
    assert number_after(shown, "90th percentile)") == 9
    assert number_after(shown, "user turns per task: median 5.5, 90th percentile") == 9
    coverage = LESSON.output(LESSON.find("recommend_max_turns(corpus, 0.9)", kind="code"))
    assert "eight turns" in prose and number_after(coverage, "in view:") == 8


def test_the_realistic_reader_claims_match_the_chances():
    cell = LESSON.find("Inside the window of eight turns")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    rma = re.search(r"rma\s+(\d+)%\s+(\d+)%", shown)
    assert rma and numbers(prose)[:2] == [float(rma.group(2)), float(rma.group(1))]
    full = [float(m) for m in re.findall(r"^\s+\d+\s+\w+\s+(\d+)%", shown, re.MULTILINE)]
    assert number_after(prose, "with a chance of ") == min(full)
    assert number_after(prose, "% to ") == max(full)
