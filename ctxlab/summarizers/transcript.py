"""Render Responses items as a plain transcript for a summarizer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.items import is_call, is_output, item_kind, item_text, pair_key
from .prompt import render_transcript_line


@dataclass(frozen=True)
class Line:
    """One transcript line: who spoke (``role``), what (``text``), and the tool name if any."""

    role: str
    text: str
    tool: str | None = None
    turn: int | None = None


def trim(text: str, limit: int | None) -> str:
    """``text`` cut to ``limit`` characters with a note saying how much was cut."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more characters trimmed]"


def transcript_lines(
    items: Sequence[Mapping[str, Any]], *, tool_trim_limit: int | None = None
) -> list[Line]:
    """Lines for every item a reader would care about (reasoning is skipped).

    Tool calls stay tool calls ("TOOL CALL lookup(...)") and their outputs are labelled
    with the tool's name; they are never disguised as user messages.
    """
    names: dict[tuple[str, str], str] = {}
    lines: list[Line] = []
    turn = 0
    for item in items:
        kind = item_kind(item)
        text = item_text(item)
        if kind == "user":
            turn += 1
            lines.append(Line("user", text, turn=turn))
        elif kind in ("assistant", "system", "developer"):
            lines.append(Line(kind, text, turn=turn or None))
        elif is_call(item):
            name = str(item.get("name") or item.get("type"))
            key = pair_key(item)
            if key:
                names[key] = name
            lines.append(Line("tool call", text, tool=name, turn=turn or None))
        elif is_output(item):
            key = pair_key(item)
            name = names.get(key, "tool") if key else "tool"
            lines.append(
                Line("tool result", trim(text, tool_trim_limit), tool=name, turn=turn or None)
            )
        elif kind == "hosted_tool":
            lines.append(Line("hosted tool", text, turn=turn or None))
        elif kind == "compaction":
            lines.append(Line("note", "[earlier history was compacted]", turn=turn or None))
    return lines


def render_transcript(
    items: Sequence[Mapping[str, Any]], *, tool_trim_limit: int | None = None
) -> str:
    """The transcript as text, one ``ROLE: text`` line per item."""
    out = []
    for line in transcript_lines(items, tool_trim_limit=tool_trim_limit):
        out.append(render_transcript_line(line.role, line.text, line.tool))
    return "\n".join(out)
