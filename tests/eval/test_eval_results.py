"""Runs: summaries, prices, files on disk, comparisons, sweeps and tables."""

from __future__ import annotations

import csv
import json
import re

import pytest

from ctxlab.course.costs import Price, cost_usd
from ctxlab.eval import (
    EvalRun,
    SweepPoint,
    compare,
    evaluate,
    load_cases,
    pareto_front,
    recommend,
    summary_table,
    survival_table,
    sweep,
)
from ctxlab.eval.tables import answer_key_table, latency_table, pressure_table

from conftest import arun

CASES = load_cases("seed") + load_cases("planted:2:24-30:1")


@pytest.fixture(scope="module")
def run() -> EvalRun:
    return arun(evaluate(CASES, ["full", "trim:2", "budget:900"], run_id="base"))


def test_summaries_add_up_the_case_results(run):
    full, trim, budget = run.summaries()
    assert full.recall == 1.0 and full.token_ratio == 1.0 and full.answer_accuracy == 1.0
    assert trim.recall < full.recall and trim.token_ratio < 1.0
    assert budget.pressure_events > 0 and trim.pressure_events == 0
    assert full.cases == len(CASES) and full.turns == sum(c.n_turns for c in CASES)
    assert full.probes == sum(len(c.probes) for c in CASES)
    assert full.stale_probes == sum(1 for c in CASES for p in c.probes if p.stale) > 0
    results = run.results_for("trim:2")
    assert trim.input_tokens == sum(r.tokens for r in results)
    assert trim.cost_usd == pytest.approx(cost_usd(trim.input_tokens, 0, "gpt-4.1-mini"))
    assert trim.cost_per_100_turns == pytest.approx(100 * trim.cost_usd / trim.turns)
    assert trim.repeated_tool_calls == sum(
        1 for r in results for p in r.probes if p.from_tool and not p.passed)
    assert run.config["strategies"] == ["full", "trim:2", "full+budget:900"]
    assert run.config["answer_note"].startswith("answers are asked only")


def test_a_run_is_repriced_from_its_price_table(run):
    data = run.to_dict()
    data["config"]["prices"] = {"gpt-4.1-mini": {"input": 4.0, "output": 16.0}}
    repriced = EvalRun.from_dict(data).summary("full")
    assert repriced.cost_usd == pytest.approx(
        cost_usd(repriced.input_tokens, 0, "m", {"m": Price(4.0, 16.0)}))
    with pytest.raises(ValueError, match="no price for model 'nope'"):
        arun(evaluate(CASES[:1], ["full"], price_model="nope"))


def test_saved_runs_load_back_and_write_csv(run, tmp_path):
    paths = run.save(tmp_path / "out")
    assert sorted(p.name for p in paths.values()) == [
        "base.json", "base.probes.csv", "base.summary.csv", "base.turns.csv"]
    loaded = EvalRun.load(paths["json"])
    assert loaded.summaries() == run.summaries() and loaded.results == run.results
    with paths["summary"].open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["strategy"] for r in rows] == run.strategies
    assert float(rows[0]["recall"]) == 1.0
    with paths["probes"].open() as handle:
        probes = list(csv.DictReader(handle))
    assert len(probes) == sum(s.probes for s in run.summaries())


def test_loading_bad_files_names_the_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read results file"):
        EvalRun.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON"):
        EvalRun.load(bad)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    with pytest.raises(ValueError, match="not a ctxlab evaluation run"):
        EvalRun.load(other)


def test_default_run_ids_sort_by_time_and_differ_by_config():
    a = arun(evaluate(CASES[:1], ["trim:2"], answers=False))
    b = arun(evaluate(CASES[:1], ["trim:3"], answers=False))
    pattern = r"\d{8}-\d{6}-[0-9a-f]{8}"
    assert re.fullmatch(pattern, a.run_id) and re.fullmatch(pattern, b.run_id)
    assert a.run_id[-8:] != b.run_id[-8:]
    assert a.summary("trim:2").answer_probes == 0


def test_subsets_by_corpus_and_strategy(run):
    planted = run.subset(sources=["planted"])
    assert {r.source for r in planted.results} == {"planted"}
    only = run.subset(strategies=["trim:2"])
    assert only.strategies == ["trim:2"]
    with pytest.raises(ValueError, match="subset is empty"):
        run.subset(sources=["nowhere"])


def test_comparing_a_run_with_itself_finds_nothing(run):
    same = compare(run, run)
    assert not same.has_regressions and same.improvements == 0
    assert len(same.deltas) == 3


def test_comparing_a_smaller_window_lists_regressions_by_category(run):
    candidate = arun(evaluate(CASES, ["trim:1", "budget:600"], run_id="cand"))
    result = compare(run, candidate, pairs={"trim:2": "trim:1",
                                            "full+budget:900": "full+budget:600"})
    counts = result.counts()
    assert counts["unanswered_questions"] > 0 and counts["token_pressure_drops"] > 0
    assert counts["repeated_tool_calls"] > 0 and counts["lost_constraints"] > 0
    for r in result.by_category()["token_pressure_drops"]:
        assert "cut by the context budget" in r.detail and "->" in r.detail
    text = result.table(max_rows=2)
    assert "baseline base vs candidate cand" in text and "unanswered questions" in text
    assert "... and" in text
    with pytest.raises(ValueError, match="share no strategy"):
        compare(run, candidate)
    with pytest.raises(ValueError, match="no strategy 'trim:9'"):
        compare(run, candidate, pairs={"trim:9": "trim:1"})


def test_pareto_front_and_recommendation():
    points = [SweepPoint(1, "a", 0.5, 0.2, 0.01), SweepPoint(2, "b", 0.8, 0.4, 0.02),
              SweepPoint(3, "c", 0.7, 0.5, 0.03), SweepPoint(4, "d", 0.96, 0.7, 0.04),
              SweepPoint(5, "e", 0.96, 0.9, 0.05)]
    assert [p.strategy for p in pareto_front(points)] == ["a", "b", "d"]
    assert recommend(points, 0.95).strategy == "d"
    assert recommend(points, 0.99).strategy == "d"  # best recall, cheapest of the equals
    assert recommend(points, 0.75).strategy == "b"
    with pytest.raises(ValueError, match="no sweep points"):
        recommend([])


def test_a_sweep_of_max_turns_recommends_the_cheapest_window_reaching_the_target():
    result = arun(sweep(CASES[3:], "trim:{}", [2, 6, 12, 40], target=0.9))
    recalls = [p.recall for p in result.points]
    assert recalls == sorted(recalls) and recalls[-1] == 1.0
    best = result.recommended
    assert best.recall >= 0.9 and all(p.token_ratio >= best.token_ratio
                                      for p in result.points if p.recall >= 0.9)
    assert best.strategy in result.advice() and "->" in result.table()
    with pytest.raises(ValueError, match="exactly one"):
        arun(sweep(CASES[:1], "trim:8", [1]))


def test_tables_show_every_strategy_and_reject_unknown_columns(run):
    table = summary_table(run)
    assert all(label in table for label in run.labels.values())
    assert "recall" in table and "vs full" in table
    with pytest.raises(ValueError, match="unknown column"):
        summary_table(run, ["nope"])
    survival = survival_table(run)
    assert "constraint" in survival and "serial" in survival
    assert "tool output" in survival_table(run, by="origin")
    with pytest.raises(ValueError, match="by must be"):
        run.survival("nope")
    assert "context budget" in pressure_table(run)
    assert pressure_table(run, strategy="full").startswith("no pinned fact")
    assert "get_items" in latency_table(run)
    key = answer_key_table(CASES[3])
    assert "superseded by" in key and CASES[3].facts[0].value in key
