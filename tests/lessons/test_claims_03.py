"""Lesson 03: every number its prose states is the number the cell above it printed."""

from __future__ import annotations

import re
from itertools import pairwise

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
    assert number_after(prose, "`summarize 2/3`\ncosts ") == float(re.search(r"\((\d+)%", line)[1])
    agent_share = round(100 * number_after(line, "agent calls") / number_after(
        shown, "full history   agent calls"))
    assert number_after(prose, "not the ") == agent_share
    assert number_after(prose, "send (") == number_after(line, "input tokens;")
    trim = next(ln for ln in shown.splitlines() if ln.startswith("trim 3 turns"))
    assert number_after(prose, "trimming costs ") == float(re.search(r"\((\d+)%", trim)[1])
    folds = re.search(r"summarize 2/3 folds in turns \[([\d, ]+)\]", shown)[1]
    turns = [int(t) for t in folds.split(",")]
    assert len(turns) == number_after(prose, "send (") and turns[0] == number_after(
        prose, "from turn ") and {b - a for a, b in pairwise(turns)} == {2}
    assert "every second turn" in prose
    for label, said in (("trim 3 turns", "trimming sends "), ("summarize 2/3", "calls send ")):
        low, high = re.search(label + r": turns 6-20 send ([\d,]+) to ([\d,]+)", shown).groups()
        assert (number_after(prose, said), number_after(prose, said + low + " to ")) == (
            float(low.replace(",", "")), float(high.replace(",", "")))


def test_the_token_trigger_folds_past_45_percent_of_a_16k_window():
    cell = LESSON.find("The threshold is ")
    prose, shown = " ".join(LESSON.markdown(cell).split()), LESSON.output_above(cell)
    code = LESSON.source(LESSON.find("watch_folds(by_share", kind="code"))
    assert 'parse_strategy("summarize:2@45%/16k"' in code
    threshold = number_after(shown, "folds past ")
    assert threshold == int(0.45 * 16384) == number_after(prose, "The threshold is ")
    fold = re.search(r"turn (\d+) left ([\d,]+) tokens; turn (\d+) brought them to ([\d,]+): "
                     r"fold; ([\d,]+) tokens after it", shown)
    assert fold, shown
    before_turn, before, turn, peak, after = (float(g.replace(",", "")) for g in fold.groups())
    assert before <= threshold < peak and after < threshold and turn == before_turn + 1
    assert shown.count(": fold;") == 1  # one fold in 150 turns
    assert (number_after(prose, "turn 139 leaves it at "), number_after(prose, "brings it to "),
            number_after(prose, "session shows ")) == (before, peak, after)
    assert number_after(prose, "turn ") == before_turn and f"turn {int(turn)} brings" in prose
    covered = re.search(r"the summary covers turns (\d+)-(\d+)", shown).groups()
    assert f"takes turns {covered[0]}-{covered[1]}" in prose
    rows = {ln[:20].strip(): ln[20:].replace("+", " ").split()
            for ln in shown.splitlines() if ln.startswith("summarize:")}
    share, turns = rows["summarize:2@45%/16k"], rows["summarize:2/4"]
    assert share[0] == "1" and int(turns[0]) > 10 * int(share[0])
    assert number_after(prose, "call read ") == float(share[1].replace(",", ""))
    bound = number_after(shown, "one summarizer call reads at most ")
    assert number_after(prose, "within the ") == bound >= float(share[1].replace(",", ""))
    tips = " ".join(LESSON.markdown(LESSON.find("## Try it with a real model")).split())
    assert f"({bound:,.0f} by default" in tips and bound <= 16384
    assert number_after(prose, "`summarize:2/4` folded ") == float(turns[0])
    assert number_after(prose, "summarizer read ") == float(turns[1].replace(",", ""))
    assert number_after(prose, "up to ") == float(share[3].replace(",", "")) == peak
    assert number_after(prose, "shown ") == float(share[4].replace(",", ""))
    assert number_after(prose, "against ") == float(turns[4].replace(",", ""))
    assert (number_after(prose, "folds' "), number_after(prose, "folds' " + turns[1] + " + ")) == (
        float(turns[1].replace(",", "")), float(turns[2].replace(",", "")))
    # the token trigger is the ceiling, not the saving: it shows more history in all
    assert int(share[4].replace(",", "")) > int(turns[4].replace(",", ""))


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
    assert rebuild[6] == drift[6] and "no extra summarizer\ncall" in prose  # rebuild_every
    assert (number_after(prose, "rises from "), number_after(prose, "% to ")) == (
        float(drift[7].rstrip("%")), float(rebuild[7].rstrip("%")))
    assert both[4] == "0" and number_after(prose, "only ") == int(both[3])


def test_every_summarizing_session_in_the_lesson_uses_keyword_arguments():
    for cell in LESSON.cells:
        if cell["cell_type"] == "code":
            for call in re.findall(r"SummarizingSession\(([^)]*)", "".join(cell["source"])):
                assert not re.match(r"\s*\d", call), call


def test_real_corpora_prose_reads_its_figures_from_the_table_and_restates_the_conclusion():
    from lesson_outputs import percents, table_rows

    prose = LESSON.markdown("real-after")
    rows = table_rows(LESSON.output_above("real-after"))
    s24, s48, t8 = rows["summarize 2/4"], rows["summarize 4/8"], rows["trim 8"]
    # columns: planted recall, vs full | sgd recall, vs full | crosswoz recall, vs full
    assert s24[0] == s48[0]  # "both summaries keep"
    assert percents(prose) == [s24[0], s24[1], s48[1], t8[0], s24[2], s24[4], s24[3], s24[5],
                               t8[2], t8[4], t8[3], t8[5], s48[2], s48[4], s48[3], s48[5]]
    assert "offline `ExtractiveSummarizer`" in prose and "no model call" in prose
    # what the prose concludes: summarizing wins on planted chats, trim:8 keeps more for less
    # on both real corpora; summarize:4/8 keeps about as much as trim:8 at far more tokens
    assert s24[0] > t8[0] and s48[0] > t8[0]
    for recall, cost in ((2, 3), (4, 5)):
        assert s24[recall] < t8[recall] and s24[cost] > t8[cost]
        assert abs(s48[recall] - t8[recall]) < 10 and s48[cost] > t8[cost] + 20


def test_the_topic_summary_keeps_the_real_values_but_costs_more_than_full_history():
    from lesson_outputs import percents, table_rows

    prose = LESSON.markdown("real-topics-after")
    shown = LESSON.output_above("real-topics-after")
    assert "ExtractiveSummarizer(topics=True)" in "".join(
        LESSON.cells[LESSON._index("real-topics")]["source"])
    s24 = table_rows(shown)["summarize 2/4"]
    # columns: sgd recall, vs full | crosswoz recall, vs full
    assert percents(prose) == [s24[0], s24[2], s24[1], s24[3]]
    assert min(s24[0], s24[2]) > 90 and min(s24[1], s24[3]) > 100  # "more than keeping everything"
    assert "LLMSummarizer" in prose and "slot memory" in prose
    assert "customers: planted" in LESSON.output_above("real-after")
