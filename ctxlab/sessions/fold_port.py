"""How a :class:`~ctxlab.sessions.summarizing.SummarizingSession` drives its fold engine.

:class:`FoldPort` is the session as :class:`~ctxlab.sessions.folding.FoldEngine` sees it
(:class:`~ctxlab.sessions.folding.FoldHost`: what is due, what a fold reads, how its result
is saved); :func:`flush_folds` and :func:`rebuild` are the session's ``flush`` and
``rebuild_summary``.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from ..policies.summarize import FoldPlan, SummaryRecord, fired
from .fold_checkpoint import item_anchor
from .fold_steps import FoldJob, job_for, next_plan
from .folding import POLL_S
from .summary_state import state_data

if TYPE_CHECKING:
    from .summarizing import SummarizingSession


class FoldPort:
    """The session as its fold engine sees it (:class:`~ctxlab.sessions.folding.FoldHost`):
    what is due, what a fold reads, and how its result is saved."""

    def __init__(self, session: SummarizingSession):
        self._session = session
        self.session_id = session.session_id

    @property
    def summarizer(self) -> Any:
        return self._session.summarizer

    @property
    def summary_timeout(self) -> float | None:
        return self._session.summary_timeout

    @property
    def lock(self) -> AbstractAsyncContextManager[Any]:
        return self._session._lock

    def log_version(self) -> int:
        return self._session._log.version

    async def sync(self) -> None:
        await self._session._sync()

    def changed(self) -> None:
        self._session._changed()

    def fold_due(self) -> bool:
        s = self._session
        pair = (sum(slot.tokens for slot in s._view_parts.slots(s._log, s._fold.summary))
                if s.params.fold_tokens is not None else 0)  # only a token trigger needs it
        return fired(s._log, s._fold.summary, s.params, pair) is not None

    def next_job(self, *, rebuild: bool = False) -> FoldJob | None:
        """The fold to run now (None: none is due), or with ``rebuild`` the rebuild of
        everything folded; every ``rebuild_every``-th fold starts from the raw log."""
        s = self._session
        pair = (sum(slot.tokens for slot in s._view_parts.slots(s._log, s._fold.summary))
                if s.params.fold_tokens is not None and not rebuild else 0)
        plan = next_plan(s._log, s._fold.summary, s.params, generation=s._fold.generation,
                         pair_tokens=pair, rebuild=rebuild)
        return None if plan is None else fold_job(s, plan)

    async def commit(self, job: FoldJob, record: SummaryRecord) -> bool:
        """Compare-and-swap ``record`` into the store (under the lock); False on conflict."""
        s = self._session
        end = record.items[1]  # (the log may have changed meanwhile: then the CAS fails)
        anchor = item_anchor(s._log.item(end - 1)) if 0 < end <= len(s._log) else None
        saved = await s._store.save_state(
            job.version, state_data(record, record.generation, anchor))
        if saved is None:
            return False
        s._stored = saved
        s._fold.applied(record, saved.epoch)
        s._changed()
        return True


def fold_job(session: SummarizingSession, plan: FoldPlan) -> FoldJob:
    """What the summarizer reads for ``plan`` (:func:`~ctxlab.sessions.fold_steps.job_for`,
    redacted when the session has a redactor, with the store state it was planned on)."""
    return job_for(session._log, plan, session.params, generation=session._fold.generation,
                   version=session._stored.version, epoch=session._stored.epoch,
                   redact=session._redact if session._redactor is not None else None)


async def flush_folds(session: SummarizingSession) -> None:
    """Wait until no fold is in flight or due (see :meth:`SummarizingSession.flush`)."""
    engine = session._engine
    while True:
        await engine.wait()
        if engine.outcome == "failed":
            return
        if engine.outcome == "blocked":
            await asyncio.sleep(POLL_S)
        async with session._lock:
            await session._sync()  # (a fold another process applied lands here)
            due = engine.due()
        if not due:
            return
        engine.start()


async def rebuild(session: SummarizingSession) -> SummaryRecord | None:
    """Re-summarize every folded turn (see :meth:`SummarizingSession.rebuild_summary`)."""
    await flush_folds(session)
    engine = session._engine
    async with session._lock:
        await session._sync()
        job = session._port.next_job(rebuild=True)
    if job is None:
        return None
    record = engine.record(job, await engine.summarize(job), 0.0)
    async with session._lock:
        if not await engine.apply(job, record):
            raise RuntimeError("the session changed while the summary was rebuilt; retry")
        return session._fold.summary
