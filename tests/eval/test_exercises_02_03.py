"""Lessons 02 and 03: their checks accept the answer and reject what the lessons print,
degenerate settings and answers of the wrong kind (each rejection is a test)."""

from __future__ import annotations

import numpy as np
import pytest
from agents import set_tracing_disabled

from ctxlab.eval import exercises
from ctxlab.eval.exercises import (
    FOLD_GRID,
    _summarizing_run,
    check_smallest_window,
    check_summarizing_setup,
    fewest_folds,
    fold_count,
    smallest_window_for_ticket,
    whole_number,
)

from conftest import arun

set_tracing_disabled(True)
SMALLEST = arun(smallest_window_for_ticket())


# ---------------------------------------------------------------------------- lesson 02

def test_the_smallest_window_passes_in_any_whole_number_form():
    assert 1 < SMALLEST < 19
    for answer in (SMALLEST, float(SMALLEST), np.int64(SMALLEST), np.float64(SMALLEST)):
        result = arun(check_smallest_window(answer))
        assert result.passed is True, (answer, result)


@pytest.mark.parametrize("answer", [SMALLEST + 0.5, "9", True, 0, -3, [SMALLEST]])
def test_answers_that_are_not_a_positive_whole_number_are_refused(answer):
    result = arun(check_smallest_window(answer))
    assert result.passed is False and "whole number" in result.message


def test_windows_too_small_or_not_the_smallest_fail_and_say_why():
    assert "no longer sees" in arun(check_smallest_window(SMALLEST - 1)).message
    assert "not the smallest" in arun(check_smallest_window(SMALLEST + 1)).message
    for shown in (8, 3):  # the windows the lesson runs
        assert arun(check_smallest_window(shown)).passed is False
    assert arun(check_smallest_window(None)).passed is None


def test_whole_number_reads_integral_numbers_only():
    assert whole_number(np.int64(9)) == 9 and whole_number(9.0) == 9
    assert whole_number(9.5) is None and whole_number("9") is None
    assert whole_number(False) is None


# ---------------------------------------------------------------------------- lesson 03

def test_fold_counts_are_what_a_session_makes():
    for keep, limit in [(2, 3), (1, 5), (0, 6), (1, 1), (3, 8), (2, 6)]:
        assert fold_count(keep, limit) == arun(_summarizing_run(keep, limit)).folds


def test_the_fewest_fold_settings_pass_in_any_whole_number_form():
    best, _ = arun(fewest_folds())
    assert 1 < best < 6
    assert arun(check_summarizing_setup(1, 5)).passed is True
    assert arun(check_summarizing_setup(np.int64(1), 5.0)).passed is True
    passing = [kl for kl in FOLD_GRID if kl[0] >= 1 and fold_count(*kl) == best
               and arun(check_summarizing_setup(*kl)).passed]
    assert (1, 5) in passing


@pytest.mark.parametrize(("keep", "limit", "reason"), [
    (2, 3, "the limit is 60%"),         # the lesson's own setting, now that folds count
    (1, 1, "the limit is 60%"),         # a fold every turn is priced
    (2, 4, "the limit is 60%"),         # the default summarize:2/4: just over, folds counted
    (1, 2, "some setting needs only"),  # the lesson's fold-after-every-second-turn example
    (2, 8, "the limit is 60%"),         # the turn part of the lesson's summarize:2/8@7372
    (2, None, "folds on tokens only"),  # the lesson's token trigger has no turn limit
    (1, 3, "some setting needs only"),  # good enough, but folds more often than needed
    (1, 4, "some setting needs only"),
    (0, 6, "did not see turn"),         # keeps no turn verbatim (issue 21: it passed)
    (0, 7, "did not see turn"),
    (0, 8, "did not see turn"),
    (4, 2, "keep_last_n_turns"),        # invalid: K > L
    (1.5, 5, "whole numbers"),
    ("1", 5, "whole numbers"),
])
def test_wrong_settings_fail_and_say_why(keep, limit, reason):
    result = arun(check_summarizing_setup(keep, limit))
    assert result.passed is False and reason in result.message, result


def test_no_answer_is_pending():
    assert arun(check_summarizing_setup(None, 3)).passed is None


def test_the_check_runs_only_a_few_conversations(monkeypatch):
    exercises._FOLD_CACHE.clear()
    runs = []
    original = exercises._summarizing_run

    async def counting(keep, limit):
        runs.append((keep, limit))
        return await original(keep, limit)

    monkeypatch.setattr(exercises, "_summarizing_run", counting)
    assert arun(check_summarizing_setup(1, 5)).passed is True
    assert len(runs) <= 8 < len(FOLD_GRID)
