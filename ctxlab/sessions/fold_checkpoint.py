"""A summarizing session's first read from its fold checkpoint: what the window needs.

A summarizing window is the preamble, the summary pair and everything after the items the
summary folds (at least the last K turns): it depends on where the summary ends, not only
on the log's ends, so the ends-only read of :mod:`.first_read` cannot serve it. But the
store keeps the summary beside the log (:mod:`.summary_state`), with the raw range and the
turns it folds and the digest of that prefix: a *fold checkpoint*. A fresh session object
therefore reads the log's first items and its tail back to the summary's end, with the
tail's position in the log (:meth:`~ctxlab.stores.base.LogStore.read_ends` with
``locate``), and indexes them as a :class:`~ctxlab.core.partial_log.PartialLog` whose
middle has its true length and turn count (the summary says how many turns precede its
end), so positions and turn numbers are the whole log's and the summary applies as is.

The checkpoint is used only when it provably describes this log: the state is this
strategy's current format, no destructive change happened since the fold was planned (the
summary's epoch is the store's), and the last folded item read now is the one the fold
saw (its :func:`item_anchor`, saved with the summary). Otherwise, or on a store that
cannot say where a tail starts, or when the window turns out to need an item that was not
read (a pop left fewer than K unfolded turns), the caller loads the whole log: the view is
always the one the whole log gives. A fold and everything else that needs the whole log
(ledger, history, pops) load it first, as for every strategy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.digest import extend_digest
from ..core.partial_log import NotLoaded, PartialLog
from ..core.rawlog import RawLog
from ..policies.summarize import SummaryRecord
from ..stores.base import Delta, Ends, StoredState
from . import first_read
from .first_read import turn_starts, view_of_partial
from .summary_state import STATE_FORMAT, drop_stale

if TYPE_CHECKING:
    from .base import MemorySession
    from .view import View


def item_anchor(item: Any) -> str:
    """The digest of one stored item (the last one a summary folds)."""
    return extend_digest("", [item])


def checkpoint(state: StoredState | None) -> tuple[SummaryRecord, str] | None:
    """The summary a stored state holds and its anchor, when the state is this strategy's
    current format and no destructive change happened since the fold was planned."""
    data = state.data if state is not None else None
    if not data or data.get("strategy") != "summarizing" or data.get("format") != STATE_FORMAT:
        return None
    anchor, raw = data.get("anchor"), data.get("summary")
    try:
        summary = SummaryRecord.from_dict(raw) if isinstance(raw, dict) else None
    except (KeyError, TypeError, ValueError, IndexError):
        return None
    if summary is None or not isinstance(anchor, dict) or not summary.digest:
        return None
    assert state is not None
    if summary.epoch != state.epoch or anchor.get("end") != summary.items[1]:
        return None
    return summary, str(anchor.get("item"))


def bounded_log(session: MemorySession, ends: Ends, summary: SummaryRecord, anchor: str
                ) -> tuple[RawLog | None, str]:
    """The partial log ``ends`` give under ``summary`` (the store's cursor placed to
    match), or None and what to do: ``head``/``tail`` (read more there) or ``whole``."""
    start, end = ends.tail_start, summary.items[1]
    assert start is not None
    if start > end - 1:
        return None, "tail"  # (the tail must reach back to the last folded item)
    if item_anchor(ends.tail[end - 1 - start]) != anchor:
        return None, "whole"  # (not the log the summary was made from)
    heads, tails = turn_starts(ends.head), turn_starts(ends.tail)
    if not heads:
        return None, "head"
    cut = heads[-1]
    first = next((i for i in tails if start + i <= end), None)
    if first is None:
        return None, "tail"
    # turns in the middle: those the summary folds, less those of the head and the tail
    hole = start + first - cut
    inside = summary.turns[1] - (len(heads) - 1) - sum(1 for i in tails if start + i < end)
    if hole < 1 or not 1 <= inside <= hole:
        return None, "whole"
    session._store.place_located(cut, first, hole)
    log = PartialLog(session.token_counter, ends.head[:cut], hole, ends.tail[first:],
                     hole_turns=inside)
    log.seed_digest(end, summary.digest)
    return log, ""


async def read_from_checkpoint(session: MemorySession, limit: int | None) -> View | None:
    """The first read by the fold checkpoint (see the module doc); None when the caller
    must load the whole log."""
    if not session._store.locates_tail:  # (its ends alone cannot serve this window)
        return None
    head, tail, state = first_read.FIRST_HEAD, first_read.FIRST_TAIL, None
    while True:
        ends = await session._store.read_ends(head, tail, locate=True)
        if ends is None:
            return None
        state = ends.state or state
        if ends.complete:  # (the whole log: a store may still split it between the ends)
            log = RawLog(session.token_counter)
            log.extend([*ends.head, *ends.tail])
            session._install(log)
            await session._apply_delta(Delta(len(log), [], state))
            return session._view(limit)
        found = checkpoint(state) if ends.tail_start is not None else None
        if found is None:
            return _whole(session)
        log, more = bounded_log(session, ends, *found)
        if log is None and more == "whole":
            return _whole(session)
        if log is not None:
            try:
                session._install(log)
                await _adopt(session, state, found[0])
                return view_of_partial(session, limit)
            except NotLoaded as gap:
                assert isinstance(log, PartialLog)
                more = "head" if gap.index - log.hole_start < log.hole_stop - gap.index \
                    else "tail"
        if more == "head":
            head *= 4
        else:
            tail = max(tail * 4, (ends.tail_start or 0) + len(ends.tail) - found[0].items[1] + 8)


async def _adopt(session: Any, state: StoredState | None, summary: SummaryRecord) -> None:
    """Take the stored state with its summary already parsed (a long record's list of
    missing identifiers is not parsed twice), then check it against the log as a sync
    would (:func:`~ctxlab.sessions.summary_state.drop_stale`; the seeded digest)."""
    assert state is not None and state.data is not None
    session._stored = state
    session._fold.summary, session._fold.verified = summary, None
    session._fold.generation = int(state.data.get("generation", 0))
    session._changed()
    await drop_stale(session)


def _whole(session: MemorySession) -> None:
    """Leave the index empty and the cursor reset: the caller's sync reads everything
    (the state included, though this read already handed it out)."""
    session._install(None)
