"""The README says what the data is: tau-bench's customers are simulated by a model."""

from __future__ import annotations

from conftest import ROOT


def test_tau_bench_is_described_as_simulated_customers():
    from ctxlab import load_tau_bench

    readme = " ".join((ROOT / "README.md").read_text().split())
    count = len(load_tau_bench())
    assert f"choosing `max_turns` from {count} recorded tau-bench airline conversations (a " \
           "GPT-4o agent and a simulated customer)" in readme
    assert "real transcripts" not in readme
    assert "a GPT-4o agent talking to a simulated customer, itself a model" in readme
