"""A first read that costs what the window needs, not what the log holds.

A new session object (a new worker, a new request) over a stored conversation of a million
items used to fetch and index every one of them before it could answer ``get_items``. For a
strategy whose window depends only on the first and the newest whole turns
(``StrategySpec.tail_read``: trimming, first + last, token tail) :func:`read_view` instead
asks the store for the log's two ends in one snapshot (:meth:`LogStore.read_ends`: 16 items
from the start, 64 from the end; no count, no scan), cuts both at turn starts and indexes
them as a :class:`~ctxlab.core.partial_log.PartialLog`, the middle standing as one item
that is not loaded (so memory does not grow with the log either). The strategy's policy
then runs on it as on the whole log. If it asks about an item that was not loaded, or its
window reaches into the middle, or a tool call near the middle might pair with an item in
it, the read fetches four times as much at that end and tries again, until the ends meet
(then the log is simply whole). The view is therefore always the one the whole log gives.

Later reads sync what was appended since, as before. Everything that needs the whole log
(``raw_items``, ``ledger``, checkpoints, pops, a store without ``read_ends``) loads it first
(:meth:`MemorySession._sync`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..core.items import item_kind, item_problem
from ..core.partial_log import NotLoaded, PartialLog
from ..core.rawlog import RawLog
from ..core.turns import starts_turn
from ..stores.base import Delta, Ends

if TYPE_CHECKING:
    from .base import MemorySession
    from .view import View

#: Items read from the start and from the end on a first read (then x4 per retry).
FIRST_HEAD = 16
FIRST_TAIL = 64


def turn_starts(items: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(items) if item_problem(item) is None
            and item_kind(item) == "user" and starts_turn(item)]


def partial_log(session: MemorySession, ends: Ends) -> tuple[RawLog | None, str]:
    """The log ``ends`` gives (whole when they meet; else the head up to its last turn
    start, one unloaded item for the middle, the tail from its first turn start), with the
    store's cursor placed to match; or None and which end to read more of (``head`` or
    ``tail``) when an end holds no turn start to cut at."""
    if ends.complete:  # (the whole log: a store may still split it between the two ends)
        log = RawLog(session.token_counter)
        log.extend([*ends.head, *ends.tail])
        return log, ""
    head_starts, tail_starts = turn_starts(ends.head), turn_starts(ends.tail)
    if not head_starts:
        return None, "head"
    if not tail_starts:
        return None, "tail"
    cut, first = head_starts[-1], tail_starts[0]
    session._store.place_ends(cut, first)
    return PartialLog(session.token_counter, ends.head[:cut], 1, ends.tail[first:]), ""


def view_of_partial(session: MemorySession, limit: int | None) -> View:
    """The view on the session's partial log; raises :class:`NotLoaded` when it needs an
    item that is not loaded (or may pair with one)."""
    log = session._log
    assert isinstance(log, PartialLog)
    if log.ambiguous:
        raise NotLoaded(log.hole_start)
    view = session._view(limit)
    for slot in view.slots:
        if type(slot) is int and log.in_hole(slot):
            raise NotLoaded(slot)
    return view


def tail_readable(session: MemorySession) -> bool:
    """True when the session's strategy declares its window needs only the log's ends."""
    spec = getattr(type(session), "strategy", None)
    check = getattr(spec, "tail_read", None)
    params = getattr(session, "params", None)
    return check is not None and params is not None and bool(check(params))


async def _first_read(session: MemorySession, limit: int | None) -> View | None:
    """The first read by the log's ends (see the module doc); None when the store cannot
    read ends (the caller then loads the whole log)."""
    head, tail = FIRST_HEAD, FIRST_TAIL
    while True:
        ends = await session._store.read_ends(head, tail)
        if ends is None:
            return None
        log, more = partial_log(session, ends)
        if log is not None:
            session._install(log)
            await session._apply_delta(Delta(len(log), [], ends.state))
            if not isinstance(log, PartialLog):
                return session._view(limit)
            try:
                return view_of_partial(session, limit)
            except NotLoaded as gap:
                more = "head" if gap.index - log.hole_start < log.hole_stop - gap.index \
                    else "tail"
        if more == "head":
            head *= 4
        else:
            tail *= 4


FirstReader = Callable[["MemorySession", "int | None"], Awaitable["View | None"]]


def first_reader(session: MemorySession) -> FirstReader | None:
    """How this session's first read may avoid loading the whole log: by the log's ends
    (a ``tail_read`` strategy), by the session class's own ``first_read`` (summarizing:
    :mod:`.fold_checkpoint`), or not at all (None)."""
    if tail_readable(session):
        return _first_read
    reader: FirstReader | None = getattr(type(session), "first_read", None)
    return reader


async def read_view(session: MemorySession, limit: int | None) -> View:
    """Catch up with the store and compute the view, reading only what the window needs
    on a first read when the strategy allows it (call under the session's lock)."""
    log = session._log
    reader = first_reader(session)
    if isinstance(log, PartialLog) and reader is not None:  # (params may have changed)
        try:
            await session._apply_delta(await session._store.sync())  # (whole if it shrank)
            if isinstance(session._log, PartialLog):
                return view_of_partial(session, limit)
        except NotLoaded:
            pass
    elif log.version == 0 and not len(log) and reader is not None:
        view = await reader(session, limit)
        if view is not None:
            return view
    await session._sync()
    return session._view(limit)
