"""Cost per 100 turns as a conversation grows, with and without the provider's prompt
cache (from :func:`ctxlab.eval.caching.cache_sweep`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from ...eval.caching import CacheCost
from ..palette import strategy_style
from .figure import new_figure


def plot_cache_sweep(
    sweep: Mapping[int, Sequence[CacheCost]],
    *,
    title: str = "cost per 100 turns as the conversation grows",
    scale: float = 1000.0,
    unit: str = "$ per 1,000 conversations of 100 turns",
) -> Figure:
    """One line per strategy: solid with caching, dashed without (``scale`` turns dollars
    per 100 turns into a readable unit)."""
    if not sweep:
        raise ValueError("the sweep is empty: run cache_sweep with at least one length")
    lengths = sorted(sweep)
    names = [c.strategy for c in sweep[lengths[0]]]
    fig, ax = new_figure((8.8, 4.2))
    for name in names:
        style = strategy_style(name)
        color = style.color
        rows: list[Any] = [next(c for c in sweep[n] if c.strategy == name) for n in lengths]
        ax.plot(lengths, [r.cached_cost_per_100_turns * scale for r in rows], color=color,
                marker=style.marker or "o", linewidth=2, label=f"{name}, with caching")
        ax.plot(lengths, [r.cost_per_100_turns * scale for r in rows], color=color,
                linestyle="--", linewidth=1.2, alpha=0.8, label=f"{name}, no caching")
    ax.set_xlabel("conversation length (user turns)", fontsize=10)
    ax.set_ylabel(unit, fontsize=10)
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig
