"""Plots of what the model sees (matplotlib; every function returns a Figure).

* :func:`plot_tokens_per_turn`: tokens sent per user turn, one line per strategy;
* :func:`plot_context_timeline`: a heatmap, model calls x stored items, colour = state;
* :func:`plot_budget_bars`: stacked bars of the budget sections of several model calls.

Figures are created with ``plt.subplots`` and closed from pyplot at once, so nothing is
shown twice in Jupyter and nothing needs a display (the Agg backend works). Colours are
colour-blind-safe: :data:`ctxlab.core.ledger.STATE_COLORS` for states, Okabe-Ito for
sections, and each strategy its own style (:func:`ctxlab.viz.palette.strategy_style`), the
same in every lesson. Figures fit a notebook's width with text of at least
:data:`~ctxlab.viz.plots.figure.SMALL_FONT` points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ...core.ledger import STATE_COLORS, STATES, Ledger
from ...core.sections import FULL_HISTORY, SECTION_LABELS, SECTIONS
from ...eval.replay import Snapshot
from ..palette import (
    NEUTRAL_COLOR,
    REFERENCE_COLOR,
    SECTION_COLORS,
    family_color,
    strategy_style,
)
from .figure import NOTEBOOK_WIDTH, SMALL_FONT, new_figure

#: Cell states of the timeline beyond the ledger states.
NEW_INPUT = "new input"
NOT_STORED = None
NEW_INPUT_COLOR = SECTION_COLORS["new_input"]
TIMELINE_COLORS: dict[str, str] = {**STATE_COLORS, NEW_INPUT: NEW_INPUT_COLOR}
EMPTY_RGBA = (1.0, 1.0, 1.0, 0.0)


def _check_counts(name: str, values: Any) -> list[int]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"series {name!r} must be a list of token counts, got "
                         f"{type(values).__name__}")
    for n, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ValueError(f"series {name!r}: value {n} must be a number >= 0, got {v!r}")
    return list(values)


# ------------------------------------------------------------------------- tokens per turn


def plot_tokens_per_turn(
    series: Mapping[str, Sequence[int]],
    *,
    title: str = "Tokens sent to the model at each turn",
    budget: int | None = None,
    figsize: tuple[float, float] = (7.0, 3.6),
) -> Figure:
    """One line per strategy: tokens of the model call at user turn 1, 2, ...

    ``series`` maps a label (``"full history"``, ``"trim 3 turns"`` ...) to its counts, for
    example from :func:`ctxlab.core.sections.tokens_per_turn`; each line is drawn in its
    label's :func:`~ctxlab.viz.palette.strategy_style`. ``budget`` draws a horizontal line
    at a token budget.
    """
    if not isinstance(series, Mapping) or not series:
        raise ValueError("series must be a non-empty mapping of label -> tokens per turn")
    checked = {str(label): _check_counts(str(label), values) for label, values in series.items()}
    fig, ax = new_figure(figsize)
    for label, values in checked.items():
        style = strategy_style(label)
        ax.plot(
            range(1, len(values) + 1),
            values,
            label=label,
            color=style.color,
            linestyle=style.linestyle,
            marker=style.marker,
            markersize=4.5,
            linewidth=1.8,
        )
    if budget is not None:
        ax.axhline(budget, color=REFERENCE_COLOR, linestyle=":", linewidth=1.2,
                   label=f"budget ({budget:,} tokens)")
    longest = max((len(v) for v in checked.values()), default=0)
    ax.set_xlim(0.5, max(longest, 1) + 0.5)
    ax.set_ylim(bottom=0)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("user turn")
    ax.set_ylabel("tokens sent to the model")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize=SMALL_FONT)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------- timeline


def _rows(timeline: Sequence[Snapshot | Ledger]) -> list[tuple[str, Ledger, int]]:
    """(row label, ledger, how many new-input items) for each model call."""
    if isinstance(timeline, (Snapshot, Ledger)) or not isinstance(timeline, Sequence):
        raise ValueError("expected a list of Snapshot (from ctxlab.replay) or of Ledger, "
                         f"got {type(timeline).__name__}")
    if not timeline:
        raise ValueError("the timeline is empty: nothing to plot")
    last_turn = max((s.turn for s in timeline if isinstance(s, Snapshot)), default=0)
    rows = []
    for n, step in enumerate(timeline):
        if isinstance(step, Snapshot):
            label = f"turn {step.turn}" if step.turn else f"after turn {last_turn}"
            rows.append((label, step.ledger, len(step.new_input)))
        elif isinstance(step, Ledger):
            rows.append((f"call {n + 1}", step, 0))
        else:
            raise ValueError(f"timeline item {n} is a {type(step).__name__}, not a Snapshot "
                             "or Ledger")
    return rows


def timeline_states(timeline: Sequence[Snapshot | Ledger]) -> list[list[str | None]]:
    """The heatmap's cells: for each model call, the state of each stored item.

    Columns are stored items by raw index (as many as the longest ledger holds, plus the
    new input of each snapshot); a cell is a ledger state, ``"new input"`` for the items
    sent as the snapshot's new input, or None for items not stored yet.
    """
    rows = _rows(timeline)
    width = max(
        max((e.index for e in ledger if e.index is not None), default=-1) + 1 + fresh
        for _, ledger, fresh in rows
    )
    grid: list[list[str | None]] = []
    for _, ledger, fresh in rows:
        cells: list[str | None] = [NOT_STORED] * width
        stored = 0
        for entry in ledger:
            if entry.index is not None:
                cells[entry.index] = entry.state
                stored = max(stored, entry.index + 1)
        for k in range(stored, stored + fresh):
            cells[k] = NEW_INPUT
        grid.append(cells)
    return grid


def _turn_starts(rows: Sequence[tuple[str, Ledger, int]]) -> dict[int, int]:
    """Turn number -> raw index of its first item, over every ledger of the timeline."""
    starts: dict[int, int] = {}
    for _, ledger, _ in rows:
        for entry in ledger:
            if entry.index is not None and entry.turn is not None:
                starts[entry.turn] = min(starts.get(entry.turn, entry.index), entry.index)
    return starts


def _synthetic_tokens(ledger: Ledger) -> int:
    return sum(e.tokens for e in ledger if e.index is None and e.state in ("summary", "kept"))


def _nice_step(minimum: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is at least ``minimum``."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= minimum:
                return step * factor
        step *= 10


def _spaced(positions: Sequence[tuple[int, str]], per_inch: float,
            fontsize: float = SMALL_FONT) -> list[tuple[int, str]]:
    """The (position, label) pairs whose labels do not touch, with ``per_inch`` positions
    per inch (a character is about 0.6 em wide)."""
    char = 0.6 * fontsize / 72
    shown: list[tuple[int, str]] = []
    for position, label in positions:
        if shown:
            last, text = shown[-1]
            needed = (char * (len(text) + len(label)) / 2 + 0.05) * per_inch
            if position - last < needed:
                continue
        shown.append((position, label))
    return shown


def plot_context_timeline(
    timeline: Sequence[Snapshot | Ledger],
    *,
    title: str = "What each model call contained",
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Heatmap: one row per model call, one column per stored item, colour = state.

    Green items were sent as they are, orange ones were folded into a summary, grey ones
    were not sent; black cells are the call's new input; blank cells were not stored yet.
    When a strategy injects synthetic items (a summary), a narrow panel on the right shows
    their tokens per call, in the summary colour. Accepts snapshots from
    :func:`ctxlab.eval.replay.replay` or ledgers. The figure fits a notebook's width, so
    its labels are shown at their size; the legend sits right under the axes.
    """
    rows = _rows(timeline)
    grid = timeline_states(timeline)
    height, width = len(grid), len(grid[0])
    image = [
        [to_rgba(TIMELINE_COLORS[c]) if c is not None else EMPTY_RGBA for c in row]
        for row in grid
    ]
    synthetic = [_synthetic_tokens(ledger) for _, ledger, _ in rows]
    with_panel = any(synthetic)
    size = figsize or (min(3.2 + 0.16 * width + (1.0 if with_panel else 0.0),
                           NOTEBOOK_WIDTH - 0.2),
                       min(2.4 + 0.25 * height, 9.0))
    if with_panel:
        ratios = [max(width, 1), 0.14 * width + 2.0]  # the panel: about an inch wide
        fig, (ax, side) = new_figure(size, ncols=2, sharey=True, layout="constrained",
                                      gridspec_kw={"width_ratios": ratios})
    else:
        fig, ax = new_figure(size, layout="constrained")
        side = None
    ax.imshow(image, aspect="auto", interpolation="nearest")
    ax.set_xticks([x - 0.5 for x in range(width + 1)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(height + 1)], minor=True)
    ax.grid(which="minor", color="#FFFFFF", linewidth=1.0 if width <= 60 else 0.0)
    ax.tick_params(which="minor", length=0)
    _timeline_ticks(ax, rows, (height, width), size, with_panel)
    ax.set_title(title)
    used = {c for row in grid for c in row if c is not None}
    if with_panel:
        used.add("summary")
    handles = [Patch(facecolor=TIMELINE_COLORS[s], label=s) for s in (*STATES, NEW_INPUT)
               if s in used]
    handles.append(Patch(facecolor="#FFFFFF", edgecolor="#999999", label="not stored yet"))
    if side is not None:
        _summary_panel(side, synthetic, height)
    across = len(handles) if size[0] >= 1.05 * len(handles) else -(-len(handles) // 2)
    fig.legend(handles=handles, loc="outside lower center", ncol=across,
               frameon=False, fontsize=SMALL_FONT + 1, handlelength=1.4, columnspacing=1.2)
    return fig


def _timeline_ticks(ax: Axes, rows: Sequence[tuple[str, Ledger, int]], shape: tuple[int, int],
                    size: tuple[float, float], with_panel: bool) -> None:
    """Row labels, item indexes and (on top) where each user turn starts, as many as fit."""
    height, width = shape
    # one label per row while they fit (about 1.4 lines of text each), else every k-th row
    # and always the last one
    rows_per_inch = height / max(1.0, size[1] - 2.2)
    every = _nice_step(rows_per_inch * 1.4 * 10 / 72)
    shown_rows = [n for n in range(height) if n % every == 0 and height - 1 - n >= every]
    shown_rows.append(height - 1)
    ax.set_yticks(shown_rows, [rows[n][0] for n in shown_rows])
    # columns per inch of the heatmap, estimated before the layout is done
    heat_inches = max(1.0, size[0] - 1.6 - (1.2 if with_panel else 0.0))
    per_inch = width / heat_inches
    digits = len(str(max(width - 1, 0)))
    ax.set_xticks(range(0, width, _nice_step(per_inch * (0.12 + 0.09 * digits))))
    ax.set_xlabel("stored items (index in the untrimmed log)")
    ax.set_ylabel("model call")
    starts = _turn_starts(rows)
    if starts:
        top = ax.secondary_xaxis("top")
        labels = [(index, f"T{turn}") for turn, index in sorted(starts.items())]
        shown = _spaced(labels, per_inch)
        top.set_xticks([index for index, _ in shown], [label for _, label in shown])
        top.tick_params(labelsize=SMALL_FONT, length=3)
        top.set_xlabel("where each user turn starts", fontsize=SMALL_FONT)


def _summary_panel(side: Axes, synthetic: Sequence[int], height: int) -> None:
    """The narrow panel of summary tokens per call."""
    side.barh(range(height), synthetic, color=STATE_COLORS["summary"], height=0.7)
    side.set_xlabel("tokens")
    side.tick_params(axis="y", which="both", left=False)
    side.xaxis.get_major_locator().set_params(nbins=2)
    side.set_title("summary", fontsize=SMALL_FONT + 1)
    for spine in ("top", "right"):
        side.spines[spine].set_visible(False)


# ------------------------------------------------------------------------- budget bars


def plot_budget_bars(
    sections_by_label: Mapping[str, Mapping[str, int]],
    *,
    title: str = "Where the context budget goes",
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Stacked bars, one per label, of the sections from
    :func:`~ctxlab.core.sections.budget_sections`.

    When a label's sections include ``full_history``, a dashed outline shows the size of the
    same call with the full history (instructions + every stored item + new input).
    """
    _check_budget_sections(sections_by_label)
    labels = [str(label) for label in sections_by_label]
    values = list(sections_by_label.values())
    fig, ax = new_figure(figsize or (max(4.5, 1.1 * len(labels) + 3.0), 3.8))
    positions = list(range(len(labels)))
    bottoms = [0.0] * len(labels)
    for section in SECTIONS:
        heights = [float(v.get(section, 0)) for v in values]
        if not any(heights):
            continue
        ax.bar(positions, heights, bottom=bottoms, width=0.6, color=SECTION_COLORS[section],
               edgecolor="#FFFFFF", linewidth=0.5, label=SECTION_LABELS[section])
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    outlined = _full_history_outlines(values)
    if outlined:
        ax.bar([x for x, _ in outlined], [f for _, f in outlined], width=0.6, fill=False,
               edgecolor="#555555", linestyle="--", linewidth=1.2,
               label="same call with full history")
    ax.set_xticks(positions, labels)
    ax.set_ylabel("tokens")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(frameon=False, fontsize=SMALL_FONT, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig


def _check_budget_sections(sections_by_label: Any) -> None:
    """Raise ValueError naming what is wrong with :func:`plot_budget_bars`' input."""
    if not isinstance(sections_by_label, Mapping) or not sections_by_label:
        raise ValueError("sections_by_label must be a non-empty mapping of label -> sections")
    known = {*SECTIONS, FULL_HISTORY}
    for label, sections in sections_by_label.items():
        if not isinstance(sections, Mapping):
            raise ValueError(f"sections for {label!r} must be a mapping, got "
                             f"{type(sections).__name__}")
        unknown = sorted(set(sections) - known)
        if unknown:
            raise ValueError(f"sections for {label!r}: unknown section(s) {unknown}; "
                             f"expected some of {sorted(known)}")
        _check_counts(str(label), [sections[k] for k in sections])


def _full_history_outlines(values: list[Mapping[str, int]]) -> list[tuple[int, float]]:
    """(bar position, tokens of the same call with the full history) for each label whose
    sections include ``full_history``."""
    return [(x, float(v.get("instructions", 0) + v[FULL_HISTORY] + v.get("new_input", 0)))
            for x, v in enumerate(values) if FULL_HISTORY in v]


# ------------------------------------------------------------------------- live runs

#: Colours of the parts of a model call (:data:`ctxlab.course.runs.WINDOW_PARTS`), matched to the
#: budget sections they correspond to.
PART_COLORS: dict[str, str] = {
    "instructions": SECTION_COLORS["instructions"],
    "history": SECTION_COLORS["recent_turns"],
    "tool_results": SECTION_COLORS["tool_outputs"],
    "retrieved": SECTION_COLORS["retrieved_memory"],
    "new_input": SECTION_COLORS["new_input"],
}
PART_LABELS: dict[str, str] = {
    "instructions": "instructions + tool schemas",
    "history": "conversation history",
    "tool_results": "tool results",
    "retrieved": "retrieved knowledge",
    "new_input": "new user input",
}


def _check_records(records: Sequence[Any]) -> None:
    if not isinstance(records, Sequence) or not records:
        raise ValueError("records must be a non-empty list of TurnRecord "
                         "(from ctxlab.course.runs.run_conversation)")


def plot_window_parts(
    records: Sequence[Any],
    *,
    title: str = "What fills the context window at each turn",
    figsize: tuple[float, float] = (8.0, 3.8),
) -> Figure:
    """Stacked bars: the parts of each turn's first model call (what memory decided to send).

    ``records`` come from :func:`ctxlab.course.runs.run_conversation`.
    """
    _check_records(records)
    fig, ax = new_figure(figsize)
    turns = [r.turn for r in records]
    parts = [r.first_call_parts for r in records]
    bottoms = [0.0] * len(records)
    for part, color in PART_COLORS.items():
        heights = [float(p.get(part, 0)) for p in parts]
        if not any(heights):
            continue
        ax.bar(turns, heights, bottom=bottoms, width=0.75, color=color, edgecolor="#FFFFFF",
               linewidth=0.5, label=PART_LABELS[part])
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    ax.set_xlabel("user turn")
    ax.set_ylabel("tokens in the first model call")
    ax.set_title(title)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.legend(frameon=False, fontsize=SMALL_FONT, loc="upper left")
    fig.tight_layout()
    return fig


def plot_run_cost(
    records_by_label: Mapping[str, Sequence[Any]],
    *,
    model: str = "gpt-4.1-mini",
    prices: Mapping[str, Any] | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (8.0, 3.6),
) -> Figure:
    """Billed input tokens per turn (left) and the cumulative cost in dollars (right).

    ``records_by_label`` maps a label ("full history", "trim 3") to the records of one run.
    Every model call of a turn is billed, the tool loop's included. Prices come from
    :data:`ctxlab.course.costs.PRICES` unless ``prices`` is given. When a server reported
    no usage for some call (``usage_estimated``), the axis says the figures are estimated.
    """
    from ...course.costs import cost_usd

    if not isinstance(records_by_label, Mapping) or not records_by_label:
        raise ValueError("records_by_label must map a label to the records of one run")
    fig, (ax_tokens, ax_cost) = new_figure(figsize, ncols=2)
    for label, records in records_by_label.items():
        _check_records(records)
        style = strategy_style(str(label))
        turns = [r.turn for r in records]
        ax_tokens.plot(turns, [r.input_tokens for r in records], color=style.color,
                       marker=style.marker, markersize=3.5, linestyle=style.linestyle,
                       label=label)
        total, cumulative = 0.0, []
        for record in records:
            total += cost_usd(record.input_tokens, record.output_tokens, model, prices)
            cumulative.append(total)
        ax_cost.plot(turns, cumulative, color=style.color, linestyle=style.linestyle,
                     label=f"{label}: ${total:.4f}")
    ax_tokens.set_xlabel("user turn")
    estimated = any(getattr(r, "usage_estimated", False)
                    for records in records_by_label.values() for r in records)
    # the server reported no usage for some calls: ctxlab counted them (o200k_base)
    ax_tokens.set_ylabel("input tokens (~ estimated)" if estimated else "input tokens billed")
    ax_tokens.set_ylim(bottom=0)
    ax_tokens.set_title("tokens per turn")
    ax_cost.set_xlabel("user turn")
    ax_cost.set_ylabel("cumulative cost (USD)")
    ax_cost.set_ylim(bottom=0)
    ax_cost.set_title(f"cost at {model} prices")
    for ax in (ax_tokens, ax_cost):
        ax.grid(True, alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(frameon=False, fontsize=SMALL_FONT)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------- choosing a window


def plot_turn_distribution(
    counts: Sequence[int],
    windows: Sequence[int],
    coverage: Sequence[float],
    *,
    title: str = "How long are conversations, and what does a window keep?",
    figsize: tuple[float, float] = (9.0, 3.6),
) -> Figure:
    """Left: a histogram of user turns per conversation. Right: the share of facts still
    in view at the end of a conversation, for each ``max_turns`` (see
    :func:`ctxlab.course.analysis.fact_coverage`)."""
    _check_counts("counts", list(counts))
    if len(windows) != len(coverage) or not windows:
        raise ValueError("windows and coverage must be non-empty and of the same length")
    fig, (left, right) = new_figure(figsize, ncols=2)
    bins = range(min(counts), max(counts) + 2)
    left.hist(counts, bins=bins, color=NEUTRAL_COLOR, edgecolor="#FFFFFF", align="left")
    left.set_xlabel("user turns per conversation")
    left.set_ylabel("conversations")
    left.set_title("conversation length")
    right.plot(list(windows), [100 * c for c in coverage],
               color=family_color("trim"), marker="o",
               markersize=3)
    right.axhline(90, color=REFERENCE_COLOR, linestyle=":", linewidth=1.2, label="90% of facts")
    right.set_xlabel("max_turns")
    right.set_ylabel("facts still in view at the end (%)")
    right.set_ylim(0, 102)
    right.set_title("what a trimming window keeps")
    right.legend(frameon=False, fontsize=SMALL_FONT, loc="lower right")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
        ax.xaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
