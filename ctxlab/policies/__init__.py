"""Memory policies: pure functions from the stored log (and state) to the model's window.

* :mod:`.trim`: the last N turns (within a token budget);
* :mod:`.summarize`: fold older turns into a summary pair, keep the last K verbatim;
* :mod:`.first_last`: pin the first F turns, keep the last N.

See :mod:`.base` for what a policy receives and returns.
"""

from .base import LogView, Synthetic, Window
from .first_last import FirstLastParams, first_last_window
from .summarize import (
    FoldPlan,
    SummarizeParams,
    SummaryRecord,
    fold_due,
    plan_fold,
    summary_window,
)
from .trim import TrimParams, trim_window

__all__ = [
    "FirstLastParams",
    "FoldPlan",
    "LogView",
    "SummarizeParams",
    "SummaryRecord",
    "Synthetic",
    "TrimParams",
    "Window",
    "first_last_window",
    "fold_due",
    "plan_fold",
    "summary_window",
    "trim_window",
]
