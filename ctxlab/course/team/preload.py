"""The course's preloading rules: a return needs the order and the return policy; a
warranty question needs the warranty check."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.items import item_text
from ...core.turns import starts_turn
from ...handoffs.issues import devices_in
from ...preload import Planned, PreloadRule, fact_argument, latest_value
from .rules import wants_return

_WARRANTY = re.compile(r"\bwarrant(?:y|ies)\b|\bstill\s+covered\b|\bcovered\b|保修|在保|质保|保内",
                       re.IGNORECASE)


def _return_plan(items: Sequence[Mapping[str, Any]], text: str) -> list[Planned]:
    order = latest_value(items, "order")
    if order is None:
        return []
    said = [item_text(i) for i in items if starts_turn(i)]
    devices = [d for t in reversed(said) for d in devices_in(t)]
    return [Planned("lookup_order", {"order_id": order}),
            Planned("get_return_policy", {"category": devices[0] if devices else "other"})]


#: "I want to return it" -> the order (latest order number in view) and its return policy.
RETURN_RULE = PreloadRule("return", wants_return, _return_plan)
#: "Is it still under warranty?" -> the warranty check (latest serial in view).
WARRANTY_RULE = PreloadRule("warranty", lambda text: _WARRANTY.search(text) is not None,
                            fact_argument("check_warranty", "serial", "serial"))
#: Both, in the order they are tried.
TEAM_PRELOAD_RULES = (RETURN_RULE, WARRANTY_RULE)
