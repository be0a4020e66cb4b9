"""Widgets that show what the model sees, driven only by the :class:`~ctxlab.core.ledger.Ledger`.

* :class:`SessionView`: a chip per item, grouped by turn, coloured by state;
* :class:`ReplayView`: scrub through a replayed conversation model call by model call;
* :class:`BudgetBar`: tokens sent now, by section, against the full history;
* :func:`budget_sections`: the pure computation behind the bar (also used by plots).

Every widget also renders as static HTML (``to_html()`` / ``_repr_html_``) for places where
widgets cannot run. The widget classes need ``ipywidgets`` and are imported on first use,
so ``ctxlab.core.sections`` works without it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ...core.sections import (
    FULL_HISTORY,
    SECTION_LABELS,
    SECTIONS,
    budget_sections,
    full_tokens,
    sent_tokens,
    snapshot_sections,
    tokens_per_turn,
)
from ..palette import SECTION_COLORS

if TYPE_CHECKING:
    from .budget_bar import BudgetBar
    from .replay_view import ReplayView
    from .session_view import SessionView

_LAZY = {
    "BudgetBar": ".budget_bar",
    "ReplayView": ".replay_view",
    "SessionView": ".session_view",
}

__all__ = [
    "FULL_HISTORY",
    "SECTIONS",
    "SECTION_COLORS",
    "SECTION_LABELS",
    "BudgetBar",
    "ReplayView",
    "SessionView",
    "budget_sections",
    "full_tokens",
    "sent_tokens",
    "snapshot_sections",
    "tokens_per_turn",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        try:
            module = import_module(_LAZY[name], __name__)
        except ModuleNotFoundError as exc:
            if exc.name != "ipywidgets":
                raise
            raise ImportError(
                f"ctxlab.viz.widgets.{name} needs ipywidgets: pip install 'ctxlab[notebook]'"
            ) from exc
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
