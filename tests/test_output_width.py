"""No committed lesson prints a line wider than a notebook shows whole (issue 31, section 5).

JupyterLab breaks a printed line longer than its output area anywhere, even inside a word
("superse|ded", "example.co|m"), so every table, legend and report ctxlab prints fits
:data:`ctxlab.core.display.NOTEBOOK_COLUMNS` display columns (a Chinese character takes two),
and longer text is wrapped at spaces. The scan reads what each lesson printed (stream output
and plain-text results; HTML renders wrap themselves).

A few cells still print a long line with the lesson's own ``print`` (a model's reply, a raw
message, an exception's text): wrapping those means editing the lesson's code, which the
lessons' owners do next. They are listed in :data:`OWN_PRINTS`; the list can only shrink (a
listed cell that no longer prints a long line fails the test, so the entry is removed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxlab.core.display import NOTEBOOK_COLUMNS, display_width

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

#: lesson -> cell id -> what the lesson's own code prints there (not a ctxlab printer)
OWN_PRINTS: dict[str, dict[str, str]] = {
    "01_support_agent": {"d1d407cd": "the chat's messages", "49555d60": "the model's replies"},
    "03_summarizing": {
        "a3c4167b": "the summary message's text", "b89b4121": "the summary's text",
        "55962584": "a recorded model's input and reply",
        "65d6915c": "the lesson's pricing lines", "a45f0d02": "the lesson's fold line",
        "19a8968d": "the drifting summarizer's log entries",
        "580fffb7": "the summary's [uncertain] lines",
        "26d2b7fe": "a logged warning and the warning's text"},
    "05_structured_and_recall_memory": {
        "c7e0c716": "the model's replies", "f23894cf": "the model's replies",
        "81d4bc26": "the recalled message, cut by the lesson at 110",
        "9a41c2d7": "a question and the model's reply"},
    "06b_evaluation_in_practice": {"4c59d1d0": "the lesson's state-size line",
                                   "7fd702fb": "the judge's rubric"},
    "09_handoffs_and_multi_issue": {"default": "the model's reply",
                                    "human": "the model's reply and the case note"},
    "10_memory_across_sessions": {
        "recollection": "the memory message the model is sent",
        "poison": "the memory messages the model is sent, word for word",
        "zh": "the recalled memory and the model's replies",
        "race": "HubConflictError's text", "forget": "the reply and UnknownUserError's text"},
    "11_long_term_memory": {
        "day-one": "a Consolidated repr", "closed": "refusals' text",
        "partial": "a refusal's text and a Consolidated repr", "tools": "the tool's JSON",
        "decay": "the lesson's timeline lines", "forget": "the forget report",
        "advanced": "a refusal's text and the SDK's usage dict"},
}


def printed(output: dict[str, Any]) -> str:
    """What a learner reads as monospaced text: a stream, or a result with no HTML."""
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    return "" if "text/html" in data else "".join(data.get("text/plain", ""))


def too_wide(cells: list[dict[str, Any]]) -> dict[str, list[str]]:
    """cell id -> the printed lines wider than NOTEBOOK_COLUMNS (by display width)."""
    found: dict[str, list[str]] = {}
    for n, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            for line in printed(output).splitlines():
                if display_width(line) > NOTEBOOK_COLUMNS:
                    found.setdefault(cell.get("id", str(n)), []).append(line)
    return found


LESSONS = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))


def test_every_lesson_is_scanned():
    assert len(LESSONS) >= 15 and set(OWN_PRINTS) <= {p.stem for p in LESSONS}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_no_printed_line_is_wider_than_a_notebook_shows(path):
    wide = too_wide(json.loads(path.read_text(encoding="utf-8"))["cells"])
    allowed = OWN_PRINTS.get(path.stem, {})
    unexplained = {cell: lines for cell, lines in wide.items() if cell not in allowed}
    assert not unexplained, "\n".join(
        f"{path.stem} cell {cell}: {display_width(line)} columns: {line[:120]}"
        for cell, lines in unexplained.items() for line in lines)
    fixed = sorted(set(allowed) - set(wide))
    assert not fixed, f"{path.stem}: {fixed} print no long line any more: remove from OWN_PRINTS"


def test_the_scan_measures_display_width_not_characters():
    """A Chinese line of 51 characters is 102 columns: too wide, though len() says 51; a
    table row of exactly NOTEBOOK_COLUMNS passes; an HTML result is not scanned."""
    chinese = "冷" * 51
    cells = [{"id": "zh", "outputs": [{"output_type": "stream", "text": [chinese + "\n"]}]},
             {"id": "edge", "outputs": [{"output_type": "stream",
                                         "text": ["-" * NOTEBOOK_COLUMNS + "\n"]}]},
             {"id": "html", "outputs": [{"output_type": "display_data", "data": {
                 "text/html": ["x" * 300], "text/plain": ["y" * 300]}}]},
             {"id": "repr", "outputs": [{"output_type": "execute_result", "data": {
                 "text/plain": ["z" * (NOTEBOOK_COLUMNS + 1)]}}]}]
    assert len(chinese) < NOTEBOOK_COLUMNS and set(too_wide(cells)) == {"zh", "repr"}
