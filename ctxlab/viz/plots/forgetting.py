"""What long-term memory keeps over months: :func:`plot_forgetting` draws
:func:`ctxlab.longterm.simulate` for a few decay policies.

Left: the strength of two notes under each policy, one used again now and then, one never
(a dotted line marks ``keep_above``: below it a note is forgotten). Right: how many standing
notes each policy keeps, day by day, with the cap drawn as a reference line.
"""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ...longterm.decay import DecayPolicy, Scenario, simulate
from ..palette import LINE_COLORS, LINE_STYLES, REFERENCE_COLOR
from .figure import SMALL_FONT, new_figure


def plot_forgetting(policies: Mapping[str, DecayPolicy], scenario: Scenario, *,
                    used: str = "kept-0", once: str = "once-0-0",
                    title: str = "What long-term memory keeps over a year",
                    figsize: tuple[float, float] = (8.6, 4.8)) -> Figure:
    """Strength of note ``used`` (used now and then) and ``once`` (never used), and the
    number of notes kept, under each policy (see the module docstring)."""
    if not policies:
        raise ValueError("plot_forgetting needs at least one policy")
    fig, (left, right) = new_figure(figsize, ncols=2, layout="constrained")
    months = [d / 30 for d in range(scenario.days)]
    caps: set[int] = set()
    for n, (label, policy) in enumerate(policies.items()):
        color = LINE_COLORS[n % len(LINE_COLORS)]
        timeline = simulate(policy, scenario, track=(used, once))
        left.plot(months, timeline.strengths[used], color=color, linewidth=1.8)
        left.plot(months, timeline.strengths[once], color=color, linewidth=1.4,
                  linestyle=LINE_STYLES[1])
        left.axhline(policy.keep_above, color=color, linestyle=":", linewidth=1)
        right.plot(months, timeline.kept, color=color, linewidth=1.8, label=label)
        caps.add(policy.cap)
    for cap in sorted(caps):
        right.axhline(cap, color=REFERENCE_COLOR, linestyle="--", linewidth=1)
        right.annotate(f"cap {cap}", (months[-1], cap), textcoords="offset points",
                       xytext=(-4, 3), ha="right", fontsize=SMALL_FONT, color=REFERENCE_COLOR)
    left.set_ylim(0, 1.05)
    left.set_xlabel("months")
    left.set_ylabel("strength (dotted: forgotten below)")
    left.set_title("two notes", fontsize=SMALL_FONT + 1)
    right.set_xlabel("months")
    right.set_ylabel("standing notes kept")
    right.set_ylim(0, max(caps) * 1.15)
    right.set_title("all notes", fontsize=SMALL_FONT + 1)
    for ax in (left, right):
        ax.set_xlim(0, months[-1])
        ax.grid(True, alpha=0.3)
    styles = [Line2D([], [], color="black", linewidth=1.8,
                     label=f"a note used every {_every(scenario, used)} days"),
              Line2D([], [], color="black", linewidth=1.4, linestyle=LINE_STYLES[1],
                     label="a note never used"),
              Line2D([], [], color="black", linewidth=1, linestyle=":",
                     label="forgotten below (keep_above)")]
    handles = [*right.get_legend_handles_labels()[0], *styles]
    fig.legend(handles=handles, fontsize=SMALL_FONT, loc="outside lower center", ncols=3)
    fig.suptitle(title)
    return fig


def _every(scenario: Scenario, name: str) -> int:
    days = scenario.uses.get(name, ())
    return days[1] - days[0] if len(days) > 1 else 0


__all__ = ["plot_forgetting"]
