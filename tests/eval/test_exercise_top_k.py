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


@pytest.mark.parametrize("answer", [4, 0, 9, 2.5, "5"])
def test_the_default_k_and_bad_answers_fail(answer):
    if answer == 4 and RIGHT == 4:
        pytest.skip("the default happens to be the answer")
    assert arun(check_top_k(answer)).passed is False


def test_no_answer_is_pending():
    assert arun(check_top_k(None)).passed is None
