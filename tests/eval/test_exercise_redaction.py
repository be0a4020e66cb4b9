"""Lesson 07's exercise: a Redactor that stores no personal data and keeps what the agent
needs. The check accepts an answer that goes beyond the lesson's section 6 and rejects
that section's redactor unchanged, the defaults, degenerate rules, answers written against
the visible record and duck-typed fakes: each rejection is a test."""

from __future__ import annotations

import json
import re

import pytest

from ctxlab import Redactor
from ctxlab.core.redaction import Rule
from ctxlab.eval.exercises import check_redaction

from conftest import arun

NEEDED = {"order_id", "status", "carrier", "payment", "contact"}


def verdict(redactor):
    return arun(check_redaction(redactor))


def test_an_answer_beyond_the_lesson_passes():
    result = verdict(Redactor(allowed_fields={"lookup_order": NEEDED},
                              kinds=("tool_output", "user")))
    assert result.passed is True
    assert '"carrier": "UPS"' in result.message and '"amount_usd": 129.0' in result.message
    assert "my card [card]" in result.message


class VisibleValues(Redactor):
    """Written against the record the lesson shows: replaces the values it saw."""

    SEEN = ("Dana Whitfield", "12 Elm Street, Springfield", "dana.whitfield@example.com",
            "4111 1111 1111 1111")

    def redact_items(self, items, tool_names):
        text = json.dumps(items)
        for value in self.SEEN:
            text = text.replace(value, "[removed]")
        return json.loads(text)


class StoresNothing(Redactor):
    def redact_items(self, items, tool_names):
        return [dict(item, output="{}") if "output" in item else item for item in items]


class DuckRedactor:
    def redact_items(self, items, tool_names):
        return items


@pytest.mark.parametrize(("redactor", "expected"), [
    # the lesson's section 6 redactor, unchanged: the carrier and amount go, the card stays
    (Redactor(allowed_fields={"lookup_order": {"order_id", "status", "contact"}}),
     "still stored: the card number; too much removed: the agent no longer has the carrier, "
     "the amount paid"),
    (Redactor(), "still stored: the customer's name"),
    (Redactor(drop_fields=["customer_name", "home_address"]),
     "the card number, the date of birth the service added later"),
    (Redactor(drop_fields=["customer_name", "home_address"], kinds=("tool_output", "user")),
     "still stored: the date of birth the service added later"),
    (Redactor(allowed_fields={"lookup_order": NEEDED}), "still stored: the card number"),
    (Redactor(allowed_fields={"lookup_order": NEEDED}, kinds=("user",)),
     "still stored: the customer's name"),
    (Redactor(allowed_fields={"lookup_order": NEEDED}, rules=[], kinds=("tool_output", "user")),
     "the email, the card number"),
    (Redactor(allowed_fields={"lookup_order": set()}, kinds=("tool_output", "user")),
     "no longer has the order id, the status, the carrier, the amount paid"),
    (Redactor([Rule("everything", re.compile(r".+"), "[x]")], kinds=("tool_output", "user")),
     "too much removed"),
    (VisibleValues(kinds=("tool_output", "user")), "the second customer's name"),
    (StoresNothing(), "too much removed"),
    (DuckRedactor(), "expected a ctxlab.Redactor, got DuckRedactor"),
    (lambda item: item, "expected a ctxlab.Redactor, got function"),
    ("redact please", "expected a ctxlab.Redactor, got str"),
], ids=["lesson-section-6", "defaults", "drop-fields", "drop-fields+user",
        "pinned-tool-only", "pinned-user-only", "no-rules", "pins-nothing", "masks-everything",
        "visible-values", "stores-nothing", "duck-typed", "a-function", "a-string"])
def test_wrong_answers_are_rejected_and_told_why(redactor, expected):
    result = verdict(redactor)
    assert result.passed is False and expected in result.message, result.message


def test_no_answer_yet():
    assert verdict(None).passed is None
