"""The check of lesson 07's exercise: a Redactor that keeps personal data out of what a
session stores, and keeps what the agent needs.

The redactor runs where it runs in production: on a ctxlab session (``redactor=``), which
stores a short order conversation. Three things must hold that the lesson's own section 6
redactor does not do:

* the agent still has what it needs to answer "where is my order, and what did I pay?":
  the order id, the status, the carrier and the amount;
* the customer's name, home address, email and card number are stored nowhere, also in the
  customer's own message (she types her card number into the chat);
* a record the service returns later, after an upstream change added a field nobody asked
  for (and for another customer), is stored clean too: pinning the fields a tool may
  return stops what dropping known fields cannot foresee.

The second record is not shown in the lesson, so an answer cannot be written against the
visible values.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.items import item_text
from ..core.redaction import Redactor
from .exercises import LEAKY_ORDER_OUTPUT, CheckResult, _pending

#: What the customer writes before the lookup (her card number included).
CUSTOMER_MESSAGE = ("Hi, my order ORD-55120 still hasn't arrived. I paid 129 dollars with my "
                    "card 4111 1111 1111 1111, can you check?")

#: The order service's answer for another customer, after an upstream change added a field.
LATER_ORDER_OUTPUT: dict[str, Any] = {
    "order_id": "ORD-55187",
    "status": "delivered",
    "carrier": "DHL",
    "customer_name": "Rafael Okonkwo",
    "home_address": "48 Harbour Road, Portsmouth",
    "contact": "r.okonkwo@example.org",
    "payment": {"card": "5500 0000 0000 0004", "amount_usd": 54.5},
    "date_of_birth": "1987-09-23",
}

#: Personal data that must not be stored, by label.
PERSONAL: tuple[tuple[str, str], ...] = (
    ("the customer's name", "Dana Whitfield"),
    ("the home address", "12 Elm Street"),
    ("the email", "dana.whitfield@example.com"),
    ("the card number", "4111 1111 1111 1111"),
    ("the second customer's name", "Rafael Okonkwo"),
    ("the second home address", "48 Harbour Road"),
    ("the second email", "r.okonkwo@example.org"),
    ("the second card number", "5500 0000 0000 0004"),
    ("the date of birth the service added later", "1987-09-23"),
)

#: What the agent needs from each tool output, by label.
NEEDED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the order id", ("ORD-55120", "ORD-55187")),
    ("the status", ("shipped", "delivered")),
    ("the carrier", ("UPS", "DHL")),
    ("the amount paid", ("129.0", "54.5")),
)


def exercise_conversation() -> list[list[dict[str, Any]]]:
    """The batches the check stores: the customer's message, the lookup, the reply; then a
    second lookup answered by the changed service."""
    def lookup(call_id: str, order: str, output: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "function_call", "call_id": call_id, "name": "lookup_order",
                 "arguments": json.dumps({"order_id": order})},
                {"type": "function_call_output", "call_id": call_id,
                 "output": json.dumps(output)}]

    return [
        [{"role": "user", "content": CUSTOMER_MESSAGE}],
        lookup("call_ex7_1", "ORD-55120", LEAKY_ORDER_OUTPUT),
        [{"role": "assistant", "content": "It shipped with UPS; it should arrive tomorrow."}],
        [{"role": "user", "content": "And my colleague's order ORD-55187?"}],
        lookup("call_ex7_2", "ORD-55187", LATER_ORDER_OUTPUT),
        [{"role": "assistant", "content": "That one was delivered by DHL."}],
    ]


async def check_redaction(redactor: Any) -> CheckResult:
    """Lesson 07: see :func:`ctxlab.eval.exercises.check_redaction`."""
    from ..sessions import TrimmingSession

    if redactor is None:
        return _pending("`my_redactor`")
    if not isinstance(redactor, Redactor):
        return CheckResult(False, f"expected a ctxlab.Redactor, got {type(redactor).__name__}")
    session = TrimmingSession("exercise-07", redactor=redactor)
    try:
        for batch in exercise_conversation():
            await session.add_items(batch)
        stored = await session.raw_items()
    except Exception as exc:  # a broken answer is a verdict, not a crash
        return CheckResult(False, f"storing through it failed: {type(exc).__name__}: {exc}")
    everything = "\n".join(json.dumps(item, ensure_ascii=False) for item in stored)
    leaks = [label for label, value in PERSONAL if value in everything]
    outputs = [item_text(item) for item in stored if item.get("type") == "function_call_output"]
    lost = [label for label, values in NEEDED
            if len(outputs) != len(values) or any(v not in o for v, o in zip(values, outputs,
                                                                              strict=True))]
    problems = ([f"still stored: {', '.join(leaks)}"] if leaks else []) + (
        [f"too much removed: the agent no longer has {', '.join(lost)}"] if lost else [])
    if problems:
        return CheckResult(False, "; ".join(problems))
    message = item_text(stored[0])
    return CheckResult(True, f"stored: {outputs[0]}; the customer's message as {message!r}; "
                             "the later record, new field and all, with no personal data")
