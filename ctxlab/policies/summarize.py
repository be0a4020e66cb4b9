"""Summarizing: fold older turns into a summary pair, keep the newest turns verbatim.

What the model sees is decided by :class:`SummarizeParams`:

* ``keep_last_n_turns`` (K): how many of the newest turns stay verbatim when a fold happens;
* the *fold trigger* (:func:`fold_reason`), any of
  ``context_limit`` (L: more than L unfolded turns are shown),
  ``fold_at_tokens`` (T: what the model is shown, preamble + summary pair + unfolded turns,
  passes T tokens) and ``fold_at_share`` of a ``model_window`` (the seed article's "fold at
  40-50% of the window"); whichever fires first;
* ``max_input_tokens``: what one summarizer call may read (previous summary pair + folded
  items); a longer span is folded in chunks (:mod:`.fold_input`);
* ``rebuild_every``: every N-th fold re-summarizes from the raw log instead of extending the
  previous summary, so incremental drift cannot accumulate.

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

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

from ..core.checks import check_int, check_optional_int
from ..core.ledger import DROPPED, PENDING, SUMMARIZED, ItemState
from ..facts.instructions import flag_text
from .base import PREAMBLE_DROPPED, LogView, Synthetic, Window, preamble, synthetic
from .spec import Invariants, PlotHints, PropertyHints, StrategySpec, log_scale, whole_number

SUMMARY_PROMPT_KIND = "summary_prompt"
SUMMARY_KIND = "summary"
#: What one summarizer call reads at most by default (previous summary + folded items).
DEFAULT_MAX_INPUT_TOKENS = 12_000


@dataclass(frozen=True)
class SummarizeParams:
    """Keep the newest ``keep_last_n_turns`` (>= 0) verbatim and fold the rest once the
    fold trigger fires (see the module doc); keep the preamble unless told not to.

    ``context_limit`` (>= 1, >= K, or None for no turn trigger), ``fold_at_tokens`` (>= 1)
    and ``fold_at_share`` (0 < share <= 1, with ``model_window`` >= 1) are the triggers; at
    least one is needed. ``max_input_tokens`` (>= 256, None: unbounded) bounds every
    summarizer call; ``rebuild_every`` (>= 1, None: never) rebuilds every N-th fold.
    """

    keep_last_n_turns: int = 3
    context_limit: int | None = 3
    keep_preamble: bool = True
    fold_at_tokens: int | None = None
    fold_at_share: float | None = None
    model_window: int | None = None
    max_input_tokens: int | None = DEFAULT_MAX_INPUT_TOKENS
    rebuild_every: int | None = None

    def __post_init__(self) -> None:
        check_int("keep_last_n_turns", self.keep_last_n_turns, minimum=0)
        check_optional_int("context_limit", self.context_limit)
        check_optional_int("fold_at_tokens", self.fold_at_tokens)
        check_optional_int("model_window", self.model_window)
        check_optional_int("max_input_tokens", self.max_input_tokens, minimum=256)
        check_optional_int("rebuild_every", self.rebuild_every)
        if not isinstance(self.keep_preamble, bool):
            raise ValueError(f"keep_preamble must be True or False, got {self.keep_preamble!r}")
        share = self.fold_at_share
        if share is not None and (isinstance(share, bool) or not isinstance(share, (int, float))
                                  or not 0 < share <= 1):
            raise ValueError(f"fold_at_share must be a number in (0, 1], got {share!r}")
        if (share is None) != (self.model_window is None):
            raise ValueError("fold_at_share and model_window go together (a share of which "
                             f"window?): got fold_at_share={share!r}, "
                             f"model_window={self.model_window!r}")
        if self.context_limit is None and self.fold_tokens is None:
            raise ValueError("a summarizing session needs a fold trigger: context_limit, "
                             "fold_at_tokens or fold_at_share (with model_window)")
        if self.context_limit is not None and self.keep_last_n_turns > self.context_limit:
            raise ValueError(
                f"keep_last_n_turns ({self.keep_last_n_turns}) must not be greater than "
                f"context_limit ({self.context_limit}): the turns kept verbatim after a fold "
                "must fit under the limit"
            )

    @cached_property
    def fold_tokens(self) -> int | None:
        """The token threshold of the trigger: the lower of ``fold_at_tokens`` and
        ``fold_at_share`` of ``model_window`` (None: no token trigger)."""
        found = [t for t in (self.fold_at_tokens, self._share_tokens()) if t is not None]
        return min(found) if found else None

    def _share_tokens(self) -> int | None:
        if self.fold_at_share is None or self.model_window is None:
            return None
        return max(1, int(self.fold_at_share * self.model_window))


@dataclass(frozen=True)
class SummaryRecord:
    """A summary applied to the view, and exactly what it folds.

    ``turns`` is the inclusive range of real user turns it folds (1-based; every one of them
    whole), ``items`` the half-open range of raw indices. ``pending_calls`` lists the
    call ids of folded tool calls that had no output yet (folded as pending actions);
    ``calls`` how many summarizer calls made it (usage figures are their sums).
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
    calls: int = 1  # summarizer calls it took (more than one: folded in chunks)

    def metadata(self, history_kind: str) -> dict[str, Any]:
        """What :meth:`SummarizingSession.get_full_history` reports for a summary item
        (``history_kind``: the seed's ``history_summary_prompt`` or ``history_summary``)."""
        data = self.to_dict()
        for private in ("text", "shadow", "digest", "epoch", "state"):
            data.pop(private)
        if data["calls"] == 1:  # reported only for a fold made in chunks
            data.pop("calls")
        data["created_at"] = datetime.fromtimestamp(self.created_at, timezone.utc).isoformat()
        return {"synthetic": True, "kind": history_kind, **data}

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
            calls=int(data.get("calls", 1)),
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


def shown_tokens(log: LogView, summary: SummaryRecord | None, params: SummarizeParams,
                 summary_tokens: int = 0) -> int:
    """Tokens the model is shown: the preamble (when kept), the summary pair
    (``summary_tokens``) and every unfolded turn."""
    start = summary.items[1] if summary is not None else log.preamble_end
    shown = log.tokens_between(min(start, len(log)), len(log)) + summary_tokens
    if params.keep_preamble:
        shown += log.tokens_between(0, log.preamble_end)
    return shown


def fired(log: LogView, summary: SummaryRecord | None, params: SummarizeParams,
          summary_tokens: int = 0) -> tuple[str, int] | None:
    """The trigger that fired, ``("turns", unfolded turns)`` or ``("tokens", tokens
    shown)``, when there is also something to fold; else None. (Cheap: called after every
    write.)"""
    unfolded = log.turn_count - folded_turns(summary)
    limit = params.context_limit
    if limit is not None and unfolded > limit:
        return ("turns", unfolded)  # unfolded > L >= K: the turns before the last K can fold
    threshold = params.fold_tokens
    if threshold is None or unfolded <= params.keep_last_n_turns:
        return None
    shown = shown_tokens(log, summary, params, summary_tokens)
    if shown > threshold and plan_fold(log, summary, params) is not None:
        return ("tokens", shown)
    return None


def fold_reason(log: LogView, summary: SummaryRecord | None, params: SummarizeParams,
                summary_tokens: int = 0) -> str | None:
    """Why a fold is due (the trigger that fired, in words), or None when none fired or
    there is nothing to fold (everything unfolded is in the last K turns)."""
    found = fired(log, summary, params, summary_tokens)
    if found is None:
        return None
    what, count = found
    if what == "turns":
        return f"{count} unfolded turns are shown, over context_limit={params.context_limit}"
    threshold = params.fold_tokens
    if threshold == params._share_tokens():
        over = f"{params.fold_at_share:.0%} of the {params.model_window}-token window ({threshold})"
    else:
        over = f"fold_at_tokens={threshold}"
    return f"{count} tokens are shown, over {over}"


def fold_due(log: LogView, summary: SummaryRecord | None, params: SummarizeParams,
             summary_tokens: int = 0) -> bool:
    """The fold trigger fired and there is something to fold (:func:`fired`)."""
    return fired(log, summary, params, summary_tokens) is not None


def plan_fold(
    log: LogView,
    summary: SummaryRecord | None,
    params: SummarizeParams,
    *,
    rebuild: bool = False,
    fresh: bool = False,
) -> FoldPlan | None:
    """The next fold: everything from the end of ``summary`` up to the first of the last
    ``keep_last_n_turns`` turns (with K = 0, up to the end of the log), or, with
    ``rebuild``, everything ``summary`` folds, from the start. ``fresh`` plans the same
    fold from the start of the log without the previous summary (a periodic rebuild).
    None when there is nothing to fold. The end is always a turn boundary (or the end of
    the log), so no call and output of one turn are ever split; unanswered calls are folded
    as pending actions."""
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
    if fresh:
        return FoldPlan(log.preamble_end, end, last_turn, None)
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
    Responses API and the SDK's Chat Completions converter accept without an item id. The
    summary's instruction-like lines (a customer's "ignore your previous instructions"
    folded into it) are flagged (:func:`~ctxlab.facts.instructions.flag_text`): said in the
    assistant's voice, they still read as quoted, never as orders.
    """
    if summary is None:
        return []
    turns = f"turns {summary.turns[0]}-{summary.turns[1]}"
    return [
        synthetic(log, {"role": "user", "content": summary.shadow}, SUMMARY_PROMPT_KIND,
                  f"synthetic request for the summary of {turns}", covers=summary.items,
                  meta={"metadata": summary.metadata("history_summary_prompt")}),
        synthetic(log, {"role": "assistant", "content": flag_text(summary.text)}, SUMMARY_KIND,
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

    ``waiting`` says why unfolded turns are still shown although the fold trigger fired (a
    fold in flight, a failing summarizer); with the trigger it becomes a note for the
    caller. ``slots`` are the summary pair when the caller keeps them (:func:`summary_slots`
    of ``summary``).
    """
    n = len(log)
    starts = log.turn_starts
    total = len(starts)
    first = log.preamble_end
    summary_end = summary.items[1] if summary is not None else first
    window = preamble(log, params.keep_preamble)
    pair = slots if slots is not None else summary_slots(log, summary)
    for slot in pair:
        window.add([slot], slot.reason)

    # Verbatim: everything unfolded, and never fewer than the last K turns.
    verbatim = summary_end
    keep = params.keep_last_n_turns
    if keep and total and starts[max(0, total - keep)] < verbatim:
        verbatim = starts[max(0, total - keep)]
    due = fold_reason(log, summary, params, sum(s.tokens for s in pair))
    if due is not None:
        window.notes.append(f"{due}: {waiting}")
        reason = f"unfolded turn ({waiting})"
    elif params.context_limit is not None:
        reason = f"in the last {params.context_limit} unfolded turns"
    else:
        reason = "unfolded turn (under the fold threshold)"

    window.add(range(verbatim, n), reason)

    def excluded(index: int) -> tuple[ItemState, str]:
        if index < first:
            return DROPPED, PREAMBLE_DROPPED
        if summary is not None and summary.items[0] <= index < summary.items[1]:
            return SUMMARIZED, (
                f"folded into the summary of turns {summary.turns[0]}-{summary.turns[1]}"
            )
        return PENDING, "not shown yet"  # pragma: no cover - every other index is a slot

    window.fate_of = excluded
    return window


# ------------------------------------------------ the spec: summarize:K/L, K@T, K@P%/W


_WINDOW = re.compile(r"(\d+)(k?)")
_SHARE = re.compile(r"(\d+(?:\.\d+)?)%/(\d+k?)")


def _window_tokens(text: str) -> int:
    """``16k`` = 16,384 (as local servers count a context: ``OLLAMA_CONTEXT_LENGTH=16384``),
    or a plain number of tokens."""
    match = _WINDOW.fullmatch(text)
    if match is None:
        raise ValueError(f"window {text!r}")
    return int(match[1]) * (1024 if match[2] else 1)


def parse_summarize(arg: str | None) -> dict[str, Any]:
    """``K/L``, ``K@T``, ``K@P%/W`` or ``K/L@T`` (see :data:`SPEC`'s syntax)."""
    spec = f"summarize:{arg}"
    head, at, trigger = (arg or "").replace(" ", "").partition("@")
    keep_text, slash, limit_text = head.partition("/")
    if not slash and not at:
        raise ValueError(f"strategy part {spec!r}: expected summarize:K/L (fold past L "
                         "turns), summarize:K@T (past T tokens) or summarize:K@P%/W (past P% "
                         "of a W-token window, W like 16k)")
    keep = whole_number(spec, keep_text, "K", minimum=0)
    out: dict[str, Any] = {"keep_last_n_turns": keep,
                           "context_limit": whole_number(spec, limit_text, "L") if slash else None}
    if slash and keep > out["context_limit"]:
        raise ValueError(f"strategy part {spec!r}: need 0 <= K <= L and L >= 1 "
                         f"(got K={keep}, L={out['context_limit']})")
    share = _SHARE.fullmatch(trigger) if at else None
    if share is not None:
        percent = float(share[1])
        if not 0 < percent <= 100:
            raise ValueError(f"strategy part {spec!r}: P must be a percentage in (0, 100], "
                             f"got {share[1]}")
        out["fold_at_share"] = percent / 100
        out["model_window"] = _window_tokens(share[2])
    elif at:
        out["fold_at_tokens"] = whole_number(spec, trigger, "T (tokens) or P%/W")
    return out


def spell_summarize(kw: dict[str, Any]) -> str:
    text = f"summarize:{kw['keep_last_n_turns']}"
    if kw.get("context_limit") is not None:
        text += f"/{kw['context_limit']}"
    if kw.get("fold_at_tokens") is not None:
        return text + f"@{kw['fold_at_tokens']}"
    if kw.get("fold_at_share") is not None:  # the window in tokens: 16k reads as 16384
        return text + f"@{kw['fold_at_share'] * 100:g}%/{kw['model_window']}"
    return text


def _read_label(text: str) -> dict[str, Any] | None:
    """``summarize 2/4`` (also ``summarizing``, ``summarise``), ``summarize 2@7200``."""
    word, _, arg = text.partition(" ")
    if word not in ("summarize", "summarise", "summarizing", "summarising") or not arg:
        return None
    try:
        return parse_summarize(arg)
    except ValueError:
        return None


def _size(p: SummarizeParams) -> float:
    if p.context_limit is not None:
        limit, keep = p.context_limit, p.keep_last_n_turns
        return log_scale(limit + keep / (limit + 1), 2, 12)
    return log_scale(p.fold_tokens or 1, 1000, 32_000)


SPEC = StrategySpec(
    name="summarize", syntax="summarize:K/L, K@T, K@P%/W",
    help="SummarizingSession: fold all but the last K turns into a summary past L turns, "
         "T tokens, or P% of a W-token window (16k = 16384)",
    parse=parse_summarize, params_type=SummarizeParams, policy=None,
    session_name="SummarizingSession",
    hints=PropertyHints(
        ranges={"keep_last_n_turns": range(0, 4), "context_limit": range(1, 5),
                "fold_at_tokens": range(40, 3000)},
        optional=("fold_at_tokens",), options={"background": (False, True)}, summarizer=True),
    invariants=Invariants(synthetic=True),
    plot=PlotHints("summarize", size=_size,
                   marks=lambda p: ("cap",) if p.fold_tokens is not None else ()),
    spell=spell_summarize, read_label=_read_label,
)
