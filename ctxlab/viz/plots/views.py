"""What each agent sees: one bar per view, its tokens split by where they come from.

* :func:`handoff_view_parts`: a receiver's view after a handoff, split into the customer's
  own turns, the resumed issue's turns, the other issue's turns, a handover note (a summary
  pair or the SDK's nested transcript) and the current turn with the handoff;
* :func:`memory_input_parts`: a new session's model input, split into what long-term memory
  added (its structured part, the recalled notes) and the new message;
* :func:`plot_views`: the bars (Okabe-Ito colours, one per part, the same in every lesson).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.items import is_user_message, item_kind, item_text
from ...core.memory_frame import is_memory_block
from ...core.tokens import count_item_tokens, count_tokens
from ...handoffs.issues import CUSTOMER, split_issues
from ...longterm.render import HEADERS, NOTES_HEADERS
from .figure import NOTEBOOK_WIDTH, SMALL_FONT, new_figure

if TYPE_CHECKING:  # matplotlib loads when plot_views draws (lesson 10 imports this module
    from matplotlib.figure import Figure  # in its first cell)

#: Parts of a view, in stacking order, and their colours (Okabe-Ito).
PART_COLORS: dict[str, str] = {
    "customer": "#999999",
    "this issue": "#0072B2",
    "other issue": "#D55E00",
    "handover note": "#CC79A7",
    "this issue's note": "#56B4E9",
    "long-term: structured": "#CC79A7",
    "long-term: recalled notes": "#E69F00",
    "this turn": "#009E73",
}


def _key(item: Mapping[str, Any]) -> str:
    return json.dumps(item_text(item)) + str(item.get("role") or item.get("type"))


def handoff_view_parts(view: Sequence[Mapping[str, Any]], conversation: Sequence[Mapping[str,
                       Any]], subject: str, *, note: str = "handover note"
                       ) -> list[tuple[str, int]]:
    """Tokens of ``view`` by part (see the module docstring). ``conversation`` is the whole
    chat the view was made from (its last user message is the current turn); ``subject``
    is the resumed issue's device; ``note`` names what the view holds that the chat does
    not (a handover summary, the SDK's nested transcript)."""
    split = split_issues(conversation)
    labels: list[tuple[str, str]] = []  # (item key, part) in conversation order
    for number, issue in enumerate(split.turn_issue, 1):
        label = ("customer" if issue == CUSTOMER else "this issue"
                 if split.issue(issue).subject == subject else "other issue")
        labels += [(_key(item), label) for item in split.turn_items([number])]
    last_user = max((n for n, i in enumerate(view) if is_user_message(i)), default=len(view))
    parts: list[tuple[str, int]] = []
    cursor = 0
    for index, item in enumerate(view):
        key = _key(item)
        found = next((n for n in range(cursor, len(labels)) if labels[n][0] == key), None)
        if index >= last_user:
            part = "this turn"
        elif found is None:
            part = note
        else:
            part, cursor = labels[found][1], found + 1
        tokens = count_item_tokens(dict(item))
        if parts and parts[-1][0] == part:
            parts[-1] = (part, parts[-1][1] + tokens)
        else:
            parts.append((part, tokens))
    return parts


def memory_input_parts(items: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """Tokens of a new session's model input: long-term memory's structured part and notes
    (from its memory block, the frame's heading counted with the structured part), and
    everything else as "this turn"."""
    parts: list[tuple[str, int]] = []
    for item in items:
        text = item_text(item)
        framed = is_memory_block(item)  # the frame's heading line counts as structured
        body = text.split("\n", 1)[-1] if framed else text
        if ((framed or item_kind(item) in ("developer", "system"))
                and body.startswith((*HEADERS, *NOTES_HEADERS))):
            lines = text.splitlines()
            at = next((n for n, line in enumerate(lines) if line in NOTES_HEADERS), len(lines))
            at = 0 if framed and at == 1 else at  # notes only: the heading goes with them
            structured, notes = "\n".join(lines[:at]), "\n".join(lines[at:])
            if structured:
                parts.append(("long-term: structured", count_tokens(structured)))
            if notes:
                parts.append(("long-term: recalled notes", count_tokens(notes)))
        else:
            parts.append(("this turn", count_item_tokens(dict(item))))
    return parts


def plot_views(rows: Mapping[str, Sequence[tuple[str, int]]], *,
               title: str = "What the receiving agent sees") -> Figure:
    """One horizontal bar per row (a view), its parts stacked in tokens."""
    from matplotlib.patches import Patch

    if not rows:
        raise ValueError("plot_views needs at least one view")
    height = 0.6 + 0.45 * len(rows)
    fig, ax = new_figure((min(NOTEBOOK_WIDTH, 8.5), max(2.4, height + 1.0)))
    labels = list(rows)
    used: list[str] = []
    for y, label in enumerate(reversed(labels)):
        left = 0
        for part, tokens in rows[label]:
            color = PART_COLORS.get(part, "#5E6B78")
            ax.barh(y, tokens, left=left, color=color, edgecolor="white", linewidth=0.6)
            left += tokens
            if part not in used:
                used.append(part)
        ax.text(left + 8, y, f"{left:,}", va="center", fontsize=SMALL_FONT)
    ax.set_yticks(range(len(labels)), list(reversed(labels)), fontsize=10)
    ax.set_xlabel("tokens", fontsize=10)
    ax.set_title(title, fontsize=11)
    ax.tick_params(axis="x", labelsize=SMALL_FONT)
    ax.spines[["top", "right"]].set_visible(False)
    widest = max(sum(t for _, t in parts) for parts in rows.values())
    ax.set_xlim(0, widest * 1.15 + 1)
    ordered = [p for p in PART_COLORS if p in used]
    ax.legend(handles=[Patch(color=PART_COLORS[p], label=p) for p in ordered],
              fontsize=SMALL_FONT, loc="upper center", bbox_to_anchor=(0.5, -0.3),
              ncol=min(len(ordered), 4), frameon=False)
    fig.tight_layout()
    return fig
