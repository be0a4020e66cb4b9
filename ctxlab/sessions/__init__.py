"""Agents SDK sessions that decide what the model sees."""

from .base import MemorySession, Synthetic, TokenBudgetWarning, Window
from .trimming import TrimmingSession

__all__ = ["MemorySession", "Synthetic", "TokenBudgetWarning", "TrimmingSession", "Window"]
