"""Lesson 09's prose says what the outputs above it show (the committed, executed notebook)."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after, numbers

LESSON = Lesson.load("09_handoffs_and_multi_issue")


def test_the_chat_has_the_devices_and_values_the_prose_names():
    shown = LESSON.output("chat")
    assert "issue A (monitor): serial C0293R9XXEGE" in shown
    assert "issue B (laptop): serial J9WRJG9DNY2V" in shown
    assert "t15 monitor         Back to my monitor" in shown
    assert "(turn 15)" in LESSON.markdown("chat-after")


def test_the_default_handoff_checks_the_other_devices_serial():
    prose = LESSON.markdown("default-after")
    shown = LESSON.output_above("default-after")
    assert 'check_warranty {"serial": "J9WRJG9DNY2V"}' in shown
    assert "`J9WRJG9DNY2V`" in prose and "`C0293R9XXEGE`" in prose
    assert "answered by: Repair desk" in shown
    stored = re.search(r"holds (\d+) items: the chat's (\d+) and (\d+) from this run", shown)
    assert stored is not None
    assert number_after(prose, "whole run, as always:") == float(stored.group(3))
    assert number_after(prose, "items after the") == float(stored.group(2))


def test_the_views_prose_matches_the_tokens_and_serials_shown():
    prose = LESSON.markdown("views-after")
    shown = LESSON.output_above("views-after")
    tokens = {m.group(1): float(m.group(2).replace(",", "")) for m in
              re.finditer(r"^(\S+)\s+([\d,]+) tokens", shown, re.MULTILINE)}
    for label, mode in (("full history (", "full"), ("last 3 turns (", "trim:3"),
                        ("nested transcript\n(", "sdk-nested"), ("whole chat (", "handover"),
                        ("per-issue handover (", "per-issue")):
        assert number_after(prose, label) == tokens[mode], label
    checked = dict(re.findall(r"^(\S+)\s+[\d,]+ tokens\s+warranty checked for: (\S+)", shown,
                              re.MULTILINE))
    assert checked["per-issue"] == "C0293R9XXEGE"
    assert all(checked[m] == "J9WRJG9DNY2V" for m in ("full", "trim:3", "handover"))
    assert checked["sdk-nested"] == "(nothing)"
    assert tokens["sdk-nested"] > tokens["full"]  # "more than the full history"


def test_the_note_and_focus_and_desk_show_what_the_prose_says():
    note = LESSON.output("note")
    assert note.startswith("Case handover: the monitor issue (the laptop issue handled "
                           "separately, left out here)")
    assert "standing requests: Please reach me by email only" in note
    assert "J9WRJG9DNY2V" not in note and "C0293R9XXEGE" in note
    focus = LESSON.output("focus")
    assert "whole history  Your device's serial number is J9WRJG9DNY2V." in focus
    assert "IssueFocus     Your device's serial number is C0293R9XXEGE." in focus
    desk = LESSON.output("human")
    assert desk.startswith("Human agent -> I've passed your case") and "ESC-0001" in desk


def rows(table: str) -> dict[str, list[float]]:
    out = {}
    for line in table.splitlines():
        parts = line.split()
        if parts and parts[0] in ("full", "trim:3", "sdk-nested", "handover", "per-issue"):
            out[parts[0]] = numbers(line.replace(parts[0], "", 1))
    return out


def test_the_measurement_prose_matches_the_table():
    prose = LESSON.markdown("measure-after")
    table = rows(LESSON.output_above("measure-after"))
    # columns: right leaked missing action-ok action-leak A-in-view B-in-view tokens
    legend = LESSON.output_above("measure-after").split("\n(")[-1]  # under the table, wrapped
    assert number_after(prose, "On these") == numbers(legend)[0]
    assert table["per-issue"][:5] == [100, 0, 0, 100, 0] and table["per-issue"][6] == 0
    assert f"in {table['per-issue'][7]:.0f} tokens per handoff" in prose
    assert f"against {table['full'][7]:.0f} for the full history" in prose
    for mode in ("full", "sdk-nested", "handover"):
        assert table[mode][1] == 100 and table[mode][5] == 100  # all held, all leaked
    assert f"({table['trim:3'][2]:.0f}% missing)" in prose


def test_the_escalation_is_checked_in_the_queue_and_the_table_names_its_model():
    """Issue 34: the desk cell read queue.cases[0] blindly (an IndexError on a server that
    drops tools); now it prints check_action's verdict, and the scored table says it ran on
    the offline team model, as the prose says."""
    desk = LESSON.output("human")
    assert "checked: escalate to the human desk: it happened (the model called " \
           "transfer_to_human_agent)" in desk
    assert "check_action" in LESSON.source("human") and "if escalated:" in \
        LESSON.source("human")
    table = LESSON.output_above("measure-after")
    legend = " ".join(table[table.rindex("(") :].split())
    assert "scored on the offline team model;" in legend
    assert "stays on the offline team model" in " ".join(
        LESSON.markdown(LESSON.find("score_handoffs` runs every mode")).split())


def test_real_corpora_prose_reads_its_figures_from_the_tables():
    from lesson_outputs import blocks, percents

    prose = LESSON.markdown("real-after")
    tables = blocks(LESSON.output_above("real-after"))
    sgd, zh = tables["sgd"], tables["crosswoz"]
    # columns: issues, right, missing, leaked, stale, tokens
    issue_s, issue_z, serv_s, serv_z = sgd["per-issue"], zh["per-issue"], sgd["per-service"], \
        zh["per-service"]
    assert issue_s[1] == issue_z[1] == 0  # "right for 0% ... on both corpora"
    assert issue_s[2] == issue_z[2] == 100  # "missing (100%)"
    assert serv_s[4] == serv_z[4] == 0  # "with 0% stale"
    assert percents(prose) == [issue_s[1], issue_s[2], issue_s[3], issue_z[3], serv_s[1],
                               serv_z[1], serv_s[4], serv_s[3], serv_z[3]]
    assert min(serv_s[1], serv_z[1]) > max(issue_s[1], issue_z[1]) + 50
    # "250 tokens a handover against 138 ... on SGD, 192 against 146 on CrossWOZ"
    said = [int(n) for n in re.findall(r"(\d+) (?:tokens a handover )?against (\d+)", prose)
            for n in n]
    assert said == [serv_s[5], issue_s[5], serv_z[5], issue_z[5]], said
    assert serv_s[5] > issue_s[5] and serv_z[5] > issue_z[5]
