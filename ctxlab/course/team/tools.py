"""The team's extra tools: orders and the return policy (deterministic, offline).

``lookup_order`` knows every order id of the form ``ORD-12345`` (the record is derived from
the id, so planted chats can use any such id) and answers with an ``"error"`` for anything
else. ``get_return_policy`` returns the policy for an item category.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from agents import function_tool

_ORDER = re.compile(r"^ORD-\d{5}$")
_ITEMS = (("laptop", "Aurora 14"), ("printer", "InkJet Pro"), ("router", "NetHub AX"),
          ("monitor", "ViewPort Wide"), ("phone", "Pocket Max"), ("docking station", "DockOne"))
#: Return windows in days, by category (and the conditions that apply to every return).
RETURN_DAYS = {"laptop": 30, "printer": 14, "router": 30, "monitor": 30, "phone": 14,
               "docking station": 30}
RETURN_CONDITIONS = ("in the original packaging with all accessories; opened software and "
                     "consumables (toner, ink) cannot be returned; refunds go to the original "
                     "payment method within 5 working days of receipt")


def _number(key: str, salt: str) -> int:
    return int(hashlib.sha256(f"{salt}:{key}".encode()).hexdigest()[:8], 16)


def order_record(order_id: str) -> dict[str, Any]:
    """The order ``order_id`` (see the module docstring)."""
    key = order_id.strip().upper()
    if not _ORDER.match(key):
        return {"error": f"no order {order_id!r}: order ids look like ORD-12345",
                "order_id": order_id}
    category, model = _ITEMS[_number(key, "item") % len(_ITEMS)]
    day = 1 + _number(key, "day") % 27
    return {"order_id": key, "item": model, "category": category,
            "ordered": f"2026-11-{day:02d}", "delivered": f"2026-11-{min(day + 3, 30):02d}",
            "status": "delivered", "price_eur": 89 + _number(key, "price") % 900,
            "returnable_until": f"2026-12-{min(day + 3, 28):02d}"}


def return_policy(category: str) -> dict[str, Any]:
    """The return policy for ``category`` (laptop, printer, ...)."""
    key = category.strip().lower()
    days = RETURN_DAYS.get(key)
    if days is None:
        return {"category": key, "return_days": 14, "conditions": RETURN_CONDITIONS,
                "note": "standard policy (no specific policy for this category)"}
    return {"category": key, "return_days": days, "conditions": RETURN_CONDITIONS}


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order: the item, when it was ordered and delivered, its status, its price
    and until when it can be returned.

    Args:
        order_id: The order number, for example ORD-12345.
    """
    return json.dumps(order_record(order_id), ensure_ascii=False)


@function_tool
def get_return_policy(category: str) -> str:
    """The return policy for a kind of item: how many days after delivery it can be
    returned, and on which conditions.

    Args:
        category: The kind of item, for example laptop, printer or router.
    """
    return json.dumps(return_policy(category), ensure_ascii=False)


#: The order and policy tools, in the order the agent lists them.
ORDER_TOOLS = (lookup_order, get_return_policy)
