"""Agents SDK sessions that decide what the model sees."""

from .base import MemorySession, Synthetic, TokenBudgetWarning, Window
from .summarizing import SummarizingSession, SummaryRecord
from .trimming import TrimmingSession

__all__ = [
    "MemorySession",
    "SummarizingSession",
    "SummaryRecord",
    "Synthetic",
    "TokenBudgetWarning",
    "TrimmingSession",
    "Window",
]
