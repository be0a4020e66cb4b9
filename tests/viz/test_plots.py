"""Plots: the right axes, labels and artists, with colours that match states and sections."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from ctxlab import STATE_COLORS, Ledger, TrimmingSession
from ctxlab.core.sections import FULL_HISTORY, SECTION_LABELS, budget_sections
from ctxlab.eval.replay import Snapshot, replay
from ctxlab.viz.palette import SECTION_COLORS, strategy_style
from ctxlab.viz.plots.lessons import (
    NEW_INPUT,
    plot_budget_bars,
    plot_context_timeline,
    plot_tokens_per_turn,
    timeline_states,
)

from conftest import arun, user
from test_widgets import CONVERSATION, SUMMARIZED, TURN_STARTS, entry


def shots_of(max_turns: int) -> list[Snapshot]:
    return arun(replay(CONVERSATION, TrimmingSession("plots", max_turns=max_turns)))


def legend_texts(fig: Figure) -> list[str]:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    return [t.get_text() for legend in legends for t in legend.get_texts()]


def test_figures_are_not_left_open_in_pyplot():
    before = plt.get_fignums()
    plot_tokens_per_turn({"a": [1, 2]})
    plot_context_timeline(shots_of(2))
    plot_budget_bars({"a": {"summary": 3}})
    assert plt.get_fignums() == before


# ------------------------------------------------------------------------- tokens per turn


def test_tokens_per_turn_draws_one_line_per_strategy():
    series = {"full history": [10, 30, 60, 100], "trim 2": [10, 30, 45, 50], "short": [5, 6]}
    fig = plot_tokens_per_turn(series, budget=80, title="Cost per turn")
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines[:3]] == list(series)
    for line, values in zip(lines, series.values(), strict=False):
        assert list(line.get_ydata()) == values
        assert list(line.get_xdata()) == list(range(1, len(values) + 1))
    for line, label in zip(lines[:3], series, strict=True):  # each in its strategy's style
        color, linestyle, marker = strategy_style(label)
        assert to_rgba(line.get_color()) == to_rgba(color)
        assert (line.get_linestyle(), line.get_marker()) == (linestyle, marker)
    styles = {(line.get_color(), line.get_linestyle(), line.get_marker()) for line in lines[:3]}
    assert len(styles) == 3
    budget_line = lines[3]
    assert list(budget_line.get_ydata()) == [80, 80]
    assert ax.get_title() == "Cost per turn"
    assert ax.get_xlabel() == "user turn" and ax.get_ylabel() == "tokens sent to the model"
    assert legend_texts(fig) == ["full history", "trim 2", "short", "budget (80 tokens)"]
    assert ax.get_ylim()[0] == 0


def test_tokens_per_turn_rejects_bad_series():
    with pytest.raises(ValueError, match="non-empty mapping"):
        plot_tokens_per_turn({})
    with pytest.raises(ValueError, match="series 'a': value 1 must be a number >= 0"):
        plot_tokens_per_turn({"a": [1, -2]})
    with pytest.raises(ValueError, match="series 'b' must be a list"):
        plot_tokens_per_turn({"b": "123"})  # type: ignore[dict-item]


# ------------------------------------------------------------------------- timeline


def test_timeline_heatmap_is_turns_by_items_coloured_by_state():
    shots = shots_of(2)
    fig = plot_context_timeline(shots)
    ax = fig.axes[0]
    assert len(fig.axes) == 1  # no synthetic panel without synthetic entries
    image = np.asarray(ax.images[0].get_array())
    assert image.shape == (len(shots), len(CONVERSATION), 4)
    for row, shot in enumerate(shots):
        for e in shot.ledger:
            assert tuple(image[row, e.index]) == pytest.approx(to_rgba(STATE_COLORS[e.state]))
        stored = len(shot.ledger)
        if shot.new_input:  # the new input is black, what comes later is blank
            assert tuple(image[row, stored]) == pytest.approx(to_rgba("#000000"))
        assert all(image[row, k, 3] == 0 for k in range(stored + len(shot.new_input),
                                                        len(CONVERSATION)))
    # turn 4's call no longer contains turn 1 (items 0-4)
    assert tuple(image[3, 0]) == pytest.approx(to_rgba(STATE_COLORS["dropped"]))
    assert tuple(image[2, 0]) == pytest.approx(to_rgba(STATE_COLORS["kept"]))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["turn 1", "turn 2", "turn 3", "turn 4", "after turn 4"]
    assert ax.get_xlabel().startswith("stored items") and ax.get_ylabel() == "model call"
    assert ax.get_title() == "What each model call contained"
    assert legend_texts(fig) == ["kept", "dropped", "new input", "not stored yet"]
    top = ax.child_axes[0]  # where each user turn starts
    assert [t.get_text() for t in top.get_xticklabels()] == ["T1", "T2", "T3", "T4"]
    assert list(top.get_xticks()) == TURN_STARTS


def test_timeline_states_grid():
    shots = shots_of(1)
    grid = timeline_states(shots)
    assert grid[0] == [NEW_INPUT] + [None] * 12
    assert grid[1][:6] == ["kept"] * 5 + [NEW_INPUT]
    assert grid[2][:8] == ["dropped"] * 5 + ["kept"] * 2 + [NEW_INPUT]
    assert grid[4] == ["dropped"] * 11 + ["kept"] * 2
    ledgers = [s.ledger for s in shots[1:]]
    assert timeline_states(ledgers)[0] == ["kept"] * 5 + [None] * 8  # no new input known


def test_timeline_with_a_summary_shows_folded_items_and_the_injected_tokens():
    early = Ledger([entry(i, "user", 1, "kept", 5, position=i) for i in range(3)])
    fig = plot_context_timeline([early, SUMMARIZED])
    heat, side = fig.axes[0], fig.axes[1]
    image = np.asarray(heat.images[0].get_array())
    assert image.shape == (2, 11, 4)
    assert tuple(image[1, 1]) == pytest.approx(to_rgba(STATE_COLORS["summarized"]))
    assert tuple(image[1, 7]) == pytest.approx(to_rgba(STATE_COLORS["kept"]))
    assert [t.get_text() for t in heat.get_yticklabels()] == ["call 1", "call 2"]
    bars = side.patches
    assert [b.get_width() for b in bars] == [0, 23 + 29]
    assert bars[1].get_facecolor() == pytest.approx(to_rgba(STATE_COLORS["summary"]))
    assert legend_texts(fig) == ["kept", "summary", "summarized", "not stored yet"]
    summary_patch = fig.legends[0].get_patches()[1]
    assert summary_patch.get_facecolor() == pytest.approx(to_rgba(STATE_COLORS["summary"]))


def test_timeline_rejects_bad_input():
    with pytest.raises(ValueError, match="empty"):
        plot_context_timeline([])
    with pytest.raises(ValueError, match="list of Snapshot"):
        plot_context_timeline(SUMMARIZED)
    with pytest.raises(ValueError, match="timeline item 1 is a dict"):
        plot_context_timeline([SUMMARIZED, user("x")])  # type: ignore[list-item]


# ------------------------------------------------------------------------- budget bars


def test_budget_bars_stack_sections_and_outline_the_full_history():
    data = {
        "full history": budget_sections(SUMMARIZED.raw(), instructions_tokens=20),
        "summarizing": budget_sections(SUMMARIZED, instructions_tokens=20, new_input_tokens=9),
    }
    fig = plot_budget_bars(data, title="Budget")
    ax = fig.axes[0]
    assert ax.get_title() == "Budget" and ax.get_ylabel() == "tokens"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(data)
    drawn = [s for s in ("instructions", "summary", "recent_turns", "tool_outputs", "new_input")]
    containers = ax.containers
    assert len(containers) == len(drawn) + 1  # plus the full-history outlines
    bottoms = [0.0, 0.0]
    for container, section in zip(containers, drawn, strict=False):
        assert container.get_label() == SECTION_LABELS[section]
        for bar, sections, k in zip(container.patches, data.values(), range(2), strict=True):
            assert bar.get_height() == sections[section]
            assert bar.get_y() == bottoms[k]
            assert bar.get_facecolor() == pytest.approx(to_rgba(SECTION_COLORS[section]))
            bottoms[k] += sections[section]
    outline = containers[-1]
    assert [b.get_height() for b in outline.patches] == [
        20 + data[name][FULL_HISTORY] + data[name]["new_input"] for name in data
    ]
    assert not outline.patches[0].get_fill()
    assert legend_texts(fig) == [SECTION_LABELS[s] for s in drawn] + [
        "same call with full history"]


def test_budget_bars_reject_unknown_sections():
    with pytest.raises(ValueError, match=r"unknown section\(s\) \['memory'\]"):
        plot_budget_bars({"a": {"memory": 3}})
    with pytest.raises(ValueError, match="non-empty mapping"):
        plot_budget_bars({})
    with pytest.raises(ValueError, match="value 0 must be a number >= 0"):
        plot_budget_bars({"a": {"summary": -3}})
    fig = plot_budget_bars({"no full history": {"summary": 3}})
    assert len(fig.axes[0].containers) == 1  # no outline without full_history


def _records():
    from agents import SQLiteSession, set_tracing_disabled

    from ctxlab import make_support_agent
    from ctxlab.course.offline import OfflineSupportModel
    from ctxlab.course.runs import run_conversation

    set_tracing_disabled(True)
    return arun(run_conversation(
        make_support_agent(OfflineSupportModel()),
        ["my serial is SN-4Q7K-22981, is it under warranty?", "thanks, what next?"],
        SQLiteSession("plots")))


def test_window_parts_bars_stack_to_the_first_call():
    from ctxlab.viz.plots.lessons import PART_LABELS, plot_window_parts

    records = _records()
    fig = plot_window_parts(records)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0] == PART_LABELS["instructions"] and PART_LABELS["new_input"] in labels
    tops: dict[float, float] = {}
    for patch in ax.patches:
        x = round(patch.get_x() + patch.get_width() / 2)
        tops[x] = max(tops.get(x, 0.0), patch.get_y() + patch.get_height())
    assert tops == {r.turn: float(r.calls[0].sent_tokens) for r in records}
    with pytest.raises(ValueError, match="non-empty list of TurnRecord"):
        plot_window_parts([])


def test_run_cost_lines_end_at_the_total():
    from ctxlab.course.costs import cost_usd
    from ctxlab.viz.plots.lessons import plot_run_cost

    records = _records()
    fig = plot_run_cost({"full history": records}, model="gpt-4.1")
    tokens_ax, cost_ax = fig.axes
    assert list(tokens_ax.lines[0].get_ydata()) == [r.input_tokens for r in records]
    total = sum(cost_usd(r.input_tokens, r.output_tokens, "gpt-4.1") for r in records)
    assert cost_ax.lines[0].get_ydata()[-1] == pytest.approx(total)
    assert f"${total:.4f}" in cost_ax.get_legend().get_texts()[0].get_text()
