"""Session notes and durable notes: what the customer asked to be remembered, and for how long.

A customer says things meant for one conversation ("ship it to the hotel, this time only",
"只是这次寄到酒店") and things meant to last ("from now on, email only", "以后都寄到公司").
Long-term memory keeps them apart:

* a **session note** is captured during a conversation (by the agent's ``save_memory`` tool
  or by the application) and lives in that session's list until the session ends;
* a **durable note** outlives the session: at session end, :func:`rule_proposal` (or an
  LLM consolidator) proposes the new durable set, and :mod:`ctxlab.longterm.consolidation`
  checks it before anything is written.

The scope of a note comes from the customer's words (:func:`note_scope`): a session-only
cue (:data:`ctxlab.facts.cues.SESSION_ONLY`) keeps it in the session, otherwise it is meant
to last. Precedence (:func:`in_force`): within a session, its own notes override durable
notes on the same topic ("this time the hotel" beats "usually home"); among durable notes,
a newer one replaces an older one on its topic. Topics are the constraint topics of
:func:`ctxlab.facts.statements.constraint_topic` (contact, shipping, schedule, ...); a note
on no known topic ("other") never overrides another.

Times are ISO dates (``2026-03-02`` or ``2026-03-02T10:00``): decay
(:mod:`ctxlab.longterm.decay`) computes ages from them.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..facts.cues import LASTING, SESSION_ONLY, words
from ..facts.instructions import looks_like_instruction
from ..facts.statements import constraint_topic

#: The record key a user's notes are kept under (beside long-term memory's record).
NOTEBOOK_KEY = "notebook"
#: The most characters a note may have (a note is one fact, not a transcript).
MAX_NOTE_CHARS = 300
#: A topic that never overrides another note.
NO_TOPIC = "other"

Scope = Literal["session", "durable"]

_SESSION_ONLY = re.compile(words(SESSION_ONLY), re.IGNORECASE)
_LASTING = re.compile(words(LASTING), re.IGNORECASE)


def is_session_only(text: str) -> bool:
    """True when ``text`` says it is meant for this conversation only."""
    return _SESSION_ONLY.search(text) is not None


def states_lasting(text: str) -> bool:
    """True when ``text`` says it is meant to last ("from now on", "以后都")."""
    return _LASTING.search(text) is not None and not is_session_only(text)


def note_scope(text: str) -> Scope:
    """``"session"`` when the words say "this time only", else ``"durable"``."""
    return "session" if is_session_only(text) else "durable"


def parse_time(value: str) -> datetime.datetime:
    """An ISO date or date-time as an aware UTC datetime (ValueError naming the value's
    form otherwise)."""
    try:
        moment = datetime.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError("a note's time must be an ISO date such as 2026-03-02 or "
                         f"2026-03-02T10:00, got a {type(value).__name__} of "
                         f"{len(str(value))} characters") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment


def now_iso() -> str:
    """Now, UTC, to the minute (the default clock)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M")


class MemoryNote(BaseModel):
    """One note: its text, topic, scope, where and when it was said, and how often it was
    used since (reinforcement, :mod:`ctxlab.longterm.decay`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    text: str = Field(min_length=1, max_length=MAX_NOTE_CHARS)
    topic: str = NO_TOPIC
    scope: Scope
    session: str
    at: str
    uses: int = Field(default=0, ge=0)
    last_used: str | None = None
    #: The words read like an instruction to the assistant (flagged at capture and again at
    #: consolidation: :mod:`ctxlab.facts.instructions`); kept, and shown marked.
    flagged: bool = False

    @field_validator("at", "last_used")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            parse_time(value)
        return value

    @property
    def lasting(self) -> bool:
        """True when the customer said it is meant to last ("from now on")."""
        return states_lasting(self.text)


def note_id(session_id: str, text: str) -> str:
    """A note's id: stable for the same text said in the same session."""
    digest = hashlib.sha256(f"{session_id}\n{text}".encode()).hexdigest()[:12]
    return f"n-{digest}"


def make_note(text: str, *, session_id: str, at: str, topic: str | None = None,
              scope: Scope | None = None) -> MemoryNote:
    """A note for ``text`` said in ``session_id`` at ``at`` (scope and topic from the words
    unless given)."""
    if not isinstance(text, str):
        raise TypeError(f"a note's text must be a str, got {type(text).__name__}")
    clean = " ".join(text.split())
    if not clean:
        raise ValueError("a note needs some text; got an empty one")
    if len(clean) > MAX_NOTE_CHARS:
        raise ValueError(f"a note holds one fact of at most {MAX_NOTE_CHARS} characters, got "
                         f"{len(clean)}; save the facts one by one")
    if scope is not None and scope not in ("session", "durable"):
        raise ValueError(f"scope must be 'session', 'durable' or None, got {scope!r}")
    return MemoryNote(id=note_id(session_id, clean), text=clean,
                      topic=topic or constraint_topic(clean), scope=scope or note_scope(clean),
                      session=session_id, at=at, flagged=looks_like_instruction(clean))


class NoteBook(BaseModel):
    """One user's notes: the durable set and, per open session, its session notes."""

    model_config = ConfigDict(extra="forbid")

    user_id: str
    durable: list[MemoryNote] = Field(default_factory=list)
    sessions: dict[str, list[MemoryNote]] = Field(default_factory=dict)

    def session_notes(self, session_id: str) -> list[MemoryNote]:
        return list(self.sessions.get(session_id, ()))

    def all_notes(self) -> list[MemoryNote]:
        return [*self.durable, *(n for notes in self.sessions.values() for n in notes)]

    def with_note(self, note: MemoryNote) -> NoteBook:
        """A copy with ``note`` added to its session (a note already there is kept once)."""
        new = self.model_copy(deep=True)
        notes = new.sessions.setdefault(note.session, [])
        if all(n.id != note.id for n in notes):
            notes.append(note)
        return new


@dataclass(frozen=True)
class InForce:
    """What holds in one session, by precedence: the session's own notes, then the durable
    notes it does not override; ``set_aside``: durable notes a session note overrides for
    now (kept in the store, shown as "usually")."""

    session: tuple[MemoryNote, ...] = ()
    durable: tuple[MemoryNote, ...] = ()
    set_aside: tuple[MemoryNote, ...] = ()

    def notes(self) -> list[MemoryNote]:
        return [*self.session, *self.durable]

    def __bool__(self) -> bool:
        return bool(self.session or self.durable)


def latest_per_topic(notes: Sequence[MemoryNote]) -> list[MemoryNote]:
    """``notes`` with, per topic, only the last one (notes on no topic all kept; a repeated
    text kept once, at its last place)."""
    kept: list[MemoryNote] = []
    for note in notes:
        kept = [k for k in kept if k.text != note.text
                and (note.topic == NO_TOPIC or k.topic != note.topic)]
        kept.append(note)
    return kept


def in_force(book: NoteBook, session_id: str | None) -> InForce:
    """The notes in force in ``session_id`` (None: durable notes only), by precedence."""
    mine = latest_per_topic(book.session_notes(session_id)) if session_id else []
    covered = {n.topic for n in mine if n.topic != NO_TOPIC}
    durable = latest_per_topic(book.durable)
    return InForce(tuple(mine), tuple(n for n in durable if n.topic not in covered),
                   tuple(n for n in durable if n.topic in covered))


def rule_proposal(durable: Sequence[MemoryNote], session: Sequence[MemoryNote]
                  ) -> dict[str, list[dict[str, str]]]:
    """The offline consolidator: the new durable set as a consolidator's JSON answer.

    Session-only notes are left out; a durable note replaces older ones on its topic (and
    the same text); everything else is kept. ``{"durable": [{"id": ..., "text": ...}]}``.
    """
    promoted = [n for n in session if n.scope == "durable"]
    merged = latest_per_topic([*durable, *promoted])
    return {"durable": [{"id": n.id, "text": n.text} for n in merged]}


__all__ = [
    "NOTEBOOK_KEY",
    "InForce",
    "MemoryNote",
    "NoteBook",
    "Scope",
    "in_force",
    "is_session_only",
    "latest_per_topic",
    "make_note",
    "note_scope",
    "now_iso",
    "parse_time",
    "rule_proposal",
    "states_lasting",
]
