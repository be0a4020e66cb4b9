"""What a chip says: ledger entries grouped by turn, with labels, colours and tooltips.

Everything here reads only :class:`~ctxlab.core.ledger.LedgerEntry` fields, so every memory
strategy gets the same display. Shared by the live widgets and their static HTML.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...core.items import preview
from ...core.ledger import STATE_COLORS, LedgerEntry
from ...core.sections import SECTION_LABELS, SYNTHETIC_KIND_SECTIONS

#: How each item kind is named on a chip.
KIND_LABELS: dict[str, str] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
    "tool_call": "tool call",
    "tool_output": "tool output",
    "reasoning": "reasoning",
    "hosted_tool": "hosted tool",
    "compaction": "compaction",
    "reference": "reference",
    "summary_prompt": "summary prompt",
    "summary": "summary",
    "retrieved": "retrieved",
    "state": "state",
    "other": "other",
}

#: Short names for compact chips (static replay rows).
KIND_SHORT: dict[str, str] = {
    "user": "U",
    "assistant": "A",
    "system": "Sys",
    "developer": "Dev",
    "tool_call": "call",
    "tool_output": "out",
    "reasoning": "R",
    "hosted_tool": "H",
    "compaction": "C",
    "reference": "ref",
    "summary_prompt": "Σ?",
    "summary": "Σ",
    "retrieved": "mem",
    "state": "st",
    "other": "?",
}

#: A mark per state, so a chip's state does not rest on its colour alone.
STATE_MARKS: dict[str, str] = {
    "kept": "✓", "summary": "Σ", "summarized": "↧", "pending": "…", "dropped": "✗",
}

#: What each state means, for legends.
STATE_MEANINGS: dict[str, str] = {
    "kept": "sent as is",
    "summary": "synthetic summary, sent",
    "summarized": "folded into the summary",
    "pending": "waits for its tool output",
    "dropped": "not sent",
}

UNKNOWN_COLOR = "#999999"


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind.replace("_", " "))


def state_color(state: str) -> str:
    return STATE_COLORS.get(state, UNKNOWN_COLOR)


def _luminance(color: str) -> float:
    value = color.lstrip("#")
    if len(value) != 6:
        return 0.0
    channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def text_color(background: str) -> str:
    """Black or white, whichever contrasts more with ``background`` (WCAG formula)."""
    lum = _luminance(background)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#FFFFFF"


def chip_label(entry: LedgerEntry, *, compact: bool = False) -> str:
    """The text on a chip: a state mark and the item kind."""
    mark = STATE_MARKS.get(entry.state, "•")
    name = KIND_SHORT.get(entry.kind, entry.kind[:3]) if compact else kind_label(entry.kind)
    return f"{mark} {name}"


def entry_heading(entry: LedgerEntry) -> str:
    """One line naming an entry: ``#3 · turn 2 · tool output · kept · 57 tokens``."""
    where = "synthetic" if entry.index is None else f"#{entry.index}"
    turn = "preamble" if entry.turn is None and entry.index is not None else (
        f"turn {entry.turn}" if entry.turn is not None else None
    )
    parts = [where, *([turn] if turn else []), kind_label(entry.kind), entry.state,
             f"{entry.tokens} tokens"]
    return " · ".join(parts)


def chip_tooltip(entry: LedgerEntry, width: int = 160) -> str:
    """Tooltip text: heading with the exact token count, a text preview and the reason."""
    return f"{entry_heading(entry)}\n{preview(entry.text, width)}\nwhy: {entry.reason}"


@dataclass(frozen=True)
class ChipGroup:
    """Consecutive ledger entries shown on one row: the preamble, a turn or synthetic items."""

    key: str
    label: str
    turn: int | None
    synthetic: bool
    entries: tuple[LedgerEntry, ...]
    start: int  # position of the first entry in the ledger

    @property
    def tokens(self) -> int:
        return sum(e.tokens for e in self.entries)

    @property
    def sent_tokens(self) -> int:
        return sum(e.tokens for e in self.entries if e.state in ("kept", "summary"))


def _group_key(entry: LedgerEntry) -> tuple[str, str, int | None, bool]:
    if entry.index is None:
        section = SYNTHETIC_KIND_SECTIONS.get(entry.kind)
        name = SECTION_LABELS[section] if section else "injected"
        return f"synthetic:{name}", name, None, True
    if entry.turn is None:
        return "preamble", "preamble", None, False
    return f"turn:{entry.turn}", f"turn {entry.turn}", entry.turn, False


def group_entries(entries: Iterable[LedgerEntry]) -> list[ChipGroup]:
    """Split entries, in ledger order, into runs of the same turn (or synthetic kind).

    Synthetic entries stay where the ledger puts them (a summary sits after the turns it
    folds), so the groups read in timeline order.
    """
    groups: list[ChipGroup] = []
    run: list[LedgerEntry] = []
    current: tuple[str, str, int | None, bool] | None = None
    start = 0
    for position, entry in enumerate(entries):
        key = _group_key(entry)
        if current is not None and key != current:
            groups.append(ChipGroup(current[0], current[1], current[2], current[3],
                                    tuple(run), start))
            run = []
            start = position
        current = key
        run.append(entry)
    if current is not None:
        groups.append(ChipGroup(current[0], current[1], current[2], current[3], tuple(run),
                                start))
    return groups


#: States of items the model is not sent (the summary, not its folded turns, is sent).
UNSENT = frozenset({"dropped", "summarized"})


def unsent_runs(groups: Sequence[ChipGroup], at_least: int | None) -> list[range]:
    """Runs of at least ``at_least`` consecutive turn rows whose items are all unsent
    (dropped, or folded into the summary), as ranges of row positions; ``None``: none.

    A long conversation's view shows them as one row, so the part the model is sent (the
    summary and the kept turns) is in sight when the view opens, not thousands of pixels
    below its first turns.
    """
    if at_least is None:
        return []
    runs: list[range] = []
    start: int | None = None
    for n, group in enumerate([*groups, None]):
        unsent = (group is not None and group.turn is not None
                  and all(e.state in UNSENT for e in group.entries))
        if unsent and start is None:
            start = n
        elif not unsent and start is not None:
            if n - start >= max(at_least, 1):
                runs.append(range(start, n))
            start = None
    return runs
