"""Role-aware trimming: an older turn keeps its user input, loses bulk elsewhere.

What a user said is the intent the conversation serves, so it is kept word for word. What
the assistant said can be shortened (its first sentences carry most of it), tool outputs
become structured previews (:func:`ctxlab.context.compaction.compact_tool_output`: key fields and
identifiers), and reasoning items go (the API would reject an assistant message whose
reasoning item was removed while it still carries its ``id``, so model-emitted items that
followed a removed reasoning item lose their ``id`` too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..core.items import content_text, is_output, item_text, item_type
from ..core.schema import ItemSchema, item_schemas
from .compaction import COMPACTED_MARK, compact_tool_output, tool_names
from .counting import RequestCounter

#: What a shortened assistant reply ends with.
SHORTENED_MARK = " … [shortened]"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@lru_cache(maxsize=2048)
def _preview(text: str, tool: str) -> str:
    return compact_tool_output(text, tool=tool)


def shorten_text(text: str, max_tokens: int, counter: RequestCounter) -> str:
    """``text`` cut at a sentence (or word) boundary so that it fits ``max_tokens``."""
    if counter.text(text) <= max_tokens:
        return text
    key = (text, max_tokens)
    cached = counter.memo.get(key)
    if cached is None:
        cached = _shorten(text, max_tokens, counter)
        counter.remember(key, cached)
    return cached


def _shorten(text: str, max_tokens: int, counter: RequestCounter) -> str:
    budget = max(1, max_tokens - counter.text(SHORTENED_MARK))
    kept = ""
    for sentence in _SENTENCE_END.split(text):
        candidate = f"{kept} {sentence}".strip() if kept else sentence
        if counter.text(candidate) > budget:
            break
        kept = candidate
    if not kept:  # the first sentence alone is too long: cut by words
        words = text.split()
        lo, hi = 0, len(words)
        while lo < hi:  # the most words that fit
            mid = (lo + hi + 1) // 2
            if counter.text(" ".join(words[:mid])) <= budget:
                lo = mid
            else:
                hi = mid - 1
        kept = " ".join(words[:lo])
    return kept + SHORTENED_MARK


def shorten_assistant(
    item: Mapping[str, Any], max_tokens: int, counter: RequestCounter
) -> dict[str, Any]:
    """An assistant message whose text fits ``max_tokens`` (a new plain-text item, without
    the original's ``id``: the form both SDK model classes accept)."""
    text = content_text(item.get("content"))
    short = shorten_text(text, max_tokens, counter)
    if short == text:
        return dict(item)
    return {"role": "assistant", "content": short}


_NO_SCHEMA = ItemSchema("", frozenset(), frozenset())


def shrink_turn(
    turn: Sequence[Mapping[str, Any]],
    counter: RequestCounter,
    *,
    assistant_max_tokens: int = 60,
    names: Mapping[str, str] | None = None,
) -> list[Mapping[str, Any]]:
    """One older turn, role-aware: user messages kept, assistant replies shortened, tool
    outputs as previews, reasoning removed (with the ids of the items it preceded; a hosted
    call that needs its id is left out). The result is a valid sequence if ``turn`` is."""
    names = dict(names or tool_names(turn))
    out: list[Mapping[str, Any]] = []
    after_reasoning = False  # the item before was reasoning that is now removed
    for item in turn:
        type_ = item_type(item)
        if type_ == "reasoning":
            after_reasoning = True
            continue
        new = _shrunk(item, type_, after_reasoning, counter, assistant_max_tokens, names)
        if new is not None:
            out.append(new)
        if type_ == "message" or is_output(item):
            after_reasoning = False
    return out


def _shrunk(item: Mapping[str, Any], type_: str, after_reasoning: bool,
            counter: RequestCounter, assistant_max_tokens: int,
            names: Mapping[str, str]) -> Mapping[str, Any] | None:
    """The shortened form of one item of an older turn (None: left out)."""
    if type_ == "message" and item.get("role") == "assistant":
        new = shorten_assistant(item, assistant_max_tokens, counter)
        if after_reasoning and "id" in new:
            # Its reasoning is gone, so its id must go too; without an id only the
            # plain-text form is accepted by both SDK model classes.
            new = {"role": "assistant", "content": content_text(item.get("content"))}
        return new
    if is_output(item) and type_ in ("function_call_output", "custom_tool_call_output"):
        text = item_text(item)
        if text.startswith(COMPACTED_MARK) or counter.text(text) <= assistant_max_tokens:
            return item
        preview = _preview(text, names.get(str(item.get("call_id")), "tool"))
        return {**item, "output": preview} if len(preview) < len(text) else item
    if after_reasoning and "id" in item and type_ != "message":
        # Its reasoning is gone, so its id (which points at that reasoning) must go too.
        # Types that cannot exist without an id (hosted calls such as web_search_call)
        # are dropped from the shortened turn instead.
        if "id" in item_schemas().get(type_, _NO_SCHEMA).required:
            return None
        return {k: v for k, v in item.items() if k != "id"}
    return item
