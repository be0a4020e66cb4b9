"""Property: whatever the conversation, every handoff filter gives the receiver a valid item
sequence in forms both SDK model classes accept, ending with the handoff call and output.

Conversations come from the shared hypothesis strategies (well-formed, damaged by the Runner
or users, and hard ones with pending and late tool outputs). The view is checked with
ctxlab's validator; with the SDK's Chat Completions converter when the conversation has no
Responses-only items (a Chat Completions server never produces them); and against the
``openai`` Responses request types, after OpenAIResponsesModel's own clean-up, when the
conversation was not stored by the Chat Completions model class (the two are not mixed)."""

from __future__ import annotations

import copy

import pytest
from agents import OpenAIResponsesModel
from agents.models.chatcmpl_converter import Converter
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI

from ctxlab import validate_items
from ctxlab.core.items import is_user_message
from ctxlab.handoffs import FullHistory, HandoverSummary, IssueHandover, TrimmedHistory

from conftest import arun
from handoff_data import handoff_data
from openai_schema import request_problem
from strategies import hard_history, history, messy_history

#: What OpenAIResponsesModel does to input items before sending them (it drops the Chat
#: Completions model's placeholder ids and provider data).
RESPONSES = OpenAIResponsesModel(model="gpt-4.1-mini", openai_client=AsyncOpenAI(api_key="x"))

FILTERS = {
    "full": FullHistory,
    "trim:1": lambda: TrimmedHistory(1),
    "trim:4": lambda: TrimmedHistory(4),
    "handover": HandoverSummary,
    "per-issue": IssueHandover,
}

histories = st.one_of(history(max_turns=10), messy_history(), hard_history())
devices = st.sampled_from(["", "My laptop freezes.", "Back to my printer: it jams again.",
                           "我的打印机卡纸了。", "Also my router drops the connection."])


def responses_only(items) -> bool:
    return any(p.code == "not_for_chat" for p in validate_items(items, for_chat=True,
                                                                check_keys=False))


@pytest.mark.parametrize("name", sorted(FILTERS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=histories, mention=devices)
def test_every_filter_gives_a_valid_view(name, items, mention):
    conversation = [*items, {"role": "user", "content": f"{mention} Pass me to repair."}]
    chosen = FILTERS[name]()
    result = arun(chosen(handoff_data(conversation)))
    view = list(result.input_history)
    assert result.input_items == () and result.pre_handoff_items == ()
    assert validate_items(view) == []
    assert view[-2]["type"] == "function_call" and view[-1]["type"] == "function_call_output"
    assert is_user_message(view[-3]) and mention in str(view[-3]["content"])
    if not responses_only(conversation):
        Converter.items_to_messages(view)  # raises on anything the chat converter rejects
    if not any("provider_data" in item for item in conversation):  # a Responses history
        sent = RESPONSES._remove_openai_responses_api_incompatible_fields(copy.deepcopy(view))
        problem = request_problem("responses", {"model": "gpt-4.1-mini", "input": sent})
        assert problem is None, problem


def last_items(data, n: int = 5):
    """Broken on purpose: the last ``n`` items of the history, cut anywhere (an item limit)."""
    return data.clone(input_history=tuple(list(data.input_history)[-n:]))


def test_the_property_catches_a_filter_that_cuts_anywhere():
    def broken(items) -> bool:
        conversation = [*items, {"role": "user", "content": "Pass me to repair."}]
        data = last_items(handoff_data(conversation))
        view = list(data.input_history) + [dict(i.to_input_item()) for i in data.new_items]
        return validate_items(view) != []

    found = find(history(max_turns=10), broken, settings=settings(max_examples=500,
                                                                  database=None))
    assert found  # a history whose last items start with a tool output (or its call is cut)
