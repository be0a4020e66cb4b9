"""Redaction of tool outputs before they are stored or summarized (real Runner, real file)."""

from __future__ import annotations

import json
import re

import pytest
from agents import Agent, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import SummarizingSession, TrimmingSession, item_text
from ctxlab.core.redaction import Redactor, Rule, luhn_valid

from conftest import arun, assistant, call, output, user
from fakes import RecordingSummarizer

set_tracing_disabled(True)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("mail dana@example.com now", "mail [email] now"),
        ("call +1 (555) 123-4567", "call [phone]"),
        ("555-123-4567 or 555.123.4567", "[phone] or [phone]"),
        ("+44 20 7946 0958", "[phone]"),
        ("+4915112345678", "[phone]"),
        ("card 4111 1111 1111 1111 ok", "card [card] ok"),
        ("5500005555555559", "[card]"),
    ],
)
def test_rules_replace_personal_data(text, expected):
    assert Redactor().redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    ["order 3348917502", "2027-03-01", "SN-100", "RMA-55120", "v1.0.3", "TCK-48213",
     "192.168.1.1", "C02XK1ZJG8WP", "4111-1111-1111-1112", "at 10:30 on 2024-01-15"],
)
def test_identifiers_the_agent_needs_survive(text):
    assert Redactor().redact_text(text) == text


def test_luhn_check():
    assert luhn_valid("4111 1111 1111 1111") and not luhn_valid("4111 1111 1111 1112")
    assert not luhn_valid("1234")


def test_json_fields_are_dropped_anywhere_and_pinned_per_tool():
    redactor = Redactor(drop_fields={"customer_name"},
                        allowed_fields={"lookup_order": {"order_id", "status", "items"}})
    leaked = json.dumps({"order_id": "3348917502", "status": "shipped",
                         "customer_name": "Dana Whitfield", "internal_note": "VIP",
                         "items": [{"sku": "RT-AX58", "customer_name": "Dana Whitfield"}]})
    out = json.loads(redactor.redact_output(leaked, "lookup_order"))
    assert out == {"order_id": "3348917502", "status": "shipped",
                   "items": [{"sku": "RT-AX58"}]}
    other_tool = json.loads(redactor.redact_output(leaked, "other_tool"))
    assert "internal_note" in other_tool and "customer_name" not in other_tool
    assert redactor.stats["unexpected_field:customer_name"] == 1
    assert redactor.stats["unexpected_field:internal_note"] == 1
    assert redactor.stats["field:customer_name"] == 3


def test_custom_rules_and_kinds():
    ticket = Rule("ticket", re.compile(r"TCK-\d+"), "[ticket]")
    redactor = Redactor([ticket], kinds=("tool_output", "user"))
    items = [user("my ticket TCK-48213"), assistant("TCK-48213 noted"),
             output("c1", "TCK-48213 is open")]
    redacted = redactor.redact_items(items, {})
    assert [item_text(i) for i in redacted] == [
        "my ticket [ticket]", "TCK-48213 noted", "[ticket] is open"]
    assert items[0]["content"] == "my ticket TCK-48213"  # copies; the input is untouched
    with pytest.raises(ValueError, match="rules must be ctxlab\\.core\\.redaction\\.Rule"):
        Redactor(["TCK"])  # type: ignore[list-item]


@function_tool
def lookup_order(order_id: str) -> str:
    """Order status (this tool's JSON leaks an extra customer_name field)."""
    return json.dumps({"order_id": order_id, "status": "shipped", "contact": "dana@example.com",
                       "customer_name": "Dana Whitfield"})


def test_a_tool_json_leaking_a_customer_field_is_redacted_before_storing(tmp_path):
    db = tmp_path / "chat.db"
    model = ScriptedModel([
        [function_call("lookup_order", {"order_id": "3348917502"}, call_id="c1")],
        [assistant_message("It has shipped.", item_id="m1")],
        [assistant_message("Yes, order 3348917502.", item_id="m2")],
    ])
    agent = Agent(name="orders", instructions="Help.", model=model, tools=[lookup_order])
    redactor = Redactor(allowed_fields={"lookup_order": {"order_id", "status", "contact"}})
    session = TrimmingSession(store=SQLiteSession("orders", db), redactor=redactor)

    async def go():
        await Runner.run(agent, "Where is order 3348917502?", session=session)
        await Runner.run(agent, "Is that the same order?", session=session)
        stored = await SQLiteSession("orders", db).get_items()  # what is on disk
        out = next(i for i in stored if i.get("type") == "function_call_output")
        assert json.loads(out["output"]) == {"order_id": "3348917502", "status": "shipped",
                                             "contact": "[email]"}
        assert "Dana" not in json.dumps(stored) and "dana@example.com" not in json.dumps(stored)
        # the next run's model input comes from the session: no leak
        second_run = json.dumps(model.calls[2].input)
        assert "Dana" not in second_run and "3348917502" in second_run
        # (the call right after the tool, inside the same run, saw the tool's own output:
        # the Runner passes it on in memory; redaction guards what is stored and reused)
        assert "Dana" in json.dumps(model.calls[1].input)
        assert redactor.stats["unexpected_field:customer_name"] == 1
        assert redactor.stats["email"] == 1

    arun(go())


def test_what_the_summarizer_reads_is_redacted_even_if_stored_unredacted(tmp_path):
    db = tmp_path / "chat.db"

    async def go():
        plain = SQLiteSession("mixed", db)  # another writer that does not redact
        await plain.add_items([user("order status?"), call("c1", name="lookup_order"),
                               output("c1", {"contact": "dana@example.com", "id": "3348917502"}),
                               assistant("shipped"), user("thanks"), assistant("welcome")])
        summarizer = RecordingSummarizer()
        session = SummarizingSession(1, 1, summarizer, store=SQLiteSession("mixed", db),
                                     redactor=Redactor())
        await session.add_items([user("one more question")])
        folded = json.dumps(summarizer.calls[0]["items"])
        assert "dana@example.com" not in folded and "[email]" in folded
        assert "3348917502" in folded
        assert "dana@example.com" not in session.summary.text

    arun(go())


def test_a_function_works_as_a_redactor_and_bad_values_are_rejected():
    async def go():
        def upper(item):
            return {**item, "content": item["content"].upper()} if "content" in item else item

        session = TrimmingSession("fn", redactor=upper)
        await session.add_items([user("quiet")])
        assert await session.get_items() == [user("QUIET")]

    arun(go())
    with pytest.raises(ValueError, match="redactor must be a ctxlab\\.Redactor"):
        TrimmingSession("bad", redactor=42)


def test_a_redactor_that_breaks_an_item_stores_nothing():
    async def go():
        session = TrimmingSession("broken", redactor=lambda item: {"content": "lost role"})
        with pytest.raises(ValueError, match="the redactor turned item 0 of 1 into an invalid "
                                             "item: has neither a 'type' nor a 'role'"):
            await session.add_items([user("hello")])
        assert await session.raw_items() == []

    arun(go())


@pytest.mark.parametrize("secret", [
    "sk-abcdefghijklmnop1234", "sk-proj-AbCdEf_0123456789-xyzXYZ", "AKIAIOSFODNN7EXAMPLE",
    "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "ghp_" + "a1B2" * 9,
])
def test_common_secret_formats_are_redacted(secret):
    redactor = Redactor()
    assert redactor.redact_text(f"use {secret} now") == "use [secret] now"
    assert redactor.stats["secret"] == 1


def test_a_card_number_stored_as_a_json_number_is_redacted():
    redactor = Redactor()
    out = redactor.redact_output(json.dumps({"card": 4111111111111111, "order": 123456789012,
                                             "qty": 3}))
    assert json.loads(out) == {"card": "[card]", "order": 123456789012, "qty": 3}
