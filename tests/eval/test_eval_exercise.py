"""Lesson 06's exercise check: it scores use and answers, rejects every strategy the lesson
shows and the plausible wrong answers, and accepts a strategy that meets the targets."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ctxlab.course.pitfalls import RereadingSummarizer
from ctxlab.eval import DEFAULT_STRATEGIES, parse_strategy
from ctxlab.eval.exercise import (
    MAX_TOKEN_RATIO,
    TARGET_ANSWERS,
    TARGET_CURRENT,
    check_memory_choice,
    exercise_run,
    shortfalls,
)

from conftest import arun

#: Every strategy lesson 06 shows (its table, the compare step, the sweep), and answers a
#: learner might plausibly try.
SHOWN = list(dict.fromkeys([*DEFAULT_STRATEGIES, "budget:2000",
                            *(f"trim:{n}" for n in range(1, 11))]))
PLAUSIBLE = ["summarize:3/6", "summarize:2/3", "trim:3+state+recall",
             "trim:4+state+recall", "summarize:1/2+state", "budget:1500"]


def test_a_strategy_that_meets_every_target_passes():
    result = arun(check_memory_choice("summarize:1/2"))
    assert result.passed is True and bool(result)
    assert "summarize:1/2" in result.message and "answers" in result.message
    # a short window with structured state, now that the state keeps every device's values
    # (issue 26, item 4) instead of one slot
    assert arun(check_memory_choice("trim:2+state")).passed is True


def test_every_strategy_the_lesson_shows_and_the_plausible_ones_fail():
    rereading = replace(parse_strategy("summarize:2/4", summarizer=RereadingSummarizer),
                        name="summarize:2/4 (re-reads its notes)")
    run = arun(exercise_run([*SHOWN, *PLAUSIBLE, rereading]))
    passing = [s.strategy for s in run.summaries() if not shortfalls(s)]
    assert passing == []
    reread = run.summary(rereading.name)
    assert reread.use_stale > 0 and "superseded value" in " ".join(shortfalls(reread))


@pytest.mark.parametrize(("answer", "reason"), [
    ("trim:8", "forgets too much"),
    ("full", "costs too much"),
    ("summarize:2/4", "costs too much"),
    ("trim:4+state", "costs too much"),
    ("bogus:1", "does not parse"),
    (42, "expected a strategy spec string"),
])
def test_wrong_answers_fail_and_say_why(answer, reason):
    result = arun(check_memory_choice(answer))
    assert result.passed is False and not result
    assert reason in result.message


def test_no_answer_is_pending_and_the_targets_are_sensible():
    assert arun(check_memory_choice(None)).passed is None
    assert 0.5 < TARGET_CURRENT <= 1 and 0.5 < TARGET_ANSWERS <= 1 and 0 < MAX_TOKEN_RATIO < 1
