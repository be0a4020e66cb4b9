"""SummarizingSession: fold older turns into a summary pair, keep the last K turns verbatim.

Two knobs decide what the model sees:

* ``context_limit``: how many real user turns may be shown verbatim before older ones are
  folded;
* ``keep_last_n_turns`` (<= ``context_limit``): how many of the newest turns stay verbatim
  when a fold happens.

When more than ``context_limit`` unsummarized turns are stored, everything before the
earliest of the last ``keep_last_n_turns`` turns is summarized, and the model's view shows a
synthetic pair instead (a user line asking for a summary, an assistant message holding it)
followed by the kept turns. The raw log is never changed: the ledger marks folded items
``summarized`` and the pair ``summary``.

What this implementation guarantees (and the source tutorial's version does not):

* tool calls, outputs and reasoning stay intact and paired, and are never counted as turns
  or rewritten as user messages;
* metadata lives beside the items (:meth:`get_full_history`) and never reaches the model;
* a summary is applied to exactly the prefix it was computed from (compare-and-swap on a
  generation counter), so items that arrive meanwhile are neither lost nor summarized twice,
  and at most one summarization per session is in flight;
* a summarizer that raises or times out loses nothing: the view stays valid (trimmed to
  ``context_limit`` turns after the last summary), a warning is logged, and the fold is
  retried the next time items are added;
* summaries are incremental (previous summary + newly folded turns) and can be rebuilt from
  the raw log (:meth:`rebuild_summary`) to correct drift;
* identifiers in the folded items that the summary lacks are listed in its metadata;
* ``background=True`` starts folds without making ``add_items`` or ``get_items`` wait;
  :meth:`flush` waits for them.

With a persistent ``store`` (an SDK ``SQLiteSession`` on a file, a ``RedisSession``, ...) the
summary and its generation are saved beside the log, so a new process resumes with the same
view and does not summarize again. Several processes may share one session: a fold takes the
session's lease (so normally one process summarizes while the others keep appending) and is
applied with a compare-and-swap on the state's version, so exactly one summary is applied per
fold even if a lease expires; each summary records a digest of the prefix it folds and is
dropped if that prefix is ever changed (a pop, a rollback, a crash between writes).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from agents.memory import SessionSettings

from ..core.identifiers import identifier_values, missing_from
from ..core.items import clone, item_kind, item_text, model_safe
from ..core.ledger import DROPPED, SUMMARIZED, ItemState
from ..core.tokens import TokenCounter
from ..stores.base import StoredState, StoreError
from ..summarizers.base import call_summarizer, summarizer_name
from ..summarizers.extractive import ExtractiveSummarizer
from .base import MemorySession, StoreArg, Synthetic, Window, check_positive_int

logger = logging.getLogger("ctxlab.summarizing")

SUMMARY_PROMPT_KIND = "summary_prompt"
SUMMARY_KIND = "summary"

#: Version of the state this strategy saves in a store.
STATE_FORMAT = 1
#: Seconds between checks while another process holds the fold lease (in :meth:`flush`).
LEASE_POLL_S = 0.05


@dataclass(frozen=True)
class SummaryRecord:
    """A summary applied to the view, and where it came from.

    ``turns`` is the inclusive range of real user turns it folds (1-based), ``items`` the
    half-open range of raw indices. ``missing_identifiers`` lists identifier-like values
    from the folded items that the summary text does not contain.
    """

    text: str
    shadow: str
    turns: tuple[int, int]
    items: tuple[int, int]
    generation: int
    created_at: float
    summarizer: str
    input_tokens: int | None
    output_tokens: int | None
    missing_identifiers: tuple[str, ...]
    incremental: bool
    duration_s: float
    digest: str = ""  # of the raw items [0, items[1]) it was made from (ctxlab.core.digest)
    epoch: int = 0  # the store's log epoch when it was checked against the log

    def metadata(self, kind: str) -> dict[str, Any]:
        data = asdict(self)
        for private in ("text", "shadow", "digest", "epoch"):
            data.pop(private)
        data["turns"] = list(self.turns)
        data["items"] = list(self.items)
        data["missing_identifiers"] = list(self.missing_identifiers)
        data["created_at"] = datetime.fromtimestamp(self.created_at, timezone.utc).isoformat()
        return {"synthetic": True, "kind": kind, **data}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (how a store keeps it)."""
        data = asdict(self)
        data["turns"] = list(self.turns)
        data["items"] = list(self.items)
        data["missing_identifiers"] = list(self.missing_identifiers)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SummaryRecord:
        """The inverse of :meth:`to_dict`; raises ValueError/KeyError on a malformed record."""
        return cls(
            text=str(data["text"]), shadow=str(data["shadow"]),
            turns=(int(data["turns"][0]), int(data["turns"][1])),
            items=(int(data["items"][0]), int(data["items"][1])),
            generation=int(data["generation"]), created_at=float(data["created_at"]),
            summarizer=str(data["summarizer"]),
            input_tokens=None if data.get("input_tokens") is None else int(data["input_tokens"]),
            output_tokens=None if data.get("output_tokens") is None
            else int(data["output_tokens"]),
            missing_identifiers=tuple(str(v) for v in data.get("missing_identifiers", ())),
            incremental=bool(data.get("incremental", False)),
            duration_s=float(data.get("duration_s", 0.0)),
            digest=str(data.get("digest", "")), epoch=int(data.get("epoch", 0)),
        )


@dataclass
class _Job:
    generation: int
    version: int  # the store state's version when planned (the CAS token)
    epoch: int
    digest: str  # of the raw items [0, end)
    first_turn: int
    last_turn: int
    start: int
    end: int
    items: list[dict[str, Any]]
    previous: str | None
    incremental: bool


@dataclass
class _Failure:
    version: int
    error: str
    at: float = field(default_factory=time.time)


class SummarizingSession(MemorySession):
    """Keep the last ``keep_last_n_turns`` turns verbatim and summarize the rest.

    Args:
        keep_last_n_turns: turns kept verbatim when a fold happens (>= 0).
        context_limit: unsummarized turns allowed before a fold (>= 1, >= keep_last_n_turns).
        summarizer: anything with ``summarize(items)`` (see :mod:`ctxlab.summarizers`);
            defaults to the offline :class:`~ctxlab.summarizers.ExtractiveSummarizer`.
        session_id: the conversation's id; the store's id with a ``store``, else a fresh
            random id when omitted.
        background: start folds in the background; ``add_items`` and ``get_items`` never
            wait for them (use :meth:`flush` to wait).
        summary_timeout: seconds a summarizer may take before the attempt counts as failed.
        keep_preamble: keep items stored before the first user message verbatim.
        store: where the raw log and the summary live (see
            :class:`~ctxlab.sessions.base.MemorySession`); None keeps both in memory.
        redactor: applied to every batch before it is stored, and to what the summarizer
            reads (see :class:`ctxlab.Redactor`).
        lease_ttl: seconds a fold may hold the session's lease before another process may
            take over (default: ``summary_timeout`` + 5, or 300 without a timeout).
        session_settings: the SDK's ``SessionSettings`` (``limit`` caps the item count).
        token_counter: defaults to exact ``o200k_base`` counts.
    """

    def __init__(
        self,
        keep_last_n_turns: int = 3,
        context_limit: int = 3,
        summarizer: Any | None = None,
        session_id: str | None = None,
        *,
        background: bool = False,
        summary_timeout: float | None = 120.0,
        keep_preamble: bool = True,
        store: StoreArg = None,
        redactor: Any = None,
        lease_ttl: float | None = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
    ):
        if session_id is None and store is None:
            session_id = f"session-{uuid.uuid4().hex}"
        super().__init__(
            session_id, store=store, session_settings=session_settings,
            token_counter=token_counter, redactor=redactor,
        )
        self._context_limit = check_positive_int("context_limit", context_limit)
        self._keep = check_positive_int("keep_last_n_turns", keep_last_n_turns, minimum=0)
        self._check_invariant(self._keep, self._context_limit)
        if summary_timeout is not None and not (
            isinstance(summary_timeout, (int, float)) and summary_timeout > 0
        ):
            raise ValueError(f"summary_timeout must be None or > 0, got {summary_timeout!r}")
        if lease_ttl is None:
            lease_ttl = 300.0 if summary_timeout is None else float(summary_timeout) + 5.0
        if isinstance(lease_ttl, bool) or not isinstance(lease_ttl, (int, float)) or (
            lease_ttl <= 0
        ):
            raise ValueError(f"lease_ttl must be None or > 0, got {lease_ttl!r}")
        self.summarizer = summarizer if summarizer is not None else ExtractiveSummarizer()
        self.background = bool(background)
        self.summary_timeout = summary_timeout
        self.lease_ttl = float(lease_ttl)
        self._keep_preamble = bool(keep_preamble)
        self._summary: SummaryRecord | None = None
        self._generation = 0
        self._verified: tuple[int, int] | None = None  # (epoch, generation) checked vs log
        self._task: asyncio.Task[None] | None = None
        self._outcome: str | None = None  # how the last fold attempt ended
        self._failure: _Failure | None = None
        self.summaries_applied = 0
        self.summaries_discarded = 0

    # -- settings --------------------------------------------------------------------
    @staticmethod
    def _check_invariant(keep: int, limit: int) -> None:
        if keep > limit:
            raise ValueError(
                f"keep_last_n_turns ({keep}) must not be greater than context_limit ({limit}): "
                "the turns kept verbatim after a fold must fit under the limit"
            )

    @property
    def keep_last_n_turns(self) -> int:
        return self._keep

    @property
    def context_limit(self) -> int:
        return self._context_limit

    def set_max_turns(self, n: int) -> None:
        """Set ``context_limit`` to ``n`` (clamping ``keep_last_n_turns`` to it).

        The view follows at once; a fold that becomes due runs when items are next added
        (or at :meth:`flush`).
        """
        self._context_limit = check_positive_int("context_limit", n)
        self._keep = min(self._keep, self._context_limit)
        self._changed()

    def set_limits(self, *, keep_last_n_turns: int, context_limit: int) -> None:
        """Change both knobs at once (the invariant is checked before anything changes)."""
        keep = check_positive_int("keep_last_n_turns", keep_last_n_turns, minimum=0)
        limit = check_positive_int("context_limit", context_limit)
        self._check_invariant(keep, limit)
        self._keep, self._context_limit = keep, limit
        self._changed()

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "keep_last_n_turns": self._keep,
                "context_limit": self._context_limit, "summarizer": self.summarizer,
                "background": self.background, "summary_timeout": self.summary_timeout,
                "keep_preamble": self._keep_preamble, "lease_ttl": self.lease_ttl}

    # -- state -----------------------------------------------------------------------
    @property
    def summary(self) -> SummaryRecord | None:
        """The summary currently applied to the view, if any."""
        return self._summary

    @property
    def summarizing(self) -> bool:
        """True while a fold is in flight."""
        return self._task is not None and not self._task.done()

    @property
    def last_error(self) -> str | None:
        """The error of the last failed fold, until a fold succeeds."""
        return self._failure.error if self._failure else None

    def __repr__(self) -> str:
        folded = self._summary.turns if self._summary else None
        return (
            f"SummarizingSession(session_id={self.session_id!r}, keep_last_n_turns={self._keep}, "
            f"context_limit={self._context_limit}, items={len(self._log)}, "
            f"turns={self._log.turn_count}, summarized_turns={folded}{self._store_note()})"
        )

    # -- persistence -------------------------------------------------------------------
    def _state_data(self, summary: SummaryRecord | None, generation: int) -> dict[str, Any]:
        return {"strategy": "summarizing", "format": STATE_FORMAT, "generation": generation,
                "summary": None if summary is None else summary.to_dict()}

    def _export_state(self) -> Mapping[str, Any] | None:
        return self._state_data(self._summary, self._generation)

    def _load_state(self, state: StoredState) -> None:
        data = state.data or {}
        summary = None
        try:
            raw = data.get("summary")
            summary = SummaryRecord.from_dict(raw) if raw else None
            generation = int(data.get("generation", 0))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            logger.warning("session %r: ignoring a malformed summary in the store (%s)",
                           self.session_id, exc)
            generation = 0
        self._summary, self._generation = summary, generation
        self._verified = None
        self._changed()

    async def _on_change(self, *, shrank: bool, state: StoredState | None) -> None:
        if state is not None:
            self._load_state(state)
        if self._summary is not None:
            await self._check_summary(force=shrank)

    async def _check_summary(self, *, force: bool = False) -> None:
        """Drop the summary if the raw items it was made from are no longer the log's prefix
        (a pop into them, a rollback, another writer's change)."""
        summary = self._summary
        if summary is None:
            return
        end = summary.items[1]
        key = (self._state.epoch, summary.generation)
        if end <= len(self._log):
            if not force and self._verified == key:
                return  # checked already (the digest chain is memoized, so this is cheap)
            if not summary.digest or self._log.digest(end) == summary.digest:
                self._verified = key
                return
        logger.info("session %r: the summary of turns %s-%s no longer matches the log; "
                    "dropping it", self.session_id, *summary.turns)
        self._summary = None
        self._verified = None
        self._changed()
        try:
            saved = await self._store.save_state(
                self._state.version, self._state_data(None, self._generation))
        except StoreError as exc:  # the next sync re-checks; the view is valid meanwhile
            logger.warning("session %r: could not save the dropped summary: %s",
                           self.session_id, exc)
            return
        if saved is not None:
            self._state = saved

    # -- hooks -----------------------------------------------------------------------
    async def _after_add(self) -> None:
        if not self._due():
            return
        self._start()
        if not self.background:
            await self._wait_for_task()

    async def _after_clear(self) -> None:
        self._summary = None
        self._failure = None
        self._changed()

    # -- folding ---------------------------------------------------------------------
    def _folded_turns(self) -> int:
        return self._summary.turns[1] if self._summary else 0

    def _due(self) -> bool:
        """A fold is needed and may be attempted now."""
        if self._log.turn_count - self._folded_turns() <= self._context_limit:
            return False
        return not (self._failure is not None and self._failure.version == self._log.version)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._outcome = None
            self._task = asyncio.get_running_loop().create_task(
                self._fold_until_done(), name=f"ctxlab-summarize-{self.session_id}"
            )

    async def _wait_for_task(self) -> None:
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def flush(self) -> None:
        """Wait until no fold is in flight or due (a failed fold is not retried here
        until new items arrive). With a shared store this includes folds another process
        holds the lease for: the session polls until that fold lands or the lease expires."""
        while True:
            await self._wait_for_task()
            if self._outcome in ("failed", "stalled"):
                return
            if self._outcome == "blocked":
                await asyncio.sleep(LEASE_POLL_S)
            async with self._lock:
                await self._sync()  # (a fold another process applied lands here)
                due = self._due()
            if not due:
                return
            self._start()

    def _fail(self, reason: str, *, store: bool = False) -> None:
        self._failure = _Failure(self._log.version, reason)
        self._changed()
        who = "the store" if store else f"summarizer {summarizer_name(self.summarizer)}"
        logger.warning(
            "session %r: %s failed (%s); serving a trimmed view and retrying when items are "
            "next added", self.session_id, who, reason,
        )

    async def _fold_until_done(self) -> None:
        while True:
            async with self._lock:
                try:
                    await self._sync()
                    if not self._due():
                        self._outcome = "done"
                        return
                    if not await self._store.call_state(
                        "take the fold lease",
                        lambda: self._store.state.acquire_lease(self._owner, self.lease_ttl),
                    ):
                        self._outcome = "blocked"  # another process is folding this session
                        return
                    await self._sync()  # a fold that landed just before we got the lease
                    job = self._plan() if self._due() else None
                except StoreError as exc:
                    self._fail(str(exc), store=True)
                    self._outcome = "failed"
                    await self._release_lease()
                    return
                if job is None:
                    self._outcome = "stalled" if self._due() else "done"
                    await self._release_lease()
                    return
            try:
                applied = await self._run(job)
            finally:
                await self._release_lease()
            if not applied:
                self._outcome = "failed"
                return

    async def _release_lease(self) -> None:
        try:
            await self._store.state.release_lease(self._owner)
        except Exception as exc:  # the lease expires on its own
            logger.info("session %r: could not release the fold lease: %s",
                        self.session_id, exc)

    def _plan(self, *, rebuild: bool = False) -> _Job | None:
        log = self._log
        starts = log.turn_starts
        total = len(starts)
        if rebuild:
            if self._summary is None:
                return None
            last_turn = self._summary.turns[1]
        else:
            last_turn = total - self._keep
        previous = None if rebuild or self._summary is None else self._summary
        first_turn = 1 if previous is None else previous.turns[1] + 1
        if last_turn < first_turn:
            return None
        # Fold from where the previous summary ended (which may be inside a turn when
        # keep_last_n_turns is 0) up to the start of the first turn kept verbatim.
        start = starts[0] if previous is None else previous.items[1]
        end = starts[last_turn] if last_turn < total else len(log)
        if rebuild:
            end = self._summary.items[1]  # type: ignore[union-attr]
        end = self._safe_end(start, end)
        if end <= start:
            return None
        items = [model_safe(log.item(i)) for i in range(start, end)]
        if self._redactor is not None:
            items = self._redact(items)
        if previous is not None:
            items = [
                {"role": "user", "content": previous.shadow},
                {"role": "assistant", "content": previous.text},
                *items,
            ]
        return _Job(
            generation=self._generation,
            version=self._state.version,
            epoch=self._state.epoch,
            digest=log.digest(end),
            first_turn=1,
            last_turn=last_turn,
            start=previous.items[0] if previous is not None else start,
            end=end,
            items=items,
            previous=previous.text if previous is not None else None,
            incremental=previous is not None,
        )

    def _safe_end(self, start: int, end: int) -> int:
        """Move a fold's end back so it splits no call from its output and no reasoning item
        from its follower (only an unfinished tool round at the log's end can need this)."""
        from ..core.validate import pair_calls

        pairing = pair_calls(self._log.items[start:end])
        if pairing.open_calls:
            end = start + pairing.open_calls[0]
        while end > start and self._log.kind(end - 1) == "reasoning":
            end -= 1
        return end

    def _record(self, job: _Job, result: Any, duration: float, *, turns: tuple[int, int],
                incremental: bool) -> SummaryRecord:
        folded_text = "\n".join(item_text(it) for it in job.items)
        return SummaryRecord(
            text=result.text,
            shadow=result.shadow,
            turns=turns,
            items=(job.start, job.end),
            generation=job.generation + 1,
            created_at=time.time(),
            summarizer=summarizer_name(self.summarizer),
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            missing_identifiers=tuple(missing_from(identifier_values(folded_text), result.text)),
            incremental=incremental,
            duration_s=round(duration, 6),
            digest=job.digest,
            epoch=job.epoch,
        )

    async def _apply_record(self, job: _Job, record: SummaryRecord) -> bool:
        """Compare-and-swap the record into the store (under the lock); False on conflict."""
        saved = await self._store.save_state(job.version,
                                             self._state_data(record, record.generation))
        if saved is None:
            return False
        self._state = saved
        self._generation = record.generation
        self._summary = record
        self._verified = (saved.epoch, record.generation)
        self.summaries_applied += 1
        self._changed()
        return True

    async def _run(self, job: _Job) -> bool:
        """Compute one fold outside the lock and apply it if nothing changed meanwhile."""
        began = time.perf_counter()
        try:
            call = call_summarizer(self.summarizer, job.items, job.previous)
            if self.summary_timeout is not None:
                result = await asyncio.wait_for(call, self.summary_timeout)
            else:
                result = await call
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, asyncio.TimeoutError):
                reason = f"timed out after {self.summary_timeout}s"
            else:
                reason = f"{type(exc).__name__}: {exc}"
            async with self._lock:
                self._fail(reason)
            return False
        record = self._record(job, result, time.perf_counter() - began,
                              turns=(job.first_turn, job.last_turn),
                              incremental=job.incremental)
        async with self._lock:
            try:
                if await self._apply_record(job, record):
                    self._failure = None
                    return True
                self.summaries_discarded += 1
                logger.info("session %r: discarded a summary computed for a state that "
                            "changed meanwhile", self.session_id)
                await self._sync()  # pick up whatever changed it
            except StoreError as exc:
                self._fail(str(exc), store=True)
                return False
        return True

    async def rebuild_summary(self) -> SummaryRecord | None:
        """Re-summarize every folded turn from the raw log (corrects incremental drift).

        Waits for any fold in flight first; returns the new record (None when nothing is
        folded yet). A failing summarizer raises here, and the old summary stays.
        """
        await self.flush()
        async with self._lock:
            await self._sync()
            job = self._plan(rebuild=True)
        if job is None:
            return None
        result = await call_summarizer(self.summarizer, job.items, None)
        record = self._record(job, result, 0.0, turns=(1, job.last_turn), incremental=False)
        async with self._lock:
            if not await self._apply_record(job, record):
                raise RuntimeError("the session changed while the summary was rebuilt; retry")
            return self._summary

    # -- the view --------------------------------------------------------------------
    def _summary_slots(self) -> list[Synthetic]:
        summary = self._summary
        if summary is None:
            return []
        covers = {"covers": summary.items}
        turns = f"turns {summary.turns[0]}-{summary.turns[1]}"
        prompt = self._synthetic(
            {"role": "user", "content": summary.shadow}, SUMMARY_PROMPT_KIND,
            f"synthetic request for the summary of {turns}",
            {**covers, "metadata": summary.metadata("history_summary_prompt")},
        )
        reply = self._synthetic(
            {"type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": summary.text, "annotations": []}]},
            SUMMARY_KIND, f"summary of {turns} by {summary.summarizer}",
            {**covers, "metadata": summary.metadata("history_summary")},
        )
        return [prompt, reply]

    def _window(self) -> Window:
        log = self._log
        n = len(log)
        starts = log.turn_starts
        first = log.preamble_end
        folded = self._folded_turns()
        summary = self._summary
        slots: list[int | Synthetic] = []
        reasons: list[str] = []
        if self._keep_preamble:
            slots.extend(range(first))
            reasons.extend(["preamble (before the first user message): always kept"] * first)
        for slot in self._summary_slots():
            slots.append(slot)
            reasons.append(slot.reason)
        summary_end = summary.items[1] if summary else first
        pending = len(starts) - folded
        verbatim_start = summary_end
        if pending > self._context_limit:
            verbatim_start = starts[len(starts) - self._context_limit]
        slots.extend(range(verbatim_start, n))
        reasons.extend([f"in the last {self._context_limit} unsummarized turns"] *
                       (n - verbatim_start))
        failure = self._failure
        waiting = (
            f"not yet summarized: the summarizer failed ({failure.error}); retried when items "
            "are next added" if failure else "not yet summarized: a fold is due or in flight"
        )

        def excluded(index: int) -> tuple[ItemState, str]:
            if index < first:
                return DROPPED, "preamble (before the first user message): keep_preamble=False"
            if summary is not None and summary.items[0] <= index < summary.items[1]:
                return SUMMARIZED, (
                    f"folded into the summary of turns {summary.turns[0]}-{summary.turns[1]}"
                )
            return DROPPED, waiting

        return Window(slots, reasons, excluded)

    # -- history with metadata -------------------------------------------------------
    async def get_full_history(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The model's view as ``{"message": item, "metadata": {...}}`` records.

        For debugging, analytics and UIs; never sent to the model. Synthetic records carry
        ``synthetic=True``, their kind (``history_summary_prompt`` / ``history_summary``),
        the turns and raw indices they cover, when and by which summarizer they were made,
        its token usage and the identifiers the summary is missing. Real records carry
        ``synthetic=False``, their raw index, turn, kind, tokens and any private keys the
        stored item had (under ``extra``). ``limit`` keeps the newest records.
        """
        limit = self._check_limit(limit)
        async with self._lock:
            await self._sync()
            view = self._view(None)
            records = []
            for slot in view.slots:
                if isinstance(slot, Synthetic):
                    meta = dict(slot.meta.get("metadata", {}))
                    meta["tokens"] = slot.tokens
                    records.append({"message": model_safe(slot.item), "metadata": meta})
                    continue
                item = self._log.item(slot)
                safe = model_safe(item)
                extra = {k: clone(v) for k, v in item.items() if k not in safe}
                meta = {
                    "synthetic": False,
                    "kind": item_kind(item),
                    "index": slot,
                    "turn": self._log.turn_of(slot),
                    "tokens": self._log.tokens(slot),
                }
                if extra:
                    meta["extra"] = extra
                records.append({"message": safe, "metadata": meta})
        if limit is not None:
            records = records[len(records) - limit:] if limit else []
        return records

    async def get_items_with_metadata(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Alias of :meth:`get_full_history` (the name the source tutorial also uses)."""
        return await self.get_full_history(limit)
