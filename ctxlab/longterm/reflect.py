"""Background reflection, debounced: a burst of sessions ending writes once.

A customer who opens five chats in ten minutes (a dropped connection, a new tab, a second
device) ends five sessions. Writing long-term memory after each one reads and rewrites the
same record five times, and runs the consolidator (an LLM call, with a real model) five
times, each time on less than the last. :class:`Reflector` waits ``delay`` seconds after a
session ends; another ending of the same user within that time cancels the wait and starts
it again, so the burst is consolidated once, in one compare-and-swap write
(:meth:`LongTermMemory.write_sessions`), and each session's notes are consolidated
(:meth:`MemoryNotes.end_session`). Work already under way when a new ending arrives (the
sessions being read, the consolidator thinking) is cancelled and redone with the newer
sessions: it would be overwritten anyway. Nothing is written until the last step, so a
cancelled reflection leaves nothing half-done.

A failure is logged in ``memory.errors`` and never raised into a reply; a refused notes
consolidation (:class:`~ctxlab.longterm.ConsolidationRejected`) leaves that session's notes
waiting in the notebook, to be consolidated again with :meth:`MemoryNotes.end_session`.

Its tasks are the memory's background writes (:meth:`LongTermMemory.track`), so
``drain()`` waits for them and :func:`~ctxlab.forget_user` cancels them; a reflection that
started before the user was forgotten is refused (the records' epoch changed).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_range
from ..core.error_text import cause_text
from ..records import UnknownUserError, check_user_id
from .memory import LongTermMemory, _items_of
from .notes import MemoryNotes
from .record import MEMORY_KEY

logger = logging.getLogger("ctxlab.longterm")


@dataclass
class ReflectionStats:
    """What a :class:`Reflector` did: endings received, reflections started, cancelled
    (superseded by a newer ending), finished, and the record writes they made."""

    endings: int = 0
    started: int = 0
    cancelled: int = 0
    finished: int = 0
    writes: int = 0


@dataclass
class _Burst:
    epoch: int
    sessions: list[tuple[Any, str, str]] = field(default_factory=list)  # (source, id, at)
    task: asyncio.Task[Any] | None = None


class Reflector:
    """Debounced background consolidation (see the module docstring).

    Args:
        memory: the long-term memory sessions are written into.
        notes: the notes whose sessions are consolidated too (optional).
        delay: seconds of quiet after the last ending before the reflection runs (0: run
            at the next turn of the event loop, still once per burst already queued).
        clock: the time stamp of an ending given without ``at=``.
    """

    def __init__(self, memory: LongTermMemory, *, notes: MemoryNotes | None = None,
                 delay: float = 2.0, clock: Callable[[], str] | None = None):
        if not isinstance(memory, LongTermMemory):
            raise TypeError(f"memory must be a LongTermMemory, got {type(memory).__name__}")
        self.memory = memory
        self.notes = notes
        self.delay = check_range("delay", delay, low=0)
        self.clock = clock or memory.clock
        self.stats = ReflectionStats()
        self._bursts: dict[str, _Burst] = {}

    async def session_ended(self, user_id: str, source: Any, *, session_id: str | None = None,
                            at: str | None = None) -> asyncio.Task[Any]:
        """Note that a session ended; (re)start the user's reflection timer. Returns the
        reflection task that will write it (a later ending may cancel it and start
        another, which then writes this session too)."""
        check_user_id(user_id)
        session_id = session_id or getattr(source, "session_id", None)
        if not isinstance(session_id, str):
            raise ValueError("session_ended needs session_id= when source is a list of items")
        check_user_id(session_id, what="session_id")
        self.stats.endings += 1
        epoch = (await self.memory.records.get(user_id, MEMORY_KEY)).epoch
        burst = self._bursts.get(user_id)
        if burst is not None and burst.epoch != epoch:  # forgotten since: those sessions go
            self.cancel(user_id)
            burst = None
        if burst is None:
            burst = self._bursts[user_id] = _Burst(epoch)
        burst.sessions = [s for s in burst.sessions if s[1] != session_id]
        burst.sessions.append((source, session_id, at or self.clock()))
        if burst.task is not None and not burst.task.done():
            burst.task.cancel()
            self.stats.cancelled += 1
        burst.task = asyncio.ensure_future(self._reflect(user_id, burst))
        self.memory.track(user_id, burst.task)
        return burst.task

    async def _reflect(self, user_id: str, burst: _Burst) -> None:
        await asyncio.sleep(self.delay)
        taken = list(burst.sessions)
        if not taken:  # another reflection wrote them already
            return
        self.stats.started += 1
        try:
            sessions = [(await _items_of(src), sid, at) for src, sid, at in taken]
            before = self.memory.writes
            written = await self.memory.write_sessions(user_id, sessions,
                                                       expected_epoch=burst.epoch)
            self.stats.writes += self.memory.writes - before
            if written is not None and self.notes is not None:
                for _, sid, at in taken:
                    await self._notes(user_id, sid, at)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # logged and kept, as end_session does
            logger.error("debounced reflection of user %s failed: %s", user_id, cause_text(exc))
            self.memory.errors.append((user_id, ",".join(s[1] for s in taken), exc))
        burst.sessions = [s for s in burst.sessions if s not in taken]
        if not burst.sessions and self._bursts.get(user_id) is burst:
            del self._bursts[user_id]
        self.stats.finished += 1

    async def _notes(self, user_id: str, session_id: str, at: str) -> None:
        book = await self.notes.book(user_id)  # type: ignore[union-attr]
        if session_id not in book.sessions:
            return
        notes_at = at if _iso(at) else None
        await self.notes.end_session(user_id, session_id, at=notes_at)  # type: ignore[union-attr]
        self.stats.writes += 1

    def cancel(self, user_id: str) -> int:
        """Drop the user's pending reflection (what a deletion does); how many sessions it
        held."""
        burst = self._bursts.pop(user_id, None)
        if burst is None:
            return 0
        if burst.task is not None:
            burst.task.cancel()
        return len(burst.sessions)

    async def drain(self) -> None:
        """Wait until every pending reflection has run."""
        await self.memory.drain()

    @property
    def pending(self) -> int:
        """Sessions ended and not written yet."""
        return sum(len(b.sessions) for b in self._bursts.values())


def _iso(value: str) -> bool:
    from .notebook import parse_time

    try:
        parse_time(value)
    except ValueError:
        return False
    return True


async def burst_endings(target: Reflector | LongTermMemory, user_id: str, sessions: int, *,
                        items: Any) -> tuple[int, float]:
    """End ``sessions`` sessions of one user at once through ``target`` (a Reflector, or a
    LongTermMemory's plain ``end_session``), wait for the writes, and return (writes made,
    seconds from the first ending to the last write): the benchmark's measurement."""
    memory = target.memory if isinstance(target, Reflector) else target
    before = memory.writes
    start = time.perf_counter()
    for n in range(sessions):
        if isinstance(target, Reflector):
            await target.session_ended(user_id, items, session_id=f"s-{n}")
        else:
            await target.end_session(user_id, items, session_id=f"s-{n}")
    await memory.drain()
    if user_id not in await memory.users() and sessions:
        raise UnknownUserError(f"nothing was written for user {user_id!r}")
    return memory.writes - before, time.perf_counter() - start


__all__ = ["ReflectionStats", "Reflector", "burst_endings"]
