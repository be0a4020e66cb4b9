"""DriftingSummarizer: wrong on purpose, seeded, compounding; and what the remedies do."""

from __future__ import annotations

import random

import pytest

from ctxlab import SummarizingSession, runner_batches
from ctxlab.course.drifting import DRIFTS, DriftingSummarizer, garble
from ctxlab.course.pitfalls import DriftingSummarizer as Exported
from ctxlab.eval import load_cases
from ctxlab.eval.drift import answer_kind, drift_report
from ctxlab.summarizers import ExtractiveSummarizer

from conftest import arun

CASE = max(load_cases("planted:3:40-50:7"), key=lambda c: len(c.items))


async def fold(summarizer, every=None):
    session = SummarizingSession(keep_last_n_turns=2, context_limit=4, summarizer=summarizer,
                                 session_id="drift", rebuild_every=every)
    for batch in runner_batches(CASE.items):
        await session.add_items(batch)
    return session


def wrong_values(text: str) -> int:
    """Current values of the answer key the summary does not present as current."""
    last = CASE.n_turns
    return sum(1 for f in CASE.facts if f.current_at(last) and not f.found_in(text))


def test_it_is_exported_with_the_other_pitfalls_and_refuses_bad_settings():
    assert Exported is DriftingSummarizer
    with pytest.raises(ValueError, match="rate"):
        DriftingSummarizer(rate=1.5)
    with pytest.raises(ValueError, match="drifts"):
        DriftingSummarizer(drifts=["typo"])


def test_at_rate_zero_it_is_the_exact_summarizer():
    exact = arun(fold(ExtractiveSummarizer()))
    zero = arun(fold(DriftingSummarizer(rate=0.0)))
    assert zero.summary.text == exact.summary.text


def test_the_same_seed_drifts_the_same_way_and_another_seed_differently():
    a, b = DriftingSummarizer(rate=1.0, seed=3), DriftingSummarizer(rate=1.0, seed=3)
    assert arun(fold(a)).summary.text == arun(fold(b)).summary.text and a.log == b.log
    c = DriftingSummarizer(rate=1.0, seed=4)
    arun(fold(c))
    assert c.log != a.log


def test_mistakes_pile_up_fold_after_fold():
    summarizer = DriftingSummarizer(rate=1.0, seed=1)
    session = arun(fold(summarizer))
    assert len(summarizer.log) >= session.summaries_applied - 1 >= 5
    assert {entry.split(": ", 1)[1].split()[0] for entry in summarizer.log} >= {"copied"}
    assert wrong_values(session.summary.text) > wrong_values(
        arun(fold(ExtractiveSummarizer())).summary.text)


def test_a_rebuild_from_the_raw_log_leaves_one_folds_worth_of_drift():
    drifting = arun(fold(DriftingSummarizer(rate=1.0, seed=1)))
    rebuilt = arun(fold(DriftingSummarizer(rate=1.0, seed=1), every=2))
    assert wrong_values(rebuilt.summary.text) < wrong_values(drifting.summary.text)


def test_with_markers_every_mistake_is_marked():
    summarizer = DriftingSummarizer(rate=1.0, seed=1, markers=True, drifts=["paraphrase"])
    session = arun(fold(summarizer))
    text = session.summary.text
    said = "\n".join(str(item) for item in CASE.items)
    copied = {entry.split(" as ")[1] for entry in summarizer.log if "copied" in entry}
    invented = [v for v in copied if v in text and v not in said]  # not swapped back
    assert invented and all(f"{v} [uncertain]" in text for v in invented)
    plain = DriftingSummarizer(rate=1.0, seed=1, drifts=["paraphrase"])  # the broken variant
    assert "[uncertain]" not in arun(fold(plain)).summary.text


def test_each_kind_of_mistake_happens():
    for kind in DRIFTS:
        summarizer = DriftingSummarizer(rate=1.0, seed=2, drifts=[kind])
        arun(fold(summarizer))
        assert summarizer.log, kind


def test_garble_keeps_the_kind_and_changes_the_value():
    rng = random.Random(0)
    for kind, value in [("ticket", "TCK-48213"), ("serial", "SN-4Q7K-22981"),
                        ("email", "dana.whitfield@example.com"), ("rma", "RMA-490978")]:
        wrong = garble(value, kind, rng)
        assert wrong is not None and wrong != value and sorted(wrong) == sorted(value)
    assert garble("TCK-1111", "ticket", rng) is None  # no two different neighbours


def test_the_drift_report_shows_what_each_remedy_wins_back():
    report = arun(drift_report(load_cases("planted:2:30-40:5"), rate=1.0, every=2))
    exact, drifting = report.row("exact"), report.row("drifting")
    markers, rebuild = report.row("markers"), report.row("rebuild")
    assert exact.answers["wrong"] == 0 and exact.summary.current_rate == 1.0
    assert drifting.summary.current_rate < exact.summary.current_rate
    assert drifting.answers["wrong"] > 0
    assert markers.answers["wrong"] < drifting.answers["wrong"]
    assert markers.answers["unsure"] > 0
    assert rebuild.summary.current_rate > drifting.summary.current_rate
    # a rebuild is a fold that reads the raw log: no extra call, but more tokens, counted
    assert rebuild.summary.summary_calls == drifting.summary.summary_calls
    assert rebuild.summary.token_ratio > drifting.summary.token_ratio
    table = report.table()
    assert "rebuild every 2" in table and "confirm" in table


def test_answer_kinds():
    from ctxlab.eval.metrics import ProbeResult

    base = dict(probe="p", turn=3, fact="ticket", category="ticket", expected="TCK-48213",
                from_tool=False, available=True, stale=False, asked=True)
    said = "Your ticket number is "
    assert answer_kind(ProbeResult(**base, correct=True, reply=said + "TCK-48213.")) == "correct"
    assert answer_kind(ProbeResult(**base, correct=False, reply=said + "TCK-48123.")) == "wrong"
    assert answer_kind(ProbeResult(**base, correct=False,
                                   reply="I don't see your ticket number.")) == "missing"
    assert answer_kind(ProbeResult(**base, correct=False, reply="My notes have TCK-48123 as your "
                                   "ticket number, but marked as uncertain; could you "
                                   "confirm it?")) == "unsure"
