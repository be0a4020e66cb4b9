"""Which part of a model call each input item is: instructions, tools, structured state,
summary, recent turns, tool outputs, retrieved memory or the new input, with their tokens.

The model input is matched, in order, against the session's view (the items ``get_items``
returns and their ledger entries): a matched item takes its entry's section (see
:func:`ctxlab.core.sections.entry_section`); the newest user message and the items after
it that the session does not hold yet (this run's tool calls) count as ``new_input``;
earlier items the view no longer holds (read before this run's input moved a window)
count as ``recent_turns``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.digest import canonical_json
from ..core.items import is_user_message, model_safe
from ..core.ledger import LedgerEntry
from ..core.sections import SECTIONS, entry_section
from ..core.tokens import ITEM_OVERHEAD_TOKENS, TokenCounter, tool_schema_text

#: The sections of a debug record, in order: the budget sections plus the tool schemas.
RECORD_SECTIONS: tuple[str, ...] = ("instructions", "tools", *SECTIONS[1:])


def match_view(
    items: Sequence[Mapping[str, Any]],
    view: Sequence[Mapping[str, Any]],
) -> list[int | None]:
    """For each input item, the position of the same item in ``view`` (in order), or None."""
    keys = [canonical_json(v) for v in view]
    out: list[int | None] = []
    pointer = 0
    for item in items:
        key = canonical_json(model_safe(item))
        found = None
        for j in range(pointer, len(keys)):
            if keys[j] == key:
                found = j
                break
        out.append(found)
        if found is not None:
            pointer = found + 1
    return out


def input_sections(
    items: Sequence[Mapping[str, Any]],
    view: Sequence[Mapping[str, Any]],
    entries: Sequence[LedgerEntry],
    counter: TokenCounter,
    *,
    instructions: str | None = None,
    tools: Iterable[Any] = (),
) -> tuple[dict[str, int], list[str]]:
    """Tokens per section (every key of :data:`RECORD_SECTIONS`) and each item's section."""
    sections = dict.fromkeys(RECORD_SECTIONS, 0)
    if instructions:
        sections["instructions"] = counter.count(instructions) + ITEM_OVERHEAD_TOKENS
    sections["tools"] = sum(counter.count(tool_schema_text(t)) for t in tools)
    matches = match_view(items, view)
    newest_user = max((i for i, it in enumerate(items) if is_user_message(it)), default=None)
    labels: list[str] = []
    for i, (item, pos) in enumerate(zip(items, matches, strict=True)):
        if i == newest_user or (pos is None and newest_user is not None and i > newest_user):
            label = "new_input"  # the new message, and this run's items not stored yet
        elif pos is None:
            # history the Runner read before this run's input was stored (a trimming window
            # may have moved on since), or an item a filter inserted before the new input
            label = "recent_turns"
        else:
            label = entry_section(entries[pos])
        labels.append(label)
        sections[label] += counter.count_item(item)
    return sections, labels
