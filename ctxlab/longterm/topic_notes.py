"""Long-term memory of a customer's topics (services, domains), read with a schema.

A customer who booked a table on Monday and a rental car on Wednesday asks three days later
"What was the drop-off date of my rental car?" or "上次那家酒店的电话是多少？". The profile
and the device cases do not hold that, and a note search over single sentences finds the
question's words ("rental car") more often than the value's sentence ("I'll return it on
the 9th"). So each session is split into its topics by the schema
(:func:`~ctxlab.handoffs.split_issues` with ``schema=``), and each topic is kept whole: its
sentences, each labelled with who said it (``customer:`` / ``agent:``: what the agent read
out about a hotel is the hotel's, not the customer's), with the session and time.

Recall finds the topic a question is about, by text only:

1. the services the question names (the schema's cue words: "rental car", 酒店), the
   latest topic of that service, then the latest ones that name the asked slot (电话,
   "dropoff date"), then the others (later values win);
2. else the slot words it names ("drop-off date", 电话): the latest topic whose service has
   that slot;
3. else the topic whose sentences share most words with the question (BM25; or by meaning
   with a dense index, :class:`~ctxlab.memory.DenseIndex`, when one is given).

Within the topic, the sentences that name the asked slot come first; the whole topic is
shown (a topic is a few turns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.items import item_text
from ..memory.fts import Doc, FTS5Index
from .record import TopicNote

Item = Mapping[str, Any]

#: At most this many topics are kept per user (the oldest go first).
MAX_TOPICS = 60
#: At most this many sentences per topic (the last ones kept).
MAX_TOPIC_LINES = 24

_LABELS = {"en": ("customer: ", "agent: "), "zh": ("客户：", "客服：")}


def topic_notes_of(items: Sequence[Item], schema: Any, *, session_id: str, at: str,
                   language: str = "en") -> list[TopicNote]:
    """The session's topics, each with its sentences labelled by speaker."""
    from ..handoffs import split_issues

    split = split_issues(items, schema=schema)
    you, agent = _LABELS["zh" if language == "zh" else "en"]
    notes = []
    for issue in split.issues:
        lines = []
        for item in split.turn_items(issue.turns):
            text = " ".join(item_text(item).split())
            if not text or item.get("type", "message") != "message":
                continue
            lines.append((you if item.get("role") == "user" else agent) + text)
        if lines:
            notes.append(TopicNote(topic=issue.subject, lines=lines[-MAX_TOPIC_LINES:],
                                   session=session_id, at=at))
    return notes


def find_topics(topics: Sequence[TopicNote], query: str, schema: Any, *, k: int = 1,
                dense: Any = None) -> list[TopicNote]:
    """The ``k`` topics ``query`` asks about (see the module docstring), latest first."""
    from ..handoffs.services import service_schema

    if not topics or not query.strip() or k < 1:
        return []
    schema = service_schema(schema)
    wanted = _services_asked(schema, query)
    hits = [t for t in reversed(topics) if t.topic in wanted]
    if hits:  # the latest topic, then the latest that name the asked slot ("电话")
        asked = [slot for s in wanted for slot in schema.slots_in(query, s)]
        named = [t for t in hits if any(_names(t, slot) for slot in asked)]
        return list({id(t): t for t in [hits[0], *named, *hits]}.values())[:k]
    return _by_text(topics, query, k, dense)


def _services_asked(schema: Any, query: str) -> set[str]:
    """The services a question names, else those whose slots it names most."""
    named = schema.scores(query) or schema.slot_scores(query)
    top = max(named.values(), default=0.0)
    return {s for s, v in named.items() if v == top and v > 0}


def _names(note: TopicNote, slot: str) -> bool:
    words = slot.split() if slot.isascii() else [slot]
    text = " ".join(note.lines).lower()
    return all(w in text for w in words)


def _by_text(topics: Sequence[TopicNote], query: str, k: int, dense: Any) -> list[TopicNote]:
    docs = [Doc(str(n), n, " ".join(t.lines)) for n, t in enumerate(topics)]
    if dense is not None:  # a model name ("multilingual") or an encoder object
        from ..memory.dense import DenseIndex

        index_by_meaning = DenseIndex(dense)
        index_by_meaning.add(docs)
        hits = index_by_meaning.search(query, k=k)
    else:
        index = FTS5Index()
        try:
            index.add(docs)
            hits = index.search(query, k=k, min_score=0.0)
        finally:
            index.close()
    return [topics[int(doc.key)] for doc, _score in hits]


def slot_first(note: TopicNote, query: str, schema: Any) -> list[str]:
    """The topic's sentences, those that name a slot word of the question first."""
    from ..handoffs.services import service_schema

    schema = service_schema(schema)
    try:
        asked = schema.slots_in(query, note.topic)
    except KeyError:
        asked = []
    words = {w for slot in asked for w in slot.split()}
    first = [line for line in note.lines if any(w in line.lower() for w in words)]
    return first + [line for line in note.lines if line not in first]


def render_topics(notes: Sequence[TopicNote], query: str, schema: Any,
                  language: str = "en") -> str:
    """The recalled topics under a heading ("" when there are none)."""
    if not notes:
        return ""
    zh = language == "zh"
    lines = ["该客户此前办理的相关事项（按时间，最新的在前）：" if zh
             else "Earlier, on this topic (latest first; later values win):"]
    for note in notes:
        lines.append(f"[{note.topic}（{note.at}）]" if zh else f"[{note.topic} ({note.at})]")
        lines += [f"- {line}" for line in slot_first(note, query, schema)]
    return "\n".join(lines)
