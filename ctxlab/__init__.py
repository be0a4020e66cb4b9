"""ctxlab: short-term memory for AI agents built on the OpenAI Agents SDK.

The public names below are stable across releases; modules behind them may move.
"""

from .corpora import (
    Conversation,
    Fact,
    chat_to_responses,
    load_abcd,
    load_conversation_file,
    load_tau_bench,
    locate_facts,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
)
from .identifiers import find_identifiers, identifier_values
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
from .replay import Snapshot, replay, runner_batches
from .sessions import (
    MemorySession,
    SummarizingSession,
    SummaryRecord,
    TokenBudgetWarning,
    TrimmingSession,
)
from .summarizers import (
    SUMMARY_PROMPT,
    SUMMARY_SHADOW_PROMPT,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    SummaryResult,
)
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
    "SUMMARY_PROMPT",
    "SUMMARY_SHADOW_PROMPT",
    "Conversation",
    "ExtractiveSummarizer",
    "Fact",
    "InvalidSequenceError",
    "LLMSummarizer",
    "Ledger",
    "LedgerEntry",
    "MemorySession",
    "Problem",
    "Segmentation",
    "Snapshot",
    "Summarizer",
    "SummarizingSession",
    "SummaryRecord",
    "SummaryResult",
    "TokenBudgetWarning",
    "TokenCounter",
    "TrimmingSession",
    "Turn",
    "__version__",
    "assert_valid",
    "chat_to_responses",
    "content_text",
    "count_item_tokens",
    "count_items_tokens",
    "count_request_tokens",
    "count_tokens",
    "encoding_for_model",
    "find_identifiers",
    "get_token_counter",
    "identifier_values",
    "is_user_message",
    "is_valid",
    "item_kind",
    "item_text",
    "item_type",
    "load_abcd",
    "load_conversation_file",
    "load_tau_bench",
    "locate_facts",
    "model_safe",
    "repair",
    "replay",
    "runner_batches",
    "safe_cut",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
    "segment_turns",
    "shape_problem",
    "turn_starts",
    "validate_items",
]
