"""Turn conversation items into searchable snippets, and recalled turns back into text.

An evicted turn is indexed item by item, so a short message that names a ticket is not
drowned by a long tool output in the same turn: each user, assistant or developer message is
one snippet, and each tool call is one snippet together with its output (bulky outputs are
indexed through their compact preview, which keeps every identifier). When a snippet
matches, the **whole turn** is shown, rendered as plain text (tool calls as
``tool name(args) -> output``), so no tool pair can be broken.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..context.compaction import compact_tool_output, tool_names
from ..context.counting import RequestCounter
from ..context.roles import shorten_text
from ..core.items import is_call, is_output, item_kind, item_text, item_type, pair_key
from ..core.ledger import DROPPED, SUMMARIZED, LedgerEntry
from .fts import Doc

Item = Mapping[str, Any]

#: Tool outputs longer than this many characters are indexed and shown as their preview.
BULKY_OUTPUT_CHARS = 1200


def _output_text(text: str, tool: str) -> str:
    if len(text) <= BULKY_OUTPUT_CHARS:
        return text
    return compact_tool_output(text, tool=tool)


def turn_lines(items: Sequence[Item]) -> list[tuple[int, str]]:
    """``(position, line)`` for every item worth reading; a call and its output share one
    line, at the output's position (or the call's when it has no output)."""
    names = tool_names(items)
    calls: dict[tuple[str, str], str] = {}
    answered = {pair_key(it) for it in items if is_output(it)}
    lines: list[tuple[int, str]] = []
    for pos, item in enumerate(items):
        kind = item_kind(item)
        if kind in ("user", "assistant", "developer", "system"):
            lines.append((pos, f"{kind}: {item_text(item)}"))
        elif is_call(item):
            key = pair_key(item)
            text = item_text(item)
            if key is not None and key in answered:
                calls[key] = text
            else:
                lines.append((pos, f"tool {text}"))
        elif is_output(item):
            key = pair_key(item)
            tool = names.get(str(item.get("call_id")), item_type(item))
            call = calls.get(key, f"{tool}()") if key else f"{tool}()"
            lines.append((pos, f"tool {call} -> {_output_text(item_text(item), tool)}"))
        elif kind == "hosted_tool":
            lines.append((pos, f"tool {item_text(item)}"))
    return lines


def turn_docs(turn: int, items: Sequence[Item], indices: Sequence[int] | None = None) -> list[Doc]:
    """One :class:`~ctxlab.memory.fts.Doc` per snippet of a turn; keys are
    ``"<turn>:<index>"`` with ``indices`` the items' raw indices (default: positions)."""
    if indices is not None and len(indices) != len(items):
        raise ValueError(f"indices has {len(indices)} entries for {len(items)} items")
    where = list(indices) if indices is not None else list(range(len(items)))
    return [Doc(f"{turn}:{where[pos]}", turn, line) for pos, line in turn_lines(items)]


def render_turn(
    turn: int,
    items: Sequence[Item],
    *,
    score: float | None = None,
    max_tokens: int = 400,
    counter: RequestCounter | None = None,
    lines: Sequence[str] | None = None,
) -> str:
    """A turn as quoted text for the model: a header, then one line per snippet; lines are
    shortened so the block stays within about ``max_tokens`` tokens. ``lines`` may pass
    the turn's :func:`turn_lines` texts when they are already known."""
    counter = counter or RequestCounter()
    head = f"[turn {turn}" + (f", relevance {score:.2f}]" if score is not None else "]")
    body = list(lines) if lines is not None else [line for _, line in turn_lines(items)]
    budget = max(20, max_tokens - counter.text(head))
    if body and sum(counter.text(line) for line in body) > budget:
        share = max(12, budget // len(body))
        body = [shorten_text(line, share, counter) for line in body]
    return "\n".join([head, *body])


def evicted_turns(ledger: Iterable[LedgerEntry]) -> dict[int, list[int]]:
    """Turn number -> raw indices of its stored items the model no longer sees verbatim
    (ledger state ``dropped`` or ``summarized``); preamble and synthetic entries are skipped."""
    turns: dict[int, list[int]] = {}
    for n, entry in enumerate(ledger):
        if not isinstance(entry, LedgerEntry):
            raise ValueError(f"ledger entry {n} is {type(entry).__name__}, not a LedgerEntry")
        if entry.index is None or entry.turn is None:
            continue
        if entry.state in (DROPPED, SUMMARIZED):
            turns.setdefault(entry.turn, []).append(entry.index)
    return turns
