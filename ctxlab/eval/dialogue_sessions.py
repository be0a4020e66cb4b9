"""Long-term memory on real task dialogues (``eval-sessions --corpus sgd|crosswoz``).

A customer is four dialogues chained over days (:mod:`ctxlab.eval.dialogue_cases`); each
day is one session written to long-term memory. Three days after the last one the customer
asks about their bookings in their own words, one question per service and slot, about the
latest topic of that service ("What was the drop-off date for my rental car?",
"上次那家酒店的电话是什么来着？"). Scored per setting:

* **recalled**: the recollection long-term memory brings for the question holds the slot's
  current value (any form the state gives);
* **stale**: it holds an older value (superseded, or an earlier day's) and not the current;
* **false profile**: customers whose profile holds a value no message of theirs contains
  (a hotel's phone number the agent read out); **false fault**: customers with a fault
  case though they reported none (a hotel "with wifi" is not a broken network);
* **tokens**: the recollection's size.

Settings: ``structured`` (profile, requests, promises, cases: the planted chats' memory),
``notes`` (structured + the customer's sentences by BM25, the default memory), ``topics``
(structured + the session's topics kept whole by the corpus's schema, the one asked about
recalled) and ``topics+dense`` (the same, a question that names neither a service nor a
slot matched by meaning with the multilingual encoder).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.tokens import count_tokens
from ..course.corpora import Customer
from ..course.corpora.dialogues import SlotFact
from ..handoffs.services import packaged_schema
from .cases import KeyFact
from .dialogue_cases import dialogue_customers

#: The settings compared, in table order.
SETTINGS = ("structured", "notes", "topics", "topics+dense")

_EN = ("What was the {slot} for the {service} again?", "Remind me, which {slot} did the "
       "{service} have?", "Can you tell me the {slot} of my {service} once more?")
_ZH = ("上次那{unit}{service}的{slot}是什么来着？", "我之前问的那{unit}{service}，{slot}是什么？",
       "帮我回忆一下，{service}的{slot}是啥？")
_SERVICE_EN = {"RentalCars": "rental car", "Restaurants": "restaurant", "Buses": "bus trip",
               "Hotels": "hotel", "Homes": "apartment", "Flights": "flight",
               "Events": "event", "Movies": "movie", "Media": "movie rental",
               "Music": "song", "RideSharing": "taxi ride", "Services": "therapist",
               "Travel": "attraction", "Weather": "weather forecast", "Banks": "bank transfer",
               "Alarm": "alarm"}
_SERVICE_ZH = {"出租": "出租车", "地铁": "地铁路线"}
#: The measure word each Chinese service takes ("那家酒店", "那辆出租车").
_UNIT_ZH = {"餐馆": "家", "酒店": "家", "景点": "个", "出租": "辆", "地铁": "条"}


def question(fact: SlotFact, language: str) -> str:
    """The customer's question about ``fact`` (a template picked by the fact's name)."""
    domain = fact.topic.split("#")[0].split("_")[0]
    pick = zlib.crc32(fact.name.encode("utf-8"))
    if language == "zh":
        service, unit = _SERVICE_ZH.get(domain, domain), _UNIT_ZH.get(domain, "个")
        if fact.slot == "名称":
            return f"上次那{unit}{service}叫什么名字来着？"
        return _ZH[pick % len(_ZH)].format(service=service, slot=fact.slot, unit=unit)
    service = _SERVICE_EN.get(domain, domain.lower())
    return _EN[pick % len(_EN)].format(service=service, slot=fact.slot.replace("_", " "))


@dataclass(frozen=True)
class Asked:
    """One question: the fact, its current forms and the older values that count stale."""

    fact: SlotFact
    text: str
    older: tuple[str, ...]


def questions(customer: Customer) -> list[Asked]:
    """One question per (service, slot): about its latest topic (see the module doc)."""
    latest: dict[tuple[str, str], SlotFact] = {}
    older: dict[tuple[str, str], list[str]] = {}
    for fact in sorted(customer.facts(), key=lambda f: (f.day, f.turn)):
        key = (fact.topic.split("#")[0].split("_")[0], fact.slot)
        if key in latest:
            older.setdefault(key, []).append(latest[key].value)
        older.setdefault(key, []).extend(fact.superseded)
        latest[key] = fact
    return [Asked(f, question(f, customer.language),
                  tuple(v for v in older.get(k, []) if v.casefold() not in
                        {x.casefold() for x in f.forms}))
            for k, f in latest.items()]


def memory_for(setting: str, corpus: str) -> Any:
    """The long-term memory of one setting."""
    from ..longterm import LongTermMemory

    if setting == "structured":
        return LongTermMemory("memory", notes_k=0)
    if setting == "notes":
        return LongTermMemory("memory")
    if setting in ("topics", "topics+dense"):
        return LongTermMemory("memory", notes_k=0, schema=packaged_schema(corpus),
                              dense="multilingual" if setting == "topics+dense" else None)
    raise ValueError(f"unknown setting {setting!r}; use one of: {', '.join(SETTINGS)}")


def _holds(text: str, value: str, language: str) -> bool:
    return KeyFact("v", value, "v", whole_word=True, ignore_case=language == "en").found_in(text)


@dataclass
class SessionScore:
    """Per setting: questions asked, recalled, stale; customers with false profiles."""

    corpus: str
    asked: dict[str, int] = field(default_factory=dict)
    recalled: dict[str, int] = field(default_factory=dict)
    stale: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    false_profile: dict[str, int] = field(default_factory=dict)
    false_fault: dict[str, int] = field(default_factory=dict)
    customers: int = 0

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for s in self.asked:
            n = self.asked[s] or 1
            out.append({"setting": s, "questions": self.asked[s],
                        "recalled": round(self.recalled.get(s, 0) / n, 4),
                        "stale": round(self.stale.get(s, 0) / n, 4),
                        "tokens": round(self.tokens.get(s, 0) / n, 1),
                        "false_profile": self.false_profile.get(s, 0),
                        "false_fault": self.false_fault.get(s, 0)})
        return out

    def text(self) -> str:
        head = (f"{'setting':<14}{'questions':>10}{'recalled':>10}{'stale':>7}{'tokens':>8}"
                f"{'false profile':>15}{'false fault':>13}")
        lines = [f"{self.corpus}: long-term recall ({self.customers} customers)", head,
                 "-" * len(head)]
        for r in self.rows():
            lines.append(f"{r['setting']:<14}{r['questions']:>10}{r['recalled']:>10.0%}"
                         f"{r['stale']:>7.0%}{r['tokens']:>8.0f}{r['false_profile']:>15}"
                         f"{r['false_fault']:>13}")
        return "\n".join(lines)


def _bump(table: dict[str, int], key: str, by: int = 1) -> None:
    table[key] = table.get(key, 0) + by


async def score_customer(score: SessionScore, customer: Customer, setting: str) -> None:
    """Write the customer's days, check the profile, ask every question."""
    from ..longterm.consolidate import customer_said

    memory = memory_for(setting, customer.corpus)
    for day, dialogue in enumerate(customer.dialogues):
        await memory.write_session(customer.id, dialogue.items(),
                                   session_id=f"{customer.id}-d{day + 1}", at=f"day {day + 1}")
    stored = await memory.get(customer.id)
    said = [t.text for d in customer.dialogues for t in d.turns if t.speaker == "user"]
    profile = [str(v) for v in stored.profile.model_dump().values() if v]
    _bump(score.false_profile, setting, int(any(not customer_said(v, said) for v in profile)))
    _bump(score.false_fault, setting, int(any(c.category for c in stored.cases)))
    lang = customer.language
    for asked in questions(customer):
        text = (await memory.recall(customer.id, asked.text)).text()
        hit = any(_holds(text, form, lang) for form in (asked.fact.value, *asked.fact.forms))
        _bump(score.asked, setting)
        _bump(score.recalled, setting, int(hit))
        _bump(score.stale, setting,
              int(not hit and any(_holds(text, old, lang) for old in asked.older)))
        _bump(score.tokens, setting, count_tokens(text))


async def score_dialogue_sessions(spec: str, settings: Sequence[str] = SETTINGS
                                  ) -> SessionScore:
    """Every setting on every customer of a corpus spec (``sgd:report``, ``crosswoz:tune``)."""
    for setting in settings:
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}; use one of: {', '.join(SETTINGS)}")
    customers = dialogue_customers(spec)
    score = SessionScore(spec, customers=len(customers))
    for setting in settings:
        for customer in customers:
            await score_customer(score, customer, setting)
    return score
