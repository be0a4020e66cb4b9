"""Every colour ctxlab draws with, in one place (widgets, plots and tables agree).

* :data:`STATE_COLORS`: the fate of an item (kept, summary, summarized, dropped); defined
  with the ledger (:mod:`ctxlab.core.ledger`), which renders itself with them;
* :data:`SECTION_COLORS`: the sections of one model call (instructions, summary, ...).

All are Okabe-Ito colours, which stay distinguishable with the common colour-vision
deficiencies.
"""

from __future__ import annotations

from ..core.ledger import STATE_COLORS

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


#: Okabe-Ito colours for lines (black last: it is the new-input colour elsewhere).
LINE_COLORS: tuple[str, ...] = (
    "#0072B2", "#D55E00", "#009E73", "#E69F00", "#56B4E9", "#CC79A7", "#F0E442", "#000000",
)
LINE_STYLES: tuple[str, ...] = ("-", "--", "-.", ":")
#: How a view presents a fact (:mod:`ctxlab.eval.use`): the current value as current, a
#: superseded one as current (the error to see), or none.
USE_COLORS: dict[str, str] = {"current": "#009E73", "stale": "#D55E00", "missing": "#BBBBBB"}
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")

__all__ = ["LINE_COLORS", "LINE_STYLES", "MARKERS", "SECTION_COLORS", "STATE_COLORS",
           "USE_COLORS"]
