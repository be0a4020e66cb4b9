"""The realistic reader over several seeds (ctxlab.eval.seeds): the committed spreads of
benchmarks/results/reader_seeds.json are what the library computes, and a claim "at every
seed" is refused as soon as one seed goes the other way."""

from __future__ import annotations

import importlib.util

import pytest

from ctxlab.eval.seeds import SeedSpread, load_seed_spreads, reader_spread

from conftest import ROOT, arun

RESULTS = ROOT / "benchmarks" / "results" / "reader_seeds.json"


def script():
    spec = importlib.util.spec_from_file_location("reader_seeds", ROOT / "scripts" /
                                                  "reader_seeds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def spread(**answers) -> SeedSpread:
    return SeedSpread("planted:2:30-50", (0, 1, 2), 61,
                      {k: tuple(v) for k, v in answers.items()},
                      dict.fromkeys(answers, 1.0), {k: k for k in answers})


def test_beats_means_at_every_seed():
    s = spread(full=(49, 45, 51), summary=(54, 47, 53), state=(47, 47, 55))
    assert s.beats("summary", "full") is True
    assert s.beats("state", "full") is False  # behind at seed 0, ahead at seed 2
    assert s.beats("full", "state") is False
    tied = spread(full=(49, 45, 51), same=(49, 46, 52))
    assert tied.beats("same", "full") is False  # a tie at one seed is not "more"
    assert s.span("full") == (45, 51) and s.at("state", 2) == 55


def test_the_table_shows_every_seed_and_the_range():
    table = spread(full=(49, 45, 51), summary=(54, 47, 53)).table()
    head, _, full, summary, note = table.splitlines()
    assert head.split()[1:7] == ["seed", "0", "seed", "1", "seed", "2"]
    assert full.split()[:3] == ["full", "49", "45"] and "45-51" in full
    assert "47-54" in summary and "of 61 asked" in note


def test_a_spread_with_a_missing_seed_is_refused():
    with pytest.raises(ValueError, match="full: 2 answer counts for 3 seeds"):
        spread(full=(49, 45))


def test_the_json_round_trip(tmp_path):
    from ctxlab.eval.seeds import save_seed_spreads

    s = spread(full=(49, 45, 51), summary=(54, 47, 53))
    path = save_seed_spreads({"lesson": s}, tmp_path / "spreads.json", "made in a test")
    assert load_seed_spreads(path) == {"lesson": s}


def test_the_committed_file_is_what_the_script_makes():
    spreads = load_seed_spreads(RESULTS)
    module = script()
    assert set(spreads) == set(module.SPREADS)
    for name, (corpus, strategies) in module.SPREADS.items():
        assert spreads[name].corpus == corpus
        assert tuple(spreads[name].answers) == strategies
        assert spreads[name].seeds == module.SEEDS


def test_one_seed_recomputed_matches_the_committed_file():
    """Seed 1 of the lesson's spread, recomputed now, for the two strategies the lesson's
    first claim compares (a change in the reader or the strategies shows here)."""
    committed = load_seed_spreads(RESULTS)["lesson"]
    fresh = arun(reader_spread(committed.corpus, ["full", "summarize:2/4"], [1]))
    assert fresh.asked == committed.asked
    for spec in ("full", "summarize:2/4"):
        assert fresh.at(spec, 1) == committed.at(spec, 1), spec
        assert fresh.token_ratio[spec] == pytest.approx(committed.token_ratio[spec])
