"""Memory beyond the window: structured state, and recall of evicted turns.

* :class:`StateMemory` keeps a typed :class:`SupportState` (user profile, issue, milestones,
  next action, superseded values) up to date turn by turn, with the offline
  :class:`RuleBasedStateExtractor` or an :class:`LLMStateExtractor`, and shows it to the
  model as one compact developer message.
* :class:`Recall` indexes the turns a session evicted (:class:`FTS5Index`, BM25 scores mapped
  to 0..1, Chinese indexed as character bigrams; or :class:`DenseIndex` with the
  ``ctxlab[embeddings]`` extra, or ``DenseIndex("multilingual")`` with the
  ``ctxlab[multilingual]`` extra) and brings back the whole turns that match a new input,
  or lets the agent search them with a tool.

* :class:`TopicMemory` keeps the values a conversation establishes per topic, in any domain
  (dates, times, places, names, amounts, counts, identifiers; corrections win; what the
  agent said apart from what the customer said) and shows them as one user-role message of
  quoted data.

All are sources for :class:`ctxlab.context.ContextManager` (``state=`` and ``retriever=``).
"""

from .dense import (
    DENSE_MODELS,
    DenseIndex,
    DenseModel,
    DenseUnavailableError,
    MultilingualEncoder,
    load_dense_model,
    load_minilm,
    load_multilingual,
)
from .documents import evicted_turns, render_turn, turn_docs
from .extract import RuleBasedStateExtractor
from .fts import (
    CJK_PARTICLES,
    CJK_STOP_CHARS,
    CJK_STOP_WORDS,
    STOPWORDS,
    Doc,
    FTS5Index,
    FTS5UnavailableError,
    check_fts5,
    has_cjk,
    query_terms,
    tokenize,
)
from .llm_extract import STATE_PROMPT, LLMStateExtractor, StateUpdate, strict_schema
from .recall import Recall, RecalledTurn, RecallHit, SnippetIndex
from .render import render_state, state_message
from .state import (
    DEVICE_FIELDS,
    LIST_FIELDS,
    SCALAR_FIELDS,
    Change,
    Device,
    IssueInfo,
    Milestone,
    StatePatch,
    Superseded,
    SupportState,
    UserProfile,
)
from .state_memory import StateExtractor, StateMemory
from .topic_memory import TopicMemory, memory_message

__all__ = [
    "CJK_PARTICLES",
    "CJK_STOP_CHARS",
    "CJK_STOP_WORDS",
    "DENSE_MODELS",
    "DEVICE_FIELDS",
    "LIST_FIELDS",
    "SCALAR_FIELDS",
    "STATE_PROMPT",
    "STOPWORDS",
    "Change",
    "DenseIndex",
    "DenseModel",
    "DenseUnavailableError",
    "Device",
    "Doc",
    "FTS5Index",
    "FTS5UnavailableError",
    "IssueInfo",
    "LLMStateExtractor",
    "Milestone",
    "MultilingualEncoder",
    "Recall",
    "RecallHit",
    "RecalledTurn",
    "RuleBasedStateExtractor",
    "SnippetIndex",
    "StateExtractor",
    "StateMemory",
    "StatePatch",
    "StateUpdate",
    "Superseded",
    "SupportState",
    "TopicMemory",
    "UserProfile",
    "check_fts5",
    "evicted_turns",
    "has_cjk",
    "load_dense_model",
    "load_minilm",
    "load_multilingual",
    "memory_message",
    "query_terms",
    "render_state",
    "render_turn",
    "state_message",
    "strict_schema",
    "tokenize",
    "turn_docs",
]
