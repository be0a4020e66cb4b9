"""Every plot is readable at notebook width (about 900 px at 100 dpi), and a strategy is
drawn the same way in every plot, whatever else the plot shows."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from matplotlib.colors import to_hex, to_rgba
from matplotlib.figure import Figure
from matplotlib.text import Text

from ctxlab import STATE_COLORS, SummarizingSession, TrimmingSession, seed_support_conversation
from ctxlab.core.sections import budget_sections
from ctxlab.eval import DEFAULT_STRATEGIES, evaluate, load_cases, sweep
from ctxlab.eval.replay import replay
from ctxlab.eval.sweep import SweepPoint, SweepResult
from ctxlab.longterm import DecayPolicy, steady_scenario
from ctxlab.summarizers import ExtractiveSummarizer
from ctxlab.viz.palette import SECTION_COLORS, strategy_style
from ctxlab.viz.plots import (
    plot_budget_bars,
    plot_context_timeline,
    plot_cost_per_100_turns,
    plot_recall_vs_tokens,
    plot_survival,
    plot_sweep,
    plot_tokens_per_turn,
    plot_turn_distribution,
)
from ctxlab.viz.plots.figure import NOTEBOOK_WIDTH, SMALL_FONT
from ctxlab.viz.plots.forgetting import plot_forgetting
from ctxlab.viz.plots.reader import plot_reader_chance

from conftest import arun

CASES = load_cases("seed")
RUN = arun(evaluate(CASES, list(DEFAULT_STRATEGIES), answers=False, run_id="readable"))
CONVERSATION = seed_support_conversation().items
SUMMARIZED_SHOTS = arun(replay(CONVERSATION, SummarizingSession(
    2, 3, ExtractiveSummarizer(), session_id="readable")))
TRIMMED_SHOTS = arun(replay(CONVERSATION, TrimmingSession("readable", max_turns=3)))
#: Tokens per turn shaped like lesson 02's (20 turns, the windows fill at turns 4 and 9).
SERIES = {
    "full history": [500 + 180 * t for t in range(20)],
    "trim 8 turns": [500 + 180 * min(t, 8) for t in range(20)],
    "trim 3 turns": [500 + 180 * min(t, 3) for t in range(20)],
}

def narrow_sweep() -> SweepResult:
    """A sweep whose points crowd between 88% and 100% recall (as a summarize sweep does)."""
    values = [(3, 0.88, 0.55), (4, 0.93, 0.61), (5, 0.95, 0.64), (6, 0.97, 0.66),
              (8, 0.98, 0.67), (10, 1.0, 0.68)]
    points = [SweepPoint(v, f"summarize:2/{v}", recall, ratio, 0.05 + ratio / 10)
              for v, recall, ratio in values]
    return SweepResult("summarize:2/{}", points, 0.95, RUN)


FIGURES: dict[str, Callable[[], Figure]] = {
    "tokens per turn": lambda: plot_tokens_per_turn(SERIES, budget=2500),
    "timeline, summarizing": lambda: plot_context_timeline(SUMMARIZED_SHOTS),
    "timeline, trimming": lambda: plot_context_timeline(TRIMMED_SHOTS),
    "budget bars": lambda: plot_budget_bars({
        "full history": budget_sections(SUMMARIZED_SHOTS[-1].ledger.raw(),
                                        instructions_tokens=400),
        "summarizing": budget_sections(SUMMARIZED_SHOTS[-1].ledger, instructions_tokens=400),
    }),
    "turn distribution": lambda: plot_turn_distribution(
        [3, 5, 5, 6, 7, 7, 8, 12, 30], list(range(1, 21)),
        [min(1.0, w / 12) for w in range(1, 21)]),
    "recall vs tokens": lambda: plot_recall_vs_tokens({"tau-bench": RUN, "planted": RUN}),
    "survival": lambda: plot_survival(RUN),
    "cost per 100 turns": lambda: plot_cost_per_100_turns({"tau-bench": RUN, "planted": RUN}),
    "sweep": lambda: plot_sweep(narrow_sweep()),
    "reader chance": lambda: plot_reader_chance(marks=[("ticket id, turn 20", 0.12, 4112)]),
    "forgetting": lambda: plot_forgetting(
        {"half-life 30 d": DecayPolicy(), "no reinforcement": DecayPolicy(reinforcement=0),
         "half-life 90 d": DecayPolicy(half_life_days=90)}, steady_scenario(12)),
}


def drawn(fig: Figure):
    renderer = fig._get_renderer()
    fig.draw(renderer)  # runs a constrained layout, as showing the figure does
    return renderer


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_plot_fits_a_notebook_and_its_text_is_readable(name):
    fig = FIGURES[name]()
    renderer = drawn(fig)
    # a notebook saves with bbox_inches="tight" (0.1 in of padding on each side) and shows
    # the image at its own size up to the output width: no scaling down, text at its size
    assert fig.get_tightbbox(renderer).width + 0.2 <= NOTEBOOK_WIDTH + 0.01
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    small = sorted({(t.get_fontsize(), t.get_text()) for t in texts})[:3]
    assert small[0][0] >= SMALL_FONT, small


def overlapping(boxes):
    return [(a, b) for n, a in enumerate(boxes) for b in boxes[n + 1:] if a.overlaps(b)]


@pytest.mark.parametrize("shots", [SUMMARIZED_SHOTS, TRIMMED_SHOTS], ids=["summary", "trim"])
def test_the_timeline_legend_sits_right_under_the_axes(shots):
    fig = plot_context_timeline(shots)
    renderer = drawn(fig)
    heat = fig.axes[0]
    below = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)  # under the x labels
    legend = fig.legends[0].get_window_extent(renderer)
    assert legend.y1 <= below + 1
    assert below - legend.y1 <= 0.3 * fig.dpi  # right under, not far below
    # labels on both x axes are readable and do not run into each other
    for axis in (heat, heat.child_axes[0]):
        labels = [t for t in axis.get_xticklabels() if t.get_text()]
        assert not overlapping([t.get_window_extent(renderer) for t in labels])
    top = [t.get_text() for t in heat.child_axes[0].get_xticklabels()]
    assert top[0] == "T1" and len(top) >= len({e.turn for s in shots for e in s.ledger
                                                if e.turn is not None}) // 2


def test_a_long_timeline_thins_its_labels_instead_of_stacking_them():
    case = max(load_cases("planted"), key=lambda c: len(c.items))
    shots = arun(replay(case.items, SummarizingSession(
        2, 4, ExtractiveSummarizer(), session_id="long")))
    fig = plot_context_timeline(shots)
    renderer = drawn(fig)
    heat = fig.axes[0]
    assert fig.get_size_inches()[0] <= NOTEBOOK_WIDTH
    for labels in (heat.get_yticklabels(), heat.get_xticklabels(),
                   heat.child_axes[0].get_xticklabels()):
        shown = [t for t in labels if t.get_text()]
        assert len(shown) >= 8
        assert not overlapping([t.get_window_extent(renderer) for t in shown])
        assert min(t.get_fontsize() for t in shown) >= SMALL_FONT
    rows = [t.get_text() for t in heat.get_yticklabels()]
    assert rows[0] == "turn 1" and rows[-1].startswith("after turn")


def test_the_timeline_legend_names_the_injected_summary():
    fig = plot_context_timeline(SUMMARIZED_SHOTS)
    legend = fig.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:3] == ["kept", "summary", "summarized"]
    patch = legend.get_patches()[1]
    assert patch.get_facecolor() == pytest.approx(to_rgba(STATE_COLORS["summary"]))
    side = fig.axes[1]
    assert side.get_title() == "summary"
    assert side.patches[-1].get_facecolor() == pytest.approx(to_rgba(STATE_COLORS["summary"]))


def line_style(fig: Figure, label: str) -> tuple[str, str, str]:
    line = next(ln for ax in fig.axes for ln in ax.get_lines() if ln.get_label() == label)
    return to_hex(line.get_color()).upper(), line.get_linestyle(), line.get_marker()


def test_a_strategy_looks_the_same_wherever_it_is_drawn():
    # by position it used to change: trim 3 second in one plot, third in another
    alone = plot_tokens_per_turn({"trim 3 turns": SERIES["trim 3 turns"]})
    among = plot_tokens_per_turn({"summarize 2/3": SERIES["trim 8 turns"], **SERIES})
    assert line_style(alone, "trim 3 turns") == line_style(among, "trim 3 turns")
    assert line_style(among, "trim 3 turns") == tuple(strategy_style("trim:3"))

    # the evaluation plots name strategies by spec ("trim:8"), the lessons by label
    color = strategy_style("trim 8 turns").color
    assert line_style(among, "trim 8 turns")[0] == color
    names = RUN.strategies
    cost = plot_cost_per_100_turns(RUN)
    bars = dict(zip(names, cost.axes[0].patches, strict=True))
    assert to_hex(bars["trim:8"].get_facecolor()).upper() == color
    survival = plot_survival(RUN)
    container = next(c for c in survival.axes[0].containers if c.get_label() == "trim 8")
    assert to_hex(container.patches[0].get_facecolor()).upper() == color
    scatter = plot_recall_vs_tokens({"x": RUN})
    assert line_style(scatter, "trim 8 (x)")[0] == color

    # same family, different variant: same hue family, different style
    assert bars["trim:4+state"].get_hatch() != bars["trim:4+recall"].get_hatch()
    # never a state or section colour
    reserved = {c.upper() for c in (*STATE_COLORS.values(), *SECTION_COLORS.values())}
    assert not {to_hex(b.get_facecolor()).upper() for b in bars.values()} & reserved


def test_the_sweep_colours_each_value_as_its_strategy():
    result = narrow_sweep()
    fig = plot_sweep(result)
    colors = [to_hex(c).upper() for c in fig.axes[0].collections[0].get_facecolors()]
    assert colors == [strategy_style(p.strategy).color for p in result.points]


# ------------------------------------------------------------------------- axes follow the data


def test_the_sweep_axes_follow_a_narrow_band_of_data():
    result = narrow_sweep()
    ax = plot_sweep(result).axes[0]
    bottom, top = ax.get_ylim()
    assert 80 <= bottom <= 88 and 100 <= top <= 103  # not 0-100
    left, right = ax.get_xlim()
    assert 45 <= left <= 55 and 68 <= right <= 72
    points = ax.collections[0].get_offsets()
    assert [tuple(p) for p in points] == [
        (pytest.approx(100 * p.token_ratio), pytest.approx(100 * p.recall))
        for p in result.points]
    assert bottom <= 100 * result.target <= top


def test_sweep_labels_do_not_overlap_and_sit_by_their_point():
    for result in (narrow_sweep(), arun(sweep(CASES, "trim:{}", range(1, 9), target=0.9))):
        fig = plot_sweep(result)
        ax = fig.axes[0]
        renderer = fig._get_renderer()
        fig.draw(renderer)
        texts = [t for t in ax.texts if t.get_text()]
        assert [t.get_text() for t in texts] == [str(p.value) for p in result.points]
        boxes = [t.get_window_extent(renderer) for t in texts]
        frame = ax.get_window_extent(renderer)
        screen = ax.transData.transform(
            [(100 * p.token_ratio, 100 * p.recall) for p in result.points])
        for n, box in enumerate(boxes):
            assert frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
            for other in boxes[n + 1:]:
                assert not box.overlaps(other), (texts[n].get_text(), result.template)
            gaps = [math.hypot(max(box.x0 - x, 0, x - box.x1), max(box.y0 - y, 0, y - box.y1))
                    for x, y in screen]
            assert min(range(len(gaps)), key=gaps.__getitem__) == n  # nearest to its own
            assert texts[n].get_fontsize() >= 9
