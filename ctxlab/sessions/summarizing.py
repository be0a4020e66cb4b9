"""SummarizingSession: fold older turns into a summary pair, keep the last K turns verbatim.

The policy (what is folded, when, and what the model sees) is
:mod:`ctxlab.policies.summarize`; the engine that runs folds (leases, compare-and-swap,
background tasks, bounded summarizer input, failures) is :mod:`ctxlab.sessions.folding`,
which sees this session only through :class:`~ctxlab.sessions.fold_port.FoldPort` (its
:class:`FoldHost`); what the model is shown is :mod:`.summary_view`. This class
holds the settings and the summary state (:mod:`.summary_state`).

What this implementation guarantees (and the source tutorial's version does not):

* tool calls, outputs and reasoning stay intact and paired, and are never counted as turns
  or rewritten as user messages; an unanswered call never blocks a fold (it is folded as a
  pending action) and an output that arrives late is shown with its call;
* no turn is ever lost from the view: every raw item is shown, folded, or pending (a tool
  call waiting for its output); while a fold is due, in flight or failing, the unfolded
  turns stay in the view (past the fold trigger, with a warning when it is failing);
* folds trigger on turns (``context_limit``), tokens (``fold_at_tokens``) or a share of the
  model's window (``fold_at_share`` of ``model_window``), and no summarizer call reads more
  than ``max_input_tokens`` (longer spans are folded in chunks);
* metadata lives beside the items (:meth:`get_full_history`) and never reaches the model;
* a summary is applied to exactly the prefix it was computed from (compare-and-swap), so
  items that arrive meanwhile are neither lost nor summarized twice, and at most one fold
  per session is in flight, across processes;
* summaries are incremental (previous summary + newly folded turns) and can be rebuilt from
  the raw log, on demand (:meth:`rebuild_summary`) or every N folds (``rebuild_every``), to
  correct drift;
* identifiers in the folded items that the summary lacks are listed in its metadata;
* ``background=True`` starts folds without making ``add_items`` or ``get_items`` wait;
  :meth:`flush` waits for them.

With a persistent ``store`` (an SDK ``SQLiteSession`` on a file, a ``RedisSession``, ...) the
summary and its generation are saved beside the log, so a new process resumes with the same
view and does not summarize again. Each summary records a digest of the prefix it folds and
is dropped if that prefix is ever changed (a pop into it, a rollback).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from agents.memory import SessionSettings

from ..core.checks import check_seconds
from ..core.tokens import TokenCounter
from ..policies import summarize
from ..policies.base import Window
from ..policies.spec import StrategySpec
from ..policies.summarize import DEFAULT_MAX_INPUT_TOKENS, SummarizeParams, SummaryRecord
from ..stores.base import StoredState
from ..summarizers.extractive import ExtractiveSummarizer
from .base import MemorySession, StoreArg, check_limit
from .first_read import FirstReader
from .fold_checkpoint import read_from_checkpoint
from .fold_port import FoldPort, flush_folds, rebuild
from .folding import FoldEngine
from .history import history_records
from .lease import FoldLease
from .summary_state import STATE_FORMAT, SummaryState, drop_stale
from .summary_view import SummaryView

__all__ = ["DEFAULT_LEASE_TTL", "STATE_FORMAT", "SummarizingSession", "SummaryRecord"]

#: Default seconds a fold may hold the lease without renewing it (renewed every third).
DEFAULT_LEASE_TTL = 30.0
_DEFAULTS = dataclasses.astuple(SummarizeParams())  # the tutorial's 3/3, and no other trigger


class SummarizingSession(MemorySession):
    """Keep the last ``keep_last_n_turns`` turns verbatim and summarize the rest.

    The first two arguments keep the source tutorial's order,
    ``SummarizingSession(keep_last_n_turns, context_limit)``; write them as keywords.

    Args:
        keep_last_n_turns: turns kept verbatim when a fold happens (>= 0).
        context_limit: unfolded turns allowed before a fold (>= 1, >= keep_last_n_turns;
            None: no turn trigger, fold on tokens only).
        summarizer: anything with ``summarize(items)``, sync (run in a worker thread) or
            async (see :mod:`ctxlab.summarizers`); defaults to the offline
            :class:`~ctxlab.summarizers.ExtractiveSummarizer`.
        session_id: the conversation's id; the store's id with a ``store``, else a fresh
            :func:`ctxlab.new_session_id` when omitted.
        fold_at_tokens: also fold when what the model is shown (preamble, summary pair,
            unfolded turns) passes this many tokens.
        fold_at_share, model_window: also fold past this share (0-1) of a ``model_window``
            -token window (the seed article folds at 40-50%).
        max_input_tokens: what one summarizer call may read (previous summary + folded
            items; None: no bound); a longer span is folded in chunks.
        rebuild_every: every N-th fold re-summarizes everything folded from the raw log
            instead of extending the previous summary (None: never).
        background: start folds in the background; ``add_items`` and ``get_items`` never
            wait for them (use :meth:`flush` to wait).
        summary_timeout: seconds one summarizer call may take before the attempt counts as
            failed (None: no deadline).
        keep_preamble: keep items stored before the first user message verbatim.
        store: where the raw log and the summary live (see
            :class:`~ctxlab.sessions.base.MemorySession`); None keeps both in memory.
        redactor: applied to every batch before it is stored, and to what the summarizer
            reads (see :class:`ctxlab.Redactor`).
        lease_ttl: seconds a fold's lease lasts without renewal (renewed every third while
            the summarizer works), so another process takes over this soon after a crash.
        session_settings: the SDK's ``SessionSettings`` (``limit`` caps the item count).
        token_counter: defaults to exact ``o200k_base`` counts.
        params: a ready :class:`~ctxlab.policies.summarize.SummarizeParams` instead of the
            policy settings above (how :meth:`branch` passes them on).
    """

    strategy: ClassVar[StrategySpec] = summarize.SPEC
    #: A fresh object's first read: the fold checkpoint and the tail after it.
    first_read: ClassVar[FirstReader | None] = staticmethod(read_from_checkpoint)

    def __init__(
        self,
        keep_last_n_turns: int = 3,
        context_limit: int | None = 3,
        summarizer: Any | None = None,
        session_id: str | None = None,
        *,
        fold_at_tokens: int | None = None,
        fold_at_share: float | None = None,
        model_window: int | None = None,
        max_input_tokens: int | None = DEFAULT_MAX_INPUT_TOKENS,
        rebuild_every: int | None = None,
        background: bool = False,
        summary_timeout: float | None = 120.0,
        keep_preamble: bool = True,
        store: StoreArg = None,
        redactor: Any = None,
        lease_ttl: float | None = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
        params: SummarizeParams | None = None,
    ):
        settings = (keep_last_n_turns, context_limit, bool(keep_preamble), fold_at_tokens,
                    fold_at_share, model_window, max_input_tokens, rebuild_every)
        if params is None:
            params = SummarizeParams(*settings)
        elif settings != _DEFAULTS:
            raise TypeError("SummarizingSession: pass params=... or its settings, not both")
        self.params = params
        self.summary_timeout = check_seconds("summary_timeout", summary_timeout)
        self.lease_ttl = check_seconds("lease_ttl", lease_ttl) or DEFAULT_LEASE_TTL
        super().__init__(
            session_id, store=store, session_settings=session_settings,
            token_counter=token_counter, redactor=redactor,
        )
        self.summarizer = summarizer if summarizer is not None else ExtractiveSummarizer()
        self.background = bool(background)
        self._fold = SummaryState()
        self._port = FoldPort(self)
        self._engine = FoldEngine(self._port, FoldLease(
            self._store, self._owner, self.lease_ttl, self.session_id,
            shared=not self._private_store))
        self._view_parts = SummaryView()

    # -- settings --------------------------------------------------------------------
    @property
    def keep_last_n_turns(self) -> int:
        return self.params.keep_last_n_turns

    @property
    def context_limit(self) -> int | None:
        return self.params.context_limit

    def set_max_turns(self, n: int) -> None:
        """Set ``context_limit`` to ``n`` (clamping ``keep_last_n_turns`` to it).

        The view follows at once; a fold that becomes due runs when items are next added
        (or at :meth:`flush`).
        """
        keep = self.params.keep_last_n_turns
        if isinstance(n, int) and not isinstance(n, bool):
            keep = min(keep, n)
        self.set_params(context_limit=n, keep_last_n_turns=keep)

    def set_limits(self, *, keep_last_n_turns: int, context_limit: int | None) -> None:
        """Change both knobs at once (the invariant is checked before anything changes)."""
        self.set_params(keep_last_n_turns=keep_last_n_turns, context_limit=context_limit)

    def set_params(self, **changes: Any) -> None:
        """Change any :class:`~ctxlab.policies.summarize.SummarizeParams` field (checked
        before anything changes); the view follows at once, a fold that becomes due runs
        when items are next added (or at :meth:`flush`)."""
        self.params = dataclasses.replace(self.params, **changes)
        self._changed()

    def _options(self) -> dict[str, Any]:
        return {**super()._options(), "summarizer": self.summarizer,
                "background": self.background, "summary_timeout": self.summary_timeout,
                "lease_ttl": self.lease_ttl}

    # -- state -----------------------------------------------------------------------
    @property
    def summary(self) -> SummaryRecord | None:
        """The summary currently applied to the view, if any."""
        return self._fold.summary

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
        folded = self._fold.summary.turns if self._fold.summary else None
        trigger = "".join(f", {k}={v}" for k, v in (
            ("fold_at_tokens", self.params.fold_at_tokens),
            ("fold_at_share", self.params.fold_at_share)) if v is not None)
        return (
            f"SummarizingSession(session_id={self.session_id!r}, "
            f"keep_last_n_turns={self.keep_last_n_turns}, context_limit={self.context_limit}"
            f"{trigger}, items={len(self._log)}, turns={self._log.turn_count}, "
            f"summarized_turns={folded}{self._store_note()})"
        )

    # -- persistence -------------------------------------------------------------------
    def _export_state(self) -> dict[str, Any]:
        return self._fold.data()

    async def _on_change(self, *, shrank: bool, state: StoredState | None) -> None:
        if state is not None:
            self._fold.load(state, self.session_id)
            self._changed()
        if self._fold.summary is not None:
            await drop_stale(self, force=shrank)

    # -- hooks -----------------------------------------------------------------------
    async def _after_add(self) -> None:
        if not self._engine.due():
            return
        self._engine.start()
        if not self.background:
            await self._engine.wait()

    async def _after_clear(self) -> None:
        self._fold.summary = None
        self._engine.failure = None
        self._changed()

    # -- folding ---------------------------------------------------------------------
    async def flush(self) -> None:
        """Wait until no fold is in flight or due (a failed fold is not retried here until
        new items arrive). With a shared store this includes folds another process holds
        the lease for: the session polls until that fold lands or the lease expires."""
        await flush_folds(self)

    async def rebuild_summary(self) -> SummaryRecord | None:
        """Re-summarize every folded turn from the raw log (corrects incremental drift;
        ``rebuild_every=N`` does it every N folds).

        Waits for any fold in flight first; returns the new record (None when nothing is
        folded yet). A failing summarizer raises here, and the old summary stays.
        """
        return await rebuild(self)

    # -- the view --------------------------------------------------------------------
    def _window(self) -> Window:
        return self._view_parts.window(self._log, self._fold.summary, self.params,
                                       self._engine)

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
        check_limit(limit)
        async with self._lock:
            await self._sync()
            return history_records(self._log, self._view(None), limit)

    async def get_items_with_metadata(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Alias of :meth:`get_full_history` (the name the source tutorial also uses)."""
        return await self.get_full_history(limit)
