"""OfflineSupportModel: facts, rules, and behaviour under the real Runner and TrimmingSession."""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agents import Agent, ModelSettings, Runner, set_tracing_disabled
from agents.exceptions import UserError
from agents.models.interface import Model
from pydantic import BaseModel

from ctxlab import TrimmingSession, count_request_tokens, item_text, validate_items
from ctxlab.course.agent import SUPPORT_INSTRUCTIONS, SUPPORT_TOOLS, make_support_agent
from ctxlab.course.offline import (
    FACT_KINDS,
    FACT_LABELS,
    INSTRUCTIONS_INDEX,
    OfflineSupportModel,
    facts_in_text,
    find_facts,
    latest_fact,
)
from ctxlab.course.offline.catalog import rma_number
from ctxlab.course.offline.intents import read_intent
from ctxlab.course.offline.model import text_deltas

from conftest import arun, assistant, call, output, user

set_tracing_disabled(True)

TICKET = "TCK-48213"
SERIAL = "C02XK1ZJG8WP"


class RecordingModel(Model):
    """Delegates to the offline model and records what the Runner sends it."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.calls: list[tuple[str | None, list[dict[str, Any]], list[Any]]] = []

    def _record(self, system_instructions: Any, input: Any, tools: Any) -> None:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        self.calls.append((system_instructions, copy.deepcopy(items), list(tools)))

    async def get_response(self, system_instructions, input, model_settings, tools, *rest, **kw):
        self._record(system_instructions, input, tools)
        return await self.inner.get_response(
            system_instructions, input, model_settings, tools, *rest, **kw
        )

    async def stream_response(
        self, system_instructions, input, model_settings, tools, *rest, **kw
    ) -> AsyncIterator[Any]:
        self._record(system_instructions, input, tools)
        async for event in self.inner.stream_response(
            system_instructions, input, model_settings, tools, *rest, **kw
        ):
            yield event


async def converse(
    messages: list[str], session: TrimmingSession, *, streamed: bool = False
) -> tuple[list[str], list[Any], RecordingModel, list[str]]:
    """Run ``messages`` through the support agent; return outputs, responses, model, deltas."""
    model = RecordingModel(OfflineSupportModel())
    agent = make_support_agent(model)
    outputs: list[str] = []
    responses: list[Any] = []
    deltas: list[str] = []
    for message in messages:
        if streamed:
            result = Runner.run_streamed(agent, message, session=session)
            turn_deltas = []
            async for event in result.stream_events():
                if event.type == "raw_response_event" and event.data.type == (
                    "response.output_text.delta"
                ):
                    turn_deltas.append(event.data.delta)
            deltas.append("".join(turn_deltas))
        else:
            result = await Runner.run(agent, message, session=session)
        outputs.append(result.final_output)
        responses.extend(result.raw_responses)
    return outputs, responses, model, deltas


def call_ids(items: list[dict[str, Any]]) -> list[str]:
    return [it["call_id"] for it in items if it.get("type") == "function_call"]


RECALL_CHAT = [
    f"Hi, my ticket is {TICKET}. My MacBook Pro keeps overheating.",
    "Firmware v1.0.3; still failing.",
    "Reset done; error 42 now.",
    "Yes, I see error 404 now.",
    "What was my ticket number?",
]

TEN_TURNS = [
    f"Hello, my ticket is {TICKET}.",
    f"My serial is {SERIAL}. Is it under warranty?",
    "Can you look up the device details?",
    "Any update on my ticket?",
    "The laptop is overheating.",
    "Is C02YL3ABJG5H covered by warranty too?",
    "Please look up C02YL3ABJG5H as well.",
    "What is the status of ticket TCK-48214?",
    "Is my laptop still under warranty?",
    "Thanks, that fixed it!",
]


# ---------------------------------------------------------------------------- facts


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        (f"My ticket is {TICKET}.", "ticket", TICKET),
        ("It is ticket #12345 in the portal", "ticket", "12345"),
        (f"serial {SERIAL}", "serial", SERIAL),
        ("service tag 7HQK2M3", "serial", "7HQK2M3"),
        ("Firmware v1.0.3; still failing.", "firmware", "v1.0.3"),
        ("firmware 14.6.1 installed", "firmware", "14.6.1"),
        ("Reset done; error 42 now.", "error_code", "42"),
        ("I got error 42.", "error_code", "42"),
        ("the page says 404", "error_code", "404"),
        ("error code: 0x8007045D", "error_code", "0x8007045D"),
        ("write to jane.doe@example.com.", "email", "jane.doe@example.com"),
        ("Order ID: 3348917502", "order", "3348917502"),
        ("order ORD-55120 shipped", "order", "ORD-55120"),
        ("your RMA-552699 is open", "rma", "RMA-552699"),
        ('"reservation_id": "Z7GOZK"', "reservation", "Z7GOZK"),
    ],
)
def test_facts_are_found_verbatim(text, kind, value):
    found = facts_in_text(text)
    assert [(f.kind, f.value) for f in found] == [(kind, value)]
    assert text[found[0].start : found[0].start + len(value)] == value


@pytest.mark.parametrize(
    "text",
    [
        "disk 500 GB, fan 2500 rpm",
        "macOS 14.6 updated on 2024-05-01 at 10:04",
        "I have a ticket open about the order to follow",
        "the serial number is unknown",
    ],
)
def test_ordinary_text_has_no_facts(text):
    assert facts_in_text(text) == []


def test_find_facts_lists_every_kind_in_order_with_positions():
    items = [
        user(f"ticket {TICKET}, error 42"),
        assistant("Noted."),
        user("now error 404", typed=True),
        call("c1", "check_warranty", serial=SERIAL),
        output("c1", {"serial": SERIAL, "rma": "RMA-552699"}),
    ]
    facts = find_facts(items, instructions="Escalate to ops@example.com.")
    assert set(facts) == set(FACT_KINDS)
    assert [(f.value, f.index, f.source) for f in facts["error_code"]] == [
        ("42", 0, "user"),
        ("404", 2, "user"),
    ]
    assert [(f.index, f.source) for f in facts["serial"]] == [(3, "tool_call"), (4, "tool_output")]
    assert facts["email"][0].index == INSTRUCTIONS_INDEX
    assert facts["rma"][0].value == "RMA-552699"
    assert find_facts(items, kinds=["rma"]) == {"rma": facts["rma"]}


def test_latest_fact_prefers_what_was_said_over_tool_traffic():
    items = [
        user("my firmware is v1.0.3"),
        call("c1", "lookup_device", serial=SERIAL),
        output("c1", {"firmware": "10151.121.1"}),
    ]
    found = find_facts(items)["firmware"]
    assert latest_fact(found).value == "v1.0.3"
    assert latest_fact(found, prefer_messages=False).value == "10151.121.1"
    assert latest_fact([]) is None


def test_find_facts_rejects_bad_input_clearly():
    with pytest.raises(ValueError, match=r"unknown fact kind.*'shoe_size'"):
        find_facts([], kinds=["shoe_size"])
    with pytest.raises(TypeError, match="item 1 must be a dict"):
        find_facts([user("hi"), "oops"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="items must be a list"):
        find_facts(42)  # type: ignore[arg-type]


def test_the_support_instructions_hold_no_identifiers():
    assert all(not found for found in find_facts([], instructions=SUPPORT_INSTRUCTIONS).values())


# ---------------------------------------------------------------------------- rules


MODEL = OfflineSupportModel()


def reply(items: Any, tools: Any = SUPPORT_TOOLS, instructions: str | None = None) -> Any:
    return MODEL.respond(instructions, items, tools)


@pytest.mark.parametrize("kind", FACT_KINDS)
def test_recall_without_the_fact_is_honest_and_invents_nothing(kind):
    question = f"What was my {FACT_LABELS[kind]}?"
    result = reply([user("Hello, my laptop is slow."), assistant("Let's look."), user(question)])
    assert result.text == (
        f"I don't see your {FACT_LABELS[kind]} in our conversation; could you repeat it?"
    )
    assert all(not found for found in find_facts(result.text).values())


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What was my ticket number?", "TCK-50112"),
        ("remind me of my serial", "C02YL3ABJG5H"),
        ("which firmware am I on?", "v2.0.1"),
        ("What was my error code again?", "404"),
        ("Do you remember my email?", "lee@example.com"),
    ],
)
def test_recall_answers_the_latest_value_in_the_input(question, value):
    items = [
        user(f"ticket {TICKET}, serial {SERIAL}, firmware v1.0.3, error 42, old@example.com"),
        assistant("Thanks."),
        user("Update: ticket TCK-50112, serial C02YL3ABJG5H, firmware v2.0.1, error 404."),
        user("My email changed to lee@example.com."),
        user(question),
    ]
    result = reply(items)
    assert value in result.text
    assert result.output[0]["type"] == "message"


def test_recall_reads_an_injected_summary_and_the_instructions():
    summary = [
        user("Summarize the conversation so far."),
        assistant(f"Summary: the user's ticket is {TICKET}; laptop overheats."),
        user("What was my ticket number?"),
    ]
    assert TICKET in reply(summary).text
    pinned = reply([user("What's my serial number?")], instructions=f"Known: serial {SERIAL}")
    assert SERIAL in pinned.text


def test_symptoms_get_numbered_steps_and_exactly_one_question():
    for message in ["My MacBook is overheating", "Reset done; error 42 now.", "no sound in Teams"]:
        text = reply([user(message)]).text
        assert "1. " in text and "2. " in text and "3. " in text
        assert text.count("?") == 1, text


def test_several_issues_are_tracked_and_closed_one_at_a_time():
    items = [user("My laptop overheats."), assistant("Steps..."), user("Now I get error 42.")]
    assert "keeping the overheating issue open" in reply(items).text
    closing = [*items, assistant("Steps..."), user("That fixed it, thanks")]
    text = reply(closing).text
    assert "error 42 issue as closed" in text and "overheating" in text
    assert text.count("?") == 1


@pytest.mark.parametrize("message", ["Hello!", "Thanks a lot", "Something odd happened"])
def test_small_talk_gets_a_short_reply_with_one_question(message):
    text = reply([user(message)]).text
    assert text.count("?") == 1 and len(text) < 200


def test_a_warranty_question_calls_the_offered_tool_with_the_latest_serial():
    items = [user(f"My serial is {SERIAL}"), assistant("Noted."), user("Is it under warranty?")]
    result = reply(items)
    assert [(o["type"], o["name"], json.loads(o["arguments"])) for o in result.output] == [
        ("function_call", "check_warranty", {"serial": SERIAL})
    ]
    assert result.text == ""


def test_lookup_and_ticket_requests_call_their_tools():
    items = [user(f"Ticket {TICKET}, serial {SERIAL}"), user("Can you look up the device specs?")]
    assert [o["name"] for o in reply(items).output] == ["lookup_device"]
    items = [user(f"Ticket {TICKET}"), user("What's the status of my ticket?")]
    (only,) = reply(items).output
    assert (only["name"], json.loads(only["arguments"])) == (
        "get_ticket_status",
        {"ticket_id": TICKET},
    )


def test_tools_are_only_called_when_offered():
    items = [user(f"Is {SERIAL} still under warranty?")]
    result = reply(items, tools=[])
    assert result.output[0]["type"] == "message"
    assert "isn't available" in result.text
    only_lookup = reply(items, tools=[SUPPORT_TOOLS[0]])
    assert only_lookup.output[0]["type"] == "message"


def test_a_lookup_without_an_identifier_asks_for_it():
    result = reply([user("Is my laptop still under warranty?")])
    assert result.output[0]["type"] == "message"
    assert "serial number" in result.text and result.text.count("?") == 1


def test_tool_outputs_are_answered_and_never_called_again_in_the_same_turn():
    args = {"serial": SERIAL}
    warranty = {
        "serial": SERIAL,
        "status": "covered",
        "end_date": "2027-03-14",
        "rma": "RMA-552699",
    }
    turn = [user(f"Is {SERIAL} covered?"), call("c1", "check_warranty", **args)]
    result = reply([*turn, output("c1", warranty)])
    assert result.output[0]["type"] == "message"
    assert "covered" in result.text and "2027-03-14" in result.text and "RMA-552699" in result.text
    # Even if a turn went on after the output, check_warranty is not called twice.
    again = reply([*turn, output("c1", warranty), assistant("Done.")])
    assert all(o["type"] == "message" for o in again.output)


def test_a_tool_error_is_reported_and_the_identifier_asked_for_again():
    items = [
        user("Is XYZ123 covered? serial XYZ123"),
        call("c1", "check_warranty", serial="XYZ123"),
        output("c1", {"error": "no device with serial 'XYZ123'", "serial": "XYZ123"}),
    ]
    text = reply(items).text
    assert "no device with serial 'XYZ123'" in text and "serial number" in text


def test_same_input_same_bytes_and_ids_derive_from_the_input():
    items = [user(f"Is {SERIAL} under warranty?")]
    first, second = reply(items), reply(copy.deepcopy(items))
    assert first == second
    other = reply([user("hello"), assistant("hi"), *items])
    assert first.output[0]["call_id"] != other.output[0]["call_id"]
    assert first.response_id != other.response_id


def test_string_input_is_one_user_message():
    assert reply("What was my ticket number?") == reply([user("What was my ticket number?")])


def test_bad_input_is_rejected_with_a_clear_error():
    with pytest.raises(TypeError, match="input item 1 must be a dict"):
        reply([user("hi"), 3])
    with pytest.raises(TypeError, match="input must be a str or a list"):
        reply(7)
    with pytest.raises(ValueError, match="words_per_delta must be >= 1"):
        OfflineSupportModel(words_per_delta=0)
    with pytest.raises(ValueError, match="unknown encoding"):
        OfflineSupportModel(encoding="nope")


def test_text_deltas_rebuild_the_text():
    text = "1. Restart it.\n2. Try again,  then  wait.\nDone?"
    pieces = text_deltas(text, 2)
    assert "".join(pieces) == text and len(pieces) > 3
    assert text_deltas("", 3) == []


def test_interface_signatures_match_the_installed_sdk():
    for name in ("get_response", "stream_response"):
        ours = inspect.signature(getattr(OfflineSupportModel, name)).parameters
        theirs = inspect.signature(getattr(Model, name)).parameters
        assert [(p.name, p.kind, p.default) for p in ours.values()] == [
            (p.name, p.kind, p.default) for p in theirs.values()
        ]
    assert inspect.isasyncgenfunction(OfflineSupportModel.stream_response)


def test_tool_choice_none_and_structured_output_are_respected():
    agent = make_support_agent(OfflineSupportModel()).clone(
        model_settings=ModelSettings(tool_choice="none")
    )
    result = arun(Runner.run(agent, f"Is {SERIAL} under warranty?"))
    assert not any(item.type == "tool_call_item" for item in result.new_items)

    class Answer(BaseModel):
        text: str

    typed = Agent(name="typed", model=OfflineSupportModel(), output_type=Answer)
    with pytest.raises(UserError, match="plain text only"):
        arun(Runner.run(typed, "hello"))


# ---------------------------------------------------------------------------- Runner


@pytest.mark.parametrize(("max_turns", "expected"), [(2, "I don't see"), (8, TICKET)])
def test_recall_depends_on_what_trimming_keeps(max_turns, expected):
    session = TrimmingSession("recall", max_turns=max_turns)
    outputs, _, model, _ = arun(converse(RECALL_CHAT, session))
    assert expected in outputs[-1]
    last_input = "\n".join(item_text(it) for it in model.calls[-1][1])
    assert (TICKET in last_input) is (max_turns == 8)
    if max_turns == 2:
        assert TICKET not in outputs[-1]


def test_the_runner_executes_tool_calls_and_the_answer_uses_their_output():
    session = TrimmingSession("tools", max_turns=8)
    outputs, responses, _, _ = arun(converse([f"My serial is {SERIAL}. Is it covered?"], session))
    assert rma_number(SERIAL) in outputs[0] and "2027-03-14" in outputs[0]
    raw = arun(session.raw_items())
    assert [it.get("type", "message") for it in raw] == [
        "message",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert json.loads(raw[2]["output"])["rma"] == rma_number(SERIAL)
    assert len(responses) == 2


def test_a_ten_turn_conversation_is_deterministic_valid_and_has_unique_call_ids():
    def run() -> tuple[list[str], list[dict[str, Any]], RecordingModel, list[Any]]:
        session = TrimmingSession("ten", max_turns=3)
        outputs, responses, model, _ = arun(converse(TEN_TURNS, session))
        return outputs, arun(session.raw_items()), model, responses

    outputs, raw, model, responses = run()
    again_outputs, again_raw, _, _ = run()
    assert outputs == again_outputs and raw == again_raw

    ids = call_ids(raw)
    assert len(ids) >= 6 and len(set(ids)) == len(ids)
    names = [it["name"] for it in raw if it.get("type") == "function_call"]
    assert {"check_warranty", "lookup_device", "get_ticket_status"} <= set(names)

    assert len(model.calls) == len(responses)
    for (instructions, items, tools), response in zip(model.calls, responses, strict=True):
        assert validate_items(items, check_keys=False) == []
        assert (
            response.usage.input_tokens == count_request_tokens(instructions, items, tools)["total"]
        )
        assert response.usage.requests == 1 and response.usage.output_tokens > 0
        assert response.usage.total_tokens == (
            response.usage.input_tokens + response.usage.output_tokens
        )


def test_repeating_a_question_under_a_one_turn_window_still_gives_fresh_call_ids():
    session = TrimmingSession("repeat", max_turns=1)
    question = f"Is {SERIAL} under warranty?"
    arun(converse([question] * 3, session))
    ids = call_ids(arun(session.raw_items()))
    assert len(ids) == 3 and len(set(ids)) == 3


def test_streaming_gives_text_deltas_and_the_same_conversation():
    plain = TrimmingSession("plain", max_turns=3)
    streamed = TrimmingSession("streamed", max_turns=3)
    outputs, _, _, _ = arun(converse(TEN_TURNS[:4], plain))
    s_outputs, s_responses, s_model, deltas = arun(converse(TEN_TURNS[:4], streamed, streamed=True))
    assert s_outputs == outputs
    assert deltas == outputs  # the deltas of each turn rebuild its final output
    assert arun(streamed.raw_items()) == arun(plain.raw_items())
    for (instructions, items, tools), response in zip(s_model.calls, s_responses, strict=True):
        assert validate_items(items, check_keys=False) == []
        assert (
            response.usage.input_tokens == count_request_tokens(instructions, items, tools)["total"]
        )


def test_a_summary_keeps_what_trimming_would_lose():
    """Under SummarizingSession the ticket survives inside the injected summary."""
    from ctxlab.sessions.summarizing import SummarizingSession

    session = SummarizingSession(keep_last_n_turns=1, context_limit=2, session_id="sum")
    outputs, _, model, _ = arun(converse(RECALL_CHAT, session))
    first_items = model.calls[-1][1]
    assert not any(TICKET in item_text(it) for it in first_items if it.get("role") == "user")
    assert TICKET in outputs[-1]


def test_canned_text_contains_no_identifiers_of_its_own():
    """Every value in a reply must come from the input, so the templates hold none."""
    from ctxlab.course.offline import PLAYBOOK, replies

    texts = [replies.GREETING, replies.THANKS, replies.FALLBACK_QUESTION, replies.NO_USER_MESSAGE]
    for symptom in PLAYBOOK:
        texts.extend(symptom.steps)
        texts.append(symptom.question)
    texts.append(replies.missing_identifier_reply(list(FACT_KINDS)))
    for text in texts:
        assert facts_in_text(text) == [], text


def test_a_value_seen_only_in_tool_traffic_says_where_it_came_from():
    items = [
        user(f"Is {SERIAL} covered?"),
        call("c1", "check_warranty", serial=SERIAL),
        output("c1", {"serial": SERIAL, "status": "covered", "end_date": "2027-03-14"}),
        user("hm"),
        user("Oops, what was the RMA number again?"),
    ]
    assert "I don't see your RMA number" in reply(items).text
    items[2] = output("c1", {"status": "covered", "end_date": "2027-03-14", "rma": "RMA-552699"})
    text = reply(items).text
    assert "RMA-552699" in text and "check_warranty result" in text


@pytest.mark.parametrize("message", [
    "Please delete my ticket and everything you know about me.",
    "Can you erase my personal data?",
    "I want you to forget me.",
    "Remove my account details, please.",
    "I'm invoking my right to be forgotten.",
])
def test_a_request_to_delete_data_is_answered_honestly_whatever_is_in_view(message):
    history = [user(f"My serial is {SERIAL} and my ticket is {TICKET}."), assistant("Noted.")]
    for items in ([user(message)], [*history, user(message)]):
        text = reply(items).text
        assert text.startswith("I can't delete"), text
        assert "which device" not in text and TICKET not in text


@pytest.mark.parametrize("message", [
    "Will the repair wipe my files?", "How do I remove the battery?",
    "What was my ticket number?", "Delete the old driver first?",
])
def test_support_questions_that_mention_removing_things_are_not_data_requests(message):
    assert not read_intent(message).data_request


def test_a_chinese_request_to_delete_data_is_answered_in_chinese():
    messages = ["请删除我的工单和你们掌握的关于我的所有信息。", "帮我注销账号，删掉我的个人资料"]
    for message in messages:
        assert read_intent(message).data_request, message
        assert reply([user(message)]).text.startswith("在聊天里我没办法直接删除")
    assert not read_intent("我的工单号是多少来着？").data_request
