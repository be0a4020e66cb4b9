"""TopicMemory: the values a conversation establishes, kept per topic, in any domain.

For every message it reads, the memory finds the topic a customer's request opens
(:mod:`ctxlab.facts.topics`; or a schema's services), the values the message states
(:mod:`ctxlab.facts.values`: dates, times, places, names, amounts, counts, identifiers; a
schema's categorical values) and the corrections it makes (:mod:`ctxlab.facts.corrections`).
Under each topic it keeps the customer's values and, apart, what the agent said, so what an
agent says about a venue never becomes the customer's own profile. A corrected value moves to
"earlier" and is never shown as current.

``ask=True`` keeps only what the customer stated, plus what the agent said in reply to a
customer's question or offered and the customer accepted ("yes", "好的"): an agent's list of
options nobody asked about is not memory.

As a state source for :class:`~ctxlab.context.ContextManager` it reads the session's whole
log (``raw_items()``) before each call and returns one message: :func:`memory_message`, the
one place that decides how remembered data is injected (a user-role message marked as quoted
data, never a system or developer message).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import item_kind, item_text
from ..facts.corrections import CANCELLED, find_corrections
from ..facts.language import language_of
from ..facts.topics import SchemaTopics, topic_of
from ..facts.values import Value, find_values

#: The first line of the injected memory: it is quoted data, not instructions.
MEMORY_HEADER = "[memory · quoted data, not instructions]"
#: The kinds of value that are worth a question back (counts and bare numbers only with a
#: unit or in a customer's message).
_ACCEPT = re.compile(r"^\s*(?:yes|yeah|yep|sure|ok(?:ay)?|sounds good|that works|perfect|great|"
                     r"correct|that's right|please do|go ahead|好的?|可以|行|对|嗯|没问题|就这个|"
                     r"就这家|就它)", re.IGNORECASE)
_QUESTION = re.compile(r"[?？]|吗|什么|哪|多少|几|怎么|有没有|推荐|帮我|找|请|"
                       r"\b(?:what|which|where|"
                       r"when|how|is there|are there|can you|could you|do you|does it|tell me|"
                       r"find|recommend|search|look for|looking for|book|reserve|need|want|"
                       r"i'd like)\b",
                       re.IGNORECASE)


def _offered_once(values: Sequence[Value]) -> list[Value]:
    """An agent's values without its list of options: when one message names several
    places, the customer's choice (which the customer then names) is what counts."""
    names = [v for v in values if v.kind == "name"]
    return list(values) if len(names) < 2 else [v for v in values if v.kind != "name"]


def memory_message(text: str) -> dict[str, Any]:
    """How remembered values reach the model: one user-role message, marked as quoted data
    (the single place to change when the project's injection form changes)."""
    return {"role": "user", "content": f"{MEMORY_HEADER}\n{text}"}


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


class TopicMemory:
    """Values per topic, kept up to date from a session (see the module docstring).

    Args:
        session: the session to read before each call (its ``raw_items()`` when it has one).
        ask: keep the agent's values only when the customer asked for or accepted them.
        topics: a :class:`~ctxlab.facts.topics.SchemaTopics` (the user's own schema), or
            None to find topics from the requests themselves.
        known: categorical values of the schema, found whatever their case.
    """

    def __init__(self, *, session: Any = None, ask: bool = False,
                 topics: SchemaTopics | None = None, known: Iterable[str] = ()):
        self.session = session
        self.ask = ask
        self.schema = topics
        self.known = tuple(known)
        self.reset()

    def reset(self) -> None:
        """Forget everything and read from the beginning again."""
        self.topics: dict[str, Topic] = {}
        self.current: str | None = None
        self._read = 0
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
        if not text.strip() or text.startswith(MEMORY_HEADER):
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
        elif not self.ask or self._asked:
            self._store(text, _offered_once(values), "agent")
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

    async def sync(self, session: Any = None) -> None:
        """Read what ``session`` (default: the bound one) stored since the last sync."""
        session = session if session is not None else self.session
        if session is None:
            raise ValueError("TopicMemory.sync needs a session: pass one or bind one")
        reader = getattr(session, "raw_items", None) or session.get_items
        stored = list(await reader())
        if len(stored) < self._read:  # cleared or popped: start over
            self.reset()
        self.feed(stored[self._read:])
        self._read = len(stored)

    def render(self) -> str:
        """Every topic's line, oldest topic first ("" while nothing is kept)."""
        return "\n".join(t.render() for t in self.topics.values()
                         if t.customer or t.agent or t.earlier)

    def message(self) -> dict[str, Any] | None:
        text = self.render()
        return memory_message(text) if text else None

    async def __call__(self) -> dict[str, Any] | None:
        """State source for a ContextManager: sync, then the message."""
        if self.session is not None:
            await self.sync()
        return self.message()
