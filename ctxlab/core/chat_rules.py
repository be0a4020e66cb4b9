"""Which items the Agents SDK's Chat Completions converter accepts.

``OpenAIChatCompletionsModel`` (what every ``OPENAI_BASE_URL`` server is reached through)
turns Responses items into Chat Completions messages with
``agents.models.chatcmpl_converter.Converter.items_to_messages``, and raises
``UserError: Unhandled item type or structure`` for an item it cannot read. Its rules for
messages (SDK 0.24):

* an *easy* message has only the keys ``role``, ``content`` and optionally ``type``
  (``"message"``) and ``phase``; its content is a string or a list of *input* parts
  (``input_text``, ``input_image``, ...): an ``output_text`` part there is "Unknown content";
* a typed ``user`` / ``system`` / ``developer`` message (``"type": "message"``) is read
  whatever other keys it has;
* a typed ``assistant`` message with other keys is read only when it has an ``id``
  (the form the SDK's own model output has), and its content must be a list of
  ``output_text`` / ``refusal`` parts.

An item that breaks these is rejected by the Responses API's input types as well, so
:func:`message_form_problem` is a rule for both model classes. The converter also rejects
item types only the Responses API has (hosted tool calls, custom tools, computer use,
references, compaction): :func:`chat_unsupported` names them, for sequences headed to a
Chat Completions server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .items import item_type
from .schema import allowed_keys

#: The keys of the "easy" message form (``EasyInputMessageParam``).
EASY_MESSAGE_KEYS: frozenset[str] = frozenset({"role", "content", "type", "phase"})

#: Content part types an assistant message with an ``id`` may hold.
OUTPUT_PART_TYPES: frozenset[str] = frozenset({"output_text", "refusal"})

#: Item types the Chat Completions converter turns into messages (besides messages).
CHAT_ITEM_TYPES: frozenset[str] = frozenset(
    {"message", "function_call", "function_call_output", "file_search_call", "reasoning"}
)

_PLAIN = "{'role': 'assistant', 'content': text}"


def _part_types(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    return [str(p.get("type")) for p in content if isinstance(p, Mapping)]


def message_form_problem(item: Mapping[str, Any]) -> str | None:
    """Why the Chat Completions converter would reject this message, or None.

    Only keys of the Responses schema count (private metadata is judged elsewhere), and
    items that are not messages give None. Assumes the item is well formed
    (:func:`ctxlab.core.items.shape_problem`).
    """
    if item_type(item) != "message":
        return None
    allowed = allowed_keys("message")
    keys = {k for k in item if k in allowed}
    role = item.get("role")
    content = item.get("content")
    typed = item.get("type") == "message"
    easy = keys <= EASY_MESSAGE_KEYS
    extra = sorted(keys - EASY_MESSAGE_KEYS)
    if role != "assistant":
        if easy or typed:
            return None
        return (f"untyped {role} message with key(s) {', '.join(map(repr, extra))}: the Chat "
                "Completions converter reads an untyped message only with role and content; "
                "add 'type': 'message' or drop them")
    parts = _part_types(content)
    if typed and "id" in keys:
        if not isinstance(content, list):
            return ("assistant message with an 'id' needs its content as a list of "
                    f"output_text parts, not a string (or send {_PLAIN})")
        odd = sorted(set(parts) - OUTPUT_PART_TYPES)
        if odd:
            return (f"assistant message with an 'id' has content part(s) of type "
                    f"{', '.join(map(repr, odd))}; only output_text and refusal are allowed")
        return None
    if typed and not easy:
        return ("typed assistant message without an 'id': OpenAIChatCompletionsModel's "
                "converter rejects it ('Unhandled item type or structure'); send "
                f"{_PLAIN} or add the id")
    if not easy:
        return (f"untyped assistant message with key(s) {', '.join(map(repr, extra))}: the "
                f"Chat Completions converter cannot read it; send {_PLAIN}")
    output_parts = sorted(set(parts) & OUTPUT_PART_TYPES)
    if output_parts:
        return (f"assistant message with {', '.join(map(repr, output_parts))} part(s) but "
                "no 'id': those parts need the typed form with an id; send "
                f"{_PLAIN}")
    return None


def plain_assistant(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """The plain form ``{"role": "assistant", "content": text}`` of an assistant message
    that both SDK model classes would reject only for lacking an ``id`` (a typed message, or
    output_text / refusal parts, without one); None for every other message, including
    those that are fine as they are."""
    if item_type(item) != "message" or item.get("role") != "assistant" or "id" in item:
        return None
    content = item.get("content")
    if message_form_problem(item) is None or not isinstance(content, list):
        return None
    texts = []
    for part in content:
        if not isinstance(part, Mapping) or part.get("type") not in OUTPUT_PART_TYPES:
            return None
        text = part.get("text") if part.get("type") == "output_text" else part.get("refusal")
        if not isinstance(text, str):
            return None
        texts.append(text)
    extra = set(item) - EASY_MESSAGE_KEYS - {"status"}
    if extra:  # other keys (metadata, ...) would be lost: leave the decision to the caller
        return None
    return {"role": "assistant", "content": "\n".join(texts)}


def chat_unsupported(item: Mapping[str, Any]) -> str | None:
    """Why the Chat Completions converter cannot send this item type at all, or None."""
    kind = item_type(item)
    if kind in CHAT_ITEM_TYPES:
        return None
    return (f"{kind} items exist only in the Responses API; OpenAIChatCompletionsModel "
            "cannot send them to a Chat Completions server")
