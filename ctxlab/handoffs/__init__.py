"""Handoffs between agents, and what the receiver sees.

* :mod:`.filters`: handoff input filters for the SDK's ``handoff(..., input_filter=...)``:
  :class:`FullHistory`, :class:`TrimmedHistory`, :class:`HandoverSummary`,
  :class:`IssueHandover` (the current issue's history only, with the customer's facts);
* :mod:`.issues`: which issue each turn of a multi-issue chat belongs to; with a schema
  (:mod:`.services`, :mod:`.service_split`), issues are the services a customer asks for;
* :mod:`.human`: escalation to a person as an ordinary handoff (:func:`human_agent`);
* :mod:`.team`: :func:`connect` agents by name, with a clear error for a missing one.
"""

from .filters import (
    HANDOVER_PROMPT,
    HANDOVER_PROMPT_ZH,
    FullHistory,
    HandoverSummary,
    HistoryFilter,
    IssueFocus,
    IssueHandover,
    TrimmedHistory,
    customer_note,
    handoff_items,
    summary_pair,
    view_text,
)
from .human import (
    DESK_REPLY,
    DESK_REPLY_ZH,
    Escalation,
    HumanDeskModel,
    HumanQueue,
    handover_note,
    human_agent,
)
from .issues import CUSTOMER, DEVICE_WORDS, Issue, IssueSplit, devices_in, split_issues
from .service_split import split_services
from .services import Service, ServiceSchema, packaged_schema, service_schema
from .team import UnknownAgentError, connect

__all__ = [
    "CUSTOMER",
    "DESK_REPLY",
    "DESK_REPLY_ZH",
    "DEVICE_WORDS",
    "HANDOVER_PROMPT",
    "HANDOVER_PROMPT_ZH",
    "Escalation",
    "FullHistory",
    "HandoverSummary",
    "HistoryFilter",
    "HumanDeskModel",
    "HumanQueue",
    "Issue",
    "IssueFocus",
    "IssueHandover",
    "IssueSplit",
    "Service",
    "ServiceSchema",
    "TrimmedHistory",
    "UnknownAgentError",
    "connect",
    "customer_note",
    "devices_in",
    "handoff_items",
    "handover_note",
    "human_agent",
    "packaged_schema",
    "service_schema",
    "split_issues",
    "split_services",
    "summary_pair",
    "view_text",
]
