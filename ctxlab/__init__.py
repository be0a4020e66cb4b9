"""ctxlab: short-term memory for AI agents built on the OpenAI Agents SDK.

The public names below are stable across releases; the modules behind them may move.

The library (``ctxlab.core``, ``policies``, ``sessions``, ``stores``, ``context``,
``summarizers``, ``memory``, ``observe``) is imported here. The course support
(``ctxlab.course``: the offline teaching model, the support agent, corpora), evaluation
(``ctxlab.eval``) and visualisation (``ctxlab.viz``: widgets and plots, which need the
``notebook`` extra) load on first use of one of their names, so ``import ctxlab`` stays
light and works on a core-only install.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .context import (
    AssembledContext,
    ContextBudgetWarning,
    ContextManager,
    RetrievedBlock,
    compose_filters,
)
from .context.compaction import (
    ToolOutputCompactor,
    compact_tool_output,
)
from .core.items import (
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
from .core.ledger import (
    STATE_COLORS,
    STATES,
    Ledger,
    LedgerEntry,
)
from .core.memory_frame import MEMORY_HEADINGS, MEMORY_NOTICE, is_memory_block, with_memory_notice
from .core.model_errors import (
    CompatibleServerError,
    ContextOverflowError,
    ModelCallError,
)
from .core.openai_calls import StructuredOutputError
from .core.redaction import (
    Redactor,
)
from .core.redaction import (
    Rule as RedactionRule,
)
from .core.sections import (
    FULL_HISTORY,
    SECTIONS,
    budget_sections,
    full_tokens,
    sent_tokens,
    snapshot_sections,
    tokens_per_turn,
)
from .core.session_ids import (
    InvalidSessionIdError,
    check_session_id,
    new_session_id,
)
from .core.tokens import (
    ITEM_OVERHEAD_TOKENS,
    TokenCounter,
    count_item_tokens,
    count_items_tokens,
    count_request_tokens,
    count_tokens,
    encoding_for_model,
    get_token_counter,
)
from .core.turns import (
    Segmentation,
    Turn,
    segment_turns,
    turn_starts,
)
from .core.validate import (
    InvalidSequenceError,
    Problem,
    assert_valid,
    is_valid,
    repair,
    safe_cut,
    validate_items,
)
from .facts.identifiers import (
    find_identifiers,
    identifier_values,
)
from .facts.instructions import flag_text, looks_like_instruction
from .facts.language import (
    conversation_language,
    language_of,
)
from .facts.staleness import stale_marks
from .facts.statements import find_commitments, find_constraints
from .facts.tracker import FactTracker
from .facts.typed import (
    ALL_FACT_KINDS,
    FACT_KINDS,
    Found,
    find_facts,
    kinds_for,
    latest_fact,
)
from .handoffs import (
    FullHistory,
    HandoverSummary,
    HumanQueue,
    IssueFocus,
    IssueHandover,
    TrimmedHistory,
    UnknownAgentError,
    connect,
    human_agent,
    split_issues,
)
from .hub import HubConflictError, MemoryHub, hub_input_filter, hub_instructions, record_run
from .longterm import DeletionReport, LongTermMemory, UserMemory, forget_me_tool, forget_user
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
from .observe import (
    ContextDebugLog,
    TokenAlert,
    TokenMonitor,
)
from .preload import Preloader, PreloadRule
from .records import (
    InvalidUserIdError,
    RecordConflictError,
    RecordError,
    RecordsRefusedError,
    RecordsUnavailableError,
    UnknownUserError,
    open_records,
)
from .records.users import UserContext
from .sessions import (
    MemorySession,
    PolicySession,
    SummarizingSession,
    SummaryRecord,
    TokenBudgetWarning,
    TrimmingSession,
)
from .sessions.registry import (
    ChatService,
    SessionRegistry,
)
from .sessions.strategies import session_classes as _session_classes
from .stores import (
    Checkpoint,
    LogStore,
    RedisStore,
    StateStore,
    StoreConflictError,
    StoreError,
    StoreNotDurableError,
    StoreUnavailableError,
    cleanup_idle,
    open_store,
    register_native_store,
)
from .summarizers import (
    SUMMARY_PROMPT,
    SUMMARY_SHADOW_PROMPT,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    SummaryResult,
)

__version__ = "0.1.0"

#: Public names of the course, evaluation and visualisation packages, loaded on first use.
_LAZY: dict[str, tuple[str, str]] = {
    "Backend": ("ctxlab.course.backends", "Backend"),
    "BackendConfigError": ("ctxlab.course.backends", "BackendConfigError"),
    "BudgetBar": ("ctxlab.viz.widgets", "BudgetBar"),
    "Conversation": ("ctxlab.course.corpora", "Conversation"),
    "EvalCase": ("ctxlab.eval", "EvalCase"),
    "EvalRun": ("ctxlab.eval", "EvalRun"),
    "Fact": ("ctxlab.course.corpora", "Fact"),
    "KeyFact": ("ctxlab.eval", "KeyFact"),
    "OfflineSupportModel": ("ctxlab.course.offline", "OfflineSupportModel"),
    "RecallProbe": ("ctxlab.eval", "RecallProbe"),
    "ReplayView": ("ctxlab.viz.widgets", "ReplayView"),
    "SECTION_COLORS": ("ctxlab.viz.palette", "SECTION_COLORS"),
    "SUPPORT_INSTRUCTIONS": ("ctxlab.course.agent", "SUPPORT_INSTRUCTIONS"),
    "SUPPORT_TOOLS": ("ctxlab.course.agent", "SUPPORT_TOOLS"),
    "SessionView": ("ctxlab.viz.widgets", "SessionView"),
    "Snapshot": ("ctxlab.eval.replay", "Snapshot"),
    "Strategy": ("ctxlab.eval", "Strategy"),
    "StrategyReplay": ("ctxlab.eval", "StrategyReplay"),
    "SummaryJudge": ("ctxlab.eval", "SummaryJudge"),
    "chat_to_responses": ("ctxlab.course.corpora", "chat_to_responses"),
    "choose_backend": ("ctxlab.course.backends", "choose_backend"),
    "compare": ("ctxlab.eval", "compare"),
    "describe_backend": ("ctxlab.course.backends", "describe_backend"),
    "evaluate": ("ctxlab.eval", "evaluate"),
    "judge_run": ("ctxlab.eval", "judge_run"),
    "load_abcd": ("ctxlab.course.corpora", "load_abcd"),
    "load_cases": ("ctxlab.eval", "load_cases"),
    "load_conversation_file": ("ctxlab.course.corpora", "load_conversation_file"),
    "load_tau_bench": ("ctxlab.course.corpora", "load_tau_bench"),
    "load_zh_support": ("ctxlab.course.corpora", "load_zh_support"),
    "locate_facts": ("ctxlab.course.corpora", "locate_facts"),
    "make_support_agent": ("ctxlab.course.agent", "make_support_agent"),
    "parse_strategy": ("ctxlab.eval", "parse_strategy"),
    "planted_case": ("ctxlab.eval", "planted_case"),
    "planted_corpus": ("ctxlab.eval", "planted_corpus"),
    "plot_budget_bars": ("ctxlab.viz.plots", "plot_budget_bars"),
    "plot_context_timeline": ("ctxlab.viz.plots", "plot_context_timeline"),
    "plot_cost_per_100_turns": ("ctxlab.viz.plots", "plot_cost_per_100_turns"),
    "plot_recall_vs_tokens": ("ctxlab.viz.plots", "plot_recall_vs_tokens"),
    "plot_run_cost": ("ctxlab.viz.plots", "plot_run_cost"),
    "plot_survival": ("ctxlab.viz.plots", "plot_survival"),
    "plot_sweep": ("ctxlab.viz.plots", "plot_sweep"),
    "plot_tokens_per_turn": ("ctxlab.viz.plots", "plot_tokens_per_turn"),
    "plot_turn_distribution": ("ctxlab.viz.plots", "plot_turn_distribution"),
    "plot_use": ("ctxlab.viz.plots", "plot_use"),
    "plot_window_parts": ("ctxlab.viz.plots", "plot_window_parts"),
    "plot_cache_sweep": ("ctxlab.viz.plots", "plot_cache_sweep"),
    "strategy_style": ("ctxlab.viz.palette", "strategy_style"),
    "replay": ("ctxlab.eval.replay", "replay"),
    "runner_batches": ("ctxlab.eval.replay", "runner_batches"),
    "seed_router_flow": ("ctxlab.course.corpora", "seed_router_flow"),
    "seed_support_conversation": ("ctxlab.course.corpora", "seed_support_conversation"),
    "seed_trimming_flow": ("ctxlab.course.corpora", "seed_trimming_flow"),
    "sweep": ("ctxlab.eval", "sweep"),
    # issue 23: the support team, planted multi-issue and three-days-later chats, scoring
    "OfflineTeamModel": ("ctxlab.course.team", "OfflineTeamModel"),
    "make_support_team": ("ctxlab.course.team", "make_support_team"),
    "multi_issue_case": ("ctxlab.eval.multi_issue", "multi_issue_case"),
    "multi_issue_corpus": ("ctxlab.eval.multi_issue", "multi_issue_corpus"),
    "three_days_case": ("ctxlab.eval.sessions_eval", "three_days_case"),
    "score_handoffs": ("ctxlab.eval.handoff_eval", "score_handoffs"),
    "score_recall": ("ctxlab.eval.sessions_eval", "score_recall"),
    "score_preloading": ("ctxlab.eval.preload_eval", "score_preloading"),
    "run_each": ("ctxlab.course.runs", "run_each"),
    # issue 34: check that an action happened, from what is stored, not from the reply
    "ActionCheck": ("ctxlab.course.actions", "ActionCheck"),
    "ActionNotTaken": ("ctxlab.course.actions", "ActionNotTaken"),
    "check_action": ("ctxlab.course.actions", "check_action"),
    "token_source": ("ctxlab.course.runs", "token_source"),
    # issue 30: real task dialogues (SGD, CrossWOZ) with answer keys from their states
    "Dialogue": ("ctxlab.course.corpora", "Dialogue"),
    "Turn": ("ctxlab.course.corpora", "Turn"),
    "SlotFact": ("ctxlab.course.corpora", "SlotFact"),
    "Customer": ("ctxlab.course.corpora", "Customer"),
    "answer_key": ("ctxlab.course.corpora", "answer_key"),
    "chain_customers": ("ctxlab.course.corpora", "chain_customers"),
    "load_sgd": ("ctxlab.course.corpora", "load_sgd"),
    "load_sgd_schema": ("ctxlab.course.corpora", "load_sgd_schema"),
    "load_crosswoz": ("ctxlab.course.corpora", "load_crosswoz"),
}


#: Every registered strategy's session class (FirstLastSession, TokenTailSession, ...): a
#: strategy is exported by registering it (ctxlab.sessions.strategies), not by a line here.
globals().update(_session_classes())


def __getattr__(name: str) -> Any:
    spec = _LAZY.get(name)
    if spec is None:
        session = _session_classes().get(name)  # a strategy registered after import
        if session is not None:
            return session
        raise AttributeError(f"module 'ctxlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(spec[0]), spec[1])
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


if TYPE_CHECKING:  # for type checkers and IDEs: the lazy names, imported eagerly
    from .course.actions import ActionCheck, ActionNotTaken, check_action
    from .course.agent import (
        SUPPORT_INSTRUCTIONS,
        SUPPORT_TOOLS,
        make_support_agent,
    )
    from .course.backends import (
        Backend,
        BackendConfigError,
        choose_backend,
        describe_backend,
    )
    from .course.corpora import (
        Conversation,
        Fact,
        chat_to_responses,
        load_abcd,
        load_conversation_file,
        load_tau_bench,
        load_zh_support,
        locate_facts,
        seed_router_flow,
        seed_support_conversation,
        seed_trimming_flow,
    )
    from .course.offline import (
        OfflineSupportModel,
    )
    from .course.runs import run_each
    from .course.team import OfflineTeamModel, make_support_team
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
    from .eval.handoff_eval import score_handoffs
    from .eval.multi_issue import multi_issue_case, multi_issue_corpus
    from .eval.preload_eval import score_preloading
    from .eval.replay import (
        Snapshot,
        replay,
        runner_batches,
    )
    from .eval.sessions_eval import score_recall, three_days_case
    from .viz.palette import (
        SECTION_COLORS,
        strategy_style,
    )
    from .viz.plots import (
        plot_budget_bars,
        plot_context_timeline,
        plot_cost_per_100_turns,
        plot_recall_vs_tokens,
        plot_run_cost,
        plot_survival,
        plot_sweep,
        plot_tokens_per_turn,
        plot_turn_distribution,
        plot_use,
        plot_window_parts,
    )
    from .viz.plots.caching import plot_cache_sweep
    from .viz.widgets import (
        BudgetBar,
        ReplayView,
        SessionView,
    )

__all__ = [
    "MEMORY_HEADINGS",
    "MEMORY_NOTICE",
    "flag_text",
    "is_memory_block",
    "looks_like_instruction",
    "with_memory_notice",
    "ALL_FACT_KINDS",
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
    "CompatibleServerError",
    "ContextBudgetWarning",
    "ContextDebugLog",
    "ContextManager",
    "ContextOverflowError",
    "Conversation",
    "DeletionReport",
    "DenseIndex",
    "EvalCase",
    "EvalRun",
    "ExtractiveSummarizer",
    "FTS5Index",
    "Fact",
    "FactTracker",
    "FirstLastSession",
    "Found",
    "FullHistory",
    "HandoverSummary",
    "HubConflictError",
    "HumanQueue",
    "InvalidSequenceError",
    "InvalidSessionIdError",
    "InvalidUserIdError",
    "IssueFocus",
    "IssueHandover",
    "KeyFact",
    "LLMStateExtractor",
    "LLMSummarizer",
    "Ledger",
    "LedgerEntry",
    "LogStore",
    "LongTermMemory",
    "MemoryHub",
    "MemorySession",
    "ModelCallError",
    "PolicySession",
    "OfflineSupportModel",
    "OfflineTeamModel",
    "PreloadRule",
    "Preloader",
    "Problem",
    "Recall",
    "RecallProbe",
    "RecordConflictError",
    "RecordError",
    "RecordsRefusedError",
    "RecordsUnavailableError",
    "RedactionRule",
    "Redactor",
    "RedisStore",
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
    "StoreNotDurableError",
    "StoreUnavailableError",
    "Strategy",
    "StrategyReplay",
    "StructuredOutputError",
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
    "TrimmedHistory",
    "TrimmingSession",
    "Turn",
    "UnknownAgentError",
    "UnknownUserError",
    "UserContext",
    "UserMemory",
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
    "connect",
    "content_text",
    "conversation_language",
    "count_item_tokens",
    "count_items_tokens",
    "count_request_tokens",
    "count_tokens",
    "describe_backend",
    "describe_items",
    "encoding_for_model",
    "evaluate",
    "find_commitments",
    "find_constraints",
    "find_facts",
    "find_identifiers",
    "forget_me_tool",
    "forget_user",
    "full_tokens",
    "get_token_counter",
    "hub_input_filter",
    "hub_instructions",
    "human_agent",
    "identifier_values",
    "is_user_message",
    "is_valid",
    "item_kind",
    "item_text",
    "item_type",
    "judge_run",
    "kinds_for",
    "language_of",
    "latest_fact",
    "load_abcd",
    "load_cases",
    "load_conversation_file",
    "load_tau_bench",
    "load_zh_support",
    "locate_facts",
    "make_support_agent",
    "make_support_team",
    "ActionCheck",
    "ActionNotTaken",
    "check_action",
    "token_source",
    "model_safe",
    "multi_issue_case",
    "multi_issue_corpus",
    "new_session_id",
    "open_records",
    "open_store",
    "parse_strategy",
    "planted_case",
    "planted_corpus",
    "plot_budget_bars",
    "plot_cache_sweep",
    "plot_context_timeline",
    "plot_cost_per_100_turns",
    "plot_recall_vs_tokens",
    "plot_run_cost",
    "plot_survival",
    "plot_sweep",
    "plot_tokens_per_turn",
    "plot_turn_distribution",
    "plot_use",
    "plot_window_parts",
    "record_run",
    "register_native_store",
    "repair",
    "replay",
    "run_each",
    "runner_batches",
    "safe_cut",
    "score_handoffs",
    "score_preloading",
    "score_recall",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
    "segment_turns",
    "sent_tokens",
    "shape_problem",
    "snapshot_sections",
    "split_issues",
    "stale_marks",
    "strategy_style",
    "sweep",
    "three_days_case",
    "tokens_per_turn",
    "turn_starts",
    "validate_items",
    *sorted(set(_session_classes()) - {"FirstLastSession", "SummarizingSession",
                                        "TrimmingSession"}),
]

# Issue 21a: folds are priced (MeteredSummarizer); the offline model's realistic reader; the
# drifting summarizer and the drift report (course and eval names load lazily).
from .summarizers.metered import MeteredSummarizer  # noqa: E402

_LAZY.update({
    "DriftingSummarizer": ("ctxlab.course.drifting", "DriftingSummarizer"),
    "RealisticReader": ("ctxlab.course.offline.reader", "RealisticReader"),
    "drift_report": ("ctxlab.eval.drift", "drift_report"),
    "find_chances": ("ctxlab.course.runs", "find_chances"),
    "spent_tokens": ("ctxlab.course.runs", "spent_tokens"),
    "answered_by": ("ctxlab.course.runs", "answered_by"),
    "plot_reader_chance": ("ctxlab.viz.plots", "plot_reader_chance"),
})
__all__ += [
    "DriftingSummarizer",
    "MeteredSummarizer",
    "RealisticReader",
    "answered_by",
    "drift_report",
    "find_chances",
    "plot_reader_chance",
    "spent_tokens",
]

# Issue 32 §2: session and durable notes, fail-closed consolidation, memory tools,
# debounced reflection, forgetting by decay (library names, imported eagerly).
from .longterm import (  # noqa: E402
    Consolidated,
    ConsolidationCut,
    ConsolidationRejected,
    DecayPolicy,
    InForce,
    LLMConsolidator,
    MemoryNote,
    MemoryNotes,
    NoteBook,
    ReflectionStats,
    Reflector,
    RuleConsolidator,
    ScriptedConsolidator,
    check_proposal,
    memory_tools,
    note_scope,
    proposal_for,
    render_in_force,
    steady_scenario,
)
from .longterm import simulate as simulate_forgetting  # noqa: E402
from .longterm.session_input import retry_once  # noqa: E402

__all__ += ["Consolidated", "ConsolidationCut", "ConsolidationRejected", "DecayPolicy", "InForce",
            "LLMConsolidator", "MemoryNote", "MemoryNotes", "NoteBook", "ReflectionStats",
            "Reflector", "RuleConsolidator", "ScriptedConsolidator", "check_proposal",
            "memory_tools", "note_scope", "proposal_for", "render_in_force", "retry_once",
            "simulate_forgetting", "steady_scenario"]

_LAZY.update({"plot_forgetting": ("ctxlab.viz.plots.forgetting", "plot_forgetting"),
              "check_decay_policy": ("ctxlab.eval.exercise_decay", "check_decay_policy")})
__all__ += ["check_decay_policy", "plot_forgetting"]

# Issue 30: memory not tied to one domain (library names, imported eagerly) and the real
# task-dialogue corpora (course and evaluation names, loaded on first use).
from .facts.corrections import Correction, find_corrections  # noqa: E402
from .facts.topic_book import TopicBook  # noqa: E402
from .facts.topics import SchemaTopics, topic_of  # noqa: E402
from .facts.values import Value, find_values  # noqa: E402
from .memory.topic_memory import TopicMemory, memory_message  # noqa: E402

__all__ += ["Correction", "SchemaTopics", "TopicBook", "TopicMemory", "Value",
            "find_corrections", "find_values", "memory_message", "topic_of"]

_LAZY.update({"dialogue_cases": ("ctxlab.eval.dialogue_cases", "dialogue_cases"),
              "customer_case": ("ctxlab.eval.dialogue_cases", "customer_case"),
              "split_half": ("ctxlab.course.corpora", "split_half")})
__all__ += ["Customer", "Dialogue", "SlotFact", "answer_key", "chain_customers",
            "customer_case", "dialogue_cases", "load_crosswoz", "load_sgd", "load_sgd_schema",
            "split_half"]
# Issue 33 §6-7: a session-free fold (langmem's summarize_messages, sans-IO), the default
# spec parser of a params dataclass, token budgets as a share of a model window, and the
# invariant check levels (library names, imported eagerly).
from .policies import (  # noqa: E402
    default_parser,
    is_proven,
    mark_proven,
    token_budget,
    window_tokens,
)
from .sessions import FoldStep, SummaryRequest, fold, params_from_spec  # noqa: E402

__all__ += [
    "FoldStep",
    "SummaryRequest",
    "default_parser",
    "fold",
    "is_proven",
    "mark_proven",
    "params_from_spec",
    "token_budget",
    "window_tokens",
]
# Issue 30: services (topics) from a schema, speaker attribution, handovers and long-term
# recall scored on the SGD and CrossWOZ dialogues.
from .handoffs import ServiceSchema, packaged_schema, service_schema, split_services  # noqa: E402
from .longterm.consolidate import customer_said  # noqa: E402
from .memory.playbook import reports_fault  # noqa: E402

_LAZY.update({
    "score_dialogue_handoffs": ("ctxlab.eval.dialogue_handoffs", "score_dialogue_handoffs"),
    "score_dialogue_sessions": ("ctxlab.eval.dialogue_sessions", "score_dialogue_sessions"),
    "compare_on_real_corpora": ("ctxlab.eval.real_corpora", "compare_on_real_corpora"),
})
__all__ += ["ServiceSchema", "compare_on_real_corpora", "customer_said", "packaged_schema",
            "reports_fault", "score_dialogue_handoffs", "score_dialogue_sessions", "service_schema",
            "split_services"]
# Names the README, docs and lessons import from submodules that a user of the package needs
# too: the hub's instruction check, the prompt-cache simulation, the structured long-term
# memory text (library names, imported eagerly); the evaluation tables and the judge, the
# beyond-one-conversation corpora and tables, the view plot (loaded on first use).
from .hub.hub import instruction_lines  # noqa: E402
from .longterm.render import render_structured  # noqa: E402
from .observe.prompt_cache import CacheRules, PromptCacheSim  # noqa: E402

_LATER_LAZY: dict[str, tuple[str, ...]] = {
    "ctxlab.eval": ("DEFAULT_STRATEGIES", "RUBRIC", "answer_key_table", "corpora_table",
                    "judge_from_env", "latency_table", "pressure_table", "summary_table",
                    "survival_table"),
    "ctxlab.eval.caching": ("cache_costs", "cache_sweep"),
    "ctxlab.eval.handoff_eval": ("handoff_table", "run_handoffs"),
    "ctxlab.eval.sessions_eval": ("recall_table", "three_days_corpus"),
    "ctxlab.eval.preload_eval": ("preload_case", "preload_corpus", "preload_table"),
    "ctxlab.viz.plots": ("plot_views",),
}
for _module, _names in _LATER_LAZY.items():
    _LAZY.update({name: (_module, name) for name in _names})
    __all__ += list(_names)
del _module, _names
__all__ += ["CacheRules", "PromptCacheSim", "instruction_lines", "render_structured"]
