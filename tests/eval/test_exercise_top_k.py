"""Lesson 06b's exercise: the smallest top-k that reaches the best recall."""

from __future__ import annotations

import numpy as np
import pytest

from ctxlab.eval.exercises import _recall_at, check_top_k, smallest_top_k

from conftest import arun

RIGHT, BEST = arun(smallest_top_k())


def test_the_smallest_k_with_the_best_recall_passes():
    assert 1 < RIGHT < 8
    assert arun(_recall_at(RIGHT)) == BEST > arun(_recall_at(RIGHT - 1))
    assert arun(check_top_k(RIGHT)).passed is True
    assert arun(check_top_k(np.int64(RIGHT))).passed is True


def test_recall_never_falls_as_k_grows():
    values = [arun(_recall_at(k)) for k in range(1, 9)]
    assert values == sorted(values)


@pytest.mark.parametrize("offset", [-1, 1])
def test_neighbours_fail_and_say_why(offset):
    result = arun(check_top_k(RIGHT + offset))
    assert result.passed is False
    assert ("a larger k keeps" if offset < 0 else "a smaller k") in result.message


#: The lesson's own k (trim:4+recall, default k = 4), the guide's 3 to 5, the extremes of
#: the sweep (1 snippet, all 8), and answers that are not a k of 1..8.
REJECTED = [4, 3, 5, 1, 8, 0, 9, 2.5, "6", True, -1]


@pytest.mark.parametrize("answer", REJECTED)
def test_the_lessons_k_the_guides_range_degenerate_and_bad_answers_fail(answer):
    assert answer != RIGHT or isinstance(answer, bool), \
        f"{answer!r} is the answer: the exercise no longer tells it from the lesson's k"
    assert arun(check_top_k(answer)).passed is False


def test_a_float_or_numpy_k_equal_to_the_answer_passes():
    assert arun(check_top_k(float(RIGHT))).passed is True


def test_no_answer_is_pending():
    assert arun(check_top_k(None)).passed is None
