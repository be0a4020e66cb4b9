"""Summarizing: fold older turns into a summary pair, keep the newest turns verbatim.

Two parameters decide what the model sees (:class:`SummarizeParams`):

* ``context_limit``: how many unfolded user turns may be shown before a fold is due;
* ``keep_last_n_turns`` (<= ``context_limit``): how many of the newest turns stay verbatim
  when a fold happens.

A fold always ends at a turn boundary, so the turn range a :class:`SummaryRecord` states is
exact. The pure functions here decide *what* to fold (:func:`plan_fold`) and *what the
model sees* (:func:`summary_window`); when and how the summarizer runs (leases, retries,
background tasks) is :mod:`ctxlab.sessions.folding`'s business.

The window never loses an item:

* every unfolded turn is shown, even when more than ``context_limit`` are waiting because a
  fold is in flight, blocked or failing (the caller is warned instead);
* at least the last ``keep_last_n_turns`` turns are shown verbatim even after a pop shrank
  the log below what the summary covers;
* a tool call folded before its output arrived (a *late* output) is shown again next to that
  output (done for every policy by :func:`ctxlab.sessions.view.build_view`);
* an unanswered call (awaiting approval, a crashed tool) in the unfolded part is *pending*:
  not sent (the API would reject it) until its output arrives or a fold takes it in as a
  pending action; it never blocks a fold.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from typing import Any

from ..core.checks import check_int
from ..core.ledger import DROPPED, PENDING, SUMMARIZED, ItemState
from .base import PREAMBLE_DROPPED, LogView, Synthetic, Window, preamble, synthetic

SUMMARY_PROMPT_KIND = "summary_prompt"
SUMMARY_KIND = "summary"


@dataclass(frozen=True)
class SummarizeParams:
    """Fold past ``context_limit`` unfolded turns (>= 1), keeping the newest
    ``keep_last_n_turns`` (0 <= K <= limit) verbatim; keep the preamble unless told not to."""

    keep_last_n_turns: int = 3
    context_limit: int = 3
    keep_preamble: bool = True

    def __post_init__(self) -> None:
        check_int("keep_last_n_turns", self.keep_last_n_turns, minimum=0)
        check_int("context_limit", self.context_limit)
        if self.keep_last_n_turns > self.context_limit:
            raise ValueError(
                f"keep_last_n_turns ({self.keep_last_n_turns}) must not be greater than "
                f"context_limit ({self.context_limit}): the turns kept verbatim after a fold "
                "must fit under the limit"
            )


@dataclass(frozen=True)
class SummaryRecord:
    """A summary applied to the view, and exactly what it folds.

    ``turns`` is the inclusive range of real user turns it folds (1-based; every one of them
    whole), ``items`` the half-open range of raw indices. ``pending_calls`` lists the
    call ids of folded tool calls that had no output yet (folded as pending actions).
    ``missing_identifiers`` lists identifier-like values from the folded items that the
    summary text does not contain. ``state`` is the summarizer's structured record behind
    the text (JSON-ready; see :class:`ctxlab.summarizers.SummaryResult`), handed back to it
    on the next fold; it is never shown to the model.
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
    pending_calls: tuple[str, ...] = ()
    state: dict[str, Any] | None = None

    def metadata(self, kind: str) -> dict[str, Any]:
        """What :meth:`SummarizingSession.get_full_history` reports for a summary item."""
        data = self.to_dict()
        for private in ("text", "shadow", "digest", "epoch", "state"):
            data.pop(private)
        data["created_at"] = datetime.fromtimestamp(self.created_at, timezone.utc).isoformat()
        return {"synthetic": True, "kind": kind, **data}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (how a store keeps it)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("turns", "items", "missing_identifiers", "pending_calls"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SummaryRecord:
        """The inverse of :meth:`to_dict`; raises ValueError/KeyError on a malformed record."""
        def optional_int(key: str) -> int | None:
            return None if data.get(key) is None else int(data[key])

        return cls(
            text=str(data["text"]), shadow=str(data["shadow"]),
            turns=(int(data["turns"][0]), int(data["turns"][1])),
            items=(int(data["items"][0]), int(data["items"][1])),
            generation=int(data["generation"]), created_at=float(data["created_at"]),
            summarizer=str(data["summarizer"]),
            input_tokens=optional_int("input_tokens"), output_tokens=optional_int("output_tokens"),
            missing_identifiers=tuple(str(v) for v in data.get("missing_identifiers", ())),
            incremental=bool(data.get("incremental", False)),
            duration_s=float(data.get("duration_s", 0.0)),
            digest=str(data.get("digest", "")), epoch=int(data.get("epoch", 0)),
            pending_calls=tuple(str(v) for v in data.get("pending_calls", ())),
            state=dict(data["state"]) if isinstance(data.get("state"), Mapping) else None,
        )


@dataclass(frozen=True)
class FoldPlan:
    """What the next fold summarizes: raw ``items[start:end]`` after the ``previous`` summary
    (None for the first fold or a rebuild), giving a summary of turns 1..``last_turn``."""

    start: int
    end: int
    last_turn: int
    previous: SummaryRecord | None


def folded_turns(summary: SummaryRecord | None) -> int:
    """How many turns the summary folds (0 without one)."""
    return summary.turns[1] if summary is not None else 0


def unfolded_turns(log: LogView, summary: SummaryRecord | None) -> int:
    """Turns that start at or after the end of the summary."""
    return log.turn_count - folded_turns(summary)


def fold_due(log: LogView, summary: SummaryRecord | None, params: SummarizeParams) -> bool:
    """More than ``context_limit`` turns are unfolded."""
    return unfolded_turns(log, summary) > params.context_limit


def plan_fold(
    log: LogView,
    summary: SummaryRecord | None,
    params: SummarizeParams,
    *,
    rebuild: bool = False,
) -> FoldPlan | None:
    """The next fold: everything from the end of ``summary`` up to the first of the last
    ``keep_last_n_turns`` turns (with K = 0, up to the end of the log), or, with
    ``rebuild``, everything ``summary`` folds, from the start. None when there is nothing to
    fold. The end is always a turn boundary (or the end of the log), so no call and output
    of one turn are ever split; unanswered calls are folded as pending actions."""
    starts = log.turn_starts
    total = len(starts)
    if rebuild:
        if summary is None:
            return None
        return FoldPlan(log.preamble_end, summary.items[1], summary.turns[1], None)
    last_turn = total - params.keep_last_n_turns
    if last_turn <= folded_turns(summary):
        return None
    start = summary.items[1] if summary is not None else log.preamble_end
    end = starts[last_turn] if last_turn < total else len(log)
    if end <= start:
        return None
    return FoldPlan(start, end, last_turn, summary)


def pending_calls(log: LogView, start: int, end: int) -> list[str]:
    """Call ids of tool calls in ``items[start:end]`` that have no output (yet)."""
    out = []
    for index in range(start, end):
        if log.kind(index) == "tool_call" and log.output_of(index) is None:
            item = log.item(index)
            out.append(str(item.get("call_id") or item.get("id")))
    return out


def summary_slots(log: LogView, summary: SummaryRecord | None) -> list[Synthetic]:
    """The summary as the user -> assistant pair the model is shown.

    Both halves are plain ``{"role": ..., "content": "text"}`` messages: the form both the
    Responses API and the SDK's Chat Completions converter accept without an item id.
    """
    if summary is None:
        return []
    turns = f"turns {summary.turns[0]}-{summary.turns[1]}"
    return [
        synthetic(log, {"role": "user", "content": summary.shadow}, SUMMARY_PROMPT_KIND,
                  f"synthetic request for the summary of {turns}", covers=summary.items,
                  meta={"metadata": summary.metadata("history_summary_prompt")}),
        synthetic(log, {"role": "assistant", "content": summary.text}, SUMMARY_KIND,
                  f"summary of {turns} by {summary.summarizer}", covers=summary.items,
                  meta={"metadata": summary.metadata("history_summary")}),
    ]


def summary_window(
    log: LogView,
    summary: SummaryRecord | None,
    params: SummarizeParams,
    *,
    waiting: str = "a fold is due",
    slots: list[Synthetic] | None = None,
) -> Window:
    """The window of :class:`ctxlab.SummarizingSession` (see the module doc).

    ``waiting`` says why unfolded turns beyond ``context_limit`` are still shown (a fold in
    flight, a failing summarizer); it becomes a note for the caller. ``slots`` are the
    summary pair when the caller keeps them (:func:`summary_slots` of ``summary``).
    """
    n = len(log)
    starts = log.turn_starts
    total = len(starts)
    first = log.preamble_end
    summary_end = summary.items[1] if summary is not None else first
    window = preamble(log, params.keep_preamble)
    for slot in summary_slots(log, summary) if slots is None else slots:
        window.add([slot], slot.reason)

    # Verbatim: everything unfolded, and never fewer than the last K turns.
    verbatim = summary_end
    keep = params.keep_last_n_turns
    if keep and total and starts[max(0, total - keep)] < verbatim:
        verbatim = starts[max(0, total - keep)]
    unfolded = len(starts) - bisect_left(starts, summary_end)
    if unfolded > params.context_limit:
        window.notes.append(
            f"{unfolded} unfolded turns are shown, over context_limit={params.context_limit}: "
            f"{waiting}"
        )
    reason = (f"in the last {params.context_limit} unfolded turns"
              if unfolded <= params.context_limit else f"unfolded turn ({waiting})")

    window.add(range(verbatim, n), reason)

    def excluded(index: int) -> tuple[ItemState, str]:
        if index < first:
            return DROPPED, PREAMBLE_DROPPED
        if summary is not None and summary.items[0] <= index < summary.items[1]:
            return SUMMARIZED, (
                f"folded into the summary of turns {summary.turns[0]}-{summary.turns[1]}"
            )
        return PENDING, "not shown yet"  # pragma: no cover - every other index is a slot

    window.excluded = excluded
    return window
