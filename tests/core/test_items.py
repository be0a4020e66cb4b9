"""Item kinds, text extraction and shape checks for every shape the SDK stores."""

from __future__ import annotations

import pytest

from ctxlab import (
    content_text,
    is_user_message,
    item_kind,
    item_text,
    item_type,
    model_safe,
    shape_problem,
)
from ctxlab.core.items import pair_key, unknown_keys
from ctxlab.core.schema import CALL_OUTPUT_TYPES, item_schemas, known_types

from conftest import assistant, call, output, reasoning, user


def test_schema_is_read_from_the_openai_package():
    schemas = item_schemas()
    for needed in ("message", "function_call", "function_call_output", "reasoning",
                   "computer_call", "web_search_call", "compaction", "item_reference"):
        assert needed in schemas
    assert {"arguments", "call_id", "name"} <= schemas["function_call"].required
    assert "metadata" not in schemas["message"].allowed
    assert set(CALL_OUTPUT_TYPES) <= known_types()


@pytest.mark.parametrize(
    "item, kind",
    [
        (user("hi"), "user"),
        (user("hi", typed=True), "user"),
        ({"type": "message", "role": "system", "content": [{"type": "input_text", "text": "s"}]},
         "system"),
        ({"role": "developer", "content": "d"}, "developer"),
        (assistant("a"), "assistant"),
        (call("c1"), "tool_call"),
        (output("c1"), "tool_output"),
        ({"type": "computer_call", "call_id": "c", "id": "x", "action": {"type": "click"},
          "pending_safety_checks": [], "status": "completed"}, "tool_call"),
        ({"type": "shell_call_output", "call_id": "c", "output": []}, "tool_output"),
        (reasoning("rs_1"), "reasoning"),
        ({"type": "web_search_call", "id": "ws", "status": "completed",
          "action": {"type": "search", "query": "q"}}, "hosted_tool"),
        ({"type": "compaction", "encrypted_content": "zzz"}, "compaction"),
        ({"type": "item_reference", "id": "msg_1"}, "reference"),
    ],
)
def test_item_kind(item, kind):
    assert item_kind(item) == kind
    assert shape_problem(item) is None


def test_untyped_messages_are_messages():
    assert item_type({"role": "user", "content": "x"}) == "message"
    assert is_user_message({"role": "user", "content": "x"})
    assert is_user_message(user("x", typed=True))
    assert not is_user_message(assistant("x"))
    assert not is_user_message(output("c"))


def test_text_of_every_shape():
    assert item_text(user("hello")) == "hello"
    assert item_text(user("hello", typed=True)) == "hello"
    assert item_text(assistant("done")) == "done"
    assert item_text({"role": "assistant", "content": [
        {"type": "output_text", "text": "a"}, {"type": "refusal", "refusal": "no"}]}) == "a\nno"
    assert item_text(call("c", name="check_warranty", serial="SN-1")) == (
        'check_warranty({"serial": "SN-1"})'
    )
    assert item_text(output("c", {"rma": "RMA-7"})) == '{"rma": "RMA-7"}'
    assert item_text(reasoning("r", "weighing options")) == "weighing options"
    assert item_text({"type": "web_search_call", "id": "w", "status": "completed",
                      "action": {"type": "search", "query": "router 404"}}) == (
        "web_search(router 404)"
    )
    image = {"role": "user", "content": [{"type": "input_text", "text": "see"},
                                         {"type": "input_image", "image_url": "data:..."}]}
    assert item_text(image) == "see\n[image]"
    assert content_text(None) == ""
    assert item_text({"type": "custom_tool_call", "call_id": "c", "name": "grep",
                      "input": "x"}) == "grep(x)"


@pytest.mark.parametrize(
    "item, fragment",
    [
        ("just text", "expected a dict"),
        (["list"], "expected a dict"),
        ({"content": "no role"}, "neither a 'type' nor a 'role'"),
        ({"type": "message", "content": "x"}, "message has no 'role'"),
        ({"role": "bot", "content": "x"}, "role must be one of"),
        ({"role": "user"}, "has no 'content'"),
        ({"role": "user", "content": 42}, "must be a string or a list of content parts"),
        ({"role": "user", "content": [42]}, "content part 0"),
        ({"type": "teleport"}, "unknown item type 'teleport'"),
        ({"type": 7}, "'type' must be a string"),
        ({"type": "function_call", "call_id": "c", "name": "f"}, "missing required key"),
        ({"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"},
         "not a non-empty string"),
        ({"type": "function_call_output", "output": "x"}, "has no 'call_id'"),
        ({"type": "function_call_output", "call_id": "c", "output": 5}, "'output' must be"),
        ({"type": "reasoning", "id": "r", "summary": "x"}, "'summary' must be a list"),
    ],
)
def test_shape_problems_name_the_problem(item, fragment):
    problem = shape_problem(item)
    assert problem is not None and fragment in problem


def test_pair_keys():
    assert pair_key(call("c1")) == ("function_call", "c1")
    assert pair_key(output("c1")) == ("function_call", "c1")
    assert pair_key({"type": "local_shell_call_output", "id": "ls1", "output": "x"}) == (
        "local_shell_call", "ls1")
    assert pair_key(user("x")) is None


def test_model_safe_strips_private_keys_and_copies():
    item = {"role": "user", "content": [{"type": "input_text", "text": "x"}],
            "metadata": {"secret": 1}, "_agents_tool_title": "t", "synthetic": False}
    safe = model_safe(item)
    assert safe == {"role": "user", "content": [{"type": "input_text", "text": "x"}]}
    assert unknown_keys(item) == ["_agents_tool_title", "metadata", "synthetic"]
    safe["content"][0]["text"] = "changed"
    assert item["content"][0]["text"] == "x"


@pytest.mark.parametrize(("item", "kind"), [
    ({"role": ["user"], "content": "a"}, "other"),              # a role that is not a string
    ({"type": "function_call", "role": [1], "call_id": "c"}, "tool_call"),
    ({"type": None, "role": "user", "content": "a"}, "user"),
    ({"type": "message", "role": "tool", "content": "a"}, "other"),
    ({"type": "function_call", "role": "user", "call_id": "c"}, "tool_call"),  # type wins
])
def test_item_kind_of_odd_items_never_raises(item, kind):
    assert item_kind(item) == kind
