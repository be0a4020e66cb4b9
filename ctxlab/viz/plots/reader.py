"""The realistic reader's chance of finding a fact, by position and window length.

:func:`plot_reader_chance` draws :func:`ctxlab.course.offline.reader.chance` for a few window
lengths, with the published measurements it is fitted to (Liu et al. 2024) as points.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ...course.offline.reader import (
    ORACLE,
    ORACLE_16K,
    THIRTY_PASSAGES,
    THIRTY_TOKENS,
    TWENTY_PASSAGES,
    TWENTY_TOKENS,
    chance,
)
from ..palette import LINE_COLORS, REFERENCE_COLOR
from .figure import SMALL_FONT, new_figure


def plot_reader_chance(
    lengths: Sequence[int] = (700, 1500, 4000, 8000),
    *,
    marks: Sequence[tuple[str, float, int]] = (),
    title: str = "Chance that the realistic reader finds a fact",
    figsize: tuple[float, float] = (8.0, 4.4),
) -> Figure:
    """One line per window length (tokens): the chance of finding a mention at each
    position of the window (0 = its start, 1 = its end). The measured accuracies (divided
    by the oracle accuracy) are drawn as points. ``marks`` adds labelled points
    ``(label, position, window tokens)``, e.g. where a lesson's facts sit."""
    if not lengths or any(isinstance(n, bool) or not isinstance(n, int) or n < 1
                          for n in lengths):
        raise ValueError(f"lengths must be positive whole numbers of tokens, got {lengths!r}")
    fig, ax = new_figure(figsize, layout="constrained")
    xs = [k / 100 for k in range(101)]
    for n, length in enumerate(lengths):
        ax.plot(xs, [chance(x, length) for x in xs], color=LINE_COLORS[n % len(LINE_COLORS)],
                linewidth=1.8, label=f"{length:,}-token window")
    measured = [
        (TWENTY_PASSAGES, 20, ORACLE, "o", f"measured, 20 passages (~{TWENTY_TOKENS:,} tokens)"),
        (THIRTY_PASSAGES, 30, ORACLE_16K, "s",
         f"measured, 30 passages (~{THIRTY_TOKENS:,} tokens)"),
    ]
    for points, passages, oracle, marker, label in measured:
        ax.plot([(p - 1) / (passages - 1) for p, _ in points], [a / oracle for _, a in points],
                linestyle="none", marker=marker, markersize=6, markerfacecolor="white",
                color=REFERENCE_COLOR, label=label)
    for label, position, tokens in marks:
        ax.plot([position], [chance(position, tokens)], marker="*", markersize=10,
                color="black", linestyle="none")
        ax.annotate(label, (position, chance(position, tokens)), textcoords="offset points",
                    xytext=(6, 6), fontsize=SMALL_FONT)
    ax.set_xlim(0, 1)
    ax.set_ylim(0.45, 1.02)
    ax.set_xlabel("position of the fact in the window (0 = start, 1 = end, next to the question)")
    ax.set_ylabel("chance of finding it")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    fig.legend(fontsize=SMALL_FONT, loc="outside lower center", ncols=3,
              title="points: Liu et al. 2024, GPT-3.5-Turbo, accuracy / oracle accuracy",
              title_fontsize=SMALL_FONT)
    return fig
