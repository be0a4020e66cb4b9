"""ctxlab: short-term memory for AI agents built on the OpenAI Agents SDK.

The public names below are stable across releases; modules behind them may move.
"""

from .agent import SUPPORT_INSTRUCTIONS, SUPPORT_TOOLS, make_support_agent
from .backends import Backend, BackendConfigError, choose_backend, describe_backend
from .compaction import ToolOutputCompactor, compact_tool_output
from .context import (
    AssembledContext,
    ContextBudgetWarning,
    ContextManager,
    RetrievedBlock,
    compose_filters,
)
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
from .eval import (
    EvalCase,
    EvalRun,
    KeyFact,
    RecallProbe,
    Strategy,
    StrategyReplay,
    SummaryJudge,
    compare,
    evaluate,
    judge_run,
    load_cases,
    parse_strategy,
    planted_case,
    planted_corpus,
    sweep,
)
from .identifiers import find_identifiers, identifier_values
from .items import (
    ITEM_KINDS,
    content_text,
    describe_items,
    is_user_message,
    item_kind,
    item_text,
    item_type,
    model_safe,
    shape_problem,
)
from .ledger import STATE_COLORS, STATES, Ledger, LedgerEntry
from .memory import (
    DenseIndex,
    FTS5Index,
    LLMStateExtractor,
    Recall,
    RuleBasedStateExtractor,
    StateMemory,
    StatePatch,
    SupportState,
)
from .observe import ContextDebugLog, TokenAlert, TokenMonitor
from .offline import FACT_KINDS, Found, OfflineSupportModel, find_facts, latest_fact
from .redaction import Redactor
from .redaction import Rule as RedactionRule
from .registry import ChatService, SessionRegistry
from .replay import Snapshot, replay, runner_batches
from .session_ids import InvalidSessionIdError, check_session_id, new_session_id
from .sessions import (
    MemorySession,
    SummarizingSession,
    SummaryRecord,
    TokenBudgetWarning,
    TrimmingSession,
)
from .stores import (
    Checkpoint,
    LogStore,
    StateStore,
    StoreConflictError,
    StoreError,
    StoreUnavailableError,
    cleanup_idle,
    open_store,
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
from .widgets.budget import (
    FULL_HISTORY,
    SECTION_COLORS,
    SECTIONS,
    budget_sections,
    full_tokens,
    sent_tokens,
    snapshot_sections,
    tokens_per_turn,
)

__version__ = "0.1.0"

# Widgets and plots need the notebook extra (ipywidgets, matplotlib): load them on first use
# so that `import ctxlab` works on a core-only install.
_LAZY = {
    "SessionView": "ctxlab.widgets",
    "ReplayView": "ctxlab.widgets",
    "BudgetBar": "ctxlab.widgets",
    "plot_tokens_per_turn": "ctxlab.plots",
    "plot_context_timeline": "ctxlab.plots",
    "plot_budget_bars": "ctxlab.plots",
    "plot_window_parts": "ctxlab.plots",
    "plot_run_cost": "ctxlab.plots",
    "plot_turn_distribution": "ctxlab.plots",
    "plot_recall_vs_tokens": "ctxlab.eval.plots",
    "plot_survival": "ctxlab.eval.plots",
    "plot_cost_per_100_turns": "ctxlab.eval.plots",
    "plot_sweep": "ctxlab.eval.plots",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ctxlab' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "FACT_KINDS",
    "FULL_HISTORY",
    "ITEM_KINDS",
    "ITEM_OVERHEAD_TOKENS",
    "SECTIONS",
    "SECTION_COLORS",
    "STATES",
    "STATE_COLORS",
    "SUMMARY_PROMPT",
    "SUMMARY_SHADOW_PROMPT",
    "SUPPORT_INSTRUCTIONS",
    "SUPPORT_TOOLS",
    "AssembledContext",
    "Backend",
    "BackendConfigError",
    "BudgetBar",
    "ChatService",
    "Checkpoint",
    "ContextBudgetWarning",
    "ContextDebugLog",
    "ContextManager",
    "Conversation",
    "DenseIndex",
    "EvalCase",
    "EvalRun",
    "ExtractiveSummarizer",
    "FTS5Index",
    "Fact",
    "Found",
    "InvalidSequenceError",
    "InvalidSessionIdError",
    "KeyFact",
    "LLMStateExtractor",
    "LLMSummarizer",
    "Ledger",
    "LedgerEntry",
    "LogStore",
    "MemorySession",
    "OfflineSupportModel",
    "Problem",
    "Recall",
    "RecallProbe",
    "RedactionRule",
    "Redactor",
    "ReplayView",
    "RetrievedBlock",
    "RuleBasedStateExtractor",
    "Segmentation",
    "SessionRegistry",
    "SessionView",
    "Snapshot",
    "StateMemory",
    "StatePatch",
    "StateStore",
    "StoreConflictError",
    "StoreError",
    "StoreUnavailableError",
    "Strategy",
    "StrategyReplay",
    "Summarizer",
    "SummarizingSession",
    "SummaryJudge",
    "SummaryRecord",
    "SummaryResult",
    "SupportState",
    "TokenAlert",
    "TokenBudgetWarning",
    "TokenCounter",
    "TokenMonitor",
    "ToolOutputCompactor",
    "TrimmingSession",
    "Turn",
    "__version__",
    "assert_valid",
    "budget_sections",
    "chat_to_responses",
    "check_session_id",
    "choose_backend",
    "cleanup_idle",
    "compact_tool_output",
    "compare",
    "compose_filters",
    "content_text",
    "count_item_tokens",
    "count_items_tokens",
    "count_request_tokens",
    "count_tokens",
    "describe_backend",
    "describe_items",
    "encoding_for_model",
    "evaluate",
    "find_facts",
    "find_identifiers",
    "full_tokens",
    "get_token_counter",
    "identifier_values",
    "is_user_message",
    "is_valid",
    "item_kind",
    "item_text",
    "item_type",
    "judge_run",
    "latest_fact",
    "load_abcd",
    "load_cases",
    "load_conversation_file",
    "load_tau_bench",
    "locate_facts",
    "make_support_agent",
    "model_safe",
    "new_session_id",
    "open_store",
    "parse_strategy",
    "planted_case",
    "planted_corpus",
    "plot_budget_bars",
    "plot_context_timeline",
    "plot_cost_per_100_turns",
    "plot_recall_vs_tokens",
    "plot_run_cost",
    "plot_survival",
    "plot_sweep",
    "plot_tokens_per_turn",
    "plot_turn_distribution",
    "plot_window_parts",
    "repair",
    "replay",
    "runner_batches",
    "safe_cut",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
    "segment_turns",
    "sent_tokens",
    "shape_problem",
    "snapshot_sections",
    "sweep",
    "tokens_per_turn",
    "turn_starts",
    "validate_items",
]
