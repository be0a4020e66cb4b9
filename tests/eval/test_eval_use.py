"""Use, not presence: which value a view presents as current, per probe and per model call,
in every table and in the compare step."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ctxlab.course.pitfalls import RereadingSummarizer
from ctxlab.eval import EvalRun, KeyFact, compare, evaluate, load_cases, parse_strategy
from ctxlab.eval.tables import comparison_table, summary_table, survival_table
from ctxlab.eval.use import UseTracker, read_use

from conftest import arun

OLD = KeyFact("email", "a@x.org", "email", first_item=0, first_turn=1, superseded_by="b@x.org",
              superseded_turn=3)
NEW = KeyFact("email", "b@x.org", "email", first_item=4, first_turn=3)


@pytest.mark.parametrize(("text", "use"), [
    ("reach me at a@x.org ... please use b@x.org from now on", "current"),
    ("Email: b@x.org (earlier: a@x.org until turn 3)", "current"),
    ("Email: a@x.org (earlier: b@x.org until turn 3)", "stale"),  # the first edition's flip
    ("please use b@x.org ... lookup_order(a@x.org)", "stale"),
    ("earlier: a@x.org", "missing"),
    ("nothing here", "missing"),
])
def test_the_view_presents_one_value_as_current(text, use):
    assert read_use(text, NEW, [OLD]).use == use


def test_every_call_after_a_change_is_scored_and_the_first_stale_one_remembered():
    tracker = UseTracker([OLD, NEW])
    tracker.check(2, 3, "a@x.org")  # before the change: not scored
    tracker.check(3, 5, "b@x.org")
    tracker.check(4, 7, "Email: a@x.org (Superseded: b@x.org)")
    tracker.check(5, 9, "")
    (record,) = tracker.records()
    assert (record.calls, record.current, record.stale, record.missing) == (3, 1, 1, 1)
    assert (record.first_stale_turn, record.stale_value) == (4, "a@x.org")


@pytest.fixture(scope="module")
def runs() -> tuple[EvalRun, EvalRun]:
    cases = load_cases("planted:3:40-60:7")
    good = arun(evaluate(cases, ["summarize:2/4"], run_id="good"))
    flip = replace(parse_strategy("summarize:2/4", summarizer=RereadingSummarizer),
                   name="summarize:2/4", label="summarize 2/4 (re-reads its notes)")
    bad = arun(evaluate(cases, [flip], run_id="bad"))
    return good, bad


def test_a_summary_that_keeps_every_identifier_in_view_can_still_present_old_ones(runs):
    good, bad = runs
    ok, flipped = good.summary("summarize:2/4"), bad.summary("summarize:2/4")
    assert ok.use_stale == 0 and ok.current_rate == 1.0
    assert flipped.use_stale > 0 and flipped.stale_as_current > 0
    identifiers = [p for r in bad.results for p in r.probes
                   if p.category not in ("constraint", "commitment")]
    assert all(p.available for p in identifiers)  # every identifier is in view...
    assert any(p.use == "stale" for p in identifiers)  # ...and some old ones read as current
    table = summary_table(bad)
    heading = table.split("\n---")[0]  # the headings, a long one wrapped after a hyphen
    assert "stale-as-current" in heading or (  # or "stale-as-" over "current"
        "stale-as-" in heading.splitlines()[0] and "current" in heading.splitlines()[1])
    assert "stale" in survival_table(bad, measure="current")
    with pytest.raises(ValueError, match="measure must be"):
        survival_table(bad, measure="bogus")
    again = EvalRun.from_dict(bad.to_dict())
    assert again.summary("summarize:2/4") == flipped
    row = flipped.to_row()
    assert row["stale_as_current"] == flipped.stale_as_current and row["use_stale"] > 0


def test_compare_lists_stale_as_current_regressions(runs):
    good, bad = runs
    report = compare(good, bad)
    found = report.by_category()["stale_as_current"]
    assert found and all("presented as current" in r.detail or "superseded value" in r.detail
                         for r in found)
    assert "stale-as-current 0.0% ->" in comparison_table(report)
    assert compare(bad, good).counts()["stale_as_current"] == 0
