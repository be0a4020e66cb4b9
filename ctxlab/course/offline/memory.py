"""How the offline model reads memory in its view: summaries, state and recalled turns.

A memory strategy puts notes in the view: a summary pair, a structured-state message, a
block of recalled turns. The offline model reads them like any careful reader:

* a value the note marks as no longer current ("earlier: a@x until turn 3", "v1 -> v2",
  "[superseded by ...]") is never taken as current (:mod:`ctxlab.facts.staleness`, applied
  by :func:`ctxlab.facts.typed.facts_in_text` to every item);
* a value the note lists as coming from tools (a ``Firmware (from tools): ...`` bullet,
  ``固件版本（系统查询）：...`` in a Chinese note) counts as tool output, not as something
  said in conversation, so a newer tool result later in the view still wins, as it would
  in the full conversation;
* constraints and commitments are read from the customer's messages, the agent's
  messages and memory notes alike, and only those still in force are reported
  (:func:`ctxlab.facts.statements.current_statements`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...core.items import content_text, item_kind, item_text
from ...core.memory_frame import is_memory_block
from ...facts.cues import LABELS, LABELS_ZH
from ...facts.statements import (
    Statement,
    current_statements,
    find_commitments,
    find_constraints,
    find_done,
)
from ...facts.typed import Found
from ...summarizers.base import SUMMARY_SHADOW_PROMPT
from ...summarizers.doubts import marked_uncertain

_FROM_TOOLS = (f"({LABELS['from_tools']})", f"（{LABELS_ZH['from_tools']}）")
_PREFIX = re.compile(r"^(?:\w+\s+)?\((?:turn|t)\s*\d+\):\s*"
                     r"|^[^\s（(：:]{0,8}[（(]第\s*\d+\s*轮[）)][:：]\s*"
                     r"|^第\s*\d+\s*轮[:：]\s*", re.IGNORECASE)


def memory_indices(items: Sequence[Mapping[str, Any]]) -> set[int]:
    """Indices of memory notes: the summary (the assistant message after the summary
    request), memory blocks (state, recalled turns, long-term memory: quoted as user
    messages under the memory heading) and developer or system messages (preamble notes)."""
    found: set[int] = set()
    for index, item in enumerate(items):
        kind = item_kind(item)
        summary = (kind == "assistant" and index > 0 and item_kind(items[index - 1]) == "user"
                   and content_text(items[index - 1].get("content")) == SUMMARY_SHADOW_PROMPT)
        if summary or kind in ("developer", "system") or is_memory_block(item):
            found.add(index)
    return found


def classify(items: Sequence[Mapping[str, Any]],
             facts: Mapping[str, list[Found]]) -> dict[str, list[Found]]:
    """``facts`` with values a memory note lists as coming from tools marked as tool output."""
    notes = memory_indices(items)
    if not notes:
        return dict(facts)
    texts: dict[int, str] = {}
    out: dict[str, list[Found]] = {}
    for kind, found in facts.items():
        marked = []
        for fact in found:
            if fact.index in notes:
                text = texts.setdefault(fact.index, item_text(items[fact.index]))
                line_start = text.rfind("\n", 0, fact.start) + 1
                head = re.split(r"[:：]", text[line_start:fact.start], maxsplit=1)[0]
                if any(label in head for label in _FROM_TOOLS):
                    fact = replace(fact, source="tool_output")
            marked.append(fact)
        out[kind] = marked
    return out


def doubtful(items: Sequence[Mapping[str, Any]], facts: Mapping[str, list[Found]]) -> set[str]:
    """Values a memory note in view marks as uncertain (``TCK-48123 [uncertain]``): the
    model asks the customer to confirm them instead of using them."""
    notes = memory_indices(items)
    texts: dict[int, str] = {}
    out: set[str] = set()
    for found in facts.values():
        for fact in found:
            if fact.index in notes:
                text = texts.setdefault(fact.index, item_text(items[fact.index]))
                if marked_uncertain(text, fact.start + len(fact.value)):
                    out.add(fact.value)
    return out


def statements_in_view(items: Sequence[Mapping[str, Any]], *,
                       see: Callable[[int, int, str], bool] | None = None,
                       ) -> tuple[list[Statement], list[Statement]]:
    """The constraints and the commitments still in force in a view, oldest first.

    ``see(index, start, text)`` says whether the reader finds a statement said at
    character ``start`` of item ``index`` (None: it finds every one)."""
    notes = memory_indices(items)
    said: list[Statement] = []
    for index, item in enumerate(items):
        kind = item_kind(item)
        if kind not in ("user", "assistant", "developer", "system"):
            continue
        text = item_text(item)
        found: list[Statement] = []
        if kind == "user" or index in notes:
            found += find_constraints(text)
        if kind == "assistant" or index in notes:
            found += sorted(find_commitments(text) + find_done(text), key=lambda s: s.start)
        if see is not None:
            found = [s for s in found if see(index, s.start, s.text)]
        said += found
    current = current_statements(said)
    constraints = [s for s in current if s.kind == "constraint"]
    commitments = [s for s in current if s.kind == "commitment"]
    return constraints, commitments


def plain(statement: Statement) -> str:
    """A statement's sentence without a memory note's "topic (turn N):" prefix."""
    return _PREFIX.sub("", statement.text)
