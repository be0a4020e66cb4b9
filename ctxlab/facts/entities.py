"""What :class:`~ctxlab.facts.tracker.FactTracker` keeps: entities (the customer, devices,
the case, tool records), slots (entity x fact kind) with the periods each value was current,
constraints and commitments as said, and the bounds that keep the record small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from . import cues

#: Who said a text: the customer, the agent, a system or developer note, or tool traffic.
Role = Literal["user", "assistant", "note", "call", "output"]

CUSTOMER = "customer"
CASE = "case"
RECORDS = "records"

#: Kinds where a new value replaces the current one (per entity).
SINGLE_VALUED = frozenset({"email", "firmware", "serial", "phone", "model"})
#: Kinds that belong to the device being discussed, or to the case when there is none.
CASE_KINDS = frozenset({"ticket", "order", "rma", "reservation", "date"})
#: Kinds that belong to the customer (a tool's value the customer never gave is a record).
CUSTOMER_KINDS = frozenset({"email", "phone"})
#: Kinds read only where they are said in conversation, not in tool traffic.
CONVERSATION_KINDS = frozenset({"date"})

#: Current values kept per multi-valued slot (the newest); older ones are retired.
MAX_VALUES = 24
#: Periods (value histories) kept per slot (the newest).
MAX_PERIODS = 12
#: Earlier versions kept per constraint topic or commitment key.
MAX_REVISIONS = 4
#: Constraints (and, separately, commitments) in force kept (the newest).
MAX_STATEMENTS = 12
#: Devices kept (the most recently discussed; the focus is always kept).
MAX_DEVICES = 6
#: Pending tool calls remembered (the newest).
MAX_CALLS = 64

@dataclass
class Period:
    """``value`` was current from turn ``since`` until turn ``until`` (None: still is),
    when ``by`` replaced it (None: retired without a replacement)."""

    value: str
    since: int
    until: int | None = None
    by: str | None = None


@dataclass
class Slot:
    """One fact kind of one entity: its periods, oldest first, and for every value the
    sequence number of its latest mention presented as current (``seen``) and of its latest
    mention in conversation (``said``; 0: it only came from tools)."""

    entity: str
    kind: str
    periods: list[Period] = field(default_factory=list)
    seen: dict[str, int] = field(default_factory=dict)
    said: dict[str, int] = field(default_factory=dict)
    dropped: int = 0  # periods no longer kept

    @property
    def multi(self) -> bool:
        return self.kind not in SINGLE_VALUED

    def current(self) -> list[str]:
        """Current values, oldest first."""
        return [p.value for p in self.periods if p.until is None]

    def earlier(self) -> list[Period]:
        """Periods that ended, newest first."""
        return [p for p in reversed(self.periods) if p.until is not None]

    def is_current(self, value: str) -> bool:
        return any(p.value == value and p.until is None for p in self.periods)

    def ever(self, value: str) -> bool:
        return any(p.value == value for p in self.periods)


@dataclass
class Entity:
    """Something facts belong to: the customer, a device, the case, tool records."""

    id: str
    kind: str
    noun: str | None = None
    number: int = 1  # among entities with the same noun
    opened: int = 0
    model: str | None = None
    active: int = 0  # sequence number of its latest mention or focus

    @property
    def label(self) -> str:
        return self.label_in("en")

    def label_in(self, language: str) -> str:
        """How a summary in ``language`` (``"en"``, ``"zh"``) names the entity."""
        names = cues.labels(language)
        if self.kind == "device":
            noun = self.noun or names["device"]
            return noun if self.number == 1 else f"{noun} #{self.number}"
        return names.get(self.kind, self.kind)


@dataclass
class Said:
    """A constraint or commitment as said, with the turn it was said in and, once revised
    or done, the turn that ended it."""

    kind: str
    topic: str
    text: str
    turn: int
    until: int | None = None
    done: bool = False


@dataclass(frozen=True)
class Status:
    """What the tracker knows about one value of a kind: whether it is current, and if not,
    what replaced it and when."""

    kind: str
    value: str
    entity: str
    current: bool
    replaced_by: tuple[str, ...] = ()
    since: int | None = None


def slot_key(entity: str, kind: str) -> str:
    """The key of an entity's slot for one fact kind."""
    return f"{entity}|{kind}"
