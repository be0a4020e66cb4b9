"""Agents SDK sessions that decide what the model sees.

Each session is a thin shell around a pure policy (:mod:`ctxlab.policies`): the base class
(:mod:`.base`) does the protocol, locking, store sync, invariant checks and ledger;
:mod:`.policy` makes a session class from a strategy's spec; :mod:`.folding` runs
summaries; :mod:`.strategies` is the registry of every strategy. Every registered
strategy's session class is exported here under its name (``FirstLastSession``,
``TokenTailSession``, ...) without a line of its own.
"""

from typing import Any

from ..policies.base import Synthetic, Window
from ..policies.invariants import PolicyViolation, PolicyWarning
from ..policies.summarize import SummaryRecord
from .base import MemorySession, TokenBudgetWarning
from .fold_steps import FoldStep, SummaryRequest, fold
from .policy import PolicySession
from .strategies import (
    StrategySpec,
    get_strategy,
    params_from_spec,
    read_strategy,
    register_strategy,
    session_classes,
    strategies,
    unregister_strategy,
)
from .summarizing import SummarizingSession
from .trimming import TrimmingSession

globals().update(session_classes())


def __getattr__(name: str) -> Any:
    """Session classes of strategies registered after import (by your own package)."""
    found = session_classes().get(name)
    if found is None:
        raise AttributeError(f"module 'ctxlab.sessions' has no attribute {name!r}")
    return found


__all__ = [
    "FoldStep",
    "MemorySession",
    "PolicySession",
    "PolicyViolation",
    "PolicyWarning",
    "StrategySpec",
    "SummarizingSession",
    "SummaryRequest",
    "SummaryRecord",
    "Synthetic",
    "TokenBudgetWarning",
    "TrimmingSession",
    "Window",
    "fold",
    "get_strategy",
    "params_from_spec",
    "read_strategy",
    "register_strategy",
    "strategies",
    "unregister_strategy",
    *sorted(set(session_classes()) - {"SummarizingSession", "TrimmingSession"}),
]
