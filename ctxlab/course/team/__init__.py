"""The course's support team: an offline model that can hand off, extra tools, the agents."""

from .agents import REPAIR_INSTRUCTIONS, SALES_INSTRUCTIONS, TEAM_NOTE, make_support_team
from .model import TEAM_MODEL_NAME, TEAM_TOOLS, OfflineTeamModel, strip_handoffs
from .tools import ORDER_TOOLS, get_return_policy, lookup_order, order_record, return_policy

__all__ = [
    "ORDER_TOOLS",
    "REPAIR_INSTRUCTIONS",
    "SALES_INSTRUCTIONS",
    "TEAM_MODEL_NAME",
    "TEAM_NOTE",
    "TEAM_TOOLS",
    "OfflineTeamModel",
    "get_return_policy",
    "lookup_order",
    "make_support_team",
    "order_record",
    "return_policy",
    "strip_handoffs",
]
