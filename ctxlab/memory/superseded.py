"""Mark what a later turn superseded in text shown from an earlier turn.

Recall brings an evicted turn back into the view, after the recent turns. If that turn says
"reach me at a@x" and a later turn changed the address, the old value would be the latest
one the model reads. :func:`mark_superseded` writes the later value next to it, in the form
every ctxlab reader treats as no longer current (:mod:`ctxlab.facts.staleness`); in a Chinese
conversation that includes model numbers, phone numbers and dates
(:meth:`~ctxlab.facts.tracker.FactTracker.kinds`)::

    You can reach me at a@x [superseded by b@x in turn 33].

A constraint or promise that was revised later gets the same treatment: ``earlier:`` before
it and the current version after it. What is current comes from a
:class:`~ctxlab.facts.tracker.FactTracker` that has read the whole conversation.
"""

from __future__ import annotations

import re

from ..facts import cues
from ..facts.language import has_cjk
from ..facts.staleness import stale_marks
from ..facts.statements import find_commitments, find_constraints
from ..facts.tracker import FactTracker, Status
from ..facts.typed import facts_in_text


def _note(status: Status) -> str:
    at = f" in {cues.LABELS['turn']} {status.since}" if status.since is not None else ""
    if status.replaced_by:
        return f" [{cues.LABELS['superseded_by']} {', '.join(status.replaced_by)}{at}]"
    return f" [{cues.LABELS['no_longer']} {status.since}]"


def _ended(facts: FactTracker) -> dict[str, Status]:
    """Values the tracker saw replaced (or retired) and holds nowhere as current."""
    out: dict[str, Status] = {}
    for slot in facts.slots.values():
        for period in slot.periods:
            if period.until is not None and period.value not in out:
                status = facts.status(slot.kind, period.value)
                if status is not None and not status.current:
                    out[period.value] = status
    return out


def mark_superseded(text: str, facts: FactTracker) -> str:
    """``text`` with every value and statement a later turn replaced marked as such.

    In Chinese text a value often stands without the word that names its kind
    ("0x0000007E通常是驱动问题", ``{"current": "7.2.1"}``): there, any mention of a value the
    tracker saw replaced is marked, not only the mentions the fact patterns recognise."""
    inserts: list[tuple[int, str]] = []
    marked: list[tuple[int, int]] = []
    for fact in facts_in_text(text, kinds=facts.kinds(text)):
        marked.append((fact.start, fact.start + len(fact.value)))
        if fact.stale:
            continue
        status = facts.status(fact.kind, fact.value)
        if status is None or status.current:
            continue
        inserts.append((fact.start + len(fact.value), _note(status)))
    if facts.language == "zh" or has_cjk(text):
        inserts += _bare_mentions(text, facts, marked)
    statements = [*find_constraints(text), *find_commitments(text)]
    for statement in statements:
        if statement.stale:
            continue
        ended = [s for s in facts.statements if s.until is not None
                 and (s.text in statement.text or statement.text in s.text)]
        if not ended:
            continue
        now = facts.replacement(ended[-1])
        inserts.append((statement.start, f"{cues.LABELS['earlier']}: "))
        after = (f" [revised in {cues.LABELS['turn']} {ended[-1].until}: {now.text}]"
                 if now is not None else f" [{cues.LABELS['no_longer']} {ended[-1].until}]")
        inserts.append((statement.end, after))
    for position, note in sorted(inserts, reverse=True):
        text = text[:position] + note + text[position:]
    return text


def _bare_mentions(text: str, facts: FactTracker,
                   typed: list[tuple[int, int]]) -> list[tuple[int, str]]:
    """Notes for mentions of replaced values that no fact pattern read (see
    :func:`mark_superseded`); a mention already marked stale in the text is left alone."""
    ended = _ended(facts)
    if not ended:
        return []
    marks = None
    out = []
    for value, status in ended.items():
        for match in re.finditer(r"(?<![A-Za-z0-9_.-])" + re.escape(value)
                                 + r"(?![A-Za-z0-9_-]|\.\d)", text):
            start, end = match.span()
            if any(a < end and start < b for a, b in typed):
                continue
            marks = marks or stale_marks(text)
            if not marks.covers(start, end):
                out.append((end, _note(status)))
    return out
