"""What long-term memory keeps about one user, across sessions.

A :class:`UserMemory` is the user's record in the long-term store, separate from any
session log:

* ``profile``: who they are (name, email, phone, member level), the latest value wins;
* ``preferences``: the constraints they set that are still in force ("email only, never
  call", "ship to the Leeds office"), each with the session and time it was said; a revision
  replaces the earlier preference on its topic;
* ``commitments``: promises the agent made and has not kept yet ("I'll send the label by
  Friday"); a later session that reports one done removes it;
* ``cases``: the devices and cases of earlier sessions (model, serial, ticket, RMA, order,
  error codes, status), one per serial (or ticket);
* ``topics``: with a schema, each session's topics (services, domains) whole, each
  sentence labelled with who said it;
* ``notes``: what the customer said, sentence by sentence, for retrieval of the long tail
  ("I dropped it off at the FixIt shop on Park Row"), with session and time;
* ``sessions``: which sessions were written, when, and how many turns they had.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field

from ..facts.language import Language
from ..memory.state import UserProfile

#: The record key long-term memory keeps a user's memory under.
MEMORY_KEY = "long-term"
#: At most this many notes are kept per user (the oldest go first).
MAX_NOTES = 400


class Remembered(BaseModel):
    """A preference or commitment: its topic, the sentence, and where it was said."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    text: str
    session: str
    at: str


class Case(BaseModel):
    """A device or case from an earlier session."""

    model_config = ConfigDict(extra="forbid")

    category: str | None = None
    device_model: str | None = None
    serial: str | None = None
    ticket_id: str | None = None
    rma: str | None = None
    order_id: str | None = None
    error_codes: list[str] = Field(default_factory=list)
    firmware: str | None = None
    status: str | None = None
    session: str
    at: str

    def identity(self) -> str | None:
        """What makes two cases the same one: the serial, else the ticket, else the order."""
        return self.serial or self.ticket_id or self.order_id or self.rma


class Note(BaseModel):
    """A sentence the customer said, kept for retrieval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    session: str
    at: str
    turn: int | None = None
    #: The words read like an instruction to the assistant (flagged at capture:
    #: :mod:`ctxlab.facts.instructions`); kept, and shown marked.
    flagged: bool = False

    @property
    def key(self) -> str:
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:12]
        return f"{self.session}:{self.turn}:{digest}"


class TopicNote(BaseModel):
    """One topic of a session (a service, a domain: ``Restaurants``, ``酒店``) with its
    sentences, each labelled with who said it (:mod:`ctxlab.longterm.topic_notes`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    topic: str
    lines: list[str]
    session: str
    at: str


class SessionEntry(BaseModel):
    """A session that was written to long-term memory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    session: str
    at: str
    turns: int


class UserMemory(BaseModel):
    """One user's long-term memory (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    user_id: str
    profile: UserProfile = Field(default_factory=UserProfile)
    preferences: list[Remembered] = Field(default_factory=list)
    commitments: list[Remembered] = Field(default_factory=list)
    cases: list[Case] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)
    topics: list[TopicNote] = Field(default_factory=list)
    sessions: list[SessionEntry] = Field(default_factory=list)
    language: Language = "en"

    def is_empty(self) -> bool:
        profile = any(getattr(self.profile, f) for f in UserProfile.model_fields)
        return not (profile or self.preferences or self.commitments or self.cases
                    or self.notes)

    def session_ids(self) -> list[str]:
        return [s.session for s in self.sessions]
