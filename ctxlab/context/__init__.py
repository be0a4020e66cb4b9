"""Context assembly under a hard token budget (see :mod:`ctxlab.context.manager`).

* :class:`ContextManager`: builds each model call from instructions, structured state, an
  early summary, recent turns, retrieved memory and the new input, and drops what it must
  to fit ``max_tokens``; plain function or ``RunConfig(call_model_input_filter=...)``.
* :class:`AssembledContext`: the items of one call and its tokens per section.
* :class:`RetrievedBlock`, state and retrieval sources (:mod:`.sources`).
* :func:`split_model_input`: a model input read as preamble, summary, turns, current turn.
* :func:`shrink_turn`: role-aware shortening of one older turn.
* :class:`ContextBudgetWarning`: the new input alone is over the budget.
"""

from .assembled import AssembledContext
from .counting import RequestCounter
from .filters import compose_filters
from .manager import ContextManager, agent_tools, summary_pair
from .roles import SHORTENED_MARK, shorten_text, shrink_turn
from .sources import (
    RETRIEVED_HEADER,
    RetrievalSource,
    RetrievedBlock,
    StateSource,
    context_message,
    developer_message,
    retrieved_message,
)
from .split import ModelInputParts, split_model_input
from .warnings import ContextBudgetWarning

__all__ = [
    "RETRIEVED_HEADER",
    "SHORTENED_MARK",
    "AssembledContext",
    "ContextBudgetWarning",
    "ContextManager",
    "ModelInputParts",
    "RequestCounter",
    "RetrievalSource",
    "RetrievedBlock",
    "StateSource",
    "agent_tools",
    "compose_filters",
    "context_message",
    "developer_message",
    "retrieved_message",
    "shorten_text",
    "shrink_turn",
    "split_model_input",
    "summary_pair",
]
