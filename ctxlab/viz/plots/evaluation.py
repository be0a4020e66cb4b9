"""Plots of evaluation results (matplotlib; every function returns a Figure).

* :func:`plot_recall_vs_tokens`: each strategy as a point, recall against token ratio
  (a strategy that presents stale values as current is flagged with its rate);
* :func:`plot_survival`: which kinds of facts survive, per strategy, with the share
  presented stale-as-current stacked on top in red;
* :func:`plot_use`: per strategy, the model calls that present a changed fact's current
  value as current, a superseded one (stale-as-current), or none;
* :func:`plot_cost_per_100_turns`: dollars per 100 user turns, per strategy;
* :func:`plot_sweep`: a sweep's curve, its Pareto front and the recommended value.

Colours and markers are the course's (:mod:`ctxlab.viz.palette`, Okabe-Ito).
"""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure

from ...eval.results import EvalRun
from ...eval.sweep import SweepResult
from ..palette import LINE_COLORS, MARKERS, USE_COLORS
from .figure import new_figure


def _runs(runs: EvalRun | Mapping[str, EvalRun]) -> dict[str, EvalRun]:
    if isinstance(runs, EvalRun):
        return {"": runs}
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("expected an EvalRun or a non-empty mapping of label -> EvalRun")
    for label, run in runs.items():
        if not isinstance(run, EvalRun):
            raise ValueError(f"{label!r} is a {type(run).__name__}, not an EvalRun")
    return dict(runs)


def _strategy_colors(runs: Mapping[str, EvalRun]) -> dict[str, str]:
    names: dict[str, None] = {}
    for run in runs.values():
        for name in run.strategies:
            names.setdefault(name, None)
    return {name: LINE_COLORS[n % len(LINE_COLORS)] for n, name in enumerate(names)}


def plot_recall_vs_tokens(
    runs: EvalRun | Mapping[str, EvalRun],
    *,
    title: str = "What memory keeps, and what it costs",
    figsize: tuple[float, float] = (8.0, 4.2),
) -> Figure:
    """Recall (probed facts in view) against input tokens as a share of the full history's.

    ``runs`` is one run or ``{corpus label: run}``: one marker shape per corpus, one colour
    per strategy. Up and to the left is better.
    """
    chosen = _runs(runs)
    colors = _strategy_colors(chosen)
    fig, ax = new_figure(figsize)
    for n, (corpus, run) in enumerate(chosen.items()):
        marker = MARKERS[n % len(MARKERS)]
        for summary in run.summaries():
            if summary.recall is None or summary.token_ratio is None:
                continue
            x, y = 100 * summary.token_ratio, 100 * summary.recall
            label = f"{summary.label} ({corpus})" if corpus else summary.label
            ax.scatter([x], [y], color=colors[summary.strategy], marker=marker, s=60,
                       label=label, edgecolor="#333333", linewidth=0.5, zorder=3)
            if summary.use_stale:
                ax.annotate(f"{summary.stale_as_current:.0%} stale-as-current", (x, y),
                            textcoords="offset points", xytext=(6, 4), fontsize=7,
                            color=USE_COLORS["stale"])
    ax.set_xlabel("input tokens, % of the full history's")
    ax.set_ylabel("recall: probed facts in view (%)")
    ax.set_xlim(0, 105)
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def plot_survival(
    run: EvalRun,
    *,
    by: str = "category",
    measure: str = "recall",
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Grouped bars: for each group of facts (by ``category``, ``origin``, ...), the share
    of probes whose value was in view (``measure="recall"``) or presented as current
    (``"current"``), one bar per strategy; the share of probes whose view presents a
    superseded value as current is stacked on top, in red."""
    if measure not in ("recall", "current"):
        raise ValueError(f"measure must be 'recall' or 'current', got {measure!r}")
    survival = run.survival(by)
    used = run.use_survival(by)
    names = run.strategies
    groups = sorted({g for per in survival.values() for g in per})
    if not groups:
        raise ValueError("the run has no probes to plot")
    bars = len(groups) * max(1, len(names))
    fig, ax = new_figure(figsize or (min(12.0, max(6.0, 0.12 * bars + 3.5)), 3.8))
    width = 0.8 / max(1, len(names))
    stale_label = "stale-as-current"
    for n, name in enumerate(names):
        xs, ys, stale = [], [], []
        for g, group in enumerate(groups):
            kept, total = survival[name].get(group, (0, 0))
            current, wrong, _ = used[name].get(group, (0, 0, 0))
            if total:
                xs.append(g - 0.4 + width * (n + 0.5))
                ys.append(100 * (kept if measure == "recall" else current) / total)
                stale.append(100 * wrong / total)
        ax.bar(xs, ys, width=width, color=LINE_COLORS[n % len(LINE_COLORS)],
               label=run.labels.get(name, name), edgecolor="#FFFFFF", linewidth=0.4)
        if any(stale):
            ax.bar(xs, stale, width=width, bottom=ys if measure == "current" else
                   [y - s for y, s in zip(ys, stale, strict=True)], color=USE_COLORS["stale"],
                   hatch="//", edgecolor="#FFFFFF", linewidth=0.4, label=stale_label)
            stale_label = "_nolegend_"
    ax.set_xticks(range(len(groups)), groups, rotation=20, ha="right")
    ax.set_ylabel("probes with the value in view (%)" if measure == "recall"
                  else "probes with the current value as current (%)")
    ax.set_ylim(0, 105)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title or f"Which facts survive (by {by})")
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def plot_use(
    run: EvalRun,
    *,
    title: str = "Which value does the view present as current?",
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Stacked horizontal bars, one per strategy: of the model calls made after a fact
    changed (every such fact, every call), the share whose view presents its current value
    as current, a superseded value as current (stale-as-current), or none."""
    summaries = run.summaries()
    if not any(s.use_calls for s in summaries):
        raise ValueError("the run has no fact whose value changed: nothing to plot")
    fig, ax = new_figure(figsize or (8.0, 0.45 * len(summaries) + 1.4))
    for row, summary in enumerate(summaries):
        left = 0.0
        for use, count in (("current", summary.use_current), ("stale", summary.use_stale),
                           ("missing", summary.use_missing)):
            share = 100 * count / summary.use_calls if summary.use_calls else 0.0
            ax.barh([row], [share], left=left, color=USE_COLORS[use], edgecolor="#FFFFFF",
                    label={"current": "current value as current",
                           "stale": "stale-as-current", "missing": "no value"}[use]
                    if row == 0 else "_nolegend_")
            if use == "stale" and count:
                ax.text(left + share, row, f" {share:.1f}%", va="center", fontsize=7,
                        color=USE_COLORS["stale"])
            left += share
    ax.set_yticks(range(len(summaries)), [s.label for s in summaries], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("model calls after a fact changed (%)")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def plot_cost_per_100_turns(
    runs: EvalRun | Mapping[str, EvalRun],
    *,
    title: str | None = None,
    figsize: tuple[float, float] = (8.0, 3.6),
) -> Figure:
    """Horizontal bars: dollars of input tokens per 100 user turns, per strategy (one group
    of bars per corpus), at each run's price table."""
    chosen = _runs(runs)
    colors = _strategy_colors(chosen)
    fig, ax = new_figure(figsize)
    labels: list[str] = []
    ticks: list[float] = []
    position = 0.0
    for corpus, run in chosen.items():
        for summary in run.summaries():
            cost = summary.cost_per_100_turns
            ax.barh([position], [cost], color=colors[summary.strategy], edgecolor="#FFFFFF")
            ax.text(cost, position, f" ${cost:.3f}", va="center", fontsize=7)
            labels.append(f"{summary.label} ({corpus})" if corpus else summary.label)
            ticks.append(position)
            position += 1
        position += 0.5  # a gap between corpora
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.invert_yaxis()
    model = next(iter(chosen.values())).model
    ax.set_xlabel(f"USD per 100 user turns (input tokens at {model} prices)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title or "Cost per 100 turns")
    fig.tight_layout()
    return fig


def plot_sweep(
    result: SweepResult,
    *,
    title: str | None = None,
    figsize: tuple[float, float] = (7.0, 4.0),
) -> Figure:
    """Recall against token ratio for each swept value (annotated), the Pareto front, the
    target recall and the recommended value (a star)."""
    if not isinstance(result, SweepResult):
        raise ValueError(f"expected a SweepResult, got {type(result).__name__}")
    fig, ax = new_figure(figsize)
    xs = [100 * p.token_ratio for p in result.points]
    ys = [100 * p.recall for p in result.points]
    ax.plot(xs, ys, color="#BBBBBB", linewidth=1, zorder=1)
    ax.scatter(xs, ys, color=LINE_COLORS[0], s=30, zorder=2, label="swept values")
    for p, x, y in zip(result.points, xs, ys, strict=True):
        ax.annotate(str(p.value), (x, y), textcoords="offset points", xytext=(4, -10),
                    fontsize=7)
    front = result.pareto
    ax.plot([100 * p.token_ratio for p in front], [100 * p.recall for p in front],
            color=LINE_COLORS[1], linewidth=1.5, linestyle="--", zorder=3, label="Pareto front")
    best = result.recommended
    ax.scatter([100 * best.token_ratio], [100 * best.recall], marker="*", s=220,
               color=LINE_COLORS[3], edgecolor="#333333", zorder=4,
               label=f"recommended: {best.strategy}")
    ax.axhline(100 * result.target, color="#999999", linestyle=":", linewidth=1.2,
               label=f"target {result.target:.0%}")
    ax.set_xlabel("input tokens, % of the full history's")
    ax.set_ylabel("recall: probed facts in view (%)")
    ax.set_ylim(0, 105)
    ax.set_xlim(0, max(105, max(xs) + 5))
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"Sweep of {result.template.replace('{}', 'N')}")
    ax.legend(frameon=False, fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig
