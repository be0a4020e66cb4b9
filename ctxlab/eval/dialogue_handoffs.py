"""Per-service handovers on real task dialogues (``eval-handoffs --corpus sgd|crosswoz``).

A customer is four dialogues chained over days (:mod:`ctxlab.eval.dialogue_cases`); each
service (SGD) or sub-goal (CrossWOZ) of each day is one of their issues (a table on day 1,
a taxi to it, a hotel on day 3). After the last turn, each issue is handed to a colleague
in turn, under each mode, and the receiver's view is scored against the state annotations:

* **right**: the view holds every current value of the issue (any form the state gives),
  no value of another issue (one that the issue's own turns do not also contain), and no
  superseded value without the current one; in English a small count may be said in words
  ("zero bags" holds the value "0"; "one" only before what it counts: "one room" holds
  "1", "one-way" and the pronoun do not);
* **leaked** / **missing** / **stale**: the issues that fail each part.

Modes: ``full`` (everything), ``trim:N`` (the last N user turns), ``handover`` (one
extractive summary of everything), ``per-issue`` (:class:`~ctxlab.handoffs.IssueHandover`
by device words, the planted chats' rules) and ``per-service`` (``IssueHandover(schema=)``:
the corpus's schema, the issue's turns verbatim; ``per-service+sentences``: with
``split_replies``, a reply to a turn that asks for two services cut by sentence). Which
predicted issue a real one is handed over as is read from the annotations (the predicted
issue about the same service that shares most of its user turns; when no issue about it
shares any, the one sharing most: a colleague asks for "the restaurant", not for whichever
issue holds most of its turns, such as the taxi to it); the view itself is built from the
text only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.tokens import count_items_tokens
from ..course.corpora import Customer
from ..course.corpora.dialogues import SlotFact
from ..handoffs import HandoverSummary, IssueHandover, view_text
from ..handoffs.services import packaged_schema
from .cases import KeyFact
from .dialogue_cases import dialogue_customers

#: The modes compared, in table order.
MODES = ("full", "trim:4", "handover", "per-issue", "per-service")
Issue = tuple[int, str]  # (day, topic)


#: Small counts as English words: "zero bags" says the value "0" ("one" is left out here: it
#: is mostly a pronoun or "one-way"; :data:`ONE` reads it before what it counts).
NUMBER_WORDS = ("zero", "", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten")


#: "one" as a count: before what is counted ("one room", "one person"), not "one-way".
ONE = re.compile(r"\bone\s+(?:room|person|people|passenger|ticket|seat|bag|adult|"
                 r"traveler|traveller|night|day|week|bed|bath|bedroom|bathroom|stop|"
                 r"layover|transfer|rider|guest)s?\b", re.IGNORECASE)


def _found(text: str, value: str, language: str) -> bool:
    forms = [value]
    if language == "en" and value.isdigit() and int(value) < len(NUMBER_WORDS) \
            and NUMBER_WORDS[int(value)]:
        forms.append(NUMBER_WORDS[int(value)])
    if language == "en" and value == "1" and ONE.search(text):
        return True
    return any(KeyFact("v", form, "v", whole_word=True, ignore_case=language == "en")
               .found_in(text) for form in forms)


def issue_turns(customer: Customer) -> dict[Issue, set[int]]:
    """Per real issue, the user turns (1-based over the whole chain) the annotations tie to
    it: a turn whose state changes one of its slots, that asks for one of its slots (SGD's
    requested slots: "Can I get their address?" is the therapist's turn, even though the
    address the reply gives is first said there for the ride to it), or that (with its
    reply) first says one of its values; other turns go with the issue of the turn
    before."""
    out: dict[Issue, set[int]] = {}
    number = 0
    for day, dialogue in enumerate(customer.dialogues):
        facts = dialogue.facts(day)
        said_at = {}
        for f in facts:
            said_at.setdefault(f.turn, set()).add(f.topic)
        last: str | None = None
        previous: Mapping[str, Any] = {}
        for index, turn in enumerate(dialogue.turns):
            if turn.speaker != "user":
                continue
            number += 1
            changed = {t for t, slots in (turn.state or {}).items()
                       if dict(slots) != dict(previous.get(t, {}))}
            previous = turn.state or previous
            touched = (said_at.get(index, set()) | said_at.get(index + 1, set())
                       | changed | set(turn.asks)) & set(dialogue.topics)
            topics = sorted(touched) or ([last] if last else [])
            for topic in topics:
                out.setdefault((day, topic), set()).add(number)
            last = topics[-1] if topics else last
    return out


def _facts(customer: Customer) -> dict[Issue, list[SlotFact]]:
    out: dict[Issue, list[SlotFact]] = {}
    for fact in customer.facts():
        out.setdefault((fact.day, fact.topic), []).append(fact)
    return out


@dataclass(frozen=True)
class IssueVerdict:
    """One issue handed over under one mode."""

    customer: str
    issue: Issue
    mode: str
    missing: tuple[str, ...]  # current values not in the view
    leaked: tuple[str, ...]  # other issues' values in the view
    stale: tuple[str, ...]  # superseded values in the view without the current one
    tokens: int

    @property
    def right(self) -> bool:
        return not (self.missing or self.leaked or self.stale)


def score_view(text: str, issue: Issue, facts: Mapping[Issue, Sequence[SlotFact]],
               own_text: str, language: str) -> tuple[tuple[str, ...], ...]:
    """(missing, leaked, stale) of one view's ``text`` for ``issue``."""
    mine = facts.get(issue, [])
    forms = {f.casefold() for fact in mine for f in (*fact.forms, fact.value)}
    missing = tuple(f.value for f in mine
                    if not any(_found(text, form, language) for form in (f.value, *f.forms)))
    stale = tuple(old for f in mine if f.value in missing for old in f.superseded
                  if _found(text, old, language))
    foreign = {v for other, fs in facts.items() if other != issue for f in fs
               for v in (f.value, *f.superseded)
               if v.casefold() not in forms and not _found(own_text, v, language)}
    leaked = tuple(sorted(v for v in foreign if _found(text, v, language)))
    return missing, leaked, stale


def _owned(split: Any, gold: set[int], service: str) -> int | None:
    """The predicted issue about ``service`` that shares most user turns with a real one,
    else the one sharing most (None: none shares any)."""
    best, rank = None, (False, 0)
    for issue in split.issues:
        shared = (issue.subject == service, len(gold & set(issue.turns)))
        if shared[1] and shared > rank:
            best, rank = issue.number, shared
    return best


async def mode_view(mode: str, items: list[dict[str, Any]], gold: set[int],
                    corpus: str, service: str = "") -> list[dict[str, Any]]:
    """The receiver's view of one real issue (its user turns ``gold``, its ``service``)
    under ``mode``."""
    if mode == "full":
        return items
    if mode.startswith("trim:"):
        from ..handoffs import TrimmedHistory

        return await TrimmedHistory(int(mode.split(":", 1)[1])).view(items, [])
    if mode == "handover":
        return await HandoverSummary().view([*items, {"role": "user", "content": "…"}], [])
    by_schema = mode.startswith("per-service")
    handover = IssueHandover(schema=packaged_schema(corpus) if by_schema else None,
                             split_replies=mode == "per-service+sentences")
    split = handover.split(items)
    number = _owned(split, gold, service)
    if number is None:  # no issue found for it: the whole-chat handover
        return await HandoverSummary().view([*items, {"role": "user", "content": "…"}], [])
    return await handover.issue_items(split, number)


def _own_text(customer: Customer, gold: set[int]) -> str:
    items = [i for d in customer.dialogues for i in d.items()]
    from ..core.turns import segment_turns

    seg = segment_turns(items)
    return "\n".join(str(items[i]["content"]) for t in seg.turns if t.number in gold
                     for i in t.indices)


async def score_customer(customer: Customer, modes: Iterable[str]) -> list[IssueVerdict]:
    """Every issue of one customer handed over under every mode."""
    items = [i for d in customer.dialogues for i in d.items()]
    facts = _facts(customer)
    turns = issue_turns(customer)
    out = []
    for mode in modes:
        for issue in customer.issues():
            if not facts.get(issue):
                continue  # an issue with no value to hand over
            gold = turns.get(issue, set())
            view = await mode_view(mode, items, gold, customer.corpus,
                                   issue[1].split("#")[0].split("_")[0])
            missing, leaked, stale = score_view(view_text(view), issue, facts,
                                                _own_text(customer, gold), customer.language)
            out.append(IssueVerdict(customer.id, issue, mode, missing, leaked, stale,
                                    count_items_tokens(view)))
    return out


@dataclass
class HandoffTable:
    """Verdicts per mode over a corpus."""

    corpus: str
    verdicts: list[IssueVerdict] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        modes = list(dict.fromkeys(v.mode for v in self.verdicts))
        rows = []
        for mode in modes:
            vs = [v for v in self.verdicts if v.mode == mode]
            n = len(vs) or 1
            rows.append({"mode": mode, "issues": len(vs),
                         "right": round(sum(v.right for v in vs) / n, 4),
                         "missing": round(sum(bool(v.missing) for v in vs) / n, 4),
                         "leaked": round(sum(bool(v.leaked) for v in vs) / n, 4),
                         "stale": round(sum(bool(v.stale) for v in vs) / n, 4),
                         "tokens": round(sum(v.tokens for v in vs) / n, 1)})
        return rows

    def text(self) -> str:
        head = f"{'mode':<13}{'issues':>7}{'right':>8}{'missing':>9}{'leaked':>8}{'stale':>7}" \
               f"{'tokens':>8}"
        lines = [f"{self.corpus}: per-issue handovers", head, "-" * len(head)]
        for r in self.rows():
            lines.append(f"{r['mode']:<13}{r['issues']:>7}{r['right']:>8.0%}{r['missing']:>9.0%}"
                         f"{r['leaked']:>8.0%}{r['stale']:>7.0%}{r['tokens']:>8.0f}")
        return "\n".join(lines)


async def score_dialogue_handoffs(spec: str, modes: Sequence[str] = MODES) -> HandoffTable:
    """Every mode on every customer of a corpus spec (``sgd:tune``, ``crosswoz:report:10``)."""
    for mode in modes:
        if mode not in (*MODES, "per-service+sentences") and not mode.startswith("trim:"):
            raise ValueError(f"unknown handoff mode {mode!r}; use: full, trim:N, handover, "
                             "per-issue, per-service, per-service+sentences")
    table = HandoffTable(spec)
    for customer in dialogue_customers(spec):
        table.verdicts += await score_customer(customer, modes)
    return table
