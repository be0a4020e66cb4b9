"""Lesson 01: every number its prose states is the number the cell above it printed."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after, numbers

LESSON = Lesson.load("01_support_agent")


def percents(text: str) -> dict[str, float]:
    return {m.group(1): float(m.group(2)) for m in
            re.finditer(r"^(\w+)\s+[\d,]+ tokens\s+\((\d+)%\)", text, re.MULTILINE)}


def test_the_window_parts_claim_matches_the_split():
    cell = LESSON.find("Tool results are the largest part")
    prose, shown = LESSON.markdown(cell), percents(LESSON.output_above(cell))
    assert max(shown, key=shown.get) == "tool_results"
    assert number_after(prose, "largest part of this call (") == shown["tool_results"]
    assert number_after(prose, "is the second largest (") == shown["history"]
    assert number_after(prose, "are a fixed ") == shown["instructions"]
    assert sorted(shown.values(), reverse=True)[:2] == [shown["tool_results"], shown["history"]]


def test_the_growth_claims_match_the_run():
    prose = LESSON.markdown(LESSON.find("Every run re-sends the whole history"))
    shown = LESSON.output(LESSON.find("first turn:", kind="code"))
    assert number_after(prose, "(") == number_after(shown, "first turn:")
    assert number_after(prose, "tokens at turn 1, ") == number_after(shown, "last turn:")


def test_the_realistic_reader_claims_match_its_tables():
    prose = LESSON.markdown(LESSON.find("With every fact in its window"))
    shown = LESSON.output_above(LESSON.find("With every fact in its window"))
    full = [float(m) for m in re.findall(r"^\s+\d+\s+\w+\s+(\d+)%", shown, re.MULTILINE)]
    assert number_after(prose, "a chance of ") == min(full)
    assert number_after(prose, "% to ") == max(full)
    expected = re.search(r"expected\s+([\d.]+)/5", shown)
    assert expected and number_after(prose, "an\nexpected ") == float(expected.group(1))
    found = re.search(r"total\s+(\d+)/5", shown)
    assert found and number_after(prose, "with seed 0 it found ") == float(found.group(1))
    rma = re.search(r"rma\s+(\d+)%\s+(\d+)%", shown)
    assert rma and numbers(prose.split("RMA\nnumber")[1])[:2] == [float(rma.group(2)),
                                                                   float(rma.group(1))]


def test_the_measured_figures_quoted_are_the_papers():
    from ctxlab.course.offline.reader import ORACLE, THIRTY_PASSAGES, TWENTY_PASSAGES

    prose = LESSON.markdown(LESSON.find("Does the model use all of it?"))
    accuracy = dict(TWENTY_PASSAGES)
    for figure in (accuracy[1], accuracy[10], accuracy[20], ORACLE, dict(THIRTY_PASSAGES)[10]):
        assert f"{figure}%" in prose
