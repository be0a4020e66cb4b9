"""From a policy's window to what the model sees, and the ledger that explains it.

:func:`build_view` makes a :class:`~ctxlab.policies.base.Window` valid for the API: items
the Responses API would reject are taken out (an output whose call is not in the view, a call
whose output is not, a reasoning item without its follower) and the caller's item ``limit``
is applied at a position that splits no such pair. :func:`build_ledger` then records the fate
of every stored item, so ``get_items`` and ``ledger`` always agree. Both are pure functions
of the log and the window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.items import clone, item_text, model_safe
from ..core.ledger import DROPPED, KEPT, PENDING, ItemState, Ledger, LedgerEntry
from ..core.rawlog import RawLog
from ..core.validate import REPAIR_REASONS, safe_cut
from ..policies.base import Slot, Synthetic, Window

AWAITING_OUTPUT = "tool call awaiting its output: sent once the output arrives"
AWAITING_FOLLOWER = "reasoning waiting for the item it precedes (or for that item's output)"


@dataclass
class View:
    """The final view: what ``get_items`` returns, and what the ledger needs."""

    slots: list[Slot]
    reasons: list[str]
    removed: dict[int, tuple[ItemState, str]]  # raw index -> fate, for items taken out
    removed_synthetic: list[tuple[Synthetic, str]]
    window: Window
    _flat: list[dict[str, Any]] | bool | None = None  # the safe items when all are flat
    _layout: list[str] | None = None
    runs: list[range] | None = None  # the slots as runs of raw indices, when they are
    _mixed: list[tuple[dict[str, Any], bool]] = field(default_factory=list)  # see _prepare

    def layout(self, log: RawLog) -> list[str]:
        """Where each slot comes from: ``preamble``, ``summary`` or ``turn:N`` (computed on
        first use; :class:`ctxlab.ContextManager` reads it)."""
        if self._layout is None:
            layout: list[str] = []
            for slot in self.slots:
                if isinstance(slot, Synthetic):
                    layout.append("summary" if slot.kind.startswith("summary") else slot.kind)
                else:
                    turn = log.turn_of(slot)
                    layout.append("preamble" if turn is None else f"turn:{turn}")
            for pos in range(len(self.slots) - 2, -1, -1):  # a call shown with its late
                if self.reasons[pos] == LATE_OUTPUT_CALL:    # output belongs to its turn
                    layout[pos] = layout[pos + 1]
            self._layout = layout
        return self._layout

    def items(self, log: RawLog) -> list[dict[str, Any]]:
        """The slots' items (the stored dicts themselves: copy before handing out)."""
        return [slot.item if isinstance(slot, Synthetic) else log.item(slot)  # type: ignore[misc]
                for slot in self.slots]

    def model_items(self, log: RawLog) -> list[dict[str, Any]]:
        """Fresh copies of what the model is sent (schema keys only): every call hands out
        new objects, so callers cannot change the log; flat items cost one ``dict()``."""
        if self._flat is None:
            self._prepare(log)
        if self._flat is not False:  # every item flat: one C-level dict() each
            return list(map(dict, self._flat))  # type: ignore[arg-type]
        return [dict(safe) if flat else clone(safe) for safe, flat in self._mixed]

    def _prepare(self, log: RawLog) -> None:
        """Find the model-safe items once per view: ``_flat`` holds them when all are flat,
        else ``_mixed`` holds each with its flag (a synthetic item's own safe copy is never
        handed out: it is copied again on every call, like the rest)."""
        if self.runs is not None:  # raw items only: whole runs
            safe: list[dict[str, Any]] = []
            flat = True
            for run in self.runs:
                items, run_flat = log.safe_run(run.start, run.stop)
                safe += items
                flat = flat and run_flat
            if flat:
                self._flat = safe
                return
        entries = [log.safe_entry(s) if type(s) is int else (model_safe(s.item), False)
                   for s in self.slots]
        if all(e[1] for e in entries):
            self._flat = [e[0] for e in entries]
        else:
            self._flat, self._mixed = False, entries


def slot_item(log: RawLog, slot: Slot) -> Any:
    return slot.item if isinstance(slot, Synthetic) else log.item(slot)


LATE_OUTPUT_CALL = "tool call shown again next to its late output (its own turn is not shown)"


def window_suspects(log: RawLog, slots: list[Slot], runs: list[range] | None = None
                    ) -> tuple[set[int], bool]:
    """The log's suspect items, plus the items of any turn the window enters in its middle
    (a fold that ended inside a turn): there a call and its output may be split even though
    they share a turn. Also whether any slot of the window is one of them (usually not:
    then the window needs no repair at all). ``runs`` (:meth:`Window.plain_runs`) gives
    the same answer without visiting every slot."""
    extra: set[int] = set()
    suspects = log.suspects()
    hit = False
    if runs is not None:
        for run in runs:
            hit = _rest_of_entered_turn(log, run.start, extra) or hit
            if not hit and suspects:
                hit = (any(s in run for s in suspects) if len(suspects) < len(run)
                       else not suspects.isdisjoint(run))
        return (suspects | extra if extra else suspects), hit
    previous = -2
    for slot in slots:
        if type(slot) is not int:
            previous = -2
            continue
        if slot != previous + 1:  # a run of raw items begins here
            hit = _rest_of_entered_turn(log, slot, extra) or hit
        if slot in suspects:
            hit = True
        previous = slot
    return (suspects | extra if extra else suspects), hit


def _rest_of_entered_turn(log: RawLog, start: int, extra: set[int]) -> bool:
    """When a run of raw items begins at ``start`` inside a turn, add the rest of that turn
    to ``extra`` and say so."""
    turn = log.turn_of(start)
    if turn is None or log.turn_starts[turn - 1] == start:  # (the common case: cheap)
        return False
    extra.update(range(start, log.turn_bounds(turn)[1]))
    return True


def with_late_calls(log: RawLog, slots: list[Slot], reasons: list[str],
                    suspects: set[int] | None = None) -> tuple[list[Slot], list[str]]:
    """Bring back the call of every shown tool output whose call is not shown (its turn was
    trimmed or folded before the output arrived), with the reasoning right before it,
    placed just before the output, so the pair stays valid and the output is not lost."""
    extra = _late_calls(log, slots, log.suspects() if suspects is None else suspects)
    if not extra:
        return slots, reasons
    new_slots: list[Slot] = []
    new_reasons: list[str] = []
    for slot, why in zip(slots, reasons, strict=True):
        if not isinstance(slot, Synthetic):
            for index in extra.get(slot, ()):
                new_slots.append(index)
                new_reasons.append(LATE_OUTPUT_CALL)
        new_slots.append(slot)
        new_reasons.append(why)
    return new_slots, new_reasons


def _late_calls(log: RawLog, slots: list[Slot], suspects: set[int]) -> dict[int, list[int]]:
    """For each shown late output whose earlier call is not shown: the raw indices to show
    before it (the call, and the unshown reasoning right before the call)."""
    late = [s for s in slots if not isinstance(s, Synthetic) and s in suspects
            and log.kind(s) == "tool_output"]
    if not late:
        return {}
    shown = {s for s in slots if not isinstance(s, Synthetic)}
    extra: dict[int, list[int]] = {}
    for slot in late:
        call = log.partner(slot)
        if call is None or call in shown or call > slot:
            continue
        first = call
        while first > 0 and log.kind(first - 1) == "reasoning" and first - 1 not in shown:
            first -= 1
        extra[slot] = list(range(first, call + 1))
    return extra


def build_view(log: RawLog, window: Window, limit: int | None) -> View:
    """The valid view of ``window`` under an item ``limit`` (see the module doc)."""
    runs = window.plain_runs()
    suspects, hit = window_suspects(log, window.slots, runs)
    slots, reasons = window.slots, window.reasons  # replaced, never mutated, below
    if hit:
        slots, reasons = with_late_calls(log, slots, reasons, suspects)
    removed: dict[int, tuple[ItemState, str]] = {}
    removed_synthetic: list[tuple[Synthetic, str]] = []

    def take_out(positions: dict[int, tuple[ItemState, str]]) -> None:
        nonlocal slots, reasons
        for pos, fate in positions.items():
            slot = slots[pos]
            if isinstance(slot, Synthetic):
                removed_synthetic.append((slot, fate[1]))
            else:
                removed[slot] = fate
        slots = [s for p, s in enumerate(slots) if p not in positions]
        reasons = [r for p, r in enumerate(reasons) if p not in positions]

    if hit:
        junk = {p: (DROPPED, f"not a valid item: {log.problem(s)}")
                for p, s in enumerate(slots)
                if type(s) is int and s in suspects and log.kind(s) == "invalid"}
        if junk:
            take_out(junk)
        bad = repair_slots(log, slots, suspects)
        if bad:
            take_out(_fates(log, slots, bad))
    if limit is not None and limit < len(slots):
        cut = safe_cut([slot_item(log, s) for s in slots], len(slots) - limit)
        take_out({p: (DROPPED, f"beyond the item limit of {limit}") for p in range(cut)})
    unchanged = runs is not None and not removed and len(slots) == len(window.slots)
    return View(slots, reasons, removed, removed_synthetic, window,
                runs=runs if unchanged else None)


def repair_slots(log: RawLog, slots: list[Slot], suspects: set[int] | None = None
                 ) -> dict[int, str]:
    """:func:`ctxlab.core.validate.repair` for a window, answered from the log's own
    pairing: only the log's *suspect* items (see :meth:`ctxlab.core.rawlog.RawLog.suspects`)
    are looked at, so a window of whole turns costs one set lookup per item."""
    suspects = log.suspects() if suspects is None else suspects
    flagged = [(pos, s) for pos, s in enumerate(slots)
               if not isinstance(s, Synthetic) and s in suspects]
    if not flagged:
        return {}
    position = {s: p for p, s in enumerate(slots) if not isinstance(s, Synthetic)}
    drop: dict[int, str] = {}
    for pos, slot in flagged:
        why = _unpaired(log, slot, pos, position)
        if why is not None:
            drop[pos] = why
    for pos, slot in reversed(flagged):  # reasoning: is what it precedes still there?
        if log.kind(slot) == "reasoning" and not _follower_shown(log, slots, pos, drop):
            drop[pos] = REPAIR_REASONS["reasoning_without_follower"]
    return drop


def _unpaired(log: RawLog, slot: int, pos: int, position: dict[int, int]) -> str | None:
    """Why a call or output at ``pos`` cannot be sent (its partner is missing from the view
    or on the wrong side of it), or None."""
    if log.key(slot) is None:
        return None
    kind = log.kind(slot)
    partner = log.partner(slot)
    at = None if partner is None else position.get(partner)  # where the partner is shown
    if kind == "tool_output" and (at is None or at > pos):
        return REPAIR_REASONS["orphan_output"]
    if kind == "tool_call" and (at is None or at < pos):
        return REPAIR_REASONS["call_without_output"]
    return None


def _follower_shown(log: RawLog, slots: list[Slot], pos: int, drop: dict[int, str]) -> bool:
    """True when the first item after the reasoning at ``pos`` that is not itself reasoning
    (or dropped) is one it may precede."""
    for nxt in range(pos + 1, len(slots)):
        if nxt in drop:
            continue
        other = slots[nxt]
        if isinstance(other, Synthetic):
            return other.item.get("role") == "assistant"
        if log.kind(other) == "reasoning":
            continue
        return log.emitted(other)
    return False


def _fates(log: RawLog, slots: list[Slot], bad: dict[int, str]) -> dict[int, tuple[ItemState, str]]:
    """The state of each item the repair took out: a call whose output does not exist yet
    (and reasoning before it) is *pending*; anything else is dropped."""
    fates: dict[int, tuple[ItemState, str]] = {}
    for pos in sorted(bad, reverse=True):
        slot = slots[pos]
        why = bad[pos]
        state: ItemState = DROPPED
        if not isinstance(slot, Synthetic):
            kind = log.kind(slot)
            if why == REPAIR_REASONS["call_without_output"] and log.output_of(slot) is None:
                state, why = PENDING, AWAITING_OUTPUT
            elif kind == "reasoning" and (
                (pos + 1 < len(slots) and fates.get(pos + 1, ("", ""))[0] == PENDING)
                or _trailing_reasoning(log, slot)
            ):
                state, why = PENDING, AWAITING_FOLLOWER
        fates[pos] = (state, why)
    return fates


def _trailing_reasoning(log: RawLog, index: int) -> bool:
    """True when only reasoning items follow ``index`` in the log: the item they precede
    has not been stored yet (it may arrive in the next batch)."""
    return all(log.kind(i) == "reasoning" for i in range(index + 1, len(log)))


def build_ledger(log: RawLog, view: View) -> Ledger:
    """One entry per stored item (and per synthetic item) saying what the model sees."""
    positions: dict[int, int] = {}
    synthetic_positions: dict[int, int] = {}
    reason_of: dict[int, str] = {}
    for pos, (slot, why) in enumerate(zip(view.slots, view.reasons, strict=True)):
        if isinstance(slot, Synthetic):
            synthetic_positions[id(slot)] = pos
        else:
            positions[slot] = pos
            reason_of[slot] = why
    entries: list[LedgerEntry] = []
    excluded = view.window.excluded
    for index in range(len(log)):
        if index in positions:
            state, reason = KEPT, reason_of[index]
        elif index in view.removed:
            state, reason = view.removed[index]
        else:
            state, reason = excluded(index)
        entries.append(LedgerEntry(
            index=index, kind=log.kind(index), turn=log.turn_of(index), state=state,
            reason=reason, tokens=log.tokens(index), position=positions.get(index),
            text=item_text(log.item(index)),
        ))
    synthetic = [s for s in view.window.slots if isinstance(s, Synthetic)]
    if synthetic:
        entries = _place_synthetic(entries, view, synthetic, synthetic_positions)
    return Ledger(entries)


def _place_synthetic(
    entries: list[LedgerEntry],
    view: View,
    synthetic: list[Synthetic],
    positions: dict[int, int],
) -> list[LedgerEntry]:
    """Insert entries for synthetic slots after the raw items they stand for."""
    removed = {id(s): why for s, why in view.removed_synthetic}
    reason_of = {id(s): r for s, r in zip(view.window.slots, view.window.reasons, strict=True)}
    extra: list[tuple[int, LedgerEntry]] = []
    for slot in synthetic:
        anchor = slot.covers[1] if slot.covers else 0
        in_view = id(slot) in positions
        extra.append((anchor, LedgerEntry(
            index=None, kind=slot.kind, turn=None,
            state="summary" if in_view else DROPPED,
            reason=reason_of.get(id(slot), slot.reason) if in_view
            else removed.get(id(slot), slot.reason),
            tokens=slot.tokens, position=positions.get(id(slot)), text=slot.text,
        )))
    merged: list[LedgerEntry] = []
    pending = sorted(extra, key=lambda pair: pair[0])
    k = 0
    for i, entry in enumerate(entries):
        while k < len(pending) and pending[k][0] <= i:
            merged.append(pending[k][1])
            k += 1
        merged.append(entry)
    merged.extend(e for _, e in pending[k:])
    return merged
