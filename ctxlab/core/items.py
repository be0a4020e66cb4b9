"""Responses input items: what kind an item is, what it says, and whether it is well formed.

The Agents SDK stores these shapes in a session, and every function here accepts all of them:

* user input as ``{"role": "user", "content": "..."}`` (no ``type`` key) or as a typed
  message ``{"type": "message", "role": ..., "content": [{"type": "input_text", ...}]}``;
* assistant messages whose ``content`` is a list of ``output_text`` / ``refusal`` parts;
* tool calls and their outputs joined by ``call_id`` (``function_call`` /
  ``function_call_output`` and the other pairs in :data:`ctxlab.core.schema.CALL_OUTPUT_TYPES`;
  handoffs are function calls too);
* ``reasoning`` items, hosted tool calls (``web_search_call``, ``mcp_call``, ...),
  ``compaction`` and ``item_reference`` items.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, get_args

from .schema import (
    CALL_OUTPUT_TYPES,
    HOSTED_TOOL_TYPES,
    MESSAGE_ROLES,
    OUTPUT_CALL_TYPES,
    allowed_keys,
    item_schemas,
    known_types,
)

ItemKind = Literal[
    "user",
    "assistant",
    "system",
    "developer",
    "tool_call",
    "tool_output",
    "reasoning",
    "hosted_tool",
    "compaction",
    "reference",
    "other",
    "invalid",
]

#: Every value :func:`item_kind` can return, in display order.
ITEM_KINDS: tuple[str, ...] = get_args(ItemKind)

#: Output types that carry no ``call_id``: ``local_shell_call_output`` names its call in ``id``.
_OUTPUT_ID_KEY = {"local_shell_call_output": "id"}


def item_type(item: Mapping[str, Any]) -> str:
    """The item's ``type``; untyped items with a ``role`` are messages."""
    value = item.get("type")
    if value is None and "role" in item:
        return "message"
    return value if isinstance(value, str) else ""


def item_kind(item: Mapping[str, Any]) -> ItemKind:
    """A coarse kind for display and accounting (see :data:`ITEM_KINDS`)."""
    role = item.get("role")
    known_role = type(role) is str and role in MESSAGE_ROLES
    if known_role and item.get("type", "message") == "message":
        return role  # type: ignore[no-any-return]  # a plain message (most items): one lookup
    kind = item_type(item)
    if kind == "message":  # also {"type": None, "role": ...}
        return role if known_role else "other"  # type: ignore[return-value]
    if kind in CALL_OUTPUT_TYPES:
        return "tool_call"
    if kind in OUTPUT_CALL_TYPES:
        return "tool_output"
    if kind == "reasoning":
        return "reasoning"
    if kind in HOSTED_TOOL_TYPES:
        return "hosted_tool"
    if kind in ("compaction", "compaction_trigger"):
        return "compaction"
    if kind == "item_reference":
        return "reference"
    return "other"


def is_user_message(item: Mapping[str, Any]) -> bool:
    """True for a message with role ``user`` (typed or untyped)."""
    return item_type(item) == "message" and item.get("role") == "user"


def is_model_emitted(item: Mapping[str, Any]) -> bool:
    """True for items the model produces and a reasoning item may therefore precede."""
    kind = item_type(item)
    if kind == "message":
        return item.get("role") == "assistant"
    return (
        kind in CALL_OUTPUT_TYPES
        or kind in HOSTED_TOOL_TYPES
        or kind in ("compaction", "item_reference")
    ) and kind != "mcp_approval_response"


def pair_key(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """The key that joins a tool call to its output: ``(call type, call id)``.

    Returns None for items that are not part of a call/output pair, and for calls whose
    id is missing (an anonymous ``tool_search_call`` is answered without one).
    """
    kind = item_type(item)
    if kind in CALL_OUTPUT_TYPES:
        call_type = kind
        call_id = item.get("call_id")
    elif kind in OUTPUT_CALL_TYPES:
        call_type = OUTPUT_CALL_TYPES[kind]
        call_id = item.get(_OUTPUT_ID_KEY.get(kind, "call_id"))
    else:
        return None
    if not isinstance(call_id, str) or not call_id:
        return None
    return call_type, call_id


def is_call(item: Mapping[str, Any]) -> bool:
    """True for a tool call that needs an output item (function, shell, computer, ...)."""
    return item_type(item) in CALL_OUTPUT_TYPES


def is_output(item: Mapping[str, Any]) -> bool:
    """True for the output item of a client-side tool call."""
    return item_type(item) in OUTPUT_CALL_TYPES


# ---------------------------------------------------------------------------- text


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return ""
    part_type = part.get("type")
    if isinstance(part.get("text"), str):
        return part["text"]
    if part_type == "refusal" and isinstance(part.get("refusal"), str):
        return part["refusal"]
    if part_type in ("input_image", "computer_screenshot"):
        return "[image]"
    if part_type == "input_file":
        name = part.get("filename") or part.get("file_id") or "file"
        return f"[file: {name}]"
    if part_type == "input_audio":
        return "[audio]"
    return ""


def content_text(content: Any) -> str:
    """Plain text of a message ``content`` (a string or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(t for t in (_part_text(p) for p in content) if t)
    return _part_text(content)


def _dump(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _call_text(item: Mapping[str, Any], kind: str) -> str:
    args = item.get("arguments") if kind == "function_call" else item.get("input")
    return f"{item.get('name', '')}({_dump(args) if args is not None else ''})"


def _output_text(item: Mapping[str, Any], kind: str) -> str:
    output = item.get("output", item.get("result", item.get("tools")))
    if isinstance(output, list):
        return content_text(output) or _dump(output)
    return _dump(output) if output is not None else ""


def _hosted_call_text(item: Mapping[str, Any], kind: str) -> str:
    detail = item.get("action") or item.get("operation") or item.get("arguments")
    detail = detail if detail is not None else item.get("code")
    return f"{kind}({_dump(detail) if detail is not None else ''})"


def _reasoning_text(item: Mapping[str, Any], kind: str) -> str:
    return content_text(list(item.get("summary") or []) + list(item.get("content") or []))


def _mcp_text(item: Mapping[str, Any], kind: str) -> str:
    text = f"{item.get('name', '')}({_dump(item.get('arguments', ''))})"
    if item.get("output"):
        text += f" -> {_dump(item['output'])}"
    return text


def _web_search_text(item: Mapping[str, Any], kind: str) -> str:
    action = item.get("action")
    if isinstance(action, Mapping) and action.get("query"):
        return f"web_search({action['query']})"
    return "web_search()"


_TextReader = Callable[[Mapping[str, Any], str], str]

#: How each item type reads as text, in order: the first entry whose types hold the
#: item's type reads it (a call type that is also in a later set is read by the earlier).
_TEXT_READERS: tuple[tuple[Container[str], _TextReader], ...] = (
    (("message",), lambda item, kind: content_text(item.get("content"))),
    (("function_call", "custom_tool_call"), _call_text),
    (OUTPUT_CALL_TYPES, _output_text),
    (CALL_OUTPUT_TYPES, _hosted_call_text),
    (("reasoning",), _reasoning_text),
    (("mcp_call", "mcp_approval_request"), _mcp_text),
    (("web_search_call",), _web_search_text),
    (("file_search_call",), lambda item, kind: f"file_search({_dump(item.get('queries', []))})"),
    (("code_interpreter_call",), lambda item, kind: item.get("code") or ""),
    (("compaction", "compaction_trigger"), lambda item, kind: "[compacted history]"),
    (("item_reference",), lambda item, kind: f"[reference {item.get('id', '')}]"),
)


@lru_cache(maxsize=256)
def _text_reader(kind: str) -> _TextReader | None:
    return next((read for types, read in _TEXT_READERS if kind in types), None)


def item_text(item: Mapping[str, Any]) -> str:
    """The text a model reads from an item, for display, search and token counting.

    Messages give their content; a function call reads as ``name(arguments)``; an output
    gives its output; reasoning gives its summary; hosted calls give their query or
    action. Images and files appear as short placeholders such as ``[image]``.
    """
    kind = item_type(item)
    read = _text_reader(kind)
    return read(item, kind) if read is not None else ""


def preview(text: str, width: int = 80) -> str:
    """One line of at most ``width`` display columns (a Chinese character takes two:
    :mod:`ctxlab.core.display`), ending in "…" when cut."""
    from .display import clip

    return clip(" ".join(text.split()), width)


def describe_items(
    items: Sequence[Mapping[str, Any]], width: int = 76, *, start: int = 0
) -> str:
    """One line per item, ``index kind: text``, for printing a history compactly.

    ``width`` is the text's display columns, cut to what keeps a line within
    :data:`~ctxlab.core.display.NOTEBOOK_COLUMNS` (a notebook breaks a longer line
    mid-word). ``start`` is the index of the first item (when ``items`` is a slice of a
    longer list).
    """
    from .display import NOTEBOOK_COLUMNS

    width = min(width, NOTEBOOK_COLUMNS - 16)  # 16: the index and the kind
    lines = []
    for index, item in enumerate(items, start=start):
        kind = item_kind(item) if isinstance(item, Mapping) else type(item).__name__
        text = item_text(item) if isinstance(item, Mapping) else repr(item)
        lines.append(f"{index:>3} {kind:<11} {preview(text, width)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- shape


def _common_shape(item: dict) -> bool:
    """True for the shapes the Runner stores (plain messages, function calls and outputs),
    valid as checked here in a few lookups."""
    raw = item.get("type")
    if raw is None or raw == "message":
        return item.get("role") in MESSAGE_ROLES and type(item.get("content")) is str
    if raw != "function_call" and raw != "function_call_output":
        return False
    cid = item.get("call_id")
    if type(cid) is not str or not cid:
        return False
    if raw == "function_call":
        return type(item.get("name")) is str and type(item.get("arguments")) is str
    return type(item.get("output")) is str


def _type_problem(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return f"expected a dict (a Responses input item), got {type(item).__name__}"
    raw_type = item.get("type")
    if raw_type is None and "role" not in item:
        return "has neither a 'type' nor a 'role' key, so it is not a Responses item"
    if raw_type is not None and not isinstance(raw_type, str):
        return f"'type' must be a string, got {type(raw_type).__name__}"
    kind = item_type(item)
    return None if kind in known_types() else f"unknown item type {kind!r}"


def _required_problem(item: Mapping[str, Any], kind: str) -> str | None:
    schema = item_schemas().get(kind)
    missing = sorted(k for k in schema.required if k not in item) if schema is not None else []
    if missing:
        return f"{kind} item is missing required key(s): {', '.join(missing)}"
    return None


def _pair_id_problem(item: Mapping[str, Any], kind: str) -> str | None:
    if kind not in CALL_OUTPUT_TYPES and kind not in OUTPUT_CALL_TYPES:
        return None
    key = _OUTPUT_ID_KEY.get(kind, "call_id")
    value = item.get(key)
    anonymous_ok = kind in ("tool_search_call", "tool_search_output")
    if value is None and not anonymous_ok:
        return f"{kind} item has no {key!r}, so it cannot be matched to its pair"
    if value is not None and (not isinstance(value, str) or not value):
        return f"{kind} item has a {key!r} that is not a non-empty string: {value!r}"
    return None


def _function_call_problem(item: Mapping[str, Any], kind: str) -> str | None:
    for key in ("name", "arguments"):
        if not isinstance(item.get(key), str):
            return f"function_call {key!r} must be a string, got {type(item.get(key)).__name__}"
    return None


def _tool_output_problem(item: Mapping[str, Any], kind: str) -> str | None:
    output = item.get("output")
    if not isinstance(output, (str, list)):
        return f"{kind} 'output' must be a string or a list, got {type(output).__name__}"
    return None


def _reasoning_problem(item: Mapping[str, Any], kind: str) -> str | None:
    if not isinstance(item.get("summary"), list):
        return f"reasoning 'summary' must be a list, got {type(item.get('summary')).__name__}"
    return None


#: The field checks of one item type, after its required keys and pair id.
_FIELD_CHECKS: dict[str, Callable[[Mapping[str, Any], str], str | None]] = {
    "function_call": _function_call_problem,
    "function_call_output": _tool_output_problem,
    "custom_tool_call_output": _tool_output_problem,
    "reasoning": _reasoning_problem,
}


def shape_problem(item: Any) -> str | None:
    """Why ``item`` cannot be stored as a Responses input item, or None if it can.

    This checks one item on its own (the sequence rules live in :mod:`ctxlab.core.validate`):
    it must be a dict, have a known ``type`` (or a ``role``, for untyped messages), carry the
    keys its type requires, and hold content of the right type.
    """
    if type(item) is dict and _common_shape(item):
        return None
    problem = _type_problem(item)
    if problem is not None:
        return problem
    kind = item_type(item)
    if kind == "message":
        return _message_problem(item)
    field_check = _FIELD_CHECKS.get(kind)
    for check in (_required_problem, _pair_id_problem, field_check):
        problem = check(item, kind) if check is not None else None
        if problem is not None:
            return problem
    return None


def _message_problem(item: Mapping[str, Any]) -> str | None:
    role = item.get("role")
    if role is None:
        return "message has no 'role'"
    if role not in MESSAGE_ROLES:
        return f"message role must be one of {sorted(MESSAGE_ROLES)}, got {role!r}"
    if "content" not in item:
        return f"{role} message has no 'content'"
    content = item["content"]
    if isinstance(content, str):
        return None
    if not isinstance(content, list):
        return (
            f"{role} message content must be a string or a list of content parts, "
            f"got {type(content).__name__}"
        )
    for n, part in enumerate(content):
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            return f"{role} message content part {n} is not a dict with a string 'type'"
        kind = part["type"]
        if kind not in CONTENT_PART_TYPES:
            return (f"{role} message content part {n} has unknown type {kind!r} (expected one "
                    f"of {', '.join(sorted(CONTENT_PART_TYPES))})")
        field = CONTENT_PART_TYPES[kind]
        if field is not None and not isinstance(part.get(field), str):
            return (f"{role} message content part {n} ({kind}) needs a string {field!r}, got "
                    f"{type(part.get(field)).__name__}")
    return None


#: Message content part types the Responses API accepts, with the key that must hold a
#: string (None: no text key).
CONTENT_PART_TYPES: dict[str, str | None] = {
    "input_text": "text",
    "output_text": "text",
    "refusal": "refusal",
    "input_image": None,
    "input_file": None,
    "input_audio": None,
    "summary_text": "text",
    "reasoning_text": "text",
}

#: How deep an item may nest (dicts and lists) before it is refused.
MAX_DEPTH = 64
#: Integers beyond this magnitude do not survive most JSON parsers (64-bit).
MAX_INT = 2**63 - 1


def is_flat_json(value: Any) -> bool:
    """True for a dict of string keys whose values are ASCII strings, None or booleans: plain
    JSON as it is, and copied whole by ``dict(value)`` (most items the Runner stores)."""
    if type(value) is not dict:
        return False
    for key, item in value.items():
        if type(key) is not str:
            return False
        cls = type(item)
        if not ((cls is str and item.isascii()) or item is None or cls is bool):
            return False
    return True


def nesting_exceeds(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """True when dicts and lists in ``value`` nest deeper than ``max_depth`` (checked without
    recursion, so any depth is safe to ask about)."""
    if is_flat_json(value):
        return False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth >= max_depth:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (Mapping, list, tuple)))
    return False


def loads_json(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for text other programs wrote (tool outputs, stored rows).

    JSON nested deeper than ``max_depth`` raises ``ValueError``, like malformed JSON, instead
    of the ``RecursionError`` that ``json.loads`` (a few thousand levels) or a later walk
    over the value would raise: every caller that treats text that is not JSON as plain
    text then does so for it too, and a hostile tool output cannot stop a fold, a redactor
    or a compactor."""
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise ValueError(f"JSON nests deeper than {max_depth} levels") from exc
    if nesting_exceeds(value, max_depth):
        raise ValueError(f"JSON nests deeper than {max_depth} levels")
    return value


def json_problem(value: Any, *, max_depth: int = MAX_DEPTH) -> str | None:
    """Why ``value`` is not plain JSON that every store and the API accept, or None.

    Refused: values of other types (datetime, bytes, set, custom objects), dict keys that
    are not strings, integers beyond 64 bits, NaN and infinities, strings with lone
    surrogates (not encodable as UTF-8), nesting deeper than ``max_depth``, and circular
    references. The answer names where the problem is (``content[0].text``).
    """
    if is_flat_json(value):
        return None  # flat, ASCII strings only: JSON as it is (the common case, made cheap)
    return _walk(value, "", 0, _Walk(max_depth, set()))


@dataclass
class _Walk:
    max_depth: int
    open: set[int]  # ids of the containers being walked (a circular reference reaches one)


def _str_problem(node: str, where: str) -> str | None:
    try:
        node.encode("utf-8")
    except UnicodeEncodeError:
        return f"{where} is a string with a lone surrogate (not valid UTF-8)"
    return None


def _int_problem(node: int, where: str) -> str | None:
    if abs(node) > MAX_INT:
        return f"{where} is an integer too large for JSON (beyond 64 bits)"
    return None


def _float_problem(node: float, where: str) -> str | None:
    if node != node or node in (float("inf"), float("-inf")):
        return f"{where} is {node!r}, which JSON cannot represent"
    return None


_SCALAR_CHECKS: dict[type, Callable[[Any, str], str | None]] = {
    str: _str_problem, int: _int_problem, float: _float_problem,
}


def _walk(node: Any, path: str, depth: int, walk: _Walk) -> str | None:
    cls = type(node)
    if node is None or cls is bool:
        return None
    check = _SCALAR_CHECKS.get(cls)
    if check is not None:
        return check(node, path or "value")
    if isinstance(node, (Mapping, list, tuple)):
        return _walk_container(node, path, depth, walk)
    if isinstance(node, (int, float, str)):  # subclasses (enums, numpy scalars, ...)
        return _walk(_plain(node), path, depth, walk)
    return (f"{path or 'value'} is a {cls.__name__}, which is not JSON "
            "(convert it to a string, number, list or dict first)")


def _walk_container(node: Any, path: str, depth: int, walk: _Walk) -> str | None:
    if depth >= walk.max_depth:
        return f"{path or 'value'} nests deeper than {walk.max_depth} levels"
    if id(node) in walk.open:
        return f"{path or 'value'} contains a circular reference"
    is_map = isinstance(node, Mapping)
    walk.open.add(id(node))
    try:
        for key, child in node.items() if is_map else enumerate(node):
            if is_map and not isinstance(key, str):
                return (f"{path or 'value'} has a key that is not a string: "
                        f"{key!r} ({type(key).__name__})")
            child_path = (f"{path}.{key}" if path else key) if is_map else f"{path}[{key}]"
            found = _walk(child, child_path, depth + 1, walk)
            if found:
                return found
    finally:
        walk.open.discard(id(node))
    return None


def _plain(value: Any) -> Any:
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base(value)
    return value


#: ``type`` of the placeholder a store puts where it read an entry that is not an item
#: (another writer's junk: not JSON, not a dict). It is kept so positions stay aligned, and
#: never shown to the model.
INVALID_TYPE = "ctxlab.invalid"


def invalid_entry(raw: Any, why: str) -> dict[str, Any]:
    """The placeholder for a stored entry that is not a valid item."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else repr(raw)
    return {"type": INVALID_TYPE, "why": why, "raw": text[:200]}


def item_problem(item: Any) -> str | None:
    """Why a *stored* entry cannot be shown to the model, or None (see :func:`shape_problem`;
    placeholders from :func:`invalid_entry` carry their reason)."""
    if isinstance(item, Mapping) and item.get("type") == INVALID_TYPE:
        return str(item.get("why", "not an item"))
    return shape_problem(item)


def unknown_keys(item: Mapping[str, Any]) -> list[str]:
    """Top-level keys the Responses API would reject for this item's type."""
    allowed = allowed_keys(item_type(item))
    return sorted(k for k in item if k not in allowed)


# ---------------------------------------------------------------------------- copies


_SCALARS = frozenset((str, int, float, bool, type(None)))


def clone(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars), much faster than deepcopy
    (scalar values are taken as they are without a call: most of an item's values)."""
    cls = type(value)
    if cls is dict:
        return {k: v if type(v) in _SCALARS else clone(v) for k, v in value.items()}
    if cls is list or cls is tuple:
        return [v if type(v) in _SCALARS else clone(v) for v in value]
    if cls in _SCALARS:
        return value
    if isinstance(value, Mapping):
        return {k: clone(v) for k, v in value.items()}
    return value


def model_safe(item: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``item`` with only the keys the Responses schema allows for its type.

    Private metadata (``metadata``, ``synthetic``, an SDK's ``_agents_*`` keys, ...) never
    reaches the model this way.
    """
    allowed = allowed_keys(item_type(item))
    return {k: clone(v) for k, v in item.items() if k in allowed}
