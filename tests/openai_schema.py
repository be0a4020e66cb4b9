"""Check request bodies against the ``openai`` package's own request types.

``ResponseCreateParams`` (Responses) and ``CompletionCreateParams`` (Chat Completions) are
``TypedDict``s; pydantic validates them, with every ``TypedDict`` closed (unknown keys are
errors, as the API answers 400 for them). A failure names the endpoint and the first
message or input item that does not fit, so a broken request reads like the API's 400.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter
from pydantic_core import SchemaValidator, ValidationError


class RequestSchemaError(AssertionError):
    """A request body that the API's own types reject."""


def _closed(tp: Any) -> SchemaValidator:
    """A validator for ``tp`` in which every TypedDict forbids keys it does not declare and
    every ``Iterable[...]`` is checked item by item (pydantic validates an iterable lazily,
    that is, not at all until it is consumed; the request types use them for messages,
    tools and content parts)."""
    schema = copy.deepcopy(TypeAdapter(tp).core_schema)

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "typed-dict":
                node["extra_behavior"] = "forbid"
            if node.get("type") == "generator":
                node["type"] = "list"
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return SchemaValidator(schema)


@cache
def _validators() -> dict[str, SchemaValidator]:
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.chat import completion_create_params as chat
    from openai.types.responses import ResponseInputItemParam
    from openai.types.responses import response_create_params as responses

    return {
        "responses": _closed(responses.ResponseCreateParamsNonStreaming),
        "responses-stream": _closed(responses.ResponseCreateParamsStreaming),
        "responses-item": _closed(ResponseInputItemParam),
        "chat": _closed(chat.CompletionCreateParamsNonStreaming),
        "chat-stream": _closed(chat.CompletionCreateParamsStreaming),
        "chat-message": _closed(ChatCompletionMessageParam),
    }


def _short(value: Any, width: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _errors(exc: ValidationError, limit: int = 3) -> str:
    errors = exc.errors()
    # The deepest locations say most (a union reports one branch per member).
    errors.sort(key=lambda e: -len(e["loc"]))
    lines = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors[:limit]]
    return "; ".join(lines)


def _first_bad_entry(entries: Any, kind: str, label: str) -> str | None:
    if not isinstance(entries, list):
        return None
    validator = _validators()[kind]
    for index, entry in enumerate(entries):
        try:
            validator.validate_python(entry)
        except ValidationError as exc:
            return f"{label}[{index}] {_short(entry)} fits no {kind} type ({_errors(exc)})"
    return None


def request_problem(endpoint: str, body: Mapping[str, Any]) -> str | None:
    """Why the API's request types reject ``body`` for ``endpoint``, or None.

    ``endpoint`` is ``"responses"`` or ``"chat"``; streaming bodies (``"stream": true``) are
    checked against the streaming variant.
    """
    if endpoint not in ("responses", "chat"):
        raise ValueError(f"endpoint must be 'responses' or 'chat', got {endpoint!r}")
    if not isinstance(body, Mapping):
        return f"{endpoint} body is not a JSON object: {_short(body)}"
    kind = endpoint + ("-stream" if body.get("stream") else "")
    try:
        _validators()[kind].validate_python(dict(body))
    except ValidationError as exc:
        if endpoint == "responses":
            bad = _first_bad_entry(body.get("input"), "responses-item", "input")
        else:
            bad = _first_bad_entry(body.get("messages"), "chat-message", "messages")
        return f"{endpoint} request rejected: {bad or _errors(exc)}"
    return None


def check_request(endpoint: str, body: Mapping[str, Any]) -> None:
    """Raise :class:`RequestSchemaError` when :func:`request_problem` finds something."""
    problem = request_problem(endpoint, body)
    if problem is not None:
        raise RequestSchemaError(problem)
