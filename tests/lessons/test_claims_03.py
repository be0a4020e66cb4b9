"""Lesson 03: every number its prose states is the number the cell above it printed."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after

LESSON = Lesson.load("03_summarizing")


def test_the_exemplary_summary_has_the_latest_result_and_no_placeholder_for_current_values():
    cell = LESSON.find("Each value appears once under *Identifiers*")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    assert "Last result: Still overheating after cleaning the vents." in shown
    assert "Still overheating after cleaning the vents." in prose
    assert "firmware v1.0.4" in shown and "[firmware]" not in shown
    assert "Firmware: v1.0.4 (earlier: v1.0.3 until turn 3)" in shown
    assert "Firmware: v1.0.4\n(earlier: v1.0.3 until turn 3)" in prose
    router = LESSON.output(LESSON.find("print(item_text(view[1]))", kind="code"))
    assert "[code]" not in router and "shows error 42" in router


def test_the_recording_claims_match_the_recording():
    cell = LESSON.find("Read it as a warning")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    assert "RECORDED" in shown and "SmolLM2-135M-Instruct" in shown
    assert "400 output tokens (max_tokens=400)" in shown  # "until the 400-token cap"
    assert "400-token cap" in prose
    missing = re.search(r"missing from the reply: \[(.*)\]", shown)
    assert missing and set(re.findall(r"'([^']+)'", missing.group(1))) == {"v1.0.3", "42"}
    assert "send the firmware to your address" in shown and "send the firmware" in prose


def test_the_cost_claims_count_the_folds():
    cell = LESSON.find("Summarizing answers every probe, trimming none")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    line = next(ln for ln in shown.splitlines() if ln.startswith("summarize 2/3"))
    assert number_after(prose, "every third turn costs ") == float(re.search(r"\((\d+)%", line)[1])
    agent_share = round(100 * number_after(line, "agent calls") / number_after(
        shown, "full history   agent calls"))
    assert number_after(prose, "not the ") == agent_share
    assert number_after(prose, "send (") == number_after(line, "input tokens;")
    trim = next(ln for ln in shown.splitlines() if ln.startswith("trim 3 turns"))
    assert number_after(prose, "trimming costs ") == float(re.search(r"\((\d+)%", trim)[1])


def test_the_drift_claims_match_the_tables():
    folds = LESSON.output(LESSON.find("drift_over_folds(long_chat, drifting)", kind="code"))
    rows = [list(map(int, ln.split())) for ln in folds.splitlines() if re.match(r"^\s+\d+\s", ln)]
    wrong = [r[3] for r in rows]
    assert wrong[-1] > wrong[0] and max(wrong) == wrong[-1]
    assert max(r[4] for r in rows) <= 1  # the exact summarizer: at most one
    cell = LESSON.find("The marked summary says which values it is unsure of")
    prose, shown = LESSON.markdown(cell), LESSON.output_above(cell)
    assert "marked as uncertain; could you confirm" in shown
    rebuilt = re.search(r"(\d+) of (\d+) facts wrong before, (\d+) after", shown)
    assert rebuilt and (number_after(prose, "went from "), number_after(prose, "(of "),
                        number_after(prose, "19) to ")) == tuple(map(float, rebuilt.groups()))
    cell = LESSON.find("Markers do not bring a lost value back")
    prose, table = LESSON.markdown(cell), LESSON.output_above(cell)
    rows = {ln[:38].strip(): ln[38:].split() for ln in table.splitlines()[2:7]}
    drift, marked = rows["drifting"], rows["drifting + [uncertain] markers"]
    rebuild = rows["drifting + rebuild every 3 folds"]
    both = rows["drifting + markers + rebuild every 3"]
    assert number_after(prose, "stays at\n") == float(drift[0].rstrip("%")) == float(
        marked[0].rstrip("%"))
    assert number_after(prose, "value (") == int(drift[4]) and marked[4] == "0"
    assert number_after(prose, "confirm (") == int(marked[3])
    assert number_after(prose, "were right (") == int(drift[2])
    assert number_after(prose, "fall to ") == int(marked[2])
    assert number_after(prose, "lost values back (") == float(rebuild[0].rstrip("%"))
    assert number_after(prose, "for ") == int(rebuild[6]) - int(drift[6])
    assert both[4] == "0" and number_after(prose, "only ") == int(both[3])


def test_every_summarizing_session_in_the_lesson_uses_keyword_arguments():
    for cell in LESSON.cells:
        if cell["cell_type"] == "code":
            for call in re.findall(r"SummarizingSession\(([^)]*)", "".join(cell["source"])):
                assert not re.match(r"\s*\d", call), call
