"""ctxlab: short-term memory for AI agents built on the OpenAI Agents SDK.

The public names below are stable across releases; modules behind them may move.
"""

from .items import (
    ITEM_KINDS,
    content_text,
    is_user_message,
    item_kind,
    item_text,
    item_type,
    model_safe,
    shape_problem,
)
from .ledger import STATE_COLORS, STATES, Ledger, LedgerEntry
from .sessions import MemorySession, TokenBudgetWarning, TrimmingSession
from .tokens import (
    ITEM_OVERHEAD_TOKENS,
    TokenCounter,
    count_item_tokens,
    count_items_tokens,
    count_request_tokens,
    count_tokens,
    encoding_for_model,
    get_token_counter,
)
from .turns import Segmentation, Turn, segment_turns, turn_starts
from .validate import (
    InvalidSequenceError,
    Problem,
    assert_valid,
    is_valid,
    repair,
    safe_cut,
    validate_items,
)

__version__ = "0.1.0"

__all__ = [
    "ITEM_KINDS",
    "ITEM_OVERHEAD_TOKENS",
    "STATES",
    "STATE_COLORS",
    "InvalidSequenceError",
    "Ledger",
    "LedgerEntry",
    "MemorySession",
    "Problem",
    "Segmentation",
    "TokenBudgetWarning",
    "TokenCounter",
    "TrimmingSession",
    "Turn",
    "__version__",
    "assert_valid",
    "content_text",
    "count_item_tokens",
    "count_items_tokens",
    "count_request_tokens",
    "count_tokens",
    "encoding_for_model",
    "get_token_counter",
    "is_user_message",
    "is_valid",
    "item_kind",
    "item_text",
    "item_type",
    "model_safe",
    "repair",
    "safe_cut",
    "segment_turns",
    "shape_problem",
    "turn_starts",
    "validate_items",
]
