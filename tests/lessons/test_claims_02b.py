"""Lesson 02b says what its outputs show: every number in the prose is read from the
output of the cell it talks about."""

from __future__ import annotations

import re

import pytest

from lesson_outputs import Lesson, number_after, numbers


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    return Lesson.load("02b_build_your_own_session")


def prose(lesson: Lesson, cell: str) -> str:
    """The markdown of ``cell`` on one line (prose wraps anywhere)."""
    return " ".join(lesson.markdown(cell).split())


def test_the_session_sends_three_turns_plus_the_new_input(lesson):
    text = prose(lesson, lesson.find("Three turns plus the new input"))
    shown = lesson.output_above(lesson.find("Three turns plus the new input"))
    assert "Three turns plus the new input, whole" in text
    sent = int(number_after(shown, "the last turn's first call sent"))
    rows = [line for line in shown.splitlines() if re.match(r"\s+\d+ (user|assistant)", line)]
    assert len(rows) == sent
    assert sum(1 for r in rows if " user " in r) == 3 + 1  # three turns and the new message
    assert "problems the API would report: none" in shown


def test_the_last_three_flattened_turns_hold_one_exchange(lesson):
    cell = lesson.find("turn counting is wrong")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    stored = shown.split("the last 3 turns as stored:")[1].splitlines()[0]
    flat = shown.split('the last 3 "turns" flattened:')[1].splitlines()[0]
    items, customer, results = numbers(flat)
    assert f"{items:.0f} items, {customer:.0f} customer message, {results:.0f} tool result" in text
    _, customer, results = numbers(stored)
    assert f"hold {customer:.0f} customer messages and {results:.0f} tool results" in text
    before, after = number_after(shown, "turns before:"), number_after(shown, "after flattening:")
    assert after > before  # every call and output started a turn of its own


def test_a_pop_into_the_summary_drops_it_and_the_ledger_says_so(lesson):
    cell = lesson.find("The first four pops took turn 9")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    first, last = (int(n) for n in re.search(r"covers turns \((\d+), (\d+)\)", shown).groups())
    pops = int(number_after(shown, "pop "))
    assert pops == 5 and "The first four pops" in text and "The fifth" in text
    assert f"summarized turns {first}-{last}" in text
    assert f"took turn {last}'s reply" in text and "assistant" in shown.split("took:")[1]
    after = shown.split("summary now:")[1]
    assert after.split("|")[0].strip() == "None"
    kept = int(number_after(after, "'kept':"))
    assert f"every one of the {kept} items still stored as kept" in text
    assert number_after(after, "'summarized':") == 0
    assert number_after(shown.split("summary now:")[0], "'summarized':") > 0
