"""Plots of evaluation results: what they draw, and what they refuse."""

from __future__ import annotations

import pytest

from ctxlab.eval import evaluate, load_cases, sweep
from ctxlab.viz.plots.evaluation import (
    plot_cost_per_100_turns,
    plot_recall_vs_tokens,
    plot_survival,
    plot_sweep,
)

from conftest import arun

CASES = load_cases("seed")
RUN = arun(evaluate(CASES, ["full", "trim:2"], answers=False, run_id="plots"))


def points_of(ax):
    """The markers drawn for strategies: label -> (data x, data y, drawn x, drawn y)."""
    out = {}
    for line in ax.get_lines():
        if line.get_label().startswith("_"):
            continue
        (x, y), = line.get_xydata()
        drawn = line.get_transform().transform((x, y))
        out[line.get_label()] = (x, y, *drawn)
    return out


def test_recall_vs_tokens_draws_one_point_per_strategy_and_corpus():
    fig = plot_recall_vs_tokens({"a": RUN, "b": RUN})
    ax = fig.axes[0]
    points = points_of(ax)
    assert len(points) == 4
    summary = RUN.summary("trim:2")
    assert points["trim 2 (b)"][:2] == (100 * summary.token_ratio, 100 * summary.recall)
    # one legend entry per strategy (colour and marker), one per corpus (fill)
    strategies, corpora = ax.artists[0], ax.get_legend()
    assert [t.get_text() for t in strategies.get_texts()] == ["full history", "trim 2"]
    assert [t.get_text() for t in corpora.get_texts()] == ["a", "b"]
    line = {ln.get_label(): ln for ln in ax.get_lines()}
    assert line["trim 2 (a)"].get_color() == line["trim 2 (b)"].get_color()
    assert line["trim 2 (a)"].get_fillstyle() != line["trim 2 (b)"].get_fillstyle()
    with pytest.raises(ValueError, match="not an EvalRun"):
        plot_recall_vs_tokens({"a": "nope"})  # type: ignore[dict-item]


def test_recall_vs_tokens_moves_markers_that_would_cover_each_other():
    fig = plot_recall_vs_tokens({"a": RUN, "b": RUN})  # every point twice, exactly
    points = points_of(fig.axes[0])
    for name in ("full history", "trim 2"):
        ax_, ay_, a_x, a_y = points[f"{name} (a)"]
        bx_, by_, b_x, b_y = points[f"{name} (b)"]
        assert (ax_, ay_) == (bx_, by_)  # the numbers are the same...
        apart = ((a_x - b_x) ** 2 + (a_y - b_y) ** 2) ** 0.5
        assert 6 <= apart <= 20  # ...drawn a marker apart, not far away (pixels at 100 dpi)


def test_recall_vs_tokens_axes_follow_the_data():
    fig = plot_recall_vs_tokens(RUN)
    ax = fig.axes[0]
    xs = [100 * s.token_ratio for s in RUN.summaries()]
    ys = [100 * s.recall for s in RUN.summaries()]
    left, right = ax.get_xlim()
    bottom, top = ax.get_ylim()
    assert left <= min(xs) and right >= max(xs) and bottom <= min(ys) and top >= max(ys)
    assert left > 0 or min(xs) < 10  # not a 0-100 axis when the data starts far from 0
    assert right - left < 100 * 1.1


def test_survival_and_cost_bars_match_the_run():
    survival = RUN.survival()
    fig = plot_survival(RUN)
    groups = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert groups == sorted({g for per in survival.values() for g in per})
    heights = sorted(p.get_height() for p in fig.axes[0].patches)
    assert heights[-1] == pytest.approx(100.0)
    cost = plot_cost_per_100_turns(RUN)
    widths = [p.get_width() for p in cost.axes[0].patches]
    assert widths == pytest.approx([s.cost_per_100_turns for s in RUN.summaries()])


def test_the_sweep_plot_marks_the_recommendation():
    result = arun(sweep(CASES, "trim:{}", [1, 3, 30], target=0.9))
    fig = plot_sweep(result)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert f"recommended: {result.recommended.strategy}" in labels
    assert fig.axes[0].get_title() == "Sweep of trim:N"
    with pytest.raises(ValueError, match="expected a SweepResult"):
        plot_sweep(RUN)  # type: ignore[arg-type]


def test_stale_as_current_is_drawn_in_every_evaluation_plot():
    from dataclasses import replace

    from ctxlab.course.pitfalls import RereadingSummarizer
    from ctxlab.eval import parse_strategy
    from ctxlab.viz.palette import USE_COLORS
    from ctxlab.viz.plots import plot_use

    wrong = replace(parse_strategy("summarize:2/4", summarizer=RereadingSummarizer),
                    name="reread", label="re-reads its notes")
    run = arun(evaluate(load_cases("planted:3:40-60:7"), ["summarize:2/4", wrong],
                        answers=False, run_id="use"))
    stale = run.summary("reread")
    assert stale.use_stale > 0 and run.summary("summarize:2/4").use_stale == 0
    fig = plot_use(run)
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert pytest.approx(100 * stale.use_stale / stale.use_calls) in widths
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.strip().endswith("%") for t in texts)
    survival = plot_survival(run, measure="current")
    reds = [p for p in survival.axes[0].patches
            if p.get_facecolor()[:3] == pytest.approx(tuple(
                int(USE_COLORS["stale"][i:i + 2], 16) / 255 for i in (1, 3, 5)))]
    assert reds and any(p.get_height() > 0 for p in reds)
    scatter = plot_recall_vs_tokens(run)
    assert any("stale-as-current" in t.get_text() for t in scatter.axes[0].texts)
    plain = arun(evaluate(load_cases("tau:2"), ["trim:2"], answers=False, run_id="plain"))
    with pytest.raises(ValueError, match="nothing to plot"):
        plot_use(plain)
    with pytest.raises(ValueError, match="measure must be"):
        plot_survival(run, measure="bogus")
