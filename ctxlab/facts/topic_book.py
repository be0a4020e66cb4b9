"""A book of the values a conversation establishes, kept per topic, in any domain.

For every message it reads, the book finds the topic a customer's request opens
(:mod:`.topics`; or a schema's services), the values the message states (:mod:`.values`:
dates, times, places, names, amounts, counts, identifiers; a schema's categorical values)
and the corrections it makes (:mod:`.corrections`). Under each topic it keeps the customer's
values and, apart, what the agent said, so what an agent says about a venue never becomes the
customer's own profile. A corrected value moves to "earlier" and is never shown as current;
a value lives under the topic where it was said last.

``ask=True`` keeps only what the customer stated, plus what the agent said in reply to a
customer's question or request, or offered and the customer accepted ("yes", "好的"). An
agent message that lists several places is a list of options: only the one the customer
then names is kept (as the customer's).

:class:`~ctxlab.memory.topic_memory.TopicMemory` keeps a book up to date from a session;
:class:`~ctxlab.summarizers.ExtractiveSummarizer` (``topics=True``) keeps one in its record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import item_kind, item_text
from .corrections import CANCELLED, find_corrections
from .language import language_of
from .topics import SchemaTopics, topic_of
from .values import Value, find_values

#: A customer's reply that takes up what the agent offered.
_ACCEPT = re.compile(r"^\s*(?:yes|yeah|yep|sure|ok(?:ay)?|sounds good|that works|perfect|great|"
                     r"correct|that's right|please do|go ahead|好的?|可以|行|对|嗯|没问题|就这个|"
                     r"就这家|就它)", re.IGNORECASE)
_QUESTION = re.compile(r"[?？]|吗|什么|哪|多少|几|怎么|有没有|推荐|帮我|找|请|"
                       r"\b(?:what|which|where|"
                       r"when|how|is there|are there|can you|could you|do you|does it|tell me|"
                       r"find|recommend|search|look for|looking for|book|reserve|need|want|"
                       r"i'd like)\b",
                       re.IGNORECASE)


_LISTED = re.compile(r"^\s*(?:、|或者|或是|和|及|,|or\b|and\b)|"
                     r"(?:、|或者|或是|和|及|,|\bor|\band)\s*$")


def _offered_once(values: Sequence[Value], text: str) -> list[Value]:
    """An agent's values without its list of options: places it lists side by side ("A、B
    或者C", "A, B or C") are options, and the customer's choice (which the customer then
    names) is what counts; a single recommendation stays."""
    names = [v for v in values if v.kind == "name"]
    if len(names) < 2:
        return list(values)
    listed = {id(v) for v in names if _LISTED.search(text[v.end:v.end + 4])
              or _LISTED.search(text[max(0, v.start - 4):v.start])}
    return [v for v in values if id(v) not in listed]


@dataclass
class Topic:
    """One topic's values: the customer's, the agent's, and superseded ones (old -> new)."""

    name: str
    customer: list[str] = field(default_factory=list)
    agent: list[str] = field(default_factory=list)
    earlier: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)

    def add(self, value: Value, speaker: str) -> None:
        text = value.text.strip()
        self.forget(text)
        (self.customer if speaker == "user" else self.agent).append(text)
        self.kinds[text.casefold()] = value.kind

    def forget(self, text: str) -> None:
        """Drop a value (it moved to another topic, or is said again)."""
        folded = text.casefold()
        self.earlier = {k: v for k, v in self.earlier.items() if k.casefold() != folded}
        for bucket in (self.customer, self.agent):
            bucket[:] = [v for v in bucket if v.casefold() != folded]

    def supersede(self, old: str, new: str) -> None:
        folded = old.casefold()
        if folded == new.casefold():
            return
        for bucket in (self.customer, self.agent):
            bucket[:] = [v for v in bucket if v.casefold() != folded]
        self.earlier[old] = new

    def latest_of(self, kind: str, but: str) -> str | None:
        for text in reversed(self.customer + self.agent):
            if self.kinds.get(text.casefold()) == kind and text.casefold() != but.casefold():
                return text
        return None

    def render(self) -> str:
        parts = []
        if self.customer:
            parts.append("; ".join(self.customer))
        if self.agent:
            parts.append("agent said: " + "; ".join(self.agent))
        line = f"{self.name}: " + " | ".join(parts)
        if self.earlier:
            line += " (earlier: " + "; ".join(self.earlier) + ")"
        return line


class TopicBook:
    """Values per topic (see the module docstring).

    Args:
        ask: keep the agent's values only when the customer asked for or accepted them.
        topics: a :class:`~ctxlab.facts.topics.SchemaTopics` (the user's own schema), or
            None to find topics from the requests themselves.
        known: categorical values of the schema, found whatever their case.
    """

    def __init__(self, *, ask: bool = False, topics: SchemaTopics | None = None,
                 known: Iterable[str] = (), skip: str | tuple[str, ...] | None = None):
        self.ask = ask
        self.skip = skip
        self.schema = topics
        self.known = tuple(known)
        self.reset()

    def reset(self) -> None:
        """Forget everything and read from the beginning again."""
        self.topics: dict[str, Topic] = {}
        self.current: str | None = None
        self._asked = False
        self._pending: list[Value] = []

    def _topic(self) -> Topic:
        name = self.current or "general"
        return self.topics.setdefault(name, Topic(name))

    def _open(self, text: str, language: str) -> None:
        found = self.schema.topic_of(text) if self.schema is not None else None
        found = found or topic_of(text, language)
        if found:
            self.current = found

    def read(self, item: Mapping[str, Any]) -> None:
        """Read one item (user and assistant messages; other items are skipped)."""
        kind = item_kind(item)
        if kind not in ("user", "assistant"):
            return
        text = item_text(item)
        if not text.strip() or (self.skip and text.startswith(self.skip)):
            return
        language = language_of(text)
        values = find_values(text, known=self.known, language=language)
        if kind == "user":
            self._open(text, language)
            if self.ask and self._pending and _ACCEPT.match(text):
                for value in self._pending:
                    self._topic().add(value, "agent")
            self._pending = []
            self._asked = bool(_QUESTION.search(text))
            self._store(text, values, "user")
        elif not self.ask:
            self._store(text, values, "agent")
        elif self._asked:
            self._store(text, _offered_once(values, text), "agent")
        else:
            self._pending = values

    def _store(self, text: str, values: Sequence[Value], speaker: str) -> None:
        topic = self._topic()
        cancelled = [v for v in values if CANCELLED.match(text[v.end:])]
        for value in values:
            if value not in cancelled:
                for other in self.topics.values():  # a value lives where it was said last
                    if other is not topic:
                        other.forget(value.text.strip())
                topic.add(value, speaker)
        for value in cancelled:
            topic.earlier[value.text] = "cancelled"
        for correction in find_corrections(text):
            new = [v for v in values if correction.new[0] <= v.start < correction.new[1]]
            old = [v for v in values if correction.old is not None
                   and correction.old[0] <= v.start < correction.old[1]]
            for value in new[:1]:
                replaced = old[0].text if old else topic.latest_of(value.kind, value.text)
                if replaced is not None:
                    topic.supersede(replaced, value.text)

    def feed(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Read a run of items that continues what was read before."""
        for item in items:
            self.read(item)

    def render(self) -> str:
        """Every topic's line, oldest topic first ("" while nothing is kept)."""
        return "\n".join(t.render() for t in self.topics.values()
                         if t.customer or t.agent or t.earlier)


    def to_dict(self) -> dict[str, Any]:
        """What :meth:`from_dict` needs to continue reading (JSON-ready)."""
        return {"current": self.current, "topics": [
            {"name": t.name, "customer": t.customer, "agent": t.agent, "earlier": t.earlier,
             "kinds": t.kinds} for t in self.topics.values()]}

    def load(self, data: Mapping[str, Any]) -> None:
        """Continue from :meth:`to_dict`'s record (raises KeyError/TypeError if malformed)."""
        self.reset()
        self.current = data["current"]
        for t in data["topics"]:
            self.topics[t["name"]] = Topic(t["name"], list(t["customer"]), list(t["agent"]),
                                           dict(t["earlier"]), dict(t["kinds"]))
