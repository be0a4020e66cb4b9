"""Agents SDK sessions that decide what the model sees.

Each session is a thin shell around a pure policy (:mod:`ctxlab.policies`): the base class
(:mod:`.base`) does the protocol, locking, store sync and ledger; :mod:`.folding` runs
summaries; :mod:`.strategies` names every strategy for evaluation and the tests.
"""

from ..policies.base import Synthetic, Window
from ..policies.summarize import SummaryRecord
from .base import MemorySession, TokenBudgetWarning
from .first_last import FirstLastSession
from .strategies import StrategySpec, get_strategy, register_strategy, strategies
from .summarizing import SummarizingSession
from .trimming import TrimmingSession

__all__ = [
    "FirstLastSession",
    "MemorySession",
    "StrategySpec",
    "SummarizingSession",
    "SummaryRecord",
    "Synthetic",
    "TokenBudgetWarning",
    "TrimmingSession",
    "Window",
    "get_strategy",
    "register_strategy",
    "strategies",
]
