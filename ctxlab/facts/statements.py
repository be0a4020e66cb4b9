"""Constraints the customer sets and commitments the agent makes, found sentence by sentence.

Identifiers are short values; constraints and commitments are whole sentences that must
survive as written: "Please reach me by email only, never call.", "I'm away until the
14th.", "I'll send the replacement label by Friday." This module finds them with the cues
of :mod:`ctxlab.facts.cues` (one table; another language adds entries there):

* :func:`find_constraints`: sentences that set a constraint or preference, each with a
  *topic* (contact, availability, shipping, data, schedule, billing, other) and whether it
  revises an earlier one ("Change of plans: I'm now away until the 9th");
* :func:`find_commitments`: sentences in which the agent promises to do something, keyed by
  what is promised ("send replacement label"), so a later promise about the same thing
  replaces the earlier one; :func:`find_done` finds the agent saying it was done;
* :func:`current_statements`: which of a sequence of statements still hold.

Sentences inside a region marked stale (:mod:`ctxlab.facts.staleness`), such as a summary's
"(earlier: ...)", are reported with ``stale=True`` and never count as current.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from . import cues
from .staleness import stale_marks

StatementKind = Literal["constraint", "commitment", "done"]
T = TypeVar("T")

_FLAGS = re.IGNORECASE


def _alt(fragments: Iterable[str]) -> str:
    return "|".join(f"(?:{f})" for f in fragments)


_CONSTRAINT = re.compile(_alt(cues.CONSTRAINT), _FLAGS)
_TOPICS = tuple((topic, re.compile(pattern, _FLAGS))
                for topic, pattern in cues.CONSTRAINT_TOPICS)
_REVISION = re.compile(cues.words(cues.REVISION, end=False), _FLAGS)
_COMMITMENT = re.compile(_alt(cues.COMMITMENT), _FLAGS)
_DONE = re.compile(_alt(cues.DONE), _FLAGS)
_DEADLINE = re.compile(cues.words(cues.DEADLINE), _FLAGS)
_FILLER = frozenset(cues.FILLER_WORDS)
# Sentence ends: . ! ? followed by a space or the end (a dot inside "v1.0.3" or "a@x.org"
# is not one), 。！？ (Chinese), or a line break; a bullet dash starts a new one.
_SENTENCE = re.compile(
    r"(?:[^.!?。！？\n]|[.!?](?![.!?]*(?:\s|$)))+(?:[.!?]+(?=\s|$)|[。！？]+|(?=\n)|$)")
_WORD = re.compile(r"[\w'-]+")
_LEAD = re.compile(r"^[\s\-*•>]+")

#: Longest sentence kept (in words); longer ones are cut with an ellipsis.
MAX_WORDS = 40


@dataclass(frozen=True)
class Statement:
    """A constraint, a commitment or a "done" report, as written in a text.

    ``topic`` is a constraint's topic or a commitment's key (what is promised); ``text``
    the sentence (whitespace normalised, at most :data:`MAX_WORDS` words); ``start`` and
    ``end`` its position in the source text; ``revises`` says a constraint revises the
    earlier one on its topic; ``stale`` that the text marks the sentence as no longer
    current; ``turn`` is filled in by callers that know it.
    """

    kind: StatementKind
    topic: str
    text: str
    start: int
    end: int
    revises: bool = False
    stale: bool = False
    turn: int | None = None


def sentences(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, sentence)`` for every sentence or line of ``text``."""
    out = []
    for match in _SENTENCE.finditer(text):
        raw = match.group(0)
        lead = _LEAD.match(raw)
        offset = lead.end() if lead else 0
        body = raw[offset:].strip()
        if body:
            start = match.start() + offset + (len(raw[offset:]) - len(raw[offset:].lstrip()))
            out.append((start, match.end(), body))
    return out


def clip(text: str, words: int = MAX_WORDS) -> str:
    """``text`` on one line, at most ``words`` words."""
    parts = text.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def constraint_topic(sentence: str) -> str:
    """The topic of a constraint sentence (see :data:`ctxlab.facts.cues.CONSTRAINT_TOPICS`)."""
    for topic, pattern in _TOPICS:
        if pattern.search(sentence):
            return topic
    return "other"


def commitment_key(sentence: str) -> str:
    """What a commitment promises, as a few lower-case words ("send replacement label")."""
    match = _COMMITMENT.search(sentence)
    tail = sentence[match.end() - len(match.group(0).split()[-1]):] if match else sentence
    return _object_words(tail)


def _object_words(tail: str) -> str:
    deadline = _DEADLINE.search(tail, 1)
    words = [w.lower() for w in _WORD.findall(tail[: deadline.start()] if deadline else tail)]
    kept = [w for w in words if w not in _FILLER]
    return " ".join(kept[:4])


def _statements(text: str, kind: StatementKind, pattern: re.Pattern[str]) -> list[Statement]:
    found = []
    marks = None
    for start, end, sentence in sentences(text):
        if sentence.endswith("?") or not pattern.search(sentence):
            continue
        if marks is None:
            marks = stale_marks(text)
        stale = marks.covers((start + end) // 2)  # mostly inside a region marked stale
        if kind == "constraint":
            topic = constraint_topic(sentence)
            revises = _REVISION.search(sentence) is not None
        elif kind == "commitment":
            topic, revises = commitment_key(sentence), False
        else:
            match = pattern.search(sentence)
            assert match is not None
            topic, revises = _object_words(sentence[match.end():]), False
        found.append(Statement(kind, topic, clip(sentence), start, end, revises, stale))
    return found


def find_constraints(text: str) -> list[Statement]:
    """Sentences of ``text`` that set a constraint or preference (questions excluded)."""
    return _statements(text, "constraint", _CONSTRAINT)


def find_commitments(text: str) -> list[Statement]:
    """Sentences of ``text`` in which the speaker commits to doing something."""
    return _statements(text, "commitment", _COMMITMENT)


def find_done(text: str) -> list[Statement]:
    """Sentences of ``text`` saying something was done ("I've sent the label")."""
    return _statements(text, "done", _DONE)


def as_statement(kind: StatementKind, text: str) -> Statement | None:
    """One sentence (say, from a model's structured output) as a statement of ``kind``: its
    topic or key and whether it revises, computed as for sentences found in a text even
    when no cue matched (None for an empty text)."""
    sentence = " ".join(text.split())
    if not sentence:
        return None
    if kind == "constraint":
        found = find_constraints(sentence)
        if found:
            return found[0]
        return Statement(kind, constraint_topic(sentence), clip(sentence), 0, len(sentence),
                         _REVISION.search(sentence) is not None)
    if kind == "commitment":
        found = find_commitments(sentence)
        if found:
            return found[0]
        return Statement(kind, _object_words(sentence), clip(sentence), 0, len(sentence))
    found = find_done(sentence)
    if found:
        return found[0]
    return Statement(kind, _object_words(sentence), clip(sentence), 0, len(sentence))


def same_promise(key: str, done: str) -> bool:
    """True when a "done" report's object words cover a commitment's key."""
    a, b = set(key.split()), set(done.split())
    if not a or not b:
        return False
    nouns_a = a - {key.split()[0]} or a
    return nouns_a <= b or b <= a


def closest(candidates: Sequence[T], text: str, key: Callable[[T], str]) -> T | None:
    """The candidate whose sentence shares the most words with ``text`` (the latest on a
    tie): what a revision on the same topic replaces ("ship to Leeds instead of Porto"
    replaces the Porto constraint, not the PO box one)."""
    words = set(_WORD.findall(text.lower()))
    best: T | None = None
    score = -1
    for candidate in candidates:
        shared = len(words & set(_WORD.findall(key(candidate).lower())))
        if shared >= score:
            best, score = candidate, shared
    return best


def current_statements(statements: Sequence[Statement]) -> list[Statement]:
    """Which statements still hold, in order (stale-marked ones never do).

    A constraint that revises (``revises``) replaces the latest current constraint on its
    topic; otherwise it is added (a repeat of the same text refreshes it). A commitment
    replaces the current commitment with the same key; a "done" report marks matching
    commitments as done (they are dropped).
    """
    current: list[Statement] = []
    for statement in statements:
        if statement.stale:
            continue
        if statement.kind == "done":
            current = [s for s in current
                       if not (s.kind == "commitment" and same_promise(s.topic, statement.topic))]
            continue
        current = _without_replaced(current, statement)
        current.append(statement)
    return current


def _without_replaced(current: list[Statement], statement: Statement) -> list[Statement]:
    """``current`` without what ``statement`` replaces: the same text (refreshed), the
    commitment with its key, or the closest current constraint on its topic it revises."""
    if any(s.text == statement.text for s in current):
        return [s for s in current if s.text != statement.text]
    if statement.kind == "commitment":
        return [s for s in current if not (s.kind == "commitment" and s.topic == statement.topic)]
    if statement.revises:
        earlier = [s for s in current if s.kind == "constraint" and s.topic == statement.topic]
        replaced = closest(earlier, statement.text, lambda s: s.text)
        if replaced is not None:
            current.remove(replaced)
    return current
