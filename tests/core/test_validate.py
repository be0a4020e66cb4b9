"""The validator reports every way the API would reject a sequence; repair and safe_cut."""

from __future__ import annotations

import pytest

from ctxlab import InvalidSequenceError, assert_valid, is_valid, repair, safe_cut, validate_items

from conftest import assistant, call, output, reasoning, user


def codes(items):
    return [(p.index, p.code) for p in validate_items(items)]


def test_valid_sequence_has_no_problems():
    items = [user("q"), reasoning("rs"), call("c1"), call("c2"), output("c2"), output("c1"),
             assistant("a")]
    assert validate_items(items) == []
    assert is_valid(items)
    assert_valid(items)


def test_orphan_output():
    assert codes([user("q"), output("c9"), assistant("a")]) == [(1, "orphan_output")]


def test_output_before_its_call_is_an_orphan_and_the_call_is_open():
    assert codes([user("q"), output("c1"), call("c1")]) == [
        (1, "orphan_output"), (2, "call_without_output")]


def test_call_without_output():
    assert codes([user("q"), call("c1"), assistant("a")]) == [(1, "call_without_output")]


def test_reasoning_without_follower():
    assert codes([user("q"), reasoning("r")]) == [(1, "reasoning_without_follower")]
    assert codes([user("q"), reasoning("r"), user("again")]) == [
        (1, "reasoning_without_follower")]
    assert codes([user("q"), reasoning("r"), output("c")]) == [
        (1, "reasoning_without_follower"), (2, "orphan_output")]
    # consecutive reasoning items share the follower
    assert codes([user("q"), reasoning("r1"), reasoning("r2"), assistant("a")]) == []


def test_unknown_keys_and_bad_items():
    items = [{"role": "user", "content": "x", "metadata": {"a": 1}}, 42]
    assert codes(items) == [(0, "unknown_keys"), (1, "bad_item")]
    problems = validate_items(items)
    assert "'metadata'" in problems[0].message
    assert validate_items(items[:1], check_keys=False) == []


def test_duplicate_call_id_while_waiting():
    found = codes([user("q"), call("c1"), call("c1"), output("c1")])
    assert (2, "duplicate_call_id") in found and (1, "call_without_output") in found


def test_assert_valid_lists_every_problem():
    with pytest.raises(InvalidSequenceError) as err:
        assert_valid([output("x"), call("y"), reasoning("r")])
    assert len(err.value.problems) == 3
    assert "orphan_output" in str(err.value) and "call_without_output" in str(err.value)


def test_repair_removes_what_the_validator_reports():
    items = [user("q"), reasoning("r1"), call("c1"), output("c0"), user("u"), assistant("a")]
    dropped = repair(items)
    assert sorted(dropped) == [1, 2, 3]  # open call, its reasoning, the orphan
    kept = [it for i, it in enumerate(items) if i not in dropped]
    assert is_valid(kept)


def test_safe_cut_never_splits_a_pair_or_reasoning():
    items = [user("q"), reasoning("r"), call("a"), call("b"), output("a"), output("b"),
             assistant("x")]
    assert safe_cut(items, 0) == 0
    assert safe_cut(items, 1) == 1
    assert safe_cut(items, 2) == 6  # 2: reasoning before; 3..5: pairs open
    assert safe_cut(items, 7) == 7
    assert safe_cut(items, 99) == 7


# ------------------------------------------------------------ message forms (both models)

_TEXT = [{"type": "output_text", "text": "a", "annotations": []}]
MESSAGE_FORMS = {
    "plain assistant": {"role": "assistant", "content": "a"},
    "typed plain assistant": {"type": "message", "role": "assistant", "content": "a"},
    "sdk output": {"type": "message", "id": "msg_1", "role": "assistant",
                   "status": "completed", "content": _TEXT},
    "typed assistant without id": {"type": "message", "role": "assistant",
                                   "status": "completed", "content": _TEXT},
    "output parts without id": {"role": "assistant", "content": _TEXT},
    "untyped assistant with id": {"role": "assistant", "id": "msg_1", "content": "a"},
    "id with string content": {"type": "message", "id": "m", "role": "assistant",
                               "status": "completed", "content": "a"},
    "id with input parts": {"type": "message", "id": "m", "role": "assistant",
                            "status": "completed",
                            "content": [{"type": "input_text", "text": "a"}]},
    "plain user": {"role": "user", "content": "q"},
    "typed user with status": {"type": "message", "role": "user", "status": "completed",
                               "content": [{"type": "input_text", "text": "q"}]},
    "untyped user with status": {"role": "user", "status": "completed", "content": "q"},
    "plain developer": {"role": "developer", "content": "be brief"},
    "untyped assistant with provider_data": {"role": "assistant", "content": "a",
                                             "provider_data": {"model": "m"}},
    "sdk output with provider_data": {"type": "message", "id": "__fake_id__",
                                      "role": "assistant", "status": "completed",
                                      "content": _TEXT, "provider_data": {"model": "m"}},
}


@pytest.mark.parametrize("name", sorted(MESSAGE_FORMS))
def test_message_form_rule_agrees_with_the_sdk_chat_converter(name):
    """message_form is reported exactly when OpenAIChatCompletionsModel's converter raises."""
    from agents.models.chatcmpl_converter import Converter

    item = MESSAGE_FORMS[name]
    try:
        Converter.items_to_messages([item])
        converter_ok = True
    except Exception:  # UserError, or TypeError on a string where parts are expected
        converter_ok = False
    found = [p.code for p in validate_items([item])]
    assert ("message_form" not in found) == converter_ok, (name, validate_items([item]))


def test_message_form_names_the_fix():
    problems = validate_items([user("q"), MESSAGE_FORMS["typed assistant without id"]])
    assert [(p.index, p.code) for p in problems] == [(1, "message_form")]
    assert "without an 'id'" in problems[0].message
    assert "{'role': 'assistant', 'content': text}" in problems[0].message


def test_private_keys_do_not_count_for_the_message_form():
    item = {"role": "assistant", "content": "a", "synthetic": True}
    assert codes([item]) == [(0, "unknown_keys")]
    assert validate_items([item], check_keys=False) == []


def test_for_chat_reports_items_only_the_responses_api_has():
    from agents.models.chatcmpl_converter import Converter

    web = {"type": "web_search_call", "id": "ws_1", "status": "completed",
           "action": {"type": "search", "query": "x"}}
    custom = [{"type": "custom_tool_call", "call_id": "c1", "name": "grep", "input": "x"},
              {"type": "custom_tool_call_output", "call_id": "c1", "output": "y"}]
    items = [user("q"), web, *custom, assistant("a")]
    assert validate_items(items) == []
    found = [(p.index, p.code) for p in validate_items(items, for_chat=True)]
    assert found == [(1, "not_for_chat"), (2, "not_for_chat"), (3, "not_for_chat")]
    for item in (web, custom[0]):
        with pytest.raises(Exception, match="Unhandled item type"):
            Converter.items_to_messages([user("q"), item])
    plain = [user("q"), call("c1"), output("c1"), assistant("a")]
    assert validate_items(plain, for_chat=True) == []
    Converter.items_to_messages(plain)


def test_the_sdks_provider_data_is_kept_and_accepted():
    """OpenAIChatCompletionsModel stores provider_data on its items and reads it back; the
    Responses model removes it before calling the API. It is not private metadata."""
    from ctxlab import model_safe

    stored = {"type": "function_call", "id": "__fake_id__", "call_id": "c1", "name": "lookup",
              "arguments": "{}", "provider_data": {"model": "m", "response_id": "chatcmpl-1"}}
    assert model_safe(stored) == stored
    assert validate_items([user("q"), stored, output("c1")]) == []
    untyped = {"role": "assistant", "content": "a", "provider_data": {"model": "m"}}
    assert codes([untyped]) == [(0, "message_form")]  # the converter reads it only typed
