"""Lesson 11's prose says what the outputs above it show (the committed, executed notebook)."""

from __future__ import annotations

import re

from lesson_outputs import Lesson, number_after

LESSON = Lesson.load("11_long_term_memory")


def test_the_scope_of_each_sentence():
    lines = LESSON.output("scope").splitlines()
    assert [line.split()[0] for line in lines] == [
        "durable", "durable", "session", "session", "durable", "session", "session", "durable"]


def test_precedence_within_the_session_and_after_it():
    during = LESSON.output("precedence")
    assert during.index("(this conversation) Ship it to the Hilton") < during.index(
        "Standing, set aside for this conversation only:") < during.index("ship everything")
    after = LESSON.output("after")
    assert "promoted 1, left in the session 1, replaced 1" in after
    assert "Hilton" not in after and "email only" not in after
    assert "(standing, 2026-03-09) Text me instead of email from now on." in after
    zh = LESSON.output("zh").split("\n\n")
    assert "（本次对话）只是这次寄到酒店。" in zh[0] and "酒店" not in zh[1]


def test_four_bad_answers_are_refused_and_nothing_is_written():
    shown = LESSON.output("closed")
    assert shown.count("refused:") == 4 and "Four answers" in LESSON.markdown("closed-md")
    versions = re.search(r"before and after: (\d+) and (\d+); 2 session notes still waiting",
                         shown)
    assert versions and versions.group(1) == versions.group(2)


def test_the_partial_consolidation_loses_the_standing_notes():
    shown = LESSON.output("partial")
    assert "standing notes now: ['I use a Mac at work.']" in shown
    lost = re.search(r"lost: \[(.*)\]", shown)
    assert lost and lost.group(1).count("', '") == 1  # "two standing notes are gone"
    assert "two standing notes are gone" in LESSON.markdown("partial-after")


def test_the_tools_save_both_and_never_reach_another_customer():
    assert "session notes of day-40: 2 of 2" in LESSON.output("tools")
    shown = LESSON.output("mallory")
    assert shown.startswith('{"found": []}')
    assert "Ana, in her own session: ['My spare charger is in the blue drawer.']" in shown


def test_ten_endings_ten_writes_against_one():
    shown = LESSON.output("reflect")
    assert "end_session  10 endings -> 10 writes, 10 sessions kept" in shown
    assert "Reflector    10 endings ->  1 writes, 10 sessions kept" in shown
    assert LESSON.markdown("reflect-after").startswith("Ten writes against one")


def test_the_forgetting_figures_in_the_prose():
    shown = LESSON.output("decay")
    rows = {line.split("  ")[0]: line for line in shown.splitlines() if "one-off" in line}
    prose = " ".join(LESSON.markdown("decay-after").split())
    default, plain, slow = (rows["half-life 30 d"], rows["no reinforcement"],
                            rows["half-life 90 d"])
    assert f"a one-off note lasts {number_after(default, 'kept'):.0f} days" in prose
    assert f"stays all year ({number_after(default, 'until day'):.0f} days)" in prose
    assert f"{number_after(default, 'until day 360, '):.0f} notes are kept at the end" in prose
    assert f"forgotten on day {number_after(plain, 'until day'):.0f}" in prose
    assert f"(after {number_after(slow, 'kept'):.0f} days)" in prose
    assert "50 notes kept at the end (cap 50)" in slow


def test_forget_me_erases_the_notes_and_cancels_the_reflection():
    shown = LESSON.output("forget")
    assert "1 record(s) in sqlite file 'memory.db'" in shown
    assert "1 pending reflection cancelled" in shown
    assert "Ana's notes: 0, search: []" in shown and "still in the file's bytes: False" in shown
    assert LESSON.markdown("forget-after").startswith("One record deleted")


def test_the_sdk_hooks():
    assert "no callback  the question stored 2x, sent to the model 2x" in LESSON.output("retry")
    assert "retry_once   the question stored 1x, sent to the model 1x" in LESSON.output("retry")
    assert "session_input_callback 3, input filter 0" in LESSON.output("inject")
    shown = LESSON.output("advanced")
    assert "'No, on my lap.', 'Use a desk.']" in shown and "rollback refused" in shown
    assert "back on main: [" in shown and "'Try a stand.']" in shown
    assert "'requests': 1" in shown
