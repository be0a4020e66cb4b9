"""The slots of :class:`~ctxlab.facts.tracker.FactTracker`: values per entity and fact
kind, the periods each was current, mentions, and the bounds that keep them small."""

from __future__ import annotations

from collections.abc import Sequence

from .entities import MAX_PERIODS, MAX_VALUES, Entity, Period, Role, Slot, Status, slot_key
from .typed import Found


class SlotBook:
    """Values per (entity, kind) with their history; the tracker's reading decides which
    entity a value is filed under, this part how the slot changes."""

    turn: int
    seq: int
    entities: dict[str, Entity]
    slots: dict[str, Slot]

    def slot(self, entity: str, kind: str) -> Slot:
        key = slot_key(entity, kind)
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
        """File the values of one kind found in a text under ``entity``: a value marked
        stale is retired or replaced by a fresh one; a fresh value of a single-valued kind
        (or any kind, when the text says it is an ``update``) replaces the current one."""
        slot = self.slot(entity, kind)
        marked = [f.value for f in found if f.stale and slot.is_current(f.value)]
        fresh = list(dict.fromkeys(f.value for f in found if not f.stale))
        elsewhere = self._end_elsewhere(slot, found, marked, fresh[0] if fresh else None)
        for value in fresh:
            self._take(slot, value, marked, role, replace=update and not elsewhere)
        if not fresh:
            for value in marked:
                self._retire(entity, kind, value)

    def _end_elsewhere(self, slot: Slot, found: Sequence[Found], marked: Sequence[str],
                       by: str | None) -> bool:
        """A value the text explicitly marks as replaced ("replaces": X, "X was merged
        into Y") ends wherever it is current, even if it was filed under another entity.
        True when one did."""
        elsewhere = [(other, f.value) for f in found if f.stale and f.value not in marked
                     for other in self.slots.values()
                     if other.kind == slot.kind and other is not slot
                     and other.is_current(f.value)]
        for other, value in elsewhere:
            for period in other.periods:
                if period.until is None and period.value == value:
                    period.until, period.by = self.turn, by
        return bool(elsewhere)

    def _take(self, slot: Slot, value: str, marked: list[str], role: Role, *,
              replace: bool) -> None:
        """One fresh value: mentioned again, replacing a marked one, replacing the current
        one (single-valued, or ``replace``: the newest mention of a multi-valued kind), or
        added."""
        entity, kind = slot.entity, slot.kind
        if slot.is_current(value):
            self._mention(entity, kind, value, role)
        elif marked:
            self._replace(entity, kind, [marked.pop(0)], value, role)
        elif slot.current() and (not slot.multi or replace):
            old = slot.current() if not slot.multi else [
                max(slot.current(), key=lambda v: slot.seen.get(v, 0))]
            self._replace(entity, kind, old, value, role)
        else:
            self._add(entity, kind, value, role)

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

    # -- queries -----------------------------------------------------------------------
    def _owner(self, kind: str, value: str) -> str | None:
        """The entity ``value`` is a current value of (None: none)."""
        for slot in self.slots.values():
            if slot.kind == kind and slot.is_current(value):
                return slot.entity
        return None

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
