"""Chat Completions messages -> Responses items (:func:`chat_to_responses`), and logs of
your own read from JSON or JSONL (:func:`load_conversation_file`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.items import shape_problem

# ---------------------------------------------------------------------------- Chat -> Responses

_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")


def chat_to_responses(
    messages: Sequence[Mapping[str, Any]], *, keep_system: bool = False
) -> list[dict[str, Any]]:
    """Convert OpenAI Chat Completions messages to Responses input items.

    The items have the shapes the Agents SDK stores in a session:

    * user -> ``{"role": "user", "content": text}`` (a list of parts stays a list, as
      ``input_text`` / ``input_image`` / ``input_file`` parts);
    * assistant text -> ``{"role": "assistant", "content": text}`` (text parts joined by
      newlines; a refusal keeps its text), the form both SDK model classes accept without
      an item id; an assistant message with neither text nor tool calls produces no item;
    * each assistant tool call -> ``{"type": "function_call", "call_id", "name",
      "arguments"}``, after the assistant's text message when it has both;
    * tool -> ``{"type": "function_call_output", "call_id", "output"}`` (list content is
      joined into one string, None becomes ``""``);
    * system and developer -> dropped (the SDK passes instructions separately and never
      stores them), or kept as ``{"role": ..., "content": text}`` with ``keep_system=True``.

    Call ids are made unique across the conversation, because the Runner de-duplicates items
    by call id: when a transcript issues an id that it already used, that call and the tool
    message answering it get ``<id>__2`` (then ``__3``, ...; skipping any id the transcript
    itself uses). The first use keeps its id, so the renaming is deterministic. A tool message
    answers the oldest unanswered call with its id; a call that no tool message answers is
    left as it is (:func:`ctxlab.core.validate.repair` shows what the API would reject).

    Raises:
        ValueError: naming the message index and the problem, if ``messages`` is not a list,
            a message is not a dict, has no or an unknown role, a tool message answers a call
            id that no earlier assistant message issued, tool call arguments are not a
            string, or content has a shape Chat Completions does not allow.
    """
    return _chat_to_items(messages, keep_system=keep_system, where=lambda i: f"message {i}")


def _chat_to_items(
    messages: Any, *, keep_system: bool, where: Callable[[int], str]
) -> list[dict[str, Any]]:
    if not isinstance(messages, (list, tuple)):
        raise ValueError(
            f"expected a list of Chat Completions messages, got {type(messages).__name__}"
        )
    converter = _Converter(messages, keep_system)
    for index, message in enumerate(messages):
        at = where(index)
        role = _role_of(message, at)
        converter.add[role](message, at)
    return converter.items


def _role_of(message: Any, at: str) -> str:
    """The message's role, once it is known to be a dict with a role we convert."""
    if not isinstance(message, Mapping):
        raise ValueError(f"{at}: expected a dict, got {type(message).__name__}")
    if "role" not in message:
        raise ValueError(f"{at}: has no 'role'")
    role = message["role"]
    if role not in _CHAT_ROLES:
        hint = (
            " (the legacy 'function' role is not supported; use tool calls)"
            if role == "function"
            else ""
        )
        raise ValueError(
            f"{at}: unknown role {role!r}; expected one of {list(_CHAT_ROLES)}{hint}"
        )
    return role


class _Converter:
    """Converts one conversation's messages in order, keeping call ids unique and pairing
    each tool message with the oldest unanswered call of its id."""

    def __init__(self, messages: Sequence[Any], keep_system: bool) -> None:
        self.keep_system = keep_system
        self.all_ids = {
            call.get("id")
            for m in messages
            if isinstance(m, Mapping) and isinstance(m.get("tool_calls"), list)
            for call in m["tool_calls"]
            if isinstance(call, Mapping)
        }
        self.issued: dict[str, int] = {}  # original id -> times issued
        self.used: set[str] = set()  # ids already given out in the result
        self.waiting: dict[str, list[str]] = {}  # original id -> new ids waiting for an output
        self.items: list[dict[str, Any]] = []
        self.add: dict[str, Callable[[Mapping[str, Any], str], None]] = {
            "system": self.system, "developer": self.system, "user": self.user,
            "assistant": self.assistant, "tool": self.tool,
        }

    def system(self, message: Mapping[str, Any], at: str) -> None:
        if self.keep_system:
            self.items.append(
                {"role": message["role"], "content": _plain_text(message.get("content"), at)}
            )

    def user(self, message: Mapping[str, Any], at: str) -> None:
        self.items.append({"role": "user", "content": _user_content(message.get("content"), at)})

    def assistant(self, message: Mapping[str, Any], at: str) -> None:
        if "function_call" in message and message["function_call"] is not None:
            raise ValueError(
                f"{at}: the legacy 'function_call' field is not supported; use 'tool_calls'"
            )
        parts = _assistant_parts(message.get("content"), message.get("refusal"), at)
        if parts:
            # Plain text (a refusal is kept as its text): the form both the Responses
            # API and the SDK's Chat Completions converter accept without an item id.
            text = "\n".join(p.get("text") or p.get("refusal") or "" for p in parts)
            self.items.append({"role": "assistant", "content": text})
        for call in _tool_calls(message, at):
            self.items.append(
                {
                    "type": "function_call",
                    "call_id": self._new_id(call["id"]),
                    "name": call["name"],
                    "arguments": call["arguments"],
                }
            )

    def _new_id(self, original: str) -> str:
        """The call's id in the result: the original the first time, then ``id__2``, ...
        skipping ids the conversation or the result already use."""
        count = self.issued.get(original, 0) + 1
        self.issued[original] = count
        new_id = original
        if count > 1:
            suffix = count
            new_id = f"{original}__{suffix}"
            while new_id in self.all_ids or new_id in self.used:
                suffix += 1
                new_id = f"{original}__{suffix}"
        self.used.add(new_id)
        self.waiting.setdefault(original, []).append(new_id)
        return new_id

    def tool(self, message: Mapping[str, Any], at: str) -> None:
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(f"{at}: tool message has no 'tool_call_id' string")
        pending = self.waiting.get(call_id)
        if not pending:
            if call_id in self.issued:
                raise ValueError(
                    f"{at}: tool message answers call id {call_id!r}, whose call was "
                    "already answered"
                )
            raise ValueError(
                f"{at}: tool message answers call id {call_id!r}, which no earlier "
                "assistant message issued"
            )
        self.items.append(
            {
                "type": "function_call_output",
                "call_id": pending.pop(0),
                "output": _plain_text(message.get("content"), at),
            }
        )


def _plain_text(content: Any, at: str) -> str:
    """Content as one string: text parts joined by newlines, None as ``""``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for n, part in enumerate(content):
            if not isinstance(part, Mapping) or part.get("type") != "text":
                raise ValueError(
                    f"{at}: content part {n} must be a text part here, got {part!r:.80}"
                )
            texts.append(_text_of(part, n, at))
        return "\n".join(texts)
    raise ValueError(
        f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
    )


def _text_of(part: Mapping[str, Any], n: int, at: str) -> str:
    text = part.get("text")
    if not isinstance(text, str):
        raise ValueError(f"{at}: content part {n} has no 'text' string")
    return text


def _user_content(content: Any, at: str) -> str | list[dict[str, Any]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ValueError(
            f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
        )
    parts: list[dict[str, Any]] = []
    for n, part in enumerate(content):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text":
            parts.append({"type": "input_text", "text": _text_of(part, n, at)})
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else image
            if not isinstance(url, str):
                raise ValueError(f"{at}: content part {n} (image_url) has no 'url' string")
            detail = image.get("detail", "auto") if isinstance(image, Mapping) else "auto"
            parts.append({"type": "input_image", "image_url": url, "detail": detail})
        elif kind == "file":
            spec = part.get("file")
            if not isinstance(spec, Mapping):
                raise ValueError(f"{at}: content part {n} (file) has no 'file' object")
            file_part: dict[str, Any] = {"type": "input_file"}
            for key in ("file_id", "file_data", "filename"):
                if key in spec:
                    file_part[key] = spec[key]
            parts.append(file_part)
        else:
            raise ValueError(
                f"{at}: content part {n} has unsupported type {kind!r} "
                "(expected 'text', 'image_url' or 'file')"
            )
    return parts


def _assistant_parts(content: Any, refusal: Any, at: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        if content:
            parts.append({"type": "output_text", "text": content, "annotations": []})
    elif isinstance(content, list):
        for n, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind == "text":
                text = _text_of(part, n, at)
                if text:
                    parts.append({"type": "output_text", "text": text, "annotations": []})
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                parts.append({"type": "refusal", "refusal": part["refusal"]})
            else:
                raise ValueError(
                    f"{at}: assistant content part {n} has unsupported type {kind!r} "
                    "(expected 'text' or 'refusal')"
                )
    elif content is not None:
        raise ValueError(
            f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
        )
    if isinstance(refusal, str) and refusal:
        parts.append({"type": "refusal", "refusal": refusal})
    return parts


def _tool_calls(message: Mapping[str, Any], at: str) -> list[dict[str, str]]:
    raw = message.get("tool_calls")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError(f"{at}: 'tool_calls' must be a list, got {type(raw).__name__}")
    calls: list[dict[str, str]] = []
    for n, call in enumerate(raw):
        if not isinstance(call, Mapping):
            raise ValueError(f"{at}: tool call {n} is not a dict")
        if call.get("type", "function") != "function":
            raise ValueError(
                f"{at}: tool call {n} has type {call.get('type')!r}; only 'function' is supported"
            )
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(f"{at}: tool call {n} has no 'id' string")
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ValueError(f"{at}: tool call {n} has no 'function' with a 'name' string")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            raise ValueError(
                f"{at}: tool call {n} ({function['name']!r}) has arguments of type "
                f"{type(arguments).__name__}; they must be a JSON string"
            )
        calls.append({"id": call_id, "name": function["name"], "arguments": arguments})
    return calls



# ---------------------------------------------------------------------------- user logs

_CHAT_ONLY_KEYS = ("tool_calls", "tool_call_id", "refusal", "function_call")
_CHAT_PART_TYPES = ("text", "image_url", "file")



def _looks_like_chat(record: Mapping[str, Any]) -> bool:
    if "type" in record:
        return False
    if record.get("role") in ("tool", "function") or record.get("content", "") is None:
        return True
    if any(key in record for key in _CHAT_ONLY_KEYS):
        return True
    content = record.get("content")
    return isinstance(content, list) and any(
        isinstance(p, Mapping) and p.get("type") in _CHAT_PART_TYPES for p in content
    )


def load_conversation_file(
    path: str | os.PathLike[str], *, keep_system: bool = False
) -> list[dict[str, Any]]:
    """Read a conversation log of your own as Responses items.

    Accepted formats (detected from the content):

    * a JSON list (the file starts with ``[``) or JSONL (one JSON object per line, blank
      lines ignored);
    * holding either Responses input items (as a session stores them) or OpenAI Chat
      Completions messages. A file is read as Chat Completions when some record has a
      Chat-only feature (role ``tool``, ``tool_calls``, ``tool_call_id``, ``None`` content,
      ``text``/``image_url`` content parts) and no record has a ``type``; it is converted
      with :func:`chat_to_responses`. Plain ``{"role", "content"}`` records are valid in
      both and are kept as they are.

    ``keep_system`` keeps the system and developer messages of a Chat Completions log; by
    default they are dropped, as in :func:`chat_to_responses` (the SDK passes instructions
    separately and never stores them). Responses items are always kept as they are.

    Raises:
        ValueError: naming the line (JSONL) or the index (JSON list) of the first record that
            is not valid JSON, not a dict, mixes the two formats, or is not a well-formed
            item (:func:`ctxlab.core.items.shape_problem`).
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    name = os.fspath(path)
    records: list[Any]
    lines: list[int] | None = None  # the line of each record, for JSONL
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
            ) from exc
    else:
        records, lines = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                hint = " (a JSON file must hold a list)" if number == 1 else ""
                raise ValueError(f"{name}: line {number}: not valid JSON: {exc.msg}{hint}") from exc
            lines.append(number)

    def label(index: int, noun: str = "item") -> str:
        return f"{name}: line {lines[index]}" if lines is not None else f"{name}: {noun} {index}"

    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise ValueError(f"{label(index)}: expected a JSON object, got {type(record).__name__}")
    chat = [i for i, r in enumerate(records) if _looks_like_chat(r)]
    typed = [i for i, r in enumerate(records) if "type" in r]
    if chat and typed:
        raise ValueError(
            f"{label(typed[0])}: a Responses item (it has a 'type'), but {label(chat[0])} is "
            "a Chat Completions message; use one format per file"
        )
    if chat:
        return _chat_to_items(records, keep_system=keep_system, where=lambda i: label(i, "message"))
    items: list[dict[str, Any]] = []
    for index, record in enumerate(records):
        problem = shape_problem(record)
        if problem is not None:
            raise ValueError(f"{label(index)}: {problem}")
        items.append(dict(record))
    return items
