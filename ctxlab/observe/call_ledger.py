"""The ledger of one model call: each stored item's fate as *that call* saw it.

A session's :meth:`~ctxlab.MemorySession.ledger` describes its view *now*. During a run the
two differ: the Runner reads the session once, before it stores the run's new input, and
every model call of the run is built from that read. By the time a
``call_model_input_filter`` runs, the new input (and, inside a tool loop, the run's tool
items) are stored, so a trimming window has already moved on: read at the call, turn 1 of
a ``max_turns=3`` session is "dropped" in the very call that sends it. A debug log that
reports that ledger is one turn ahead.

:func:`call_ledger` corrects the session's ledger with what the call actually sent: a
stored item in the model input is ``kept`` (whatever the moved window says now), one that
the call did not send keeps its state (``dropped``, ``summarized``, ``pending``), and the
synthetic items the call sent (a summary pair, a state message) are its synthetic entries.
The items are matched by content: the history part of the input against the session's
served view, turn by turn (:meth:`~ctxlab.MemorySession.served_layout`), or, when the input
does not start with that view, against the stored log from its end; the current turn (the
newest user message and everything after it) against the newest stored items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.digest import canonical_json
from ..core.items import is_user_message, item_kind, item_text, model_safe
from ..core.ledger import DROPPED, KEPT, SUMMARY, Ledger, LedgerEntry
from ..core.tokens import TokenCounter

SENT_NOW = "sent in this model call"
SENT_BEFORE_MOVE = ("sent in this model call: the Runner read the session before this run's "
                    "input was stored, and the window has moved since")
NOT_SENT = "not in this model call's input"

Served = tuple[Sequence[Mapping[str, Any]], Sequence[str]]


def _key(item: Mapping[str, Any]) -> str:
    return canonical_json(model_safe(item))


def _newest_user(items: Sequence[Mapping[str, Any]]) -> int | None:
    return max((i for i, it in enumerate(items) if is_user_message(it)), default=None)


def _current_start(raw_keys: Sequence[str], user_key: str | None) -> int:
    """Where the current turn begins in the stored log: the newest stored user message
    equal to the input's newest one (the end of the log if it is not stored)."""
    if user_key is not None:
        for index in range(len(raw_keys) - 1, -1, -1):
            if raw_keys[index] == user_key:
                return index
    return len(raw_keys)


def _match_by_turn(history: Sequence[Mapping[str, Any]], served: Served,
                   raw_keys: Sequence[str], ledger: Ledger) -> list[int | None] | None:
    """Raw index of each history item, using the turn each served item came from; None
    when the history is not the served view."""
    items, layout = served
    keys = [_key(item) for item in history]
    if len(items) != len(keys) or [_key(item) for item in items] != keys:
        return None
    by_turn: dict[tuple[int | None, str], list[int]] = {}
    for entry in ledger.raw():
        index = entry.index
        if index is not None and index < len(raw_keys):
            by_turn.setdefault((entry.turn, raw_keys[index]), []).append(index)
    out: list[int | None] = []
    for key, where in zip(keys, layout, strict=True):
        if where == "preamble" or where.startswith("turn:"):
            turn = None if where == "preamble" else int(where.split(":", 1)[1])
            candidates = by_turn.get((turn, key))
            out.append(candidates.pop(0) if candidates else None)
        else:
            out.append(None)  # a synthetic item: summary, state, ...
    return out


def _match_from_end(history: Sequence[Mapping[str, Any]], raw_keys: Sequence[str],
                    stop: int) -> list[int | None]:
    """Raw index of each history item, as a subsequence of ``raw_keys[:stop]`` matched from
    the end (the newest stored items are the ones a window keeps)."""
    out: list[int | None] = [None] * len(history)
    pointer = stop
    for position in range(len(history) - 1, -1, -1):
        key = _key(history[position])
        for index in range(pointer - 1, -1, -1):
            if raw_keys[index] == key:
                out[position] = index
                pointer = index
                break
    return out


def call_ledger(
    ledger: Ledger,
    raw_items: Sequence[Mapping[str, Any]],
    model_input: Sequence[Mapping[str, Any]],
    counter: TokenCounter,
    served: Served | None = None,
) -> Ledger:
    """``ledger`` (read during a model call) with every stored item's state as this call,
    whose input is ``model_input``, saw it; see the module docstring. ``served`` is what
    the session's last ``get_items`` returned and where each item came from."""
    raw_keys = [_key(item) for item in raw_items]
    newest = _newest_user(model_input)
    split = len(model_input) if newest is None else newest
    history, current = model_input[:split], model_input[split:]
    start = _current_start(raw_keys, _key(current[0]) if current else None)
    matched = _match_by_turn(history, served, raw_keys, ledger) if served else None
    labels: Sequence[str | None] = served[1] if served and matched is not None else ()
    if matched is None:
        matched = _match_from_end(history, raw_keys, start)
    sent = {index: pos for pos, index in enumerate(matched) if index is not None}
    pointer = start
    for offset, item in enumerate(current):  # the current turn, in stored order
        key = _key(item)
        for index in range(pointer, len(raw_keys)):
            if raw_keys[index] == key:
                sent[index] = split + offset
                pointer = index + 1
                break
    entries = [_raw_entry(entry, sent) for entry in ledger.raw()]
    unmatched = [(pos, item, labels[pos] if labels else None)
                 for pos, (item, index) in enumerate(zip(history, matched, strict=True))
                 if index is None]
    return Ledger(_in_timeline(entries, _synthetic_entries(unmatched, ledger, counter)))


def _synthetic_entries(sent: Sequence[tuple[int, Mapping[str, Any], str | None]],
                       ledger: Ledger, counter: TokenCounter) -> list[LedgerEntry]:
    """Entries for the input items that are no stored item (a summary pair, a state
    message): kind and state from the session's synthetic entry with the same text, else
    from where the served view says the item came from."""
    known = {e.text: e for e in ledger if e.index is None}
    out = []
    for position, item, label in sent:
        text = item_text(item)
        entry = known.get(text)
        if entry is not None:
            kind, state = entry.kind, entry.state
        elif label == "summary":  # an older summary, replaced since the Runner read it
            kind = "summary_prompt" if is_user_message(item) else "summary"
            state = SUMMARY
        else:
            kind, state = label or f"injected {item_kind(item)}", KEPT
        out.append(LedgerEntry(index=None, kind=kind, turn=None, state=state, reason=SENT_NOW,
                               tokens=counter.count_item(item), position=position, text=text))
    return out


def _raw_entry(entry: LedgerEntry, sent: Mapping[int, int]) -> LedgerEntry:
    index = entry.index
    assert index is not None
    if index in sent:
        reason = entry.reason if entry.state == KEPT else SENT_BEFORE_MOVE
        return replace(entry, state=KEPT, reason=reason, position=sent[index])
    if entry.state in (KEPT, SUMMARY):
        return replace(entry, state=DROPPED, reason=NOT_SENT, position=None)
    return replace(entry, position=None)


def _in_timeline(raw: list[LedgerEntry], synthetic: list[LedgerEntry]) -> list[LedgerEntry]:
    """Synthetic entries placed before the first stored item sent after them."""
    out: list[LedgerEntry] = []
    waiting = sorted(synthetic, key=lambda e: e.position or 0)
    for entry in raw:
        while waiting and entry.position is not None and \
                (waiting[0].position or 0) < entry.position:
            out.append(waiting.pop(0))
        out.append(entry)
    return out + waiting
