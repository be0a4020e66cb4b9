"""SummarizingSession: fold older turns into a summary pair, keep the last K turns verbatim.

The policy (what is folded, what the model sees) is :mod:`ctxlab.policies.summarize`; the
engine that runs folds (leases, compare-and-swap, background tasks, failures) is
:mod:`ctxlab.sessions.folding`. This class holds the settings and the summary state.

What this implementation guarantees (and the source tutorial's version does not):

* tool calls, outputs and reasoning stay intact and paired, and are never counted as turns
  or rewritten as user messages; an unanswered call never blocks a fold (it is folded as a
  pending action) and an output that arrives late is shown with its call;
* no turn is ever lost from the view: every raw item is shown, folded, or pending (a tool
  call waiting for its output); while a fold is due, in flight or failing, the unfolded
  turns stay in the view (over ``context_limit``, with a warning when it is failing);
* metadata lives beside the items (:meth:`get_full_history`) and never reaches the model;
* a summary is applied to exactly the prefix it was computed from (compare-and-swap), so
  items that arrive meanwhile are neither lost nor summarized twice, and at most one fold
  per session is in flight, across processes;
* summaries are incremental (previous summary + newly folded turns) and can be rebuilt from
  the raw log (:meth:`rebuild_summary`) to correct drift;
* identifiers in the folded items that the summary lacks are listed in its metadata;
* ``background=True`` starts folds without making ``add_items`` or ``get_items`` wait;
  :meth:`flush` waits for them.

With a persistent ``store`` (an SDK ``SQLiteSession`` on a file, a ``RedisSession``, ...) the
summary and its generation are saved beside the log, so a new process resumes with the same
view and does not summarize again. Each summary records a digest of the prefix it folds and
is dropped if that prefix is ever changed (a pop into it, a rollback).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from agents.memory import SessionSettings

from ..core.checks import check_seconds
from ..core.items import clone, item_kind, model_safe
from ..core.tokens import TokenCounter
from ..policies.base import Synthetic, Window
from ..policies.summarize import (
    SummarizeParams,
    SummaryRecord,
    fold_due,
    plan_fold,
    summary_slots,
    summary_window,
)
from ..stores.base import StoredState, StoreError
from ..summarizers.base import call_summarizer
from ..summarizers.extractive import ExtractiveSummarizer
from .base import MemorySession, StoreArg
from .folding import POLL_S, FoldEngine, FoldJob

logger = logging.getLogger("ctxlab.summarizing")

#: Version of the state this strategy saves in a store.
STATE_FORMAT = 1
#: Default seconds a fold may hold the lease without renewing it (renewed every third).
DEFAULT_LEASE_TTL = 30.0


class SummarizingSession(MemorySession):
    """Keep the last ``keep_last_n_turns`` turns verbatim and summarize the rest.

    Args:
        keep_last_n_turns: turns kept verbatim when a fold happens (>= 0).
        context_limit: unfolded turns allowed before a fold (>= 1, >= keep_last_n_turns).
        summarizer: anything with ``summarize(items)`` (see :mod:`ctxlab.summarizers`);
            defaults to the offline :class:`~ctxlab.summarizers.ExtractiveSummarizer`.
        session_id: the conversation's id; the store's id with a ``store``, else a fresh
            :func:`ctxlab.new_session_id` when omitted.
        background: start folds in the background; ``add_items`` and ``get_items`` never
            wait for them (use :meth:`flush` to wait).
        summary_timeout: seconds a summarizer may take before the attempt counts as failed.
        keep_preamble: keep items stored before the first user message verbatim.
        store: where the raw log and the summary live (see
            :class:`~ctxlab.sessions.base.MemorySession`); None keeps both in memory.
        redactor: applied to every batch before it is stored, and to what the summarizer
            reads (see :class:`ctxlab.Redactor`).
        lease_ttl: seconds a fold's lease lasts without renewal (renewed every third while
            the summarizer works), so another process takes over this soon after a crash.
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
        self.params = SummarizeParams(keep_last_n_turns, context_limit, bool(keep_preamble))
        self.summary_timeout = check_seconds("summary_timeout", summary_timeout)
        self.lease_ttl = check_seconds("lease_ttl", lease_ttl) or DEFAULT_LEASE_TTL
        super().__init__(
            session_id, store=store, session_settings=session_settings,
            token_counter=token_counter, redactor=redactor,
        )
        self.summarizer = summarizer if summarizer is not None else ExtractiveSummarizer()
        self.background = bool(background)
        self._summary: SummaryRecord | None = None
        self._generation = 0
        self._verified: tuple[int, int] | None = None  # (epoch, generation) checked vs log
        self._engine = FoldEngine(self)
        self._slots: tuple[SummaryRecord | None, list[Synthetic]] | None = None

    # -- settings --------------------------------------------------------------------
    @property
    def keep_last_n_turns(self) -> int:
        return self.params.keep_last_n_turns

    @property
    def context_limit(self) -> int:
        return self.params.context_limit

    def set_max_turns(self, n: int) -> None:
        """Set ``context_limit`` to ``n`` (clamping ``keep_last_n_turns`` to it).

        The view follows at once; a fold that becomes due runs when items are next added
        (or at :meth:`flush`).
        """
        keep = self.params.keep_last_n_turns
        if isinstance(n, int) and not isinstance(n, bool):
            keep = min(keep, n)
        self.params = dataclasses.replace(self.params, context_limit=n, keep_last_n_turns=keep)
        self._changed()

    def set_limits(self, *, keep_last_n_turns: int, context_limit: int) -> None:
        """Change both knobs at once (the invariant is checked before anything changes)."""
        self.params = dataclasses.replace(self.params, keep_last_n_turns=keep_last_n_turns,
                                          context_limit=context_limit)
        self._changed()

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "keep_last_n_turns": self.keep_last_n_turns,
                "context_limit": self.context_limit, "summarizer": self.summarizer,
                "background": self.background, "summary_timeout": self.summary_timeout,
                "keep_preamble": self.params.keep_preamble, "lease_ttl": self.lease_ttl}

    # -- state -----------------------------------------------------------------------
    @property
    def summary(self) -> SummaryRecord | None:
        """The summary currently applied to the view, if any."""
        return self._summary

    @property
    def summarizing(self) -> bool:
        """True while a fold is in flight."""
        return self._engine.running()

    @property
    def last_error(self) -> str | None:
        """The error of the last failed fold, until a fold succeeds."""
        return self._engine.failure.error if self._engine.failure else None

    @property
    def summaries_applied(self) -> int:
        return self._engine.applied

    @property
    def summaries_discarded(self) -> int:
        return self._engine.discarded

    def __repr__(self) -> str:
        folded = self._summary.turns if self._summary else None
        return (
            f"SummarizingSession(session_id={self.session_id!r}, "
            f"keep_last_n_turns={self.keep_last_n_turns}, context_limit={self.context_limit}, "
            f"items={len(self._log)}, turns={self._log.turn_count}, "
            f"summarized_turns={folded}{self._store_note()})"
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
        self._engine.start()
        if not self.background:
            await self._engine.wait()

    async def _after_clear(self) -> None:
        self._summary = None
        self._engine.failure = None
        self._changed()

    # -- folding ---------------------------------------------------------------------
    def _due(self) -> bool:
        """A fold is needed and may be attempted now (not while the last attempt failed at
        this very log version)."""
        if not fold_due(self._log, self._summary, self.params):
            return False
        failure = self._engine.failure
        return not (failure is not None and failure.version == self._log.version)

    def _job(self, *, rebuild: bool = False) -> FoldJob | None:
        plan = plan_fold(self._log, self._summary, self.params, rebuild=rebuild)
        return None if plan is None else self._engine.job(plan)

    async def flush(self) -> None:
        """Wait until no fold is in flight or due (a failed fold is not retried here until
        new items arrive). With a shared store this includes folds another process holds
        the lease for: the session polls until that fold lands or the lease expires."""
        engine = self._engine
        while True:
            await engine.wait()
            if engine.outcome == "failed":
                return
            if engine.outcome == "blocked":
                await asyncio.sleep(POLL_S)
            async with self._lock:
                await self._sync()  # (a fold another process applied lands here)
                due = self._due()
            if not due:
                return
            engine.start()

    async def rebuild_summary(self) -> SummaryRecord | None:
        """Re-summarize every folded turn from the raw log (corrects incremental drift).

        Waits for any fold in flight first; returns the new record (None when nothing is
        folded yet). A failing summarizer raises here, and the old summary stays.
        """
        await self.flush()
        async with self._lock:
            await self._sync()
            job = self._job(rebuild=True)
        if job is None:
            return None
        result = await call_summarizer(self.summarizer, job.items, None)
        record = self._engine.record(job, result, 0.0)
        async with self._lock:
            if not await self._engine.apply(job, record):
                raise RuntimeError("the session changed while the summary was rebuilt; retry")
            return self._summary

    # -- the view --------------------------------------------------------------------
    def _window(self) -> Window:
        failure = self._engine.failure
        if failure is not None:
            waiting = f"the summarizer failed ({failure.error}); retried when items are next added"
        elif self._engine.outcome == "blocked":
            waiting = "another process holds the fold lease"
        else:
            waiting = "a fold is due or in flight"
        summary = self._summary
        cached = self._slots
        if cached is None or cached[0] is not summary:  # the pair is rebuilt per summary
            cached = self._slots = (summary, summary_slots(self._log, summary))
        window = summary_window(self._log, summary, self.params, waiting=waiting,
                                slots=cached[1])
        if failure is None and self._engine.outcome != "blocked":
            window.notes = []  # a fold in flight is normal: no warning
        return window

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
        if limit is not None:
            from .base import check_limit

            check_limit(limit)
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
