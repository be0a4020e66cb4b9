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
    keeps_no_turn,
    shortfalls,
    verdicts,
)

from conftest import arun

#: Every strategy lesson 06 shows (its table, the compare step, the sweep), and answers a
#: learner might plausibly try.
SHOWN = list(dict.fromkeys([*DEFAULT_STRATEGIES, "budget:2000",
                            *(f"trim:{n}" for n in range(1, 11))]))
PLAUSIBLE = ["summarize:3/6", "summarize:2/3", "trim:3+state+recall",
             "trim:4+state+recall", "summarize:1/2+state", "budget:1500", "summarize:1/2",
             "summarize:1/3", "summarize:2/8"]
#: Settings that pass only when folds are free or no turn is kept verbatim (issue 21).
FREE_FOLDS = ["summarize:0/1", "summarize:0/2"]
NO_TURN_KEPT = ["summarize:0/6", "summarize:0/8"]


def test_a_strategy_that_meets_every_target_passes():
    result = arun(check_memory_choice("summarize:1/6"))
    assert result.passed is True and bool(result)
    assert "summarize:1/6" in result.message and "answers" in result.message
    assert "summarizer calls included" in result.message
    # a short window with structured state, now that the state keeps every device's values
    # (issue 26, item 4) instead of one slot
    assert arun(check_memory_choice("trim:2+state")).passed is True


def test_every_strategy_the_lesson_shows_and_the_plausible_ones_fail():
    rereading = replace(parse_strategy("summarize:2/4", summarizer=RereadingSummarizer),
                        name="summarize:2/4 (re-reads its notes)")
    judged = arun(verdicts([*SHOWN, *PLAUSIBLE, *FREE_FOLDS, rereading]))
    passing = [name for name, s in judged.items() if not shortfalls(s)]
    assert passing == []
    reread = judged[rereading.name]
    assert reread.use_stale > 0 and "superseded value" in " ".join(shortfalls(reread))
    for spec in FREE_FOLDS:  # they fail on cost now that every fold is counted
        assert judged[spec].summary_calls > 0
        assert "costs too much" in " ".join(shortfalls(judged[spec]))


def test_folds_are_priced_so_folding_every_turn_is_not_free():
    judged = arun(verdicts(["summarize:1/2", "summarize:1/6"]))
    often, rarely = judged["summarize:1/2"], judged["summarize:1/6"]
    assert often.summary_calls > 2 * rarely.summary_calls
    assert often.summary_input_tokens > rarely.summary_input_tokens
    assert often.token_ratio > rarely.token_ratio
    unpriced = (often.input_tokens - often.summary_input_tokens) / often.full_tokens
    assert unpriced < MAX_TOKEN_RATIO < often.token_ratio  # the old metric let it pass


@pytest.mark.parametrize("spec", NO_TURN_KEPT + FREE_FOLDS)
def test_a_summary_that_keeps_no_turn_verbatim_is_refused(spec):
    assert keeps_no_turn(parse_strategy(spec))
    result = arun(check_memory_choice(spec))
    assert result.passed is False and "keeps no turn verbatim" in result.message


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
