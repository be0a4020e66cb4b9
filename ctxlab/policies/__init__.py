"""Memory policies: pure functions from the stored log (and state) to the model's window.

* :mod:`.trim`: the last N turns (within a token budget);
* :mod:`.summarize`: fold older turns into a summary pair, keep the last K verbatim; the
  fold trigger (turns, tokens, a share of the model's window) and :mod:`.fold_input` (the
  summarizer's input, chunked within a token bound);
* :mod:`.first_last`: pin the first F turns, keep the last N;
* :mod:`.token_tail`: pin the first turn, then the newest turns within T tokens.

Each policy file ends with its :class:`~.spec.StrategySpec` (:mod:`.spec`); every window is
checked against the spec's invariants (:mod:`.invariants`). See :mod:`.base` for what a
policy receives and returns.
"""

from .base import LogView, Synthetic, Window
from .first_last import FirstLastParams, first_last_window
from .invariants import (
    PolicyViolation,
    PolicyWarning,
    is_proven,
    mark_proven,
    set_strict,
    strict_mode,
)
from .spec import (
    Invariants,
    PlotHints,
    PropertyHints,
    StrategySpec,
    default_parser,
    token_budget,
    window_tokens,
)
from .summarize import (
    FoldPlan,
    SummarizeParams,
    SummaryRecord,
    fold_due,
    fold_reason,
    plan_fold,
    summary_window,
)
from .token_tail import TokenTailParams, token_tail_window
from .trim import TrimParams, trim_window

__all__ = [
    "FirstLastParams",
    "FoldPlan",
    "Invariants",
    "LogView",
    "PlotHints",
    "PolicyViolation",
    "PolicyWarning",
    "PropertyHints",
    "StrategySpec",
    "SummarizeParams",
    "SummaryRecord",
    "Synthetic",
    "TokenTailParams",
    "TrimParams",
    "Window",
    "default_parser",
    "first_last_window",
    "fold_due",
    "fold_reason",
    "is_proven",
    "mark_proven",
    "plan_fold",
    "set_strict",
    "strict_mode",
    "summary_window",
    "token_budget",
    "token_tail_window",
    "trim_window",
    "window_tokens",
]
