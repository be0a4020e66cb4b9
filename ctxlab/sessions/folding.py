"""The folding engine of a summarizing session: when folds run, and how they land safely.

The *policy* (:mod:`ctxlab.policies.summarize`) decides what a fold covers; this module runs
it:

* **one fold at a time per session**, across processes: a fold takes the session's *lease*
  in the store and renews it while the summarizer works (a heartbeat every third of
  ``lease_ttl``), so another process can take over within ``lease_ttl`` seconds of a crash;
* **the summarizer runs outside the session's lock**, so reads and writes go on meanwhile;
* **compare-and-swap**: the summary is saved only if the store's state version is still the
  one the fold was planned on, so items that arrive meanwhile are neither lost nor folded
  twice, and exactly one summary is applied per fold;
* **failure bookkeeping**: a summarizer that raises or times out loses nothing (the view
  keeps every unfolded turn), the error is kept in ``last_error`` and logged, and the fold
  is retried when items are next added;
* **background mode**: folds start without making ``add_items`` wait; :meth:`flush` waits.

Tasks belong to the event loop that started them; a session used from another loop or
thread waits for them by polling, never by awaiting a foreign task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from ..core.identifiers import identifier_values, missing_from
from ..core.items import item_text, model_safe
from ..policies.summarize import FoldPlan, SummaryRecord, pending_calls
from ..stores.base import StoreError
from ..summarizers.base import call_summarizer, summarizer_name

logger = logging.getLogger("ctxlab.summarizing")

#: Seconds between checks while a fold runs on another loop or in another process.
POLL_S = 0.02


@dataclass
class FoldJob:
    """A planned fold: the plan, the summarizer's input and the state it was planned on."""

    plan: FoldPlan
    generation: int
    version: int  # the store state's version when planned (the CAS token)
    epoch: int
    digest: str  # of the raw items [0, plan.end)
    items: list[dict[str, Any]]
    pending: tuple[str, ...]

    @property
    def incremental(self) -> bool:
        return self.plan.previous is not None


@dataclass
class Failure:
    version: int  # the log version it failed at: retried once the log changes
    error: str
    at: float = field(default_factory=time.time)


class FoldEngine:
    """Runs the folds of one :class:`~ctxlab.sessions.summarizing.SummarizingSession`."""

    def __init__(self, session: Any):
        self.session = session
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

    def start(self) -> None:
        """Start a fold task on the running loop unless one is running (anywhere)."""
        if not self.running():
            self.outcome = None
            self.task = asyncio.get_running_loop().create_task(
                self._fold_until_done(), name=f"ctxlab-summarize-{self.session.session_id}")

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
        s = self.session
        self.failure = Failure(s._log.version, reason)
        s._changed()
        who = "the store" if store else f"summarizer {summarizer_name(s.summarizer)}"
        logger.warning(
            "session %r: %s failed (%s); every unfolded turn stays in the view and the "
            "fold is retried when items are next added", s.session_id, who, reason,
        )

    # -- one fold after another until none is due ---------------------------------------
    async def _fold_until_done(self) -> None:
        s = self.session
        while True:
            async with s._lock:
                try:
                    await s._sync()
                    if not s._due():
                        self.outcome = "done"
                        return
                    if not await self._acquire_lease():
                        self.outcome = "blocked"  # another process is folding this session
                        return
                    await s._sync()  # a fold that landed just before we got the lease
                    job = s._job() if s._due() else None
                except StoreError as exc:
                    self.fail(str(exc), store=True)
                    self.outcome = "failed"
                    await self._release_lease()
                    return
                if job is None:
                    self.outcome = "done"
                    await self._release_lease()
                    return
            heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())
            try:
                applied = await self._run(job)
            finally:
                heartbeat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await heartbeat
                await self._release_lease()
            if not applied:
                self.outcome = "failed"
                return

    async def _acquire_lease(self) -> bool:
        """Take the lease; a lease held by a process of this host that no longer exists
        (killed mid-fold) is taken over at once instead of waiting for it to expire."""
        s = self.session
        state = s._store.state
        if await s._store.call_state("take the fold lease",
                                     lambda: state.acquire_lease(s._owner, s.lease_ttl)):
            return True
        holder = await s._store.call_state("read the fold lease", state.lease_holder)
        if holder is None or not owner_is_dead(holder):
            return False
        logger.warning("session %r: the fold lease is held by %s, a process that no longer "
                       "exists; taking it over", s.session_id, holder)
        return bool(await s._store.call_state(
            "take over the fold lease",
            lambda: state.acquire_lease(s._owner, s.lease_ttl, replacing=holder)))

    async def _heartbeat(self) -> None:
        """Renew the lease while the summarizer works, so a short TTL is safe."""
        s = self.session
        while True:
            await asyncio.sleep(s.lease_ttl / 3)
            try:
                await s._store.state.acquire_lease(s._owner, s.lease_ttl)
            except Exception as exc:  # the CAS still protects the result
                logger.info("session %r: could not renew the fold lease: %s", s.session_id, exc)

    async def _release_lease(self) -> None:
        s = self.session
        try:
            await s._store.state.release_lease(s._owner)
        except Exception as exc:  # the lease expires on its own
            logger.info("session %r: could not release the fold lease: %s", s.session_id, exc)

    async def _run(self, job: FoldJob) -> bool:
        """Compute one fold outside the lock and apply it if nothing changed meanwhile."""
        s = self.session
        began = time.perf_counter()
        try:
            previous = job.plan.previous
            call = call_summarizer(s.summarizer, job.items,
                                   previous.text if previous else None,
                                   previous.state if previous else None)
            if s.summary_timeout is not None:
                result = await asyncio.wait_for(call, s.summary_timeout)
            else:
                result = await call
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, asyncio.TimeoutError):
                reason = f"timed out after {s.summary_timeout}s"
            else:
                reason = f"{type(exc).__name__}: {exc}"
            async with s._lock:
                self.fail(reason)
            return False
        record = self.record(job, result, time.perf_counter() - began)
        async with s._lock:
            try:
                if await self.apply(job, record):
                    self.failure = None
                    return True
                self.discarded += 1
                logger.info("session %r: discarded a summary computed for a state that "
                            "changed meanwhile", s.session_id)
                await s._sync()  # pick up whatever changed it
            except StoreError as exc:
                self.fail(str(exc), store=True)
                return False
        return True

    # -- records -----------------------------------------------------------------------
    def job(self, plan: FoldPlan) -> FoldJob:
        """The summarizer's input for ``plan``: the previous summary pair, then the folded
        items (model-safe copies, redacted when the session has a redactor)."""
        s = self.session
        log = s._log
        items = [model_safe(log.item(i)) for i in range(plan.start, plan.end)]
        if s._redactor is not None:
            items = s._redact(items)
        previous = plan.previous
        if previous is not None:
            items = [{"role": "user", "content": previous.shadow},
                     {"role": "assistant", "content": previous.text}, *items]
        pending = tuple(pending_calls(log, plan.start, plan.end))
        if previous is not None:
            answered = {c for c in previous.pending_calls if _answered(log, c)}
            pending = tuple(c for c in previous.pending_calls if c not in answered) + pending
        return FoldJob(plan=plan, generation=s._generation, version=s._state.version,
                       epoch=s._state.epoch, digest=log.digest(plan.end), items=items,
                       pending=pending)

    def record(self, job: FoldJob, result: Any, duration: float) -> SummaryRecord:
        s = self.session
        # Identifiers the newly folded items hold (not the previous summary's own text: its
        # bookkeeping, such as a count of omitted steps, is not a fact to keep).
        folded = job.items[2:] if job.plan.previous is not None else job.items
        folded_text = "\n".join(item_text(it) for it in folded)
        return SummaryRecord(
            text=result.text,
            shadow=result.shadow,
            turns=(1, job.plan.last_turn),
            items=(job.plan.previous.items[0] if job.plan.previous else job.plan.start,
                   job.plan.end),
            generation=job.generation + 1,
            created_at=time.time(),
            summarizer=summarizer_name(s.summarizer),
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            missing_identifiers=tuple(missing_from(identifier_values(folded_text), result.text)),
            incremental=job.incremental,
            duration_s=round(duration, 6),
            digest=job.digest,
            epoch=job.epoch,
            pending_calls=job.pending,
            state=result.state,
        )

    async def apply(self, job: FoldJob, record: SummaryRecord) -> bool:
        """Compare-and-swap ``record`` into the store (under the lock); False on conflict."""
        s = self.session
        saved = await s._store.save_state(job.version, s._state_data(record, record.generation))
        if saved is None:
            return False
        s._state = saved
        s._generation = record.generation
        s._summary = record
        s._verified = (saved.epoch, record.generation)
        self.applied += 1
        s._changed()
        return True


def lease_owner() -> str:
    """This process's lease owner name: ``host:pid:random`` (see :func:`owner_is_dead`)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_is_dead(owner: str) -> bool:
    """True when ``owner`` names a process on this host that no longer exists. Owners on
    other hosts, or that cannot be read, are presumed alive (their lease must expire)."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed child that its parent has not reaped yet still answers kill(pid, 0)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _answered(log: Any, call_id: str) -> bool:
    """True when some output in the log answers ``call_id``."""
    for index in range(len(log) - 1, -1, -1):
        if log.kind(index) == "tool_output":
            item = log.item(index)
            if item.get("call_id") == call_id or item.get("id") == call_id:
                return True
    return False
