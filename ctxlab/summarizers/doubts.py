"""Uncertainty markers in the summary record: doubts that a later turn settles.

An incremental summary carries its mistakes forward: a value written down wrong at one fold
is what the next fold starts from. The remedy the source article gives is to *mark* what the
note is not sure of, ``[uncertain]``, and let the conversation settle it: a later turn that
confirms the value removes the marker, a later turn that contradicts it replaces the value
outright (the doubtful value never was established, so it is not kept as an "earlier"
value either).

:class:`Doubts` keeps those markers in a :class:`~ctxlab.summarizers.record.HandoverRecord`:

* a value the customer gave tentatively ("I *think* the serial is SN-...", "好像是 v1.2") is
  doubted when it is read (:data:`HEDGES`), and so is a value a note marks ``[uncertain]``
  (a note another summarizer wrote, :meth:`Doubts.from_note`);
* a summarizer may doubt what it is not sure of (:meth:`Doubts.doubt_fact`,
  :meth:`Doubts.doubt_statement`);
* after every item the record reads, :meth:`Doubts.settle` applies the rule: a doubted
  value mentioned again without a hedge (or returned by a tool) is confirmed; one that
  another value replaced is removed from the fact's history; a doubted constraint or
  commitment is removed when a later one on the same topic is said.

The rendered note writes the marker after each doubted value or statement
(:data:`MARKERS`); every ctxlab reader (the offline model, the summarizers reading a note)
reads it the same way (:func:`marked_uncertain`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..facts.statements import find_commitments, find_constraints, sentences
from ..facts.tracker import FactTracker, Said
from ..facts.typed import facts_in_text

#: The marker written after a doubted value or statement, per language.
MARKERS: dict[str, str] = {"en": "[uncertain]", "zh": "[待确认]"}
#: Cues that make a customer's statement of a value tentative.
HEDGES: tuple[str, ...] = (
    r"\bi\s+think\b", r"\bi\s+believe\b", r"\bmaybe\b", r"\bprobably\b", r"\bmight\s+be\b",
    r"\bnot\s+(?:100%\s+)?sure\b", r"\bif\s+i\s+remember\b", r"\bi\s+guess\b", r"\bperhaps\b",
    r"\bcould\s+be\b", r"\bi'?m\s+not\s+certain\b",
    r"好像", r"大概", r"可能是", r"应该是", r"记不清", r"不太确定", r"不确定",
)
_HEDGE = re.compile("|".join(HEDGES), re.IGNORECASE)
#: A marker as any reader recognises it (also the LLM prompt's older UNVERIFIED).
MARKER_PATTERN = re.compile(r"\[(?:uncertain|unverified|待确认|不确定)\]|\bUNVERIFIED\b",
                            re.IGNORECASE)


def marked_uncertain(text: str, end: int) -> bool:
    """True when a value ending at ``end`` in ``text`` is followed by an uncertainty marker
    on its line, before the next value's separator (``, `` ``; `` ``、``)."""
    line_end = text.find("\n", end)
    rest = text[end: line_end if line_end >= 0 else len(text)]
    match = MARKER_PATTERN.search(rest)
    if match is None:
        return False
    between = rest[:match.start()]
    return not re.search(r"[,;，；、]", between.replace("(", "").replace(")", ""))


@dataclass
class Doubt:
    """One marker: a fact value (``kind`` its fact kind, ``entity`` its slot's entity) or a
    statement (``kind`` ``"constraint"``/``"commitment"``, ``key`` its topic), said or
    doubted in ``turn`` for ``reason``; ``seen`` is the fact's mention count when doubted."""

    kind: str
    key: str
    value: str
    turn: int
    reason: str
    entity: str | None = None
    seen: int = 0

    @property
    def is_fact(self) -> bool:
        return self.kind == "fact"


class Doubts:
    """The uncertainty markers of one record (see the module docstring)."""

    def __init__(self, entries: Iterable[Mapping[str, Any]] = ()):
        self.entries: list[Doubt] = [Doubt(**dict(e)) for e in entries]

    def to_list(self) -> list[dict[str, Any]]:
        return [asdict(d) for d in self.entries]

    def __len__(self) -> int:
        return len(self.entries)

    # -- doubting ----------------------------------------------------------------------
    def doubt_fact(self, facts: FactTracker, entity: str, kind: str, value: str,
                   reason: str) -> None:
        """Mark ``value`` of ``kind`` (held by ``entity``) as uncertain."""
        if self.fact(entity, kind, value):
            return
        seen = facts.slot(entity, kind).seen.get(value, 0)
        self.entries.append(Doubt("fact", kind, value, facts.turn, reason, entity, seen))

    def doubt_statement(self, said: Said, reason: str) -> None:
        """Mark a constraint or commitment in the record as uncertain."""
        if not self.statement(said):
            self.entries.append(Doubt(said.kind, said.topic, said.text, said.turn, reason))

    def hedged(self, text: str, facts: FactTracker) -> None:
        """Doubt the values and constraints a customer's message gives tentatively."""
        for _start, _end, sentence in sentences(text):
            if not _HEDGE.search(sentence):
                continue
            for fact in facts_in_text(sentence, kinds=facts.kinds(sentence)):
                if fact.stale:
                    continue
                owner = _owner(facts, fact.kind, fact.value)
                if owner is not None:
                    self._redoubt(facts, owner, fact.kind, fact.value, "hedged")
            for statement in find_constraints(sentence):
                said = _said(facts, "constraint", statement.text)
                if said is not None:
                    self.doubt_statement(said, "hedged")

    def from_note(self, text: str, facts: FactTracker) -> None:
        """Doubt what a note (read with :meth:`HandoverRecord.read_note`) marks uncertain."""
        for fact in facts_in_text(text, kinds=facts.kinds(text)):
            if marked_uncertain(text, fact.start + len(fact.value)):
                owner = _owner(facts, fact.kind, fact.value)
                if owner is not None:
                    self.doubt_fact(facts, owner, fact.kind, fact.value, "note")
        for statement in [*find_constraints(text), *find_commitments(text)]:
            if marked_uncertain(text, statement.end):
                said = _said(facts, statement.kind, statement.text)
                if said is not None:
                    self.doubt_statement(said, "note")

    def _redoubt(self, facts: FactTracker, entity: str, kind: str, value: str,
                 reason: str) -> None:
        seen = facts.slot(entity, kind).seen.get(value, 0)
        for doubt in self.entries:
            if doubt.is_fact and (doubt.entity, doubt.key, doubt.value) == (entity, kind, value):
                doubt.seen, doubt.turn = seen, facts.turn
                return
        self.entries.append(Doubt("fact", kind, value, facts.turn, reason, entity, seen))

    # -- reading -----------------------------------------------------------------------
    def fact(self, entity: str | None, kind: str, value: str) -> bool:
        return any(d.is_fact and d.entity == entity and d.key == kind and d.value == value
                   for d in self.entries)

    def statement(self, said: Said) -> bool:
        return any(not d.is_fact and d.kind == said.kind and d.key == said.topic
                   and d.value == said.text for d in self.entries)

    # -- settling ----------------------------------------------------------------------
    def settle(self, facts: FactTracker) -> None:
        """Apply the rule after an item was read: confirmed doubts go, contradicted values
        and statements are removed (see the module docstring)."""
        kept: list[Doubt] = []
        for doubt in self.entries:
            if doubt.is_fact:
                if not _settle_fact(doubt, facts):
                    kept.append(doubt)
            elif not _settle_statement(doubt, facts):
                kept.append(doubt)
        self.entries = kept


def _owner(facts: FactTracker, kind: str, value: str) -> str | None:
    for slot in facts.slots.values():
        if slot.kind == kind and slot.is_current(value):
            return slot.entity
    return None


def _said(facts: FactTracker, kind: str, text: str) -> Said | None:
    return next((s for s in reversed(facts.statements) if s.kind == kind and s.text == text),
                None)


def _settle_fact(doubt: Doubt, facts: FactTracker) -> bool:
    """True when the doubt is settled (and the record updated)."""
    slot = facts.slots.get(f"{doubt.entity}|{doubt.key}")
    if slot is None or not slot.ever(doubt.value):
        return True  # the value is gone (retired, or its device forgotten)
    newer = [v for v in slot.current() if v != doubt.value
             and slot.seen.get(v, 0) > doubt.seen]
    if not slot.is_current(doubt.value) or (slot.multi and newer):
        # contradicted: the doubtful value never was established, so it leaves no history
        replacement = newer[-1] if newer else None
        slot.periods = [p for p in slot.periods if p.value != doubt.value]
        for period in slot.periods:
            if period.by == doubt.value:
                period.by = replacement
        slot.seen.pop(doubt.value, None)
        slot.said.pop(doubt.value, None)
        return True
    return slot.seen.get(doubt.value, 0) > doubt.seen  # mentioned again: confirmed


def _settle_statement(doubt: Doubt, facts: FactTracker) -> bool:
    later = [s for s in facts.statements if s.kind == doubt.kind and s.topic == doubt.key
             and s.turn > doubt.turn and s.text != doubt.value]
    if not later:
        return False
    # the doubtful one is dropped, not kept as an "earlier" version of the new one
    facts.statements = [s for s in facts.statements
                        if not (s.kind == doubt.kind and s.topic == doubt.key
                                and s.text == doubt.value)]
    return True
