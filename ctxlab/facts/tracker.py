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
from typing import Any

from ..core.items import is_call, is_output, item_kind, item_text, loads_json, pair_key
from ..core.memory_frame import is_memory_block
from . import cues
from .entities import (
    CASE,
    CASE_KINDS,
    CONVERSATION_KINDS,
    CUSTOMER,
    CUSTOMER_KINDS,
    MAX_CALLS,
    MAX_DEVICES,
    MAX_PERIODS,
    MAX_REVISIONS,
    MAX_STATEMENTS,
    MAX_VALUES,
    RECORDS,
    SINGLE_VALUED,
    Entity,
    Period,
    Role,
    Said,
    Slot,
    Status,
    slot_key,
)
from .language import Language, LanguageCount
from .said import StatementBook
from .slots import SlotBook
from .tracker_state import TRACKER_FORMAT, load_state, state_dict
from .typed import ALL_FACT_KINDS, Found, facts_in_text, kinds_for

#: Names of the tracker's record, importable from here as before the split.
__all__ = [
    "CASE", "CASE_KINDS", "CONVERSATION_KINDS", "CUSTOMER", "CUSTOMER_KINDS", "MAX_CALLS",
    "MAX_DEVICES", "MAX_PERIODS", "MAX_REVISIONS", "MAX_STATEMENTS", "MAX_VALUES", "RECORDS",
    "SINGLE_VALUED", "TRACKER_FORMAT", "Entity", "FactTracker", "Period", "Role", "Said",
    "Slot", "Status", "device_noun", "is_update",
]

#: Kinds in the order a text's values are read: what identifies a device first, so that a
#: ticket in the same sentence is filed under the device, not the case.
_READING_ORDER: tuple[str, ...] = (
    "serial", "model", "firmware", "error_code",
    *(k for k in ALL_FACT_KINDS if k not in ("serial", "model", "firmware", "error_code")),
)

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


class FactTracker(SlotBook, StatementBook):
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
            load_state(self, state)

    # -- persistence -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy of the state."""
        return state_dict(self)

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
        if kind == "user" and not is_memory_block(item):
            self.turn += 1
            role = "user"
        elif kind == "assistant":
            role = "assistant"
        elif kind in ("system", "developer", "user"):  # a note, or a memory block
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
        tool = role in ("call", "output")
        data = _json(text) if tool else None
        if role == "user":
            self.letters.add(text)
            self._switch_device(text)
        facts = facts_in_text(text, kinds=self.kinds(text))
        if tool:
            facts = [f for f in facts if f.kind not in CONVERSATION_KINDS]
        subject = self._subject(role, facts, data, call_id)
        self._track_call(role, call_id, subject)
        self._note_model(data, subject)
        self._file_facts(text, role, facts, subject)
        self._statements(text, role)

    def _track_call(self, role: Role, call_id: str | None, subject: str | None) -> None:
        """Remember which entity a pending tool call is about, until its output arrives."""
        if role == "call" and call_id:
            self.calls[call_id] = subject or ""
            while len(self.calls) > MAX_CALLS:
                self.calls.pop(next(iter(self.calls)))
        elif role == "output" and call_id:
            self.calls.pop(call_id, None)

    def _note_model(self, data: Any, subject: str | None) -> None:
        """A tool's record of the device names its model."""
        if isinstance(data, Mapping) and subject in self.entities:
            model = data.get("model")
            if isinstance(model, str) and model.strip():
                self.entities[subject].model = model.strip()

    def _file_facts(self, text: str, role: Role, facts: Sequence[Found],
                    subject: str | None) -> None:
        """File each kind's values under its entity, in :data:`_READING_ORDER`."""
        by_kind: dict[str, list[Found]] = {}
        for fact in facts:
            by_kind.setdefault(fact.kind, []).append(fact)
        tool = role in ("call", "output")
        update = not tool and _UPDATE.search(text) is not None
        correction = role == "user" and _CORRECTION.search(text) is not None
        for kind in (k for k in _READING_ORDER if by_kind.get(k)):
            found = by_kind[kind]
            if kind == "serial":
                self._serials(found, role, subject, correction)
                continue
            entity = self._entity_for(kind, found, role, subject or self.focus)
            self._update(entity, kind, found, role, update=update)
            if kind == "model" and entity in self.entities:
                current = self.slot(entity, kind).current()
                if current:
                    self.entities[entity].model = current[-1]

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

    def _subject(self, role: Role, facts: Sequence[Found], data: Any,
                 call_id: str | None) -> str | None:
        """The device (or entity) this text is about."""
        serials = [f.value for f in facts if f.kind == "serial" and not f.stale]
        if isinstance(data, Mapping) and isinstance(data.get("serial"), str):
            serials.insert(0, data["serial"])
        for value in serials:
            owner = self._owner("serial", value)
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

    def _entity_for(self, kind: str, found: Sequence[Found], role: Role,
                    subject: str | None) -> str:
        if kind in CUSTOMER_KINDS:
            if role in ("call", "output"):
                slot = self.slots.get(slot_key(CUSTOMER, kind))
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
        """File serials: a known serial is mentioned again (its device is the focus); a new
        one replaces a serial the text marks as old, corrects the focus's serial, or goes
        to the device still waiting for one; a marked serial with no successor retires."""
        marked = [f.value for f in found if f.stale]
        for fact in (f for f in found if not f.stale):
            self._serial(fact.value, marked, role, subject, correction)
        for value in marked:
            owner = self._owner("serial", value)
            if owner is not None and not any(not f.stale for f in found):
                self._retire(owner, "serial", value)

    def _serial(self, value: str, marked: Sequence[str], role: Role, subject: str | None,
                correction: bool) -> None:
        owner = self._owner("serial", value)
        if owner is not None:
            self._mention(owner, "serial", value, role)
            return
        old = next((m for m in marked if self._owner("serial", m)), None)
        if old is not None:
            entity = self._owner("serial", old)
            assert entity is not None
            self._replace(entity, "serial", [old], value, role)
            self.focus = entity
            return
        focus = self.entities.get(subject or self.focus or "")
        if focus is not None and focus.kind != "device":
            focus = None
        if (focus is not None and correction and role == "user"
                and self.slot(focus.id, "serial").current()):
            self._replace(focus.id, "serial", self.slot(focus.id, "serial").current(),
                          value, role)
            return
        target = self._serial_target(focus)
        self._add(target, "serial", value, role)
        if role in ("user", "call"):
            self.focus = target

    def _serial_target(self, focus: Entity | None) -> str:
        """The device a new serial belongs to: the focused device if it has none yet, else
        the latest device without one, else a new device."""
        waiting = [e for e in self.devices()
                   if not self.slots.get(slot_key(e.id, "serial"))
                   or not self.slots[slot_key(e.id, "serial")].current()]
        if focus is not None and focus in waiting:
            return focus.id
        if waiting:  # the latest device we have no serial for yet
            return max(waiting, key=lambda e: e.opened).id
        return self._new_entity("device", None)

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
