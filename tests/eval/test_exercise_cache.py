"""Lesson 08's exercise: the crossover length of trim:8/8 against the cached full history."""

from __future__ import annotations

from ctxlab.eval.exercises import cache_crossover, check_cache_crossover

from conftest import arun


def test_the_check_accepts_the_crossover_and_rejects_what_the_lesson_shows():
    right = arun(cache_crossover("trim:8/8"))
    assert right is not None and arun(check_cache_crossover(right)).passed is True
    # in the lesson's plot: once its folds are priced, summarizing never beats the cached
    # full history on this chat; every length before the crossover is refused
    assert arun(cache_crossover("summarize:2/8")) is None
    for wrong in (n for n in (10, 20, 30) if n < right):
        assert arun(check_cache_crossover(wrong)).passed is False
    # the lesson: trim:8 costs more than the cached full history until the very last length
    assert arun(cache_crossover("trim:8")) == 90
    assert arun(check_cache_crossover(90)).passed is False
    assert arun(check_cache_crossover(55)).passed is False  # not a length of the sweep
    assert arun(check_cache_crossover("60")).passed is False  # type: ignore[arg-type]
    assert arun(check_cache_crossover(None)).passed is None
