"""The folding engine of a summarizing session: when folds run, and how they land safely.

The *policy* (:mod:`ctxlab.policies.summarize`) decides what a fold covers; this module runs
it, through a narrow interface to its session (:class:`FoldHost`: ten members, no private
attribute of the session is read here):

* **one fold at a time per session**, across processes: a fold holds the session's lease
  (:class:`~ctxlab.sessions.lease.FoldLease`, renewed every third of ``lease_ttl``);
* **the summarizer runs outside the session's lock**, and a plain (sync) summarizer runs in
  a worker thread, so reads, writes and the lease heartbeat go on meanwhile;
* **bounded input**: every summarizer call reads at most ``max_input_tokens``; a longer
  span is folded chunk by chunk (:mod:`ctxlab.policies.fold_input`), each call extending
  the summary so far;
* **compare-and-swap**: the summary is saved only if the store's state is still the one the
  fold was planned on, so items that arrive meanwhile are neither lost nor folded twice;
* **failure bookkeeping**: a summarizer that raises or passes ``summary_timeout`` loses
  nothing (the view keeps every unfolded turn), the error is kept in ``last_error`` and
  logged, and the fold is retried when items are next added;
* **no wait without a deadline** of its own (the lease calls, the heartbeat, the
  summarizer unless ``summary_timeout=None`` asks otherwise), whatever a client library does
  with a cancellation (:mod:`ctxlab.sessions.deadlines`).

Tasks belong to the event loop that started them; a session used from another loop or
thread waits for them by polling, never by awaiting a foreign task.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.error_text import cause_text
from ..policies.summarize import SummaryRecord
from ..stores.base import StoreError
from ..summarizers.base import SummaryResult, call_summarizer, summarizer_name
from .deadlines import DeadlineExceeded, within
from .fold_steps import FoldJob, combined, fold_record, next_request
from .lease import FoldLease, lease_owner, owner_is_dead

__all__ = ["POLL_S", "Failure", "FoldEngine", "FoldHost", "FoldJob", "lease_owner",
           "owner_is_dead"]

logger = logging.getLogger("ctxlab.summarizing")

#: Seconds between checks while a fold runs on another loop or in another process.
POLL_S = 0.02


@dataclass
class Failure:
    version: int  # the log version it failed at: retried once the log changes
    error: str
    at: float = field(default_factory=time.time)


class FoldHost(Protocol):
    """What the engine needs from its session, and nothing more."""

    session_id: str
    summarizer: Any
    summary_timeout: float | None

    @property
    def lock(self) -> AbstractAsyncContextManager[Any]: ...  # the session's lock

    def log_version(self) -> int: ...  # changes whenever the log does

    async def sync(self) -> None: ...  # catch up with the store (under the lock)

    def fold_due(self) -> bool: ...  # the fold trigger fired and there is something to fold

    def next_job(self, *, rebuild: bool = False) -> FoldJob | None: ...  # None: none due

    async def commit(self, job: FoldJob, record: SummaryRecord) -> bool: ...  # CAS

    def changed(self) -> None: ...  # the view may have changed (a failure, a new summary)


class FoldEngine:
    """Runs the folds of one :class:`~ctxlab.sessions.summarizing.SummarizingSession`."""

    #: Run a plain (sync) summarizer in a worker thread, so it never blocks the loop (the
    #: lease heartbeat, other sessions). Off only to show what goes wrong without it.
    sync_in_thread = True

    def __init__(self, host: FoldHost, lease: FoldLease):
        self.host = host
        self.lease = lease
        self.task: asyncio.Task[None] | None = None
        self.outcome: str | None = None  # how the last attempt ended: done/failed/blocked/...
        self.failure: Failure | None = None
        self.applied = 0
        self.discarded = 0

    # -- tasks -----------------------------------------------------------------------
    def running(self) -> bool:
        task = self.task
        if task is None or task.done():
            return False
        return not task.get_loop().is_closed()

    def due(self) -> bool:
        """A fold may be attempted now: one is due and the last attempt did not fail at
        this very log version."""
        failure = self.failure
        if failure is not None and failure.version == self.host.log_version():
            return False
        return self.host.fold_due()

    def start(self) -> None:
        """Start a fold task on the running loop unless one is running (anywhere)."""
        if not self.running():
            self.outcome = None
            self.task = asyncio.get_running_loop().create_task(
                self._fold_until_done(), name=f"ctxlab-summarize-{self.host.session_id}")

    async def wait(self) -> None:
        """Wait for the fold in flight, if any (from any loop)."""
        while self.running():
            task = self.task
            assert task is not None
            if task.get_loop() is asyncio.get_running_loop():
                await asyncio.shield(task)
            else:
                await asyncio.sleep(POLL_S)

    def fail(self, reason: str, *, store: bool = False) -> None:
        host = self.host
        self.failure = Failure(host.log_version(), reason)
        host.changed()
        who = "the store" if store else f"summarizer {summarizer_name(host.summarizer)}"
        logger.warning(
            "session %r: %s failed (%s); every unfolded turn stays in the view and the "
            "fold is retried when items are next added", host.session_id, who, reason,
        )

    # -- one fold after another until none is due ---------------------------------------
    async def _fold_until_done(self) -> None:
        while True:
            job = await self._plan()
            if job is None:
                return
            async with self.lease.held():
                applied = await self._run(job)
            if not applied:
                self.outcome = "failed"
                return

    async def _plan(self) -> FoldJob | None:
        """Under the lock: the next job, with the lease taken (None: the outcome says why)."""
        host = self.host
        async with host.lock:
            try:
                await host.sync()
                if not self.due():
                    self.outcome = "done"
                    return None
                if not await self.lease.acquire():
                    self.outcome = "blocked"  # another process is folding this session
                    return None
                await host.sync()  # a fold that landed just before we got the lease
                job = host.next_job() if self.due() else None
            except StoreError as exc:
                self.fail(str(exc), store=True)
                self.outcome = "failed"
                await self.lease.release()
                return None
            if job is None:
                self.outcome = "done"
                await self.lease.release()
            return job

    async def _run(self, job: FoldJob) -> bool:
        """Compute one fold outside the lock and apply it if nothing changed meanwhile."""
        host = self.host
        began = time.perf_counter()
        try:
            result = await self.summarize(job)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, (asyncio.TimeoutError, DeadlineExceeded)):
                reason = f"timed out after {host.summary_timeout}s"
            else:
                reason = cause_text(exc)  # (its text may quote the summary: scrubbed)
            async with host.lock:
                self.fail(reason)
            return False
        record = self.record(job, result, time.perf_counter() - began)
        async with host.lock:
            try:
                if await self.apply(job, record):
                    self.failure = None
                    return True
                self.discarded += 1
                logger.info("session %r: discarded a summary computed for a state that "
                            "changed meanwhile", host.session_id)
                await host.sync()  # pick up whatever changed it
            except StoreError as exc:
                self.fail(str(exc), store=True)
                return False
        return True

    async def apply(self, job: FoldJob, record: SummaryRecord) -> bool:
        """Compare-and-swap ``record`` into the store (under the lock); False on conflict."""
        if not await self.host.commit(job, record):
            return False
        self.applied += 1
        return True

    # -- the summarizer calls ------------------------------------------------------------
    async def summarize(self, job: FoldJob) -> SummaryResult:
        """The summary of ``job``: one summarizer call, or one per chunk when the span is
        over ``max_input_tokens`` (each call reads the summary so far and the next chunk:
        :func:`~ctxlab.sessions.fold_steps.next_request`). Usage is summed over the calls
        (``extra["calls"]`` counts them)."""
        host = self.host
        name = summarizer_name(host.summarizer)
        answers: list[SummaryResult] = []
        who = f"session {host.session_id!r} (summarizer {name})"
        while (request := next_request(job, answers, who=who)) is not None:
            call = call_summarizer(host.summarizer, request.items, request.previous,
                                   request.state, thread=self.sync_in_thread)
            answers.append(await within(call, host.summary_timeout, f"summarizer {name}"))
        return combined(answers)

    def record(self, job: FoldJob, result: SummaryResult, duration: float) -> SummaryRecord:
        return fold_record(job, result, summarizer=summarizer_name(self.host.summarizer),
                           duration=duration)
