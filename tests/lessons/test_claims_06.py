"""Lessons 06 and 06b: every number their prose states is the number printed above it."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after

L06 = Lesson.load("06_evaluation")
L06B = Lesson.load("06b_evaluation_in_practice")


def table(text: str) -> dict[str, list[str]]:
    """Rows of a summary table by strategy label (label = text before two spaces)."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^(\S.*?)\s{2,}(\S.*)$", line)
        if match and not line.startswith(("strategy", "-")):
            rows[match.group(1)] = match.group(2).split()
    return rows


def test_summarize_is_up_and_left_on_both_corpora():
    cell = L06.find("The two corpora tell different stories.")
    prose = L06.markdown(cell)
    shown = L06.output(L06.find("run = await evaluate(tau + planted", kind="code"))
    tau, planted = shown.split("planted:")
    tau_rows, planted_rows = table(tau), table(planted)
    for rows in (tau_rows, planted_rows):
        mine = rows["summarize 2/4"]
        recall, ratio = float(mine[0].rstrip("%")), float(mine[4 if len(mine) > 7 else 3]
                                                           .rstrip("%"))
        assert recall == 100.0 and ratio < 100.0
        for label, other in rows.items():  # nothing keeps as much for less
            if label != "summarize 2/4" and float(other[0].rstrip("%")) >= recall:
                assert float(other[-4].rstrip("%")) >= ratio
    assert "`summarize 2/4` is there on both corpora" in prose
    assert number_after(prose, "for ") == float(tau_rows["summarize 2/4"][-4].rstrip("%"))
    assert number_after(prose, "tau-bench and ") == float(
        planted_rows["summarize 2/4"][-4].rstrip("%"))
    assert "no strategy is there on both corpora" not in prose


def test_the_realistic_reader_claims_match_its_table():
    cell = L06.find("With every probed fact in view, the full history answers")
    prose, shown = L06.markdown(cell), L06.output_above(cell)
    assert "realistic reader" in shown  # the table says which reader produced it
    rows = table(shown)
    answers = {k: int(v[1].split("/")[0]) for k, v in rows.items()}
    assert number_after(prose, "answers ") == answers["full history"]
    assert number_after(prose, "shorter window and answers ") == answers["summarize 2/4"]
    assert number_after(prose, "as\ncurrent (") == float(rows["trim 4 + state"][0].rstrip("%"))
    assert number_after(prose, "and answers\n") == answers["trim 4 + state"]
    assert number_after(prose, "`trim 8` answers ") == answers["trim 8"]
    assert answers["full history"] < answers["summarize 2/4"]
    assert answers["full history"] < answers["trim 4 + state"]


def test_the_parameter_guide_figures_match_the_measurement():
    cell = L06B.find("The course agent's system prompt is far shorter")
    prose, shown = L06B.markdown(cell), L06B.output_above(cell)
    assert number_after(prose, "tokens (") == number_after(shown, "system prompt:")
    assert number_after(prose, "plus ") == number_after(shown, "tool schemas")
    assert number_after(prose, "recommends ") == number_after(shown, "recommends: trim:")
    assert number_after(prose, "median ") == number_after(shown, "median")


def test_the_split_lessons_link_in_order():
    assert "06b_evaluation_in_practice.ipynb" in "".join(L06.cells[-1]["source"])
    assert "07_production.ipynb" in "".join(L06B.cells[-1]["source"])
