"""Observability: a context-debug record per model call and token-usage alerts."""

from .debug_log import MODES, ContextDebugLog
from .ledger_diff import LedgerState, ledger_diff
from .monitor import TokenAlert, TokenMonitor
from .sections import RECORD_SECTIONS, input_sections, match_view

__all__ = [
    "MODES",
    "RECORD_SECTIONS",
    "ContextDebugLog",
    "LedgerState",
    "TokenAlert",
    "TokenMonitor",
    "input_sections",
    "ledger_diff",
    "match_view",
]
