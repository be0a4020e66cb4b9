"""Mark what a later turn superseded in text shown from an earlier turn.

Recall brings an evicted turn back into the view, after the recent turns. If that turn says
"reach me at a@x" and a later turn changed the address, the old value would be the latest
one the model reads. :func:`mark_superseded` writes the later value next to it, in the form
every ctxlab reader treats as no longer current (:mod:`ctxlab.core.staleness`); in a Chinese
conversation that includes model numbers, phone numbers and dates
(:meth:`~ctxlab.core.tracker.FactTracker.kinds`)::

    You can reach me at a@x [superseded by b@x in turn 33].

A constraint or promise that was revised later gets the same treatment: ``earlier:`` before
it and the current version after it. What is current comes from a
:class:`~ctxlab.core.tracker.FactTracker` that has read the whole conversation.
"""

from __future__ import annotations

from ..core import cues
from ..core.facts import facts_in_text
from ..core.statements import find_commitments, find_constraints
from ..core.tracker import FactTracker


def mark_superseded(text: str, facts: FactTracker) -> str:
    """``text`` with every value and statement a later turn replaced marked as such."""
    inserts: list[tuple[int, str]] = []
    for fact in facts_in_text(text, kinds=facts.kinds(text)):
        if fact.stale:
            continue
        status = facts.status(fact.kind, fact.value)
        if status is None or status.current:
            continue
        at = f" in {cues.LABELS['turn']} {status.since}" if status.since is not None else ""
        if status.replaced_by:
            note = f" [{cues.LABELS['superseded_by']} {', '.join(status.replaced_by)}{at}]"
        else:
            note = f" [{cues.LABELS['no_longer']} {status.since}]"
        inserts.append((fact.start + len(fact.value), note))
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
