"""Lesson 11's exercise: a forgetting policy that keeps the notes in use for a year, lets
one-off notes go within 45 days and caps the notes at 40. The check accepts an answer and
rejects the lesson's own policies (as printed, and with a legal cap), degenerate settings,
and objects that are not a plain DecayPolicy: each rejection is a test."""

from __future__ import annotations

import dataclasses

import pytest

from ctxlab import DecayPolicy
from ctxlab.eval.exercises import check_decay_policy
from ctxlab.longterm import strength

#: The policies lesson 11 draws and prints (its plot's legend).
LESSON = {"half-life 30 d": DecayPolicy(), "no reinforcement": DecayPolicy(reinforcement=0),
          "half-life 90 d": DecayPolicy(half_life_days=90)}


def test_an_answer_passes_and_says_what_it_measured():
    result = check_decay_policy(DecayPolicy(half_life_days=15, reinforcement=2, cap=40))
    assert result.passed is True
    assert "all 8 notes in use kept for the year, one-off notes gone within 34 days" in (
        result.message)


@pytest.mark.parametrize("name", list(LESSON))
def test_the_lessons_own_policies_fail_as_printed_and_with_a_legal_cap(name):
    printed = check_decay_policy(LESSON[name])
    assert printed.passed is False and "cap=50: at most 40" in printed.message
    capped = check_decay_policy(dataclasses.replace(LESSON[name], cap=40))
    assert capped.passed is False, capped.message


@pytest.mark.parametrize(("policy", "expected"), [
    (DecayPolicy(half_life_days=1e6, cap=40), "kept 49 days; forget it within 45"),
    (DecayPolicy(keep_above=0, cap=40), "never used again was kept"),
    (DecayPolicy(keep_above=1, cap=40), "unused, a note lasts 0 days"),
    (DecayPolicy(half_life_days=0.1, cap=40), "first used 15 days after"),
    (DecayPolicy(half_life_days=15, reinforcement=0, cap=40), "must buy more time"),
    (DecayPolicy(half_life_days=15, reinforcement=2, cap=1), "the cap of 1 evicted them"),
    (DecayPolicy(half_life_days=15, reinforcement=2, cap=20), "the cap of 20 evicted them"),
], ids=["never-fades", "keep-everything", "keep-nothing", "tiny-half-life",
        "no-reinforcement", "cap-1", "cap-20"])
def test_degenerate_policies_are_rejected_and_told_why(policy, expected):
    result = check_decay_policy(policy)
    assert result.passed is False and expected in result.message, result.message


class Everlasting(DecayPolicy):
    """Says half_life_days=15 but never lets a note fade (strength is not its to change,
    so it lies about its lifetime instead)."""

    def lifetime_days(self, uses: int = 0) -> float:
        return float("inf")


@dataclasses.dataclass(frozen=True)
class LookAlike:
    half_life_days: float = 15
    reinforcement: float = 2
    keep_above: float = 0.2
    cap: int = 40


@pytest.mark.parametrize("fake", [Everlasting(half_life_days=15, reinforcement=2, cap=40),
                                  LookAlike(), {"half_life_days": 15}, "15 days"],
                         ids=["subclass", "look-alike", "dict", "str"])
def test_anything_but_a_plain_decay_policy_is_refused(fake):
    result = check_decay_policy(fake)
    assert result.passed is False and "expected a DecayPolicy" in result.message


def test_no_answer_yet():
    assert check_decay_policy(None).passed is None


def test_the_strength_the_check_simulates_is_the_librarys():
    import datetime

    from ctxlab.longterm import MemoryNote

    note = MemoryNote(id="a", text="a", scope="durable", session="s", at="2026-01-01")
    day = datetime.datetime(2026, 1, 16, tzinfo=datetime.timezone.utc)
    assert strength(note, day, DecayPolicy(half_life_days=15)) == pytest.approx(0.5)
