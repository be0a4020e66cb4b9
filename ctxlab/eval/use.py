"""Score what the agent would *use*: for a fact, which value does a view present as current?

A view can hold a fact's current value and still mislead: a summary that reads
``Email: a@x (earlier: b@x)`` after the customer moved to ``b@x`` keeps both values *in
view*, and presents the old one as current. Presence (recall) cannot see that; this module
can. For one fact and one view it reads every mention of the fact's known values the way
every ctxlab reader does (:mod:`ctxlab.facts.staleness`: the latest mention that the text
does not mark as superseded is the value presented as current) and says

* ``"current"``: the current value is presented as current;
* ``"stale"``: a superseded value is presented as current (*stale-as-current*);
* ``"missing"``: no value is presented as current (none in view, or only marked old ones).

Mentions are matched as the answer key matches values (:meth:`KeyFact.found_in`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..facts.staleness import Mention, current_mention, stale_marks
from .cases import KeyFact

Use = Literal["current", "stale", "missing"]

USES: tuple[Use, ...] = ("current", "stale", "missing")


@dataclass(frozen=True)
class UseVerdict:
    """How a view presents one fact: ``use`` and the value it presents as current."""

    use: Use
    value: str | None = None


def read_use(text: str, current: KeyFact, older: Sequence[KeyFact] = ()) -> UseVerdict:
    """How ``text`` presents the fact whose current value is ``current`` and whose earlier
    values are ``older`` (see the module docstring)."""
    marks = None
    mentions: list[Mention] = []
    seen: set[str] = set()
    for fact in (current, *older):
        if fact.value in seen:
            continue
        seen.add(fact.value)
        for match in fact.pattern.finditer(text):
            if marks is None:
                marks = stale_marks(text)
            mentions.append(Mention(fact.value, match.start(), match.end(),
                                    marks.covers(match.start(), match.end())))
    chosen = current_mention(mentions)
    if chosen is None:
        return UseVerdict("missing")
    if chosen.value == current.value:
        return UseVerdict("current", chosen.value)
    return UseVerdict("stale", chosen.value)


@dataclass(frozen=True)
class UseRecord:
    """One fact with a history of values, over every model call of one case: how many
    calls presented its current value as current, a superseded one, or none; and the
    first turn (and value) where a superseded value was presented as current."""

    fact: str
    calls: int = 0
    current: int = 0
    stale: int = 0
    missing: int = 0
    first_stale_turn: int | None = None
    stale_value: str | None = None


def _replaced_at(fact: KeyFact, values: Sequence[KeyFact], texts: Sequence[str] | None,
                 turn_starts: Sequence[int] | None) -> int | None:
    """The item from which ``fact`` (one of a fact's ``values``) is superseded, or None when
    the answer key does not say it is (see :class:`UseTracker`)."""
    if fact.superseded_by is None or fact.first_item is None:
        return None
    new = [f for f in values if f.value == fact.superseded_by
           and f.first_item is not None and f.first_item > fact.first_item]
    if not new:
        return None
    at = min(f.first_item for f in new if f.first_item is not None)
    if texts is not None and turn_starts and fact.superseded_turn is not None:
        turn = fact.superseded_turn
        begin = turn_starts[turn - 1] if 0 < turn <= len(turn_starts) else at
        later = [i for i in range(max(begin, at), len(texts))
                 if new[0].found_in(texts[i])]
        at = later[0] if later else at
    return at


class UseTracker:
    """Scores every model call for every fact that has a history of values by then."""

    def __init__(self, facts: Sequence[KeyFact], texts: Sequence[str] | None = None,
                 turn_starts: Sequence[int] | None = None):
        self.by_name: dict[str, list[KeyFact]] = {}
        for fact in facts:
            if fact.first_item is not None:
                self.by_name.setdefault(fact.name, []).append(fact)
        # For each value the answer key says was superseded: the item from which it is
        # "older", the first mention of its replacement in or after the turn the key says
        # replaced it (a new version can be mentioned as available long before it is
        # installed). Without the conversation's texts: the replacement's first mention.
        self.replaced_at: dict[int, int] = {}
        for values in self.by_name.values():
            for fact in values:
                at = _replaced_at(fact, values, texts, turn_starts)
                if at is not None:
                    self.replaced_at[id(fact)] = at
        self.counts: dict[str, list[int]] = {}
        self.first: dict[str, tuple[int, str]] = {}

    def facts_at(self, seen: int) -> list[tuple[str, KeyFact, list[KeyFact]]]:
        """``(name, current, older)`` for every fact a value of which the answer key says
        was superseded within the first ``seen`` items of the conversation (what a model
        call at that point holds). Several values of one fact that all hold (two
        reservations) are not a history."""
        out = []
        for name, values in self.by_name.items():
            older = [f for f in values if self.replaced_at.get(id(f), seen) < seen]
            if not older:
                continue
            said = [f for f in values if f.first_item is not None and f.first_item < seen]
            gone = {id(f) for f in older}
            current = max((f for f in said if id(f) not in gone),
                          key=lambda f: f.first_item or 0, default=None)
            if current is None:
                continue
            stale = list({f.value: f for f in older if f.value != current.value}.values())
            if stale:
                out.append((name, current, stale))
        return out

    def check(self, turn: int, seen: int, text: str) -> None:
        """Score a model call in ``turn`` whose view is ``text``, made when the conversation
        held ``seen`` items."""
        for name, current, older in self.facts_at(seen):
            verdict = read_use(text, current, older)
            counts = self.counts.setdefault(name, [0, 0, 0])
            counts[USES.index(verdict.use)] += 1
            if verdict.use == "stale" and name not in self.first:
                self.first[name] = (turn, verdict.value or "")

    def records(self) -> list[UseRecord]:
        out = []
        for name, (current, stale, missing) in self.counts.items():
            first = self.first.get(name)
            out.append(UseRecord(name, current + stale + missing, current, stale, missing,
                                 first[0] if first else None, first[1] if first else None))
        return out
