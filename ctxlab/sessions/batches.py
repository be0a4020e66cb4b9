"""Checking a batch before it is stored: all or nothing, with the index of the bad item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.chat_rules import EASY_MESSAGE_KEYS, message_form_problem, plain_assistant
from ..core.items import (
    MESSAGE_ROLES,
    clone,
    is_call,
    is_flat_json,
    json_problem,
    pair_key,
    shape_problem,
)
from ..core.redaction import ItemRedactor

_PAIR_TYPES = frozenset({"function_call", "function_call_output"})


def runner_form(item: Any) -> bool:
    """True for the plain forms the Runner stores, known valid in a few lookups (what
    :func:`check_batch` would accept unchanged, copied by one ``dict()``): an easy message
    (``role``, string ``content``, optional ``type``/``phase``), a function call with string
    ``name``/``arguments``, or its output with a string ``output``, every value plain ASCII
    JSON. False means "look closer" (the full checks decide), never "invalid"."""
    if type(item) is not dict:
        return False
    kind = item.get("type")
    if kind is None or kind == "message":
        if (item.get("role") not in MESSAGE_ROLES or type(item.get("content")) is not str
                or not EASY_MESSAGE_KEYS.issuperset(item)):
            return False
    elif kind in _PAIR_TYPES:
        call_id = item.get("call_id")
        if type(call_id) is not str or not call_id:
            return False
        if kind == "function_call":
            if type(item.get("name")) is not str or type(item.get("arguments")) is not str:
                return False
        elif type(item.get("output")) is not str:
            return False
    else:
        return False
    return is_flat_json(item)


def check_batch(items: Any) -> list[dict[str, Any]]:
    """Validate a batch for ``add_items`` and return deep copies; raise on the first bad item.

    The error names the index and the problem, and because nothing is stored before the
    whole batch passed, a failed call leaves the session exactly as it was. An assistant
    message that only lacks an ``id`` (typed, with output_text parts: the Chat Completions
    converter rejects it) is stored in its plain form ``{"role": "assistant", "content":
    text}``; any other message form the SDK's model classes reject is refused.
    """
    if type(items) is not list and (isinstance(items, (str, bytes))
                                    or not isinstance(items, Sequence)):
        if isinstance(items, dict):
            raise ValueError(
                "add_items expects a list of items, got a single dict; wrap it in a list"
            )
        raise ValueError(f"add_items expects a list of items, got {type(items).__name__}")
    copies: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        if runner_form(item):  # the common case: shape and form known fine, copied whole
            copies.append(dict(item))
            continue
        problem = shape_problem(item)
        if problem is None and message_form_problem(item) is not None:
            plain = plain_assistant(item)  # a typed assistant message without an id: its
            if plain is not None:  # plain form, which both SDK model classes accept
                copies.append(plain)
                continue
            problem = message_form_problem(item)  # any other form they reject: refused
        if problem is None:
            if is_flat_json(item):  # the common case: plain JSON, copied whole
                copies.append(dict(item))
                continue
            problem = json_problem(item)
        if problem is not None:
            hint = ""
            if hasattr(item, "model_dump"):
                hint = " (convert it with .model_dump(exclude_unset=True) first)"
            raise ValueError(
                f"add_items: item {index} of {len(items)} is invalid: {problem}{hint}. "
                "Nothing from this batch was stored."
            )
        copies.append(clone(item))
    return copies


def redact_batch(redactor: ItemRedactor, batch: list[dict[str, Any]],
                 recent: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``batch`` through ``redactor``, told the tool name of each output's call (looked up
    in the batch and the ``recent`` stored items)."""
    names: dict[str, str] = {}
    wanted = {k[1] for k in map(pair_key, batch) if k is not None}
    for item in (*recent, *batch):
        key = pair_key(item)
        if key is not None and key[1] in wanted and is_call(item):
            names[key[1]] = str(item.get("name", ""))
    return redactor.redact_items(batch, names)


def check_redacted(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``batch`` as a redactor returned it, refused whole if it made an item invalid."""
    for index, item in enumerate(batch):
        problem = shape_problem(item)
        if problem is not None:
            raise ValueError(f"add_items: the redactor turned item {index} of {len(batch)} "
                             f"into an invalid item: {problem}. Nothing from this batch was "
                             "stored.")
    return batch
