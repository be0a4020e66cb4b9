"""FactTracker: what a conversation has established, per entity, with every value's history.

A support chat changes its facts: a new email address, a firmware upgrade, a corrected
serial, a ticket merged into another, a second device with its own serial and firmware.
A memory that re-reads its own notes to find out which value is current gets it backwards
sooner or later. :class:`FactTracker` reads the conversation once, item by item, and keeps
a structured record instead:

* **entities**: the customer, each device (a new device noun or serial opens one; "back
  to my laptop" returns to it), the case (tickets, orders, RMAs, reservations when no
  device is involved) and tool records (an email a tool returned that the customer never
  gave);
* **slots** (entity x fact kind) with **periods**: which value was current from which turn
  to which, and what replaced it. Single-valued kinds (email, firmware, serial, and in
  Chinese text phone and model) are replaced by a new value; multi-valued kinds (tickets,
  orders, RMAs, error codes, reservations, dates) gain values unless the statement says it
  replaces one ("merged into", "instead", "now", 改到, or a value marked stale in the same
  sentence);
* **statements**: constraints the customer set and commitments the agent made
  (:mod:`ctxlab.facts.statements`), each with the turn it was said in and what revised it.

Which value a sentence marks as old comes from :mod:`ctxlab.facts.staleness`, so "use
b@x instead of a@x" and "TCK-1 was merged into TCK-2" are read the way a person reads them.

A Chinese conversation (the customer's messages counted so far, :attr:`FactTracker.language`)
and any text with Chinese characters is also read for the kinds ``model`` (a device's model
number), ``phone`` (the customer's) and ``date`` (a visit or callback agreed in
conversation; dates in tool traffic are records such as purchase dates, and are left to
the summary's other identifiers): :meth:`FactTracker.kinds`.

The tracker's state is a JSON-ready dict (:meth:`FactTracker.to_dict`); feeding items in
several batches gives the same state as feeding them at once, so an incremental summary
never has to re-read its own text. Its size is bounded: per slot the newest
:data:`MAX_VALUES` current values and :data:`MAX_PERIODS` periods are kept, per topic the
newest constraint versions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.items import is_call, is_output, item_kind, item_text, loads_json, pair_key
from . import cues
from .language import Language, LanguageCount
from .statements import (
    Statement,
    closest,
    find_commitments,
    find_constraints,
    find_done,
    same_promise,
)
from .typed import ALL_FACT_KINDS, Found, facts_in_text, kinds_for

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

#: Kinds in the order a text's values are read: what identifies a device first, so that a
#: ticket in the same sentence is filed under the device, not the case.
_READING_ORDER: tuple[str, ...] = (
    "serial", "model", "firmware", "error_code",
    *(k for k in ALL_FACT_KINDS if k not in ("serial", "model", "firmware", "error_code")),
)

#: Version of :meth:`FactTracker.to_dict`'s format.
TRACKER_FORMAT = 1

_FLAGS = re.IGNORECASE


def _alt(fragments: Iterable[str]) -> str:
    return "|".join(f"(?:{f})" for f in fragments)


_NOUN = re.compile(
    r"\b(?:(?P<det>my|the|our|this|that|a|an|his|her|their|your)\s+(?:\w+\s+)?)?("
    + _alt(n for n in cues.DEVICE_NOUNS if n.isascii()) + r")\b"
    + r"|(?P<cjk>" + _alt(n for n in cues.DEVICE_NOUNS if not n.isascii()) + ")", _FLAGS)
_AMBIGUOUS = frozenset(cues.AMBIGUOUS_NOUNS)
_NEW_PROBLEM = re.compile(_alt(cues.NEW_PROBLEM), _FLAGS)
_UPDATE = re.compile(cues.words(cues.UPDATE, end=False), _FLAGS)
_CORRECTION = re.compile(cues.words(cues.CORRECTION, end=False), _FLAGS)


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


class FactTracker:
    """Read a conversation item by item and keep its facts per entity (module docstring).

    Args:
        state: a dict from :meth:`to_dict` to continue from (None: an empty record).
    """

    def __init__(self, state: Mapping[str, Any] | None = None):
        self.turn = 0
        self.seq = 0
        self.entities: dict[str, Entity] = {}
        self.slots: dict[str, Slot] = {}
        self.focus: str | None = None
        self.statements: list[Said] = []
        self.calls: dict[str, str] = {}  # call id -> entity the call is about
        self.dropped_devices = 0  # devices no longer kept (the least recently discussed)
        self.letters = LanguageCount()  # of the customer's messages
        if state is not None:
            self._load(state)

    # -- persistence -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy of the state."""
        return {
            "format": TRACKER_FORMAT, "turn": self.turn, "seq": self.seq, "focus": self.focus,
            "entities": [dict(vars(e)) for e in self.entities.values()],
            "slots": [{"entity": s.entity, "kind": s.kind,
                       "periods": [dict(vars(p)) for p in s.periods], "seen": dict(s.seen),
                       "said": dict(s.said), "dropped": s.dropped}
                      for s in self.slots.values()],
            "statements": [dict(vars(s)) for s in self.statements],
            "calls": dict(self.calls), "dropped_devices": self.dropped_devices,
            "letters": [self.letters.cjk, self.letters.latin],
        }

    def _load(self, state: Mapping[str, Any]) -> None:
        if not isinstance(state, Mapping) or int(state.get("format", 0)) != TRACKER_FORMAT:
            raise ValueError("not a FactTracker state (or a format this ctxlab cannot read)")
        self.turn = int(state.get("turn", 0))
        self.seq = int(state.get("seq", 0))
        self.focus = state.get("focus")
        for raw in state.get("entities", ()):
            entity = Entity(**raw)
            self.entities[entity.id] = entity
        for raw in state.get("slots", ()):
            slot = Slot(raw["entity"], raw["kind"],
                        [Period(**p) for p in raw.get("periods", ())],
                        {str(k): int(v) for k, v in raw.get("seen", {}).items()},
                        {str(k): int(v) for k, v in raw.get("said", {}).items()},
                        int(raw.get("dropped", 0)))
            self.slots[_key(slot.entity, slot.kind)] = slot
        self.statements = [Said(**s) for s in state.get("statements", ())]
        self.calls = {str(k): str(v) for k, v in state.get("calls", {}).items()}
        self.dropped_devices = int(state.get("dropped_devices", 0))
        letters = state.get("letters") or (0, 0)
        self.letters = LanguageCount(int(letters[0]), int(letters[1]))

    @property
    def language(self) -> Language:
        """The language of the customer's messages read so far (``"en"`` or ``"zh"``)."""
        return self.letters.language

    def kinds(self, text: str) -> tuple[str, ...]:
        """The fact kinds read in ``text``: every kind in a Chinese conversation or a text
        with Chinese characters (:func:`ctxlab.facts.typed.kinds_for`), else
        :data:`~ctxlab.facts.typed.FACT_KINDS`."""
        return ALL_FACT_KINDS if self.letters.language == "zh" else kinds_for(text)

    def copy(self) -> FactTracker:
        return FactTracker(json.loads(json.dumps(self.to_dict())))

    # -- reading items -----------------------------------------------------------------
    def feed(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Read ``items`` in order (continuing the conversation read so far)."""
        for item in items:
            self.observe(item)

    def observe(self, item: Mapping[str, Any]) -> None:
        """Read one item."""
        kind = item_kind(item)
        role: Role
        if kind == "user":
            self.turn += 1
            role = "user"
        elif kind == "assistant":
            role = "assistant"
        elif kind in ("system", "developer"):
            role = "note"
        elif is_call(item):
            role = "call"
        elif is_output(item):
            role = "output"
        else:
            return
        text = item_text(item)
        if not text:
            return
        self.observe_text(text, role, call_id=_call_id(item))

    def observe_text(self, text: str, role: Role, *, call_id: str | None = None) -> None:
        """Read one text said by ``role`` (``call``/``output`` texts are tool traffic)."""
        data = _json(text) if role in ("call", "output") else None
        if role == "user":
            self.letters.add(text)
            self._switch_device(text)
        facts = facts_in_text(text, kinds=self.kinds(text))
        if role in ("call", "output"):
            facts = [f for f in facts if f.kind not in CONVERSATION_KINDS]
        subject = self._subject(role, facts, data, call_id)
        if role == "call" and call_id:
            self.calls[call_id] = subject or ""
            while len(self.calls) > MAX_CALLS:
                self.calls.pop(next(iter(self.calls)))
        elif role == "output" and call_id:
            self.calls.pop(call_id, None)
        if isinstance(data, Mapping) and subject in self.entities:
            model = data.get("model")
            if isinstance(model, str) and model.strip():
                self.entities[subject].model = model.strip()
        by_kind: dict[str, list[Found]] = {}
        for fact in facts:
            by_kind.setdefault(fact.kind, []).append(fact)
        tool = role in ("call", "output")
        update = not tool and _UPDATE.search(text) is not None
        correction = role == "user" and _CORRECTION.search(text) is not None
        for kind in _READING_ORDER:
            found = by_kind.get(kind)
            if not found:
                continue
            if kind == "serial":
                self._serials(found, role, subject, correction)
                continue
            entity = self._entity_for(kind, found, role, subject or self.focus)
            self._update(entity, kind, found, role, update=update)
            if kind == "model" and entity in self.entities:
                current = self.slot(entity, kind).current()
                if current:
                    self.entities[entity].model = current[-1]
        self._statements(text, role)

    # -- entities ----------------------------------------------------------------------
    def _new_entity(self, kind: str, noun: str | None = None) -> str:
        if kind != "device":
            if kind not in self.entities:
                self.entities[kind] = Entity(kind, kind, opened=self.turn)
            return kind
        number = 1 + sum(1 for e in self.entities.values() if e.kind == "device"
                         and e.noun == noun)
        index = 1 + self.dropped_devices + sum(
            1 for e in self.entities.values() if e.kind == "device")
        entity = Entity(f"device:{index}", "device", noun, number, self.turn, active=self.seq)
        self.entities[entity.id] = entity
        devices = self.devices()
        if len(devices) > MAX_DEVICES:  # forget the device discussed least recently
            gone = min((e for e in devices if e.id not in (self.focus, entity.id)),
                       key=lambda e: e.active)
            del self.entities[gone.id]
            self.slots = {k: v for k, v in self.slots.items() if v.entity != gone.id}
            self.calls = {k: v for k, v in self.calls.items() if v != gone.id}
            self.dropped_devices += 1
        return entity.id

    def devices(self) -> list[Entity]:
        return [e for e in self.entities.values() if e.kind == "device"]

    def _switch_device(self, text: str) -> None:
        noun = device_noun(text)
        if noun is None:
            return
        same = [e for e in self.devices() if e.noun == noun]
        explicit_new = re.search(r"\b(?:second|another|other|new|spare)\s+(?:\w+\s+)?"
                                 + re.escape(noun), text, _FLAGS)
        if same and not explicit_new:
            self.focus = same[-1].id
            same[-1].active = self.seq  # "back to my laptop" keeps it among the kept devices
            return
        focus = self.entities.get(self.focus or "")
        if (focus is not None and focus.noun is None and not _NEW_PROBLEM.search(text)):
            focus.noun = noun  # the device we had facts about now has a name
            return
        self.focus = self._new_entity("device", noun)

    def _serial_owner(self, value: str) -> str | None:
        for slot in self.slots.values():
            if slot.kind == "serial" and slot.is_current(value):
                return slot.entity
        return None

    def _subject(self, role: Role, facts: Sequence[Found], data: Any,
                 call_id: str | None) -> str | None:
        """The device (or entity) this text is about."""
        serials = [f.value for f in facts if f.kind == "serial" and not f.stale]
        if isinstance(data, Mapping) and isinstance(data.get("serial"), str):
            serials.insert(0, data["serial"])
        for value in serials:
            owner = self._serial_owner(value)
            if owner is not None:
                if role in ("user", "call"):
                    self.focus = owner
                return owner
        if role == "output" and call_id and self.calls.get(call_id):
            return self.calls[call_id]
        if role == "call":  # get_ticket_status(TCK-1): about whatever TCK-1 belongs to
            for fact in facts:
                owner = self._owner(fact.kind, fact.value)
                if fact.kind in CASE_KINDS and owner is not None:
                    return owner
        return self.focus

    def _owner(self, kind: str, value: str) -> str | None:
        """The entity ``value`` is a current value of (None: none)."""
        for slot in self.slots.values():
            if slot.kind == kind and slot.is_current(value):
                return slot.entity
        return None

    def _entity_for(self, kind: str, found: Sequence[Found], role: Role,
                    subject: str | None) -> str:
        if kind in CUSTOMER_KINDS:
            if role in ("call", "output"):
                slot = self.slots.get(_key(CUSTOMER, kind))
                if slot is not None and any(slot.ever(f.value) for f in found):
                    return CUSTOMER
                return self._new_entity(RECORDS)
            return self._new_entity(CUSTOMER)
        if kind in CASE_KINDS:
            for fact in found:  # a known ticket stays with its device
                owner = self._owner(kind, fact.value)
                if owner is not None:
                    return owner
            if subject in self.entities and self.entities[subject].kind == "device":
                return subject
            return self._new_entity(CASE)
        # device kinds
        if subject in self.entities and self.entities[subject].kind == "device":
            return subject
        if self.focus is None:
            self.focus = self._new_entity("device", None)
        return self.focus

    def _serials(self, found: Sequence[Found], role: Role, subject: str | None,
                 correction: bool) -> None:
        marked = [f.value for f in found if f.stale]
        for fact in found:
            if fact.stale:
                continue
            value = fact.value
            owner = self._serial_owner(value)
            if owner is not None:
                self._mention(owner, "serial", value, role)
                continue
            old = next((m for m in marked if self._serial_owner(m)), None)
            if old is not None:
                entity = self._serial_owner(old)
                assert entity is not None
                self._replace(entity, "serial", [old], value, role)
                self.focus = entity
                continue
            focus = self.entities.get(subject or self.focus or "")
            target: str
            if (focus is not None and focus.kind == "device" and correction and role == "user"
                    and self.slot(focus.id, "serial").current()):
                self._replace(focus.id, "serial", self.slot(focus.id, "serial").current(),
                              value, role)
                continue
            waiting = [e for e in self.devices()
                       if not self.slots.get(_key(e.id, "serial"))
                       or not self.slots[_key(e.id, "serial")].current()]
            if focus is not None and focus.kind == "device" and focus in waiting:
                target = focus.id
            elif waiting:  # the latest device we have no serial for yet
                target = max(waiting, key=lambda e: e.opened).id
            else:
                target = self._new_entity("device", None)
            self._add(target, "serial", value, role)
            if role in ("user", "call"):
                self.focus = target
        for value in marked:
            owner = self._serial_owner(value)
            if owner is not None and not any(not f.stale for f in found):
                self._retire(owner, "serial", value)

    # -- slots -------------------------------------------------------------------------
    def slot(self, entity: str, kind: str) -> Slot:
        key = _key(entity, kind)
        if key not in self.slots:
            self.slots[key] = Slot(entity, kind)
        return self.slots[key]

    def _mention(self, entity: str, kind: str, value: str, role: Role) -> None:
        slot = self.slot(entity, kind)
        self.seq += 1
        if entity in self.entities:
            self.entities[entity].active = self.seq
        slot.seen[value] = self.seq
        slot.said[value] = self.seq if role not in ("call", "output") else slot.said.get(value, 0)

    def _add(self, entity: str, kind: str, value: str, role: Role) -> None:
        slot = self.slot(entity, kind)
        slot.periods.append(Period(value, self.turn))
        self._mention(entity, kind, value, role)
        self._bound(slot)

    def _replace(self, entity: str, kind: str, old: Sequence[str], value: str,
                 role: Role) -> None:
        slot = self.slot(entity, kind)
        for period in slot.periods:
            if period.until is None and period.value in old:
                period.until, period.by = self.turn, value
        self._add(entity, kind, value, role)

    def _retire(self, entity: str, kind: str, value: str) -> None:
        for period in self.slot(entity, kind).periods:
            if period.until is None and period.value == value:
                period.until = self.turn

    def _update(self, entity: str, kind: str, found: Sequence[Found], role: Role, *,
                update: bool) -> None:
        slot = self.slot(entity, kind)
        marked = [f.value for f in found if f.stale and slot.is_current(f.value)]
        fresh = list(dict.fromkeys(f.value for f in found if not f.stale))
        # A value the text explicitly marks as replaced ("replaces": X, "X was merged
        # into Y") ends wherever it is current, even if it was filed under another entity.
        elsewhere = [(other, f.value) for f in found if f.stale and f.value not in marked
                     for other in self.slots.values()
                     if other.kind == kind and other is not slot and other.is_current(f.value)]
        for other, value in elsewhere:
            for period in other.periods:
                if period.until is None and period.value == value:
                    period.until, period.by = self.turn, (fresh[0] if fresh else None)
        for value in fresh:
            if slot.is_current(value):
                self._mention(entity, kind, value, role)
                continue
            if marked:
                self._replace(entity, kind, [marked.pop(0)], value, role)
            elif slot.current() and (not slot.multi or update) and not elsewhere:
                old = slot.current() if not slot.multi else [
                    max(slot.current(), key=lambda v: slot.seen.get(v, 0))]
                self._replace(entity, kind, old, value, role)
            else:
                self._add(entity, kind, value, role)
        if not fresh:
            for value in marked:
                self._retire(entity, kind, value)

    def _bound(self, slot: Slot) -> None:
        current = [p for p in slot.periods if p.until is None]
        if len(current) > MAX_VALUES:
            for period in sorted(current, key=lambda p: slot.seen.get(p.value, 0))[
                    : len(current) - MAX_VALUES]:
                period.until = self.turn
        ended = [p for p in slot.periods if p.until is not None]
        if len(ended) > MAX_PERIODS:
            drop = {id(p) for p in ended[: len(ended) - MAX_PERIODS]}
            slot.periods = [p for p in slot.periods if id(p) not in drop]
            slot.dropped += len(drop)
        live = {p.value for p in slot.periods}
        for table in (slot.seen, slot.said):
            for value in [v for v in table if v not in live]:
                del table[value]

    # -- statements --------------------------------------------------------------------
    def _statements(self, text: str, role: Role) -> None:
        if role in ("user", "note"):
            for statement in find_constraints(text):
                if not statement.stale:
                    self._say(statement)
        if role in ("assistant", "note"):
            for statement in find_done(text):
                if not statement.stale:
                    for said in self.current_statements("commitment"):
                        if same_promise(said.topic, statement.topic):
                            said.until, said.done = self.turn, True
            for statement in find_commitments(text):
                if not statement.stale:
                    self._say(statement)

    def _say(self, statement: Statement) -> None:
        current = self.current_statements(statement.kind)
        same = [s for s in current if s.text == statement.text]
        if same:
            return
        if statement.kind == "commitment":
            for said in current:
                if said.topic == statement.topic:
                    said.until = self.turn
        elif statement.revises:
            earlier = closest([s for s in current if s.topic == statement.topic],
                              statement.text, lambda s: s.text)
            if earlier is not None:
                earlier.until = self.turn
        self.statements.append(Said(statement.kind, statement.topic, statement.text, self.turn))
        in_force = self.current_statements(statement.kind)
        for old in in_force[: max(0, len(in_force) - MAX_STATEMENTS)]:
            old.until = self.turn
        ended = [s for s in self.statements if s.until is not None and s.topic == statement.topic
                 and s.kind == statement.kind]
        if len(ended) > MAX_REVISIONS:
            gone = {id(s) for s in ended[: len(ended) - MAX_REVISIONS]}
            self.statements = [s for s in self.statements if id(s) not in gone]

    def current_statements(self, kind: str) -> list[Said]:
        """Constraints (``kind="constraint"``) or commitments still in force, in order."""
        return [s for s in self.statements if s.kind == kind and s.until is None]

    def revisions(self, said: Said) -> list[Said]:
        """Earlier versions of a current statement (same kind and topic, ended when it was
        said), newest first."""
        return [s for s in reversed(self.statements)
                if s.kind == said.kind and s.topic == said.topic and s.until == said.turn
                and not s.done and s is not said]

    def replacement(self, said: Said) -> Said | None:
        """The statement in force that replaced an ended one (None: none did)."""
        if said.until is None:
            return None
        later = [s for s in self.current_statements(said.kind)
                 if s.topic == said.topic and s.turn == said.until]
        return closest(later, said.text, lambda s: s.text)

    # -- queries -----------------------------------------------------------------------
    def current(self, kind: str, entity: str | None = None) -> list[str]:
        """Current values of ``kind`` (of one entity, or all), by latest mention."""
        values: list[tuple[int, str]] = []
        for slot in self.slots.values():
            if slot.kind == kind and (entity is None or slot.entity == entity):
                values += [(slot.seen.get(v, 0), v) for v in slot.current()]
        return [v for _, v in sorted(values)]

    def status(self, kind: str, value: str) -> Status | None:
        """Whether ``value`` of ``kind`` is current (None: never seen). A value current in
        any slot counts as current."""
        found: Status | None = None
        for slot in self.slots.values():
            if slot.kind != kind or not slot.ever(value):
                continue
            if slot.is_current(value):
                return Status(kind, value, slot.entity, True)
            last = [p for p in slot.periods if p.value == value][-1]
            found = Status(kind, value, slot.entity, False, self._successors(slot, last),
                           last.until)
        return found

    def _successors(self, slot: Slot, period: Period) -> tuple[str, ...]:
        """The current values that took the place of an ended period: follow what replaced
        it (in any slot of the kind) to a value that is still current; else the slot's
        current values."""
        target, seen = period.by, set()
        while target is not None and target not in seen:
            seen.add(target)
            for other in self.slots.values():
                if other.kind == slot.kind and other.is_current(target):
                    return (target,)
            later = [p for s in self.slots.values() if s.kind == slot.kind
                     for p in s.periods if p.value == target and p.until is not None]
            target = later[-1].by if later else None
        return tuple(slot.current())

    def label(self, entity: str) -> str:
        found = self.entities.get(entity)
        return found.label if found is not None else entity


def is_update(text: str) -> bool:
    """True when a statement says its value replaces an earlier one of the same kind
    ("a new error code instead", "merged into", "from now on"; :data:`cues.UPDATE`)."""
    return _UPDATE.search(text) is not None


def device_noun(text: str) -> str | None:
    """The first device a text names ("my printer" -> "printer"), or None."""
    for match in _NOUN.finditer(text):
        if match.group("cjk"):
            return match.group("cjk")
        noun = " ".join(match.group(2).lower().split())
        if match.group("det") or noun not in _AMBIGUOUS:
            return noun
    return None


def _key(entity: str, kind: str) -> str:
    return f"{entity}|{kind}"


def _call_id(item: Mapping[str, Any]) -> str | None:
    key = pair_key(item)
    return key[1] if key else None


def _json(text: str) -> Any:
    start = text.find("{")
    if start < 0:
        return None
    try:
        return loads_json(text[start:] if start == 0 else text[start:].rstrip(")"))
    except ValueError:
        return None
