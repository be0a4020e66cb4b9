"""Every colour ctxlab draws with, in one place (widgets, plots and tables agree).

* :data:`STATE_COLORS`: the fate of an item (kept, summary, summarized, dropped); defined
  with the ledger (:mod:`ctxlab.core.ledger`), which renders itself with them;
* :data:`SECTION_COLORS`: the sections of one model call (instructions, summary, ...);
* :func:`strategy_style`: the colour, line style and marker of a memory strategy, the same
  in every lesson and plot ("trim 3" looks the same in lesson 02, 03 and 06).

State and section colours are Okabe-Ito colours, which stay distinguishable with the
common colour-vision deficiencies. Strategies never use them (a "summarize" line must not
look like the "kept" state): each strategy family has its own hue, dark to light
(:data:`STRATEGY_FAMILIES`), chosen at a CIELAB distance of at least 25 from every state
and section colour and from every other family
(:func:`color_distance`).
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass
from typing import NamedTuple

from ..core.ledger import STATE_COLORS
from ..policies.spec import log_scale
from ..sessions.strategies import read_strategy

#: Okabe-Ito colours (colour-blind-safe). Summary and recent turns reuse the colours of the
#: ``summary`` and ``kept`` states so that chips, bars and heatmaps agree.
SECTION_COLORS: dict[str, str] = {
    "instructions": "#56B4E9",
    "summary": "#0072B2",
    "recent_turns": "#009E73",
    "tool_outputs": "#F0E442",
    "retrieved_memory": "#D55E00",
    "structured_state": "#CC79A7",
    "new_input": "#000000",
}


#: Okabe-Ito colours for lines that are not strategies (black last: it is the new-input
#: colour elsewhere). Strategies are drawn with :func:`strategy_style`.
LINE_COLORS: tuple[str, ...] = (
    "#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#F0E442", "#000000",
)
LINE_STYLES: tuple[str, ...] = ("-", "--", "-.", ":")
#: How a view presents a fact (:mod:`ctxlab.eval.use`): the current value as current, a
#: superseded one as current (the error to see), or none.
USE_COLORS: dict[str, str] = {"current": "#009E73", "stale": "#D55E00", "missing": "#BBBBBB"}
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")

#: Reference lines and neutral marks (budgets, targets, fronts): not a state or section
#: colour, not a strategy colour.
REFERENCE_COLOR = "#666666"
#: Bars that are no strategy (e.g. a histogram of conversation lengths).
NEUTRAL_COLOR = "#5E6B78"

#: Strategy family -> (dark, light) ends of its hue. A variant's shade lies between them:
#: darker for more memory (a longer window, a larger budget), lighter for less.
STRATEGY_FAMILIES: dict[str, tuple[str, str]] = {
    "full": ("#3D3D3D", "#3D3D3D"),  # charcoal: the baseline keeps everything
    "trim": ("#981616", "#E99090"),  # crimson: a medium red even at trim 8, never charcoal
    "summarize": ("#2B1C72", "#9489D6"),  # indigo
    "firstlast": ("#3E4A00", "#9BA832"),  # olive
    "budget": ("#5E370B", "#C29255"),  # brown: a token ceiling over the full history
    "compact": ("#0F5C3A", "#0F5C3A"),  # deep green: bulky tool outputs compacted
    "other": ("#005F73", "#2E8B99"),  # slate: a strategy the palette does not know
}

#: How far a modifier moves a variant's shade (on the 0-1 size scale): ``+ recall`` is
#: drawn lighter, so "trim 4 + state" and "trim 4 + recall" differ in colour too, not only
#: in marker and line style.
MODIFIER_SHADES: dict[str, float] = {"recall": -0.4}

#: Markers for what is added on top of a base (state, recall, ...) or changes how it cuts
#: (``step``: cache-friendly steps, ``cap``: a token cap); a plain variant is a circle.
MODIFIER_MARKERS: dict[tuple[str, ...], str] = {
    (): "o",
    ("state",): "s",
    ("recall",): "^",
    ("recall", "state"): "D",
    ("step",): "X",
    ("cap",): "h",
    ("budget",): "v",
    ("compact",): "P",
}
#: Markers for combinations that :data:`MODIFIER_MARKERS` does not list (picked by a hash).
SPARE_MARKERS: tuple[str, ...] = ("p", "*", "<", ">", "d", "H", "8")
_MARKER_ORDER: dict[str, int] = {m: n for n, m in enumerate(MODIFIER_MARKERS.values())}
#: Bar hatches, one per marker (bars have no markers).
MARKER_HATCHES: dict[str, str] = {
    "o": "", "s": "//", "^": "..", "D": "xx", "X": "--", "h": "||", "v": "\\\\", "P": "++",
}


class StrategyStyle(NamedTuple):
    """How a strategy is drawn: ``color, linestyle, marker = strategy_style("trim:3")``."""

    color: str
    linestyle: str
    marker: str

    @property
    def hatch(self) -> str:
        """A bar hatch that tells variants of one family apart where there is no marker."""
        return MARKER_HATCHES.get(self.marker, "oo")


@dataclass(frozen=True)
class StrategyKey:
    """What the palette reads from a strategy's spec or label.

    ``family`` picks the hue, ``size`` (0 = little memory, 1 = everything) the shade and
    the line style, ``modifiers`` the marker; ``step`` (cache-friendly trimming drops
    ``step`` turns at a time) shifts the line style.
    """

    family: str
    size: float
    modifiers: tuple[str, ...]
    step: int = 1


_NUMBER_COMMAS = re.compile(r"(?<=\d)[,_](?=\d{3})")
_TOKENS = r"(?: ?tok(?:en)?s?)?"
_FULL = re.compile(r"full(?: history)?|everything|no trimming")
#: What evaluation adds on top of a base (``+state``, ``+budget:3000``, ...): these are
#: ContextManager options, not registered strategies, so they are read here.
_ADDONS: dict[str, re.Pattern[str]] = {
    "budget": re.compile(rf"(?:token )?budget[: ]?(\d+){_TOKENS}"),
    "state": re.compile(r"(?:structured )?state(?: memory)?"),
    "recall": re.compile(r"recall(?:[: ]?(\d+))?"),
    "compact": re.compile(r"(?:with )?compact(?:ion|ed)?(?: tool outputs)?"),
}


def _normalize(name: str) -> str:
    text = " ".join(str(name).lower().split())
    return _NUMBER_COMMAS.sub("", text)


def _hash_unit(text: str) -> float:
    """A number in [0, 1) that depends only on ``text`` (not on Python's hash seed)."""
    return (zlib.crc32(text.encode("utf-8")) % 1000) / 1000


def _base_key(parts: list[str]) -> tuple[StrategyKey, int] | None:
    """The key of the base strategy the first parts name (a registered strategy's spec or
    label, read by the strategy registry, or the full history) and how many parts it
    takes; None when the name starts with an addon (the base is then the full history)."""
    for taken in range(len(parts), 0, -1):
        text = " + ".join(parts[:taken])
        if _FULL.fullmatch(text):
            return StrategyKey("full", 1.0, ()), taken
        found = read_strategy(text)
        if found is None:
            continue
        spec, kwargs = found
        try:
            params = spec.make_params(kwargs)
        except (ValueError, TypeError):
            continue
        plot = spec.plot
        return StrategyKey(
            plot.family, plot.size(params) if plot.size else 0.5,
            tuple(plot.marks(params)) if plot.marks else (),
            plot.step(params) if plot.step else 1), taken
    return None


def _addons(parts: list[str]) -> dict[str, int] | None:
    """``{kind: number}`` for each addon part (None when a part is not an addon)."""
    addons: dict[str, int] = {}
    for part in parts:
        for kind, pattern in _ADDONS.items():
            match = pattern.fullmatch(part)
            if match and kind not in addons:
                addons[kind] = int(match.group(1)) if match.groups() and match.group(1) else 0
                break
        else:
            return None
    return addons


def strategy_key(name: str) -> StrategyKey:
    """The family, size and modifiers of a strategy spec (``"trim:4+state"``,
    ``"full+budget:3000"``) or label (``"trim 4 + state"``, ``"budget 2,500"``).

    The base is read by the strategy registry (:func:`ctxlab.sessions.read_strategy`: each
    strategy's own spec and label reader, and its :class:`~ctxlab.policies.spec.PlotHints`),
    so a newly registered strategy is drawn in its family without a change here. Names the
    palette does not understand fall in the ``"other"`` family, with a size derived from the
    name, so they still look the same wherever they are drawn.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a strategy name must be a non-empty string, got {name!r}")
    text = _normalize(name)
    parts = [p.strip() for p in text.split("+")]
    found = _base_key(parts)
    base, taken = found if found is not None else (StrategyKey("full", 1.0, ()), 0)
    addons = _addons(parts[taken:])
    if addons is None:
        return StrategyKey("other", _hash_unit(text), ())
    modifiers = set(base.modifiers) | set(addons)
    if base.family != "full":
        return StrategyKey(base.family, base.size, tuple(sorted(modifiers)), base.step)
    if "budget" in addons:
        modifiers.discard("budget")
        return StrategyKey("budget", log_scale(addons["budget"] or 3000, 1000, 16_000),
                           tuple(sorted(modifiers)))
    if "compact" in addons:
        modifiers.discard("compact")
        return StrategyKey("compact", 1.0, tuple(sorted(modifiers)))
    return StrategyKey("full", 1.0, tuple(sorted(modifiers)))


def _mix(dark: str, light: str, size: float) -> str:
    """The colour ``size`` of the way from ``light`` (0.0) to ``dark`` (1.0)."""
    a = [int(light[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(dark[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * size):02X}" for x, y in zip(a, b, strict=True))


def strategy_style(name: str) -> StrategyStyle:
    """The colour, line style and marker of a strategy, from its spec or its label.

    The colour's hue comes from the family (full history, trim, summarize, first/last,
    budget-only, compaction); its shade from how much the variant keeps (``trim 8`` is
    darker than ``trim 3``; ``+ recall`` lighter, :data:`MODIFIER_SHADES`). The line
    style also follows the size, shifted by what is added on top; the marker says what is
    added (``+ state`` a square, ``+ recall`` a triangle, cache-friendly ``/step`` a
    cross). The same name always gets the same style, whatever else is in the plot, and
    spec and label agree: ``"trim:3"``, ``"trim 3"`` and ``"trim 3 turns"`` look alike.
    """
    key = strategy_key(name)
    marker = MODIFIER_MARKERS.get(key.modifiers)
    if marker is None:
        marker = SPARE_MARKERS[zlib.crc32("+".join(key.modifiers).encode()) % len(SPARE_MARKERS)]
    bucket = min(3, int(4 * (1.0 - key.size)))  # 0 (solid) for the largest variants
    shift = _MARKER_ORDER.get(marker, 1) + (key.step if key.step > 1 else 0)
    linestyle = LINE_STYLES[(bucket + shift) % len(LINE_STYLES)]
    shade = key.size + sum(MODIFIER_SHADES.get(m, 0.0) for m in key.modifiers)
    return StrategyStyle(family_shade(key.family, min(1.0, max(0.0, shade))), linestyle, marker)


def family_shade(family: str, size: float) -> str:
    """The colour of ``family`` at ``size`` (0.0: its lightest shade, for the least
    memory; 1.0: its darkest)."""
    try:
        dark, light = STRATEGY_FAMILIES[family]
    except KeyError:
        raise ValueError(f"unknown strategy family {family!r}; known: "
                         f"{', '.join(STRATEGY_FAMILIES)}") from None
    if not 0.0 <= size <= 1.0:
        raise ValueError(f"size must be between 0 and 1, got {size!r}")
    return _mix(dark, light, size)


def family_color(family: str) -> str:
    """The colour of a strategy family itself (its darkest shade), for a mark that stands
    for the whole family (e.g. a curve over every ``max_turns``)."""
    return family_shade(family, 1.0)


def strategy_styles(names: list[str] | tuple[str, ...]) -> dict[str, StrategyStyle]:
    """:func:`strategy_style` of each name (a convenience for plots with many series)."""
    return {name: strategy_style(name) for name in names}


def _lab(color: str) -> tuple[float, float, float]:
    """sRGB hex -> CIELAB (D65)."""
    rgb = [int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def color_distance(a: str, b: str) -> float:
    """How different two hex colours look (CIE76 delta E: about 2 is just noticeable,
    above 20 they read as different colours)."""
    return math.dist(_lab(a), _lab(b))


__all__ = [
    "LINE_COLORS",
    "LINE_STYLES",
    "MARKERS",
    "NEUTRAL_COLOR",
    "REFERENCE_COLOR",
    "SECTION_COLORS",
    "STATE_COLORS",
    "STRATEGY_FAMILIES",
    "USE_COLORS",
    "StrategyKey",
    "StrategyStyle",
    "color_distance",
    "family_color",
    "family_shade",
    "strategy_key",
    "strategy_style",
    "strategy_styles",
]
