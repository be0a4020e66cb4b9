"""The lessons' real-corpus comparison: the same strategies on planted chats, SGD, CrossWOZ."""

from __future__ import annotations

import asyncio

import pytest

import ctxlab
from ctxlab.eval.real_corpora import CorporaComparison, compare_on_real_corpora

SMALL = {"planted": "planted:1", "sgd": "sgd:report:2", "crosswoz": "crosswoz:report:2"}


@pytest.fixture(scope="module")
def small() -> CorporaComparison:
    return asyncio.run(compare_on_real_corpora(["full", "trim:2", "trim:1+slots:ask"], SMALL))


def test_each_corpus_runs_the_same_strategies_and_full_history_keeps_everything(small):
    assert list(small.runs) == ["planted", "sgd", "crosswoz"]
    assert small.customers == {"planted": 1, "sgd": 2, "crosswoz": 2}
    for corpus in small.runs:
        full = small.summary(corpus, "full")
        assert full.recall == pytest.approx(1.0, abs=0.01)
        assert full.token_ratio == pytest.approx(1.0)
        trimmed = small.summary(corpus, "trim:2")
        assert trimmed.recall < full.recall and trimmed.token_ratio < 1.0


def test_slot_memory_keeps_what_a_short_trim_loses_on_real_dialogues(small):
    for corpus in ("sgd", "crosswoz"):
        slots = small.summary(corpus, "trim:1+slots:ask")
        assert slots.recall > small.summary(corpus, "trim:2").recall + 0.3
        assert slots.token_ratio < 0.6


def test_the_table_has_a_group_per_corpus_and_a_row_per_strategy(small):
    text = small.text()
    head = text.splitlines()[0]
    assert head.index("planted") < head.index("sgd") < head.index("crosswoz")
    assert "full history" in text and "trim 1 + slots:ask" in text
    assert "customers: planted 1, sgd 2, crosswoz 2" in text


def test_bad_input_is_refused_by_name(small):
    with pytest.raises(KeyError, match="'tau'"):
        small.summary("tau", "full")
    with pytest.raises(ValueError, match="at least one corpus"):
        asyncio.run(compare_on_real_corpora(["full"], {}))
    with pytest.raises(ValueError, match=r"unknown corpus .sgd2:report."):
        asyncio.run(compare_on_real_corpora(["full"], {"x": "sgd2:report"}))


def test_it_is_exported_from_the_top_level():
    assert ctxlab.compare_on_real_corpora is compare_on_real_corpora
