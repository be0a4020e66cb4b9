"""Lesson 06's exercise check: the reference passes, wrong answers fail with a reason."""

from __future__ import annotations

import pytest

from ctxlab.eval.exercise import MAX_TOKEN_RATIO, TARGET_RECALL, check_memory_choice

from conftest import arun


def test_the_reference_answer_passes():
    result = arun(check_memory_choice("trim:3+state+recall"))
    assert result.passed is True and bool(result)
    assert "trim:3+state+recall" in result.message and "recall" in result.message


@pytest.mark.parametrize(("answer", "reason"), [
    ("trim:8", "forgets too much"),
    ("full", "costs too much"),
    ("budget:600", "forgets too much"),
    ("bogus:1", "does not parse"),
    (42, "expected a strategy spec string"),
])
def test_wrong_answers_fail_and_say_why(answer, reason):
    result = arun(check_memory_choice(answer))
    assert result.passed is False and not result
    assert reason in result.message


def test_no_answer_is_pending_and_the_targets_are_sensible():
    assert arun(check_memory_choice(None)).passed is None
    assert 0.5 < TARGET_RECALL < 1 and 0 < MAX_TOKEN_RATIO < 1
