"""A :class:`~ctxlab.facts.tracker.FactTracker`'s state as a JSON-ready dict, and back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .entities import Entity, Period, Said, Slot, slot_key
from .language import LanguageCount

if TYPE_CHECKING:
    from .tracker import FactTracker

#: Version of :meth:`FactTracker.to_dict`'s format.
TRACKER_FORMAT = 1


def state_dict(tracker: FactTracker) -> dict[str, Any]:
    """A JSON-ready copy of ``tracker``'s state (:meth:`FactTracker.to_dict`)."""
    return {
        "format": TRACKER_FORMAT, "turn": tracker.turn, "seq": tracker.seq, "focus": tracker.focus,
        "entities": [dict(vars(e)) for e in tracker.entities.values()],
        "slots": [{"entity": s.entity, "kind": s.kind,
                   "periods": [dict(vars(p)) for p in s.periods], "seen": dict(s.seen),
                   "said": dict(s.said), "dropped": s.dropped}
                  for s in tracker.slots.values()],
        "statements": [dict(vars(s)) for s in tracker.statements],
        "calls": dict(tracker.calls), "dropped_devices": tracker.dropped_devices,
        "letters": [tracker.letters.cjk, tracker.letters.latin],
    }


def load_state(tracker: FactTracker, state: Mapping[str, Any]) -> None:
    """Fill a new ``tracker`` from a :func:`state_dict` (ValueError for anything else)."""
    if not isinstance(state, Mapping) or int(state.get("format", 0)) != TRACKER_FORMAT:
        raise ValueError("not a FactTracker state (or a format this ctxlab cannot read)")
    tracker.turn = int(state.get("turn", 0))
    tracker.seq = int(state.get("seq", 0))
    tracker.focus = state.get("focus")
    for raw in state.get("entities", ()):
        entity = Entity(**raw)
        tracker.entities[entity.id] = entity
    for raw in state.get("slots", ()):
        slot = Slot(raw["entity"], raw["kind"],
                    [Period(**p) for p in raw.get("periods", ())],
                    {str(k): int(v) for k, v in raw.get("seen", {}).items()},
                    {str(k): int(v) for k, v in raw.get("said", {}).items()},
                    int(raw.get("dropped", 0)))
        tracker.slots[slot_key(slot.entity, slot.kind)] = slot
    tracker.statements = [Said(**s) for s in state.get("statements", ())]
    tracker.calls = {str(k): str(v) for k, v in state.get("calls", {}).items()}
    tracker.dropped_devices = int(state.get("dropped_devices", 0))
    letters = state.get("letters") or (0, 0)
    tracker.letters = LanguageCount(int(letters[0]), int(letters[1]))
