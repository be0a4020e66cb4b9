"""Plots of the course (matplotlib, colours from :mod:`ctxlab.viz.palette`).

* :mod:`.lessons`: tokens per turn, the context timeline, budget bars, window parts, run
  cost, the turn-count distribution;
* :mod:`.evaluation`: recall vs tokens, fact survival, use (stale-as-current), cost per
  100 turns, sweeps.
"""

from .evaluation import (
    plot_cost_per_100_turns,
    plot_recall_vs_tokens,
    plot_survival,
    plot_sweep,
    plot_use,
)
from .lessons import (
    plot_budget_bars,
    plot_context_timeline,
    plot_run_cost,
    plot_tokens_per_turn,
    plot_turn_distribution,
    plot_window_parts,
)

__all__ = [
    "plot_budget_bars",
    "plot_context_timeline",
    "plot_cost_per_100_turns",
    "plot_recall_vs_tokens",
    "plot_run_cost",
    "plot_survival",
    "plot_sweep",
    "plot_tokens_per_turn",
    "plot_turn_distribution",
    "plot_use",
    "plot_window_parts",
]
