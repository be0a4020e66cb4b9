"""DriftingSummarizer: a summarizer whose errors compound from fold to fold, WRONG on purpose.

A model that writes an incremental summary reads its previous note and the newly folded
turns and writes a new note. Now and then it gets something wrong (the source article's
example: "asked for a refund" becomes "asked about refunds"), and the next fold starts from
the wrong note: the mistake is carried forward, and new ones pile on. ctxlab's
:class:`~ctxlab.ExtractiveSummarizer` never errs, so lesson 03 uses this one to show what
that looks like, and what the two remedies do:

* **uncertainty markers** (``markers=True``): the summarizer writes ``[uncertain]`` after
  what it changed (a summarizer following ctxlab's prompt is asked to mark what it is not
  sure of); the agent then asks instead of using the value, and a later turn that
  mentions the value settles it (:mod:`ctxlab.summarizers.doubts`);
* **a full re-summarization from the raw log** (``SummarizingSession.rebuild_summary()``):
  one fold over every raw turn, so at most one fold's worth of drift instead of all of them.

It works on the extractive summarizer's record (so everything it does not drift is exact)
and, at each fold, with probability ``rate`` (a seeded draw), applies one of:

* ``paraphrase``: an identifier is copied wrong (two neighbouring characters swapped:
  TCK-48213 becomes TCK-48123), and the wrong value replaces the right one;
* ``merge``: two problems on different devices become one: the later device's problem
  and values are filed under the earlier device (whose own serial and firmware then read
  as replaced);
* ``question``: a customer's request becomes a question ("Please never call me, email
  only" becomes "asked about contact"), so it is no longer a constraint.

The same seed gives the same drift. Use it to teach, never in an agent.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..facts.tracker import FactTracker, Period
from ..facts.typed import facts_in_text
from ..summarizers.extractive import ExtractiveSummarizer
from ..summarizers.record import HandoverRecord

#: The kinds of mistakes the summarizer makes.
DRIFTS: tuple[str, ...] = ("paraphrase", "merge", "question")
#: Identifier kinds a paraphrase may hit.
PARAPHRASED_KINDS: tuple[str, ...] = ("ticket", "serial", "rma", "order", "error_code",
                                      "firmware", "email", "reservation")


class DriftingSummarizer(ExtractiveSummarizer):
    """WRONG on purpose: the extractive summarizer plus seeded, compounding mistakes.

    Args:
        rate: the chance (0..1) that a fold makes one mistake.
        seed: the seed of the draws.
        markers: mark each mistake ``[uncertain]`` (the first remedy, see the module
            docstring).
        drifts: which mistakes it may make (default all of :data:`DRIFTS`).
    """

    name = "DriftingSummarizer"

    def __init__(self, *, rate: float = 0.5, seed: int = 0, markers: bool = False,
                 drifts: Sequence[str] = DRIFTS, **options: Any):
        super().__init__(**options)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
            raise ValueError(f"rate must be a number between 0 and 1, got {rate!r}")
        unknown = [d for d in drifts if d not in DRIFTS]
        if unknown or not drifts:
            raise ValueError(f"drifts must be some of {', '.join(DRIFTS)}; got {list(drifts)}")
        self.rate = float(rate)
        self.seed = int(seed)
        self.markers = bool(markers)
        self.drifts = tuple(drifts)
        self.log: list[str] = []  # what each fold got wrong, for the lesson to print

    def __repr__(self) -> str:
        return (f"DriftingSummarizer(rate={self.rate}, seed={self.seed}, "
                f"markers={self.markers})")

    def amend(self, record: HandoverRecord, items: Sequence[Mapping[str, Any]]) -> None:
        """After a fold like :class:`~ctxlab.ExtractiveSummarizer`'s, perhaps make one
        mistake in the record that the next fold starts from."""
        rng = random.Random(_seed(self.seed, record.turn, len(items)))
        if rng.random() < self.rate:
            done = drift(record, rng, self.drifts, markers=self.markers)
            if done:
                self.log.append(f"turn {record.turn}: {done}")


def _seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def drift(record: HandoverRecord, rng: random.Random, kinds: Sequence[str] = DRIFTS, *,
          markers: bool = False) -> str | None:
    """Make one mistake of a kind in ``kinds`` the record allows; a description of it
    (None when none applies)."""
    order = list(kinds)
    rng.shuffle(order)
    for kind in order:
        done = {"paraphrase": paraphrase, "merge": merge, "question": question}[kind](
            record, rng, markers=markers)
        if done:
            return done
    return None


def garble(value: str, kind: str, rng: random.Random) -> str | None:
    """``value`` with two neighbouring, different digits swapped (letters, past a prefix,
    when it has no such digits), still read as a value of ``kind`` (None when no swap keeps
    it one)."""
    pairs = [i for i in range(len(value) - 1) if value[i] != value[i + 1]]
    spots = [i for i in pairs if value[i].isdigit() and value[i + 1].isdigit()] or [
        i for i in pairs if i >= 3 and value[i].isalnum() and value[i + 1].isalnum()]
    rng.shuffle(spots)
    for i in spots:
        wrong = value[:i] + value[i + 1] + value[i] + value[i + 2:]
        if any(f.kind == kind and f.value == wrong
               for f in facts_in_text(f"{kind.replace('_', ' ')} {wrong}", kinds=[kind])):
            return wrong
    return None


def paraphrase(record: HandoverRecord, rng: random.Random, *, markers: bool = False
               ) -> str | None:
    facts = record.facts
    slots = [s for s in facts.slots.values() if s.kind in PARAPHRASED_KINDS and s.current()]
    rng.shuffle(slots)
    for slot in slots:
        value = rng.choice(slot.current())
        wrong = garble(value, slot.kind, rng)
        if wrong is None or slot.ever(wrong):
            continue
        _rename(facts, slot.entity, slot.kind, value, wrong)
        if markers:
            record.doubts.doubt_fact(facts, slot.entity, slot.kind, wrong, "paraphrased")
        return f"copied {slot.kind} {value} as {wrong}"
    return None


def _rename(facts: FactTracker, entity: str, kind: str, old: str, new: str) -> None:
    slot = facts.slot(entity, kind)
    for period in slot.periods:
        if period.value == old:
            period.value = new
        if period.by == old:
            period.by = new
    for table in (slot.seen, slot.said):
        if old in table:
            table[new] = table.pop(old)


def merge(record: HandoverRecord, rng: random.Random, *, markers: bool = False) -> str | None:
    facts = record.facts
    devices = [e.id for e in facts.devices()]
    issues = [i for i in record.issues if i.entity in devices]
    pairs = [(a, b) for n, a in enumerate(issues) for b in issues[n + 1:]
             if a.entity != b.entity]
    if not pairs:
        return None
    first, second = rng.choice(pairs)
    keep, gone = first.entity, second.entity
    assert keep is not None and gone is not None
    first.text = f"{first.text}; {second.text}"
    record.issues.remove(second)
    for step in record.steps:
        if step.entity == gone:
            step.entity = keep
    moved = _move_values(facts, gone, keep)
    if facts.focus == gone:
        facts.focus = keep
    if markers:
        for kind, value in moved:
            record.doubts.doubt_fact(facts, keep, kind, value, "merged")
    return (f"merged the {facts.label(gone)} problem into the {facts.label(keep)} one "
            f"({len(moved)} values moved)")


def _move_values(facts: FactTracker, gone: str, keep: str) -> list[tuple[str, str]]:
    """Move every current value of entity ``gone`` to entity ``keep`` (a single-valued slot's
    value there is superseded); returns the ``(kind, value)`` pairs moved."""
    moved = []
    for slot in [s for s in facts.slots.values() if s.entity == gone]:
        target = facts.slot(keep, slot.kind)
        for value in slot.current():
            old = target.current()
            if old and not target.multi:
                for period in target.periods:
                    if period.until is None:
                        period.until, period.by = facts.turn, value
            target.periods.append(Period(value, facts.turn))
            target.seen[value] = slot.seen.get(value, 0)
            target.said[value] = slot.said.get(value, 0)
            moved.append((slot.kind, value))
        slot.periods, slot.seen, slot.said = [], {}, {}
    return moved


def question(record: HandoverRecord, rng: random.Random, *, markers: bool = False
             ) -> str | None:
    facts = record.facts
    requests = [s for s in facts.current_statements("constraint")
                if not s.text.startswith(("asked about", "问过"))]
    if not requests:
        return None
    said = rng.choice(requests)
    before = said.text
    topic = said.topic.replace("_", " ")
    said.text = f"问过{topic}方面的事" if record.language == "zh" else f"asked about {topic}"
    if markers:
        record.doubts.doubt_statement(said, "rewritten")
    return f"turned the request {before!r} into {said.text!r}"
