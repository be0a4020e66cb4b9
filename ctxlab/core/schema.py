"""What a valid Responses input item looks like.

The key sets are read from the ``openai`` package's own ``TypedDict`` definitions
(``ResponseInputItemParam``), so they follow the installed API version instead of a
hand-written copy. On top of that sit the few structural facts the type hints cannot
express: which call types need an output, and which items a reasoning item may precede.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, get_args

#: Call type -> the output type that answers it (joined by ``call_id``). This mirrors the
#: Agents SDK's own table (``agents.run_internal.items._TOOL_CALL_TO_OUTPUT_TYPE``).
CALL_OUTPUT_TYPES: dict[str, str] = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "shell_call": "shell_call_output",
    "local_shell_call": "local_shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "tool_search_call": "tool_search_output",
    "program": "program_output",
}
OUTPUT_CALL_TYPES: dict[str, str] = {out: call for call, out in CALL_OUTPUT_TYPES.items()}

#: Tool calls the model provider runs itself: no client-side output item follows them.
HOSTED_TOOL_TYPES: frozenset[str] = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "hosted_tool_call",
    }
)

#: The three message roles a client may send, plus the assistant's own messages.
MESSAGE_ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "developer"})

_LITERAL = re.compile(r"Literal\[\s*'([a-z_]+)'\s*\]")


@dataclass(frozen=True)
class ItemSchema:
    """Keys that a Responses input item of one ``type`` may and must carry."""

    type: str
    allowed: frozenset[str]
    required: frozenset[str]


def _annotation_text(annotation: Any) -> str:
    forward = getattr(annotation, "__forward_arg__", None)
    return forward if isinstance(forward, str) else str(annotation)


@lru_cache(maxsize=1)
def item_schemas() -> dict[str, ItemSchema]:
    """Map each item ``type`` to its allowed and required keys.

    The three message shapes (easy input, input message, output message) share the type
    ``"message"``; their key sets are merged and nothing beyond ``role`` and ``content`` is
    required, because the easy-input form needs nothing more.
    """
    from openai.types.responses import response_input_item_param

    allowed: dict[str, set[str]] = {}
    required: dict[str, set[str]] = {}
    for typed_dict in get_args(response_input_item_param.ResponseInputItemParam):
        annotations = getattr(typed_dict, "__annotations__", {})
        type_hint = annotations.get("type")
        if type_hint is None:
            continue
        match = _LITERAL.search(_annotation_text(type_hint))
        if match is None:
            continue
        item_type = match.group(1)
        keys = set(annotations)
        needed = {k for k, v in annotations.items() if _annotation_text(v).startswith("Required[")}
        if item_type in allowed:
            allowed[item_type] |= keys
            required[item_type] &= needed
        else:
            allowed[item_type] = keys
            required[item_type] = needed
    required["message"] = {"role", "content"}
    # Output items may arrive without their optional ``type`` discriminator only for
    # messages; every other kind needs it.
    for item_type in required:
        required[item_type].discard("type")
    return {
        t: ItemSchema(t, frozenset(allowed[t]), frozenset(required[t])) for t in sorted(allowed)
    }


@lru_cache(maxsize=1)
def known_types() -> frozenset[str]:
    """Every item ``type`` the installed Responses API accepts as input."""
    return frozenset(item_schemas()) | frozenset(CALL_OUTPUT_TYPES) | frozenset(OUTPUT_CALL_TYPES)


#: Keys the Agents SDK itself puts on stored items and handles before a request:
#: ``OpenAIChatCompletionsModel`` stores ``provider_data`` (the model and response id; for
#: some providers a thought signature it needs back) and reads it when converting, and
#: ``OpenAIResponsesModel`` removes it before calling the API. Views keep it.
SDK_ITEM_KEYS: frozenset[str] = frozenset({"provider_data"})


@cache
@lru_cache(maxsize=256)  # called for every item handed to a model: a handful of types
def allowed_keys(item_type: str) -> frozenset[str]:
    """Keys an item of ``item_type`` may carry (its Responses schema plus
    :data:`SDK_ITEM_KEYS`); anything else is rejected by the API."""
    schema = item_schemas().get(item_type)
    if schema is None:
        return frozenset({"type", "id"}) | SDK_ITEM_KEYS
    return schema.allowed | SDK_ITEM_KEYS
