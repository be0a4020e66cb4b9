"""Plots of evaluation results (matplotlib; every function returns a Figure).

* :func:`plot_recall_vs_tokens`: each strategy as a point, recall against token ratio
  (a strategy that presents stale values as current is flagged with its rate);
* :func:`plot_survival`: which kinds of facts survive, per strategy, with the share
  presented stale-as-current stacked on top in red;
* :func:`plot_use`: per strategy, the model calls that present a changed fact's current
  value as current, a superseded one (stale-as-current), or none;
* :func:`plot_cost_per_100_turns`: dollars per 100 user turns, per strategy;
* :func:`plot_sweep`: a sweep's curve, its Pareto front and the recommended value.

Every strategy is drawn in its own style (:func:`ctxlab.viz.palette.strategy_style`), the
same in every plot and lesson; axes follow the data; text is at least
:data:`~ctxlab.viz.plots.figure.SMALL_FONT` points at notebook width.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ...eval.results import EvalRun
from ...eval.sweep import SweepResult
from ..palette import REFERENCE_COLOR, USE_COLORS, StrategyStyle, strategy_key, strategy_style
from .figure import NOTEBOOK_WIDTH, SMALL_FONT, new_figure
from .layout import data_limits, dodge, place_labels, shifted

#: How corpora are told apart in :func:`plot_recall_vs_tokens` (colour and marker belong to
#: the strategy): filled, hollow, then half-filled markers.
CORPUS_FILLS: tuple[str, ...] = ("full", "none", "left", "bottom", "right", "top")
MARKER_SIZE = 8.0


def _runs(runs: EvalRun | Mapping[str, EvalRun]) -> dict[str, EvalRun]:
    if isinstance(runs, EvalRun):
        return {"": runs}
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("expected an EvalRun or a non-empty mapping of label -> EvalRun")
    for label, run in runs.items():
        if not isinstance(run, EvalRun):
            raise ValueError(f"{label!r} is a {type(run).__name__}, not an EvalRun")
    return dict(runs)


def style_of(name: str, label: str = "") -> StrategyStyle:
    """The style of a strategy by its spec name, or by its label when the name is not a
    spec the palette reads (a hand-built :class:`~ctxlab.eval.Strategy`)."""
    if label and strategy_key(name).family == "other":
        return strategy_style(label)
    return strategy_style(name)


def _marker(style: StrategyStyle, fill: str = "full", **kwargs: Any) -> dict[str, Any]:
    """Keyword arguments of ``ax.plot`` for one marker of ``style``."""
    return {"linestyle": "none", "marker": style.marker, "markersize": MARKER_SIZE,
            "color": style.color, "fillstyle": fill, "markerfacecoloralt": "#FFFFFF",
            "markeredgecolor": style.color if fill != "full" else "#FFFFFF",
            "markeredgewidth": 1.4 if fill != "full" else 0.6, **kwargs}


def plot_recall_vs_tokens(
    runs: EvalRun | Mapping[str, EvalRun],
    *,
    title: str = "What memory keeps, and what it costs",
    figsize: tuple[float, float] = (8.0, 4.2),
) -> Figure:
    """Recall (probed facts in view) against input tokens as a share of the full history's.

    ``runs`` is one run or ``{corpus label: run}``. Colour and marker are the strategy's
    (the same in every plot); corpora differ by fill (filled, hollow, half-filled).
    Markers that would hide each other are drawn a few points apart. Up and to the left
    is better.
    """
    chosen = _runs(runs)
    points: list[tuple[str, int, str, StrategyStyle, float, float]] = []
    stale: dict[int, float] = {}  # point -> its stale-as-current rate, where there is one
    strategies: dict[str, tuple[str, StrategyStyle]] = {}
    for n, (corpus, run) in enumerate(chosen.items()):
        for summary in run.summaries():
            if summary.recall is None or summary.token_ratio is None:
                continue
            style = style_of(summary.strategy, summary.label)
            strategies.setdefault(summary.strategy, (summary.label, style))
            label = f"{summary.label} ({corpus})" if corpus else summary.label
            if summary.use_stale and summary.stale_as_current is not None:
                stale[len(points)] = summary.stale_as_current
            points.append((label, n, corpus, style, 100 * summary.token_ratio,
                           100 * summary.recall))
    fig, ax = new_figure(figsize)
    ax.set_xlabel("input tokens, % of the full history's")
    ax.set_ylabel("recall: probed facts in view (%)")
    ax.set_xlim(*data_limits([p[4] for p in points]))
    ax.set_ylim(*data_limits([p[5] for p in points]))
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    handles = [Line2D([], [], label=label, **_marker(style))
               for label, style in strategies.values()]
    legend = ax.legend(handles=handles, title="strategy", frameon=False, fontsize=SMALL_FONT,
                       title_fontsize=SMALL_FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                       borderaxespad=0.0)
    if any(chosen):
        grey = StrategyStyle("#555555", "-", "o")
        corpora = [Line2D([], [], label=corpus or "(unnamed)",
                          **_marker(grey, CORPUS_FILLS[n % len(CORPUS_FILLS)]))
                   for n, corpus in enumerate(chosen)]
        ax.add_artist(legend)
        legend.set_clip_on(False)  # add_artist clips to the axes; this legend is outside
        ax.legend(handles=corpora, title="corpus", frameon=False, fontsize=SMALL_FONT,
                  title_fontsize=SMALL_FONT, loc="lower left", bbox_to_anchor=(1.01, 0.0),
                  borderaxespad=0.0)
    fig.tight_layout()
    offsets = dodge(ax, [p[4] for p in points], [p[5] for p in points], size=MARKER_SIZE)
    for k, ((label, n, _, style, x, y), offset) in enumerate(zip(points, offsets,
                                                                  strict=True)):
        ax.plot([x], [y], label=label, zorder=3, transform=shifted(ax, offset),
                **_marker(style, CORPUS_FILLS[n % len(CORPUS_FILLS)]))
        if k in stale:
            ax.annotate(f"{stale[k]:.0%} stale-as-current", (x, y), textcoords="offset points",
                        xytext=(8, 4), fontsize=SMALL_FONT, color=USE_COLORS["stale"])
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
    (``"current"``), one bar per strategy (its colour, and a hatch for what is added on top
    of its base); the share of probes whose view presents a superseded value as current is
    stacked on top, in red."""
    if measure not in ("recall", "current"):
        raise ValueError(f"measure must be 'recall' or 'current', got {measure!r}")
    survival = run.survival(by)
    used = run.use_survival(by)
    names = run.strategies
    groups = sorted({g for per in survival.values() for g in per})
    if not groups:
        raise ValueError("the run has no probes to plot")
    bars = len(groups) * max(1, len(names))
    fig, ax = new_figure(figsize or (min(NOTEBOOK_WIDTH, max(6.0, 0.1 * bars + 4.0)), 3.8))
    width = 0.8 / max(1, len(names))
    stale_label = "stale-as-current"
    for n, name in enumerate(names):
        label = run.labels.get(name, name)
        style = style_of(name, label)
        xs, ys, stale = [], [], []
        for g, group in enumerate(groups):
            kept, total = survival[name].get(group, (0, 0))
            current, wrong, _ = used[name].get(group, (0, 0, 0))
            if total:
                xs.append(g - 0.4 + width * (n + 0.5))
                ys.append(100 * (kept if measure == "recall" else current) / total)
                stale.append(100 * wrong / total)
        ax.bar(xs, ys, width=width, color=style.color, hatch=style.hatch, label=label,
               edgecolor="#FFFFFF", linewidth=0.4)
        if any(stale):  # in view but stale: part of the bar (recall) or on top (current)
            bottoms = ys if measure == "current" else [y - w for y, w in zip(ys, stale,
                                                                             strict=True)]
            ax.bar(xs, stale, width=width, bottom=bottoms, color=USE_COLORS["stale"],
                   hatch="//", edgecolor="#FFFFFF", linewidth=0.4, label=stale_label)
            stale_label = "_nolegend_"
    ax.set_xticks(range(len(groups)), groups, rotation=20, ha="right")
    ax.set_ylabel("probes with the value in view (%)" if measure == "recall"
                  else "probes with the current value as current (%)")
    ax.set_ylim(0, 105)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(title or f"Which facts survive (by {by})")
    ax.legend(frameon=False, fontsize=SMALL_FONT, loc="upper left", bbox_to_anchor=(1.0, 1.0))
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
    names = {"current": "current value as current", "stale": "stale-as-current",
             "missing": "no value"}
    for row, summary in enumerate(summaries):
        left = 0.0
        for use, count in (("current", summary.use_current), ("stale", summary.use_stale),
                           ("missing", summary.use_missing)):
            share = 100 * count / summary.use_calls if summary.use_calls else 0.0
            ax.barh([row], [share], left=left, color=USE_COLORS[use], edgecolor="#FFFFFF",
                    label=names[use] if row == 0 else "_nolegend_")
            if use == "stale" and count:
                ax.text(left + share, row, f" {share:.1f}%", va="center", fontsize=SMALL_FONT,
                        color=USE_COLORS["stale"])
            left += share
    ax.set_yticks(range(len(summaries)), [s.label for s in summaries], fontsize=SMALL_FONT)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("model calls after a fact changed (%)")
    ax.set_title(title)
    ax.legend(frameon=False, fontsize=SMALL_FONT, loc="upper left", bbox_to_anchor=(1.0, 1.0))
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
    fig, ax = new_figure(figsize)
    labels: list[str] = []
    ticks: list[float] = []
    position = 0.0
    for corpus, run in chosen.items():
        for summary in run.summaries():
            cost = summary.cost_per_100_turns
            style = style_of(summary.strategy, summary.label)
            ax.barh([position], [cost], color=style.color, hatch=style.hatch,
                    edgecolor="#FFFFFF", linewidth=0.4)
            ax.text(cost, position, f" ${cost:.3f}", va="center", fontsize=SMALL_FONT)
            labels.append(f"{summary.label} ({corpus})" if corpus else summary.label)
            ticks.append(position)
            position += 1
        position += 0.5  # a gap between corpora
    ax.set_yticks(ticks, labels, fontsize=SMALL_FONT)
    ax.invert_yaxis()
    ax.margins(x=0.12)  # room for the value labels
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
    figsize: tuple[float, float] = (9.0, 4.2),
) -> Figure:
    """Recall against token ratio for each swept value (labelled, in the strategy's
    colour), the Pareto front, the target recall and the recommended value (a star).

    The axes follow the data (a sweep whose recall sits between 90 and 100% is not drawn
    on a 0-100 axis); labels are placed clear of the points and of each other.
    """
    if not isinstance(result, SweepResult):
        raise ValueError(f"expected a SweepResult, got {type(result).__name__}")
    fig, ax = new_figure(figsize)
    xs = [100 * p.token_ratio for p in result.points]
    ys = [100 * p.recall for p in result.points]
    styles = [strategy_style(p.strategy) for p in result.points]
    ax.plot(xs, ys, color="#CCCCCC", linewidth=1, zorder=1)
    ax.scatter(xs, ys, c=[s.color for s in styles], s=40, zorder=2, edgecolor="#FFFFFF",
               linewidth=0.5, label=f"swept values ({result.template.replace('{}', 'N')})")
    front = result.pareto
    ax.plot([100 * p.token_ratio for p in front], [100 * p.recall for p in front],
            color=REFERENCE_COLOR, linewidth=1.3, linestyle="--", zorder=3, label="Pareto front")
    best = result.recommended
    ax.scatter([100 * best.token_ratio], [100 * best.recall], marker="*", s=260,
               color=strategy_style(best.strategy).color, edgecolor="#222222", linewidth=0.8,
               zorder=4, label=f"recommended: {best.strategy}")
    ax.axhline(100 * result.target, color=REFERENCE_COLOR, linestyle=":", linewidth=1.2,
               label=f"target {result.target:.0%}")
    ax.set_xlabel("input tokens, % of the full history's")
    ax.set_ylabel("recall: probed facts in view (%)")
    ax.set_xlim(*data_limits(xs))
    ax.set_ylim(*data_limits([*ys, 100 * result.target]))
    ax.grid(True, alpha=0.3)
    ax.set_title(title or f"Sweep of {result.template.replace('{}', 'N')}")
    ax.legend(frameon=False, fontsize=SMALL_FONT, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0)
    fig.tight_layout()
    place_labels(ax, xs, ys, [str(p.value) for p in result.points],
                 marker_size=[16.0 if p == best else 7.0 for p in result.points])
    return fig
