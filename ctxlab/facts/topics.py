"""What a customer's message is about: the topic (service, domain, issue) it opens.

No fixed list of topics: :func:`topic_of` reads the thing a request asks for ("I need a
rental car" -> ``rental car``, "find me a restaurant" -> ``restaurant``,
"推荐一个评分高的景点" -> ``景点``). A question about an attribute ("what's their phone
number?", "电话是多少？") opens no topic: a phone number is not a phone. With a schema
(:class:`SchemaTopics`, e.g. from SGD's ``schema.json``), a message that names one of a
service's words (from its name and its intents: ``RentalCars`` / ``ReserveCar`` -> rental,
car) is about that service.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .language import language_of

#: Nouns that name an attribute of something, not a thing one asks for.
ATTRIBUTES = frozenset((
    "number", "numbers", "address", "addresses", "name", "names", "time", "times", "date",
    "dates", "price", "prices", "rating", "ratings", "code", "email", "phone", "cost", "fee",
    "fare", "total", "amount", "location", "details", "info", "information",
))
ZH_ATTRIBUTES = frozenset((
    "电话", "地址", "名字", "名称", "价格", "评分", "时间", "号码",
    "门票", "车型", "车牌", "消费", "时候",
))

_EN_REQUEST = re.compile(
    r"\b(?:need|want|like|looking for|look for|find|book|reserve|rent|get|search for|buy|"
    r"schedule|hire|order|recommend|suggest|interested in)\s+(?:me\s+|us\s+|for\s+)?"
    r"(?:to\s+(?:book|rent|find|get|reserve|buy|see|watch|visit|search for)\s+)?"
    r"(?:a|an|another|some|the|any|\d+|two|three|four)\s+(?P<np>(?:[a-z-]+\s+){0,3}?[a-z-]+)"
    r"(?=\s+(?:for|to|in|at|on|from|with|that|which|near|nearby|around|please|and|today|"
    r"tonight|tomorrow|again|instead)\b|\s*[,.!?]|\s*$)",
    re.IGNORECASE)
_ZH_REQUEST = re.compile(r"推荐|找|订|预订|想去|想吃|想住|帮我|叫|打车|有没有|查")
_ZH_HEAD = re.compile(r"(?:的|个|家|辆|间|处|些)(?P<np>[\u4e00-\u9fff]{2,3}?)"
                      r"(?=[吗吧呢。？！，,?!]|$)")


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def topic_of(text: str, language: str | None = None) -> str | None:
    """The topic a customer's message opens, or None (see the module docstring)."""
    language = language or language_of(text)
    if language == "zh":
        if not _ZH_REQUEST.search(text):
            return None
        for match in _ZH_HEAD.finditer(text):
            noun = match.group("np")
            if noun not in ZH_ATTRIBUTES:
                return noun
        return None
    for match in _EN_REQUEST.finditer(text):
        words = match.group("np").lower().split()
        head = _singular(words[-1])
        if head not in ATTRIBUTES:
            return " ".join([*words[-2:-1], head]) if len(words) > 1 and words[-2] in (
                "rental", "bus", "train", "plane", "movie", "event", "concert") else head
    return None


def _camel_words(name: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Z][a-z]+", name)]


#: Verbs of intent names that say nothing about the service.
_INTENT_VERBS = frozenset((
    "find", "get", "buy", "reserve", "book", "search", "make", "check", "add", "lookup", "play",
    "transfer", "request", "schedule", "rent", "oneway", "roundtrip",
))


@dataclass(frozen=True)
class SchemaTopics:
    """Topics from a schema: ``{topic: words that name it}`` (see :meth:`from_sgd`)."""

    words: Mapping[str, frozenset[str]]

    @classmethod
    def from_sgd(cls, schema: Sequence[Mapping[str, Any]]) -> SchemaTopics:
        """One topic per service of an SGD ``schema.json`` (``Hotels_4`` -> ``Hotels``),
        named by the words of the service's and its intents' names."""
        words: dict[str, set[str]] = {}
        for service in schema:
            base = str(service["service_name"]).split("_")[0]
            found = set(_camel_words(base))
            for intent in service.get("intents", []):
                found |= set(_camel_words(str(intent["name"])))
            found -= _INTENT_VERBS
            words.setdefault(base, set()).update(_singular(w) for w in found)
        return cls({k: frozenset(v) for k, v in words.items()})

    @classmethod
    def from_slots(cls, slots: Mapping[str, Iterable[str]]) -> SchemaTopics:
        """``{topic: words}`` given by hand (a dict of slots per topic)."""
        return cls({k: frozenset(w.lower() for w in v) for k, v in slots.items()})

    def topic_of(self, text: str) -> str | None:
        """The topic whose words the message names (the first named, by position)."""
        found = [(m.start(), topic) for topic, words in self.words.items()
                 for w in words for m in re.finditer(rf"\b{re.escape(w)}(?:s|es)?\b",
                                                     text, re.IGNORECASE)]
        return min(found)[1] if found else None
