"""A fold without a session: :func:`fold` ``(items, running state, params) -> (view, new
state, summarizer requests)``.

Like langmem's ``summarize_messages`` (messages and a running summary in; the messages to
send and the new running summary out), but it never calls a summarizer itself: it says which
call to make (a :class:`SummaryRequest`), and you hand the answers back. Any summarizer,
sync or async, local or remote, fits the loop::

    step = ctxlab.fold(items, state, "summarize:2/4")
    answers = []
    while step.requests:  # one call at a time: each reads the summary so far
        request = step.requests[0]
        answers.append(summarizer.summarize(request.items, previous_summary=request.previous,
                                            previous_state=request.state))
        step = ctxlab.fold(items, state, "summarize:2/4", answers=answers)
    state = step.state  # the new running summary (a SummaryRecord); step.view: what to send

(``previous_state`` only for a summarizer that takes it:
:func:`ctxlab.summarizers.base.call_summarizer` passes what each accepts, sync or async.)

:class:`ctxlab.SummarizingSession` runs the same pieces, with leases, a lock and a store
around them: :func:`next_plan` (whether a fold is due and what it covers), :func:`job_for`
(what it reads), :func:`next_request` (its next summarizer call, chunk by chunk within
``max_input_tokens``) and :func:`fold_record` (the record the answers make).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import item_text, model_safe
from ..core.rawlog import RawLog
from ..core.tokens import ITEM_OVERHEAD_TOKENS, TokenCounter, get_token_counter
from ..facts.identifiers import identifier_values, missing_from
from ..facts.instructions import flag_text
from ..policies.fold_input import fit_item, next_chunk
from ..policies.summarize import (
    FoldPlan,
    SummarizeParams,
    SummaryRecord,
    fired,
    fold_reason,
    pending_calls,
    plan_fold,
    summary_slots,
    summary_window,
)
from ..summarizers.base import SummaryResult, coerce_result
from .view import build_view

logger = logging.getLogger("ctxlab.summarizing")


@dataclass
class FoldJob:
    """A planned fold: the plan, what the summarizer reads and the state it was planned on.

    ``items`` are the folded items (model-safe, redacted), ``tokens`` their sizes and
    ``turn_starts`` the positions in ``items`` where a turn begins (where chunks may end);
    ``count`` counts a text's tokens; ``max_input_tokens`` bounds every summarizer call.
    """

    plan: FoldPlan
    generation: int
    version: int  # the store state's version when planned (the CAS token)
    epoch: int
    digest: str  # of the raw items [0, plan.end)
    items: list[dict[str, Any]]
    pending: tuple[str, ...]
    tokens: list[int] = field(default_factory=list)
    turn_starts: list[int] = field(default_factory=list)
    count: Callable[[str], int] = len
    max_input_tokens: int | None = None

    @property
    def incremental(self) -> bool:
        return self.plan.previous is not None


@dataclass(frozen=True)
class SummaryRequest:
    """One summarizer call to make: ``summarize(items, previous_summary=previous,
    previous_state=state)``. ``items`` are the summary so far as a user/assistant pair (when
    there is one), then the next ``chunk`` of folded items (positions in ``job.items``)."""

    items: list[dict[str, Any]]
    previous: str | None
    state: dict[str, Any] | None
    chunk: tuple[int, int]
    number: int  # 0 for the first call of this fold
    job: FoldJob = field(repr=False)


@dataclass(frozen=True)
class FoldStep:
    """What :func:`fold` returns: ``view`` (the items to send now: preamble, summary pair,
    unfolded turns; valid for the API), ``state`` (the running summary after the answers
    given, or the one passed in), ``requests`` (the summarizer call to make next; empty when
    none is due or the answers completed the fold) and ``due`` (why a fold is due, or None).
    """

    view: list[dict[str, Any]]
    state: SummaryRecord | None
    requests: list[SummaryRequest]
    due: str | None


def next_plan(log: RawLog, summary: SummaryRecord | None, params: SummarizeParams, *,
              generation: int, pair_tokens: int = 0, rebuild: bool = False) -> FoldPlan | None:
    """The fold to run now (None: none is due), or with ``rebuild`` the rebuild of
    everything folded; every ``rebuild_every``-th fold starts from the raw log."""
    if rebuild:
        return plan_fold(log, summary, params, rebuild=True)
    if fired(log, summary, params, pair_tokens) is None:
        return None
    every = params.rebuild_every
    fresh = bool(every) and summary is not None and (generation + 1) % every == 0
    return plan_fold(log, summary, params, fresh=fresh)


def job_for(log: RawLog, plan: FoldPlan, params: SummarizeParams, *, generation: int,
            version: int = 0, epoch: int = 0,
            redact: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
            ) -> FoldJob:
    """What the summarizer reads for ``plan``: model-safe copies of the folded items
    (``redact`` applied when given), their sizes in tokens (upper bounds when the whole span
    fits in half the input bound) and turn starts; pending calls carried over."""
    items = [model_safe(log.item(i)) for i in range(plan.start, plan.end)]
    counter = log.counter
    if redact is not None:
        items = redact(items)
    bound = params.max_input_tokens
    # Upper bounds first (a token is at least one UTF-8 byte): exact counts only for a span
    # that may not fit in one call.
    tokens = [len(item_text(it).encode()) + ITEM_OVERHEAD_TOKENS for it in items]
    if bound is not None and sum(tokens) > bound // 2:
        tokens = ([counter.count_item(it) for it in items] if redact is not None
                  else [log.tokens(i) for i in range(plan.start, plan.end)])
    pending = tuple(pending_calls(log, plan.start, plan.end))
    previous = plan.previous
    if previous is not None:
        answered = _answered(log, set(previous.pending_calls))
        pending = tuple(c for c in previous.pending_calls if c not in answered) + pending
    return FoldJob(
        plan=plan, generation=generation, version=version, epoch=epoch,
        digest=log.digest(plan.end), items=items, pending=pending, tokens=tokens,
        turn_starts=[s - plan.start for s in log.turn_starts if plan.start < s < plan.end],
        count=counter.count, max_input_tokens=bound)


def _answered(log: RawLog, call_ids: set[str]) -> set[str]:
    """The ids among ``call_ids`` that some output in the log answers."""
    if not call_ids:
        return set()
    found = set()
    for index in range(len(log)):
        if log.kind(index) == "tool_output":
            item = log.item(index)
            for key in ("call_id", "id"):
                if item.get(key) in call_ids:
                    found.add(item[key])
    return found


def next_request(job: FoldJob, answers: Sequence[SummaryResult], *, who: str = "fold"
                 ) -> SummaryRequest | None:
    """The next summarizer call of ``job`` after ``answers`` (one per call made so far), or
    None when they complete it. Every call reads the summary so far plus the next chunk,
    within ``max_input_tokens`` (a single item too large for it is shortened)."""
    previous = job.plan.previous
    text = previous.text if previous else None
    shadow = previous.shadow if previous else ""
    state = previous.state if previous else None
    start = 0
    for number in range(len(answers) + 1):
        pair = ([{"role": "user", "content": shadow}, {"role": "assistant",
                                                          "content": flag_text(text)}]
                if text is not None else [])
        if number == len(answers):
            if number and start >= len(job.items):
                return None
            chunk, end = _chunk(job, start, pair, who)
            return SummaryRequest(pair + chunk, text, state, (start, end), number, job)
        start = _chunk(job, start, pair, who, quiet=True)[1]
        answer = answers[number]
        text, shadow, state = answer.text, answer.shadow, answer.state
    return None  # pragma: no cover - the loop always returns


def _chunk(job: FoldJob, start: int, pair: list[dict[str, Any]], who: str, *,
           quiet: bool = False) -> tuple[list[dict[str, Any]], int]:
    """The chunk of ``job.items`` from ``start`` (and where the next one starts), within
    what ``max_input_tokens`` leaves beside the summary pair."""
    bound = job.max_input_tokens
    if bound is None:
        return job.items[start:], len(job.items)
    room = bound - sum(job.count(item_text(it)) + ITEM_OVERHEAD_TOKENS for it in pair)
    if room < bound // 4:
        if not quiet:
            logger.warning("%s: the summary so far leaves %s of max_input_tokens=%s for the "
                           "folded items; the summarizer reads more than the bound (it "
                           "writes long summaries)", who, max(room, 0), bound)
        room = bound // 4
    end = next_chunk(job.tokens, job.turn_starts, start, room)
    chunk = job.items[start:end]
    if end == start + 1 and job.tokens[start] > room:
        chunk = [fit_item(chunk[0], room - ITEM_OVERHEAD_TOKENS, job.count)]
    return chunk, end


def combined(answers: Sequence[SummaryResult]) -> SummaryResult:
    """The last answer, with usage summed over every call (``extra["calls"]`` counts them
    when there was more than one)."""
    last = answers[-1]
    if len(answers) == 1:
        return last
    used_in = sum(a.input_tokens or 0 for a in answers)
    used_out = sum(a.output_tokens or 0 for a in answers)
    return SummaryResult(last.text, last.shadow, used_in or None, used_out or None, last.model,
                         {**last.extra, "calls": len(answers)}, last.state)


def fold_record(job: FoldJob, result: SummaryResult, *, summarizer: str,
                duration: float = 0.0, now: float | None = None) -> SummaryRecord:
    """The running summary after ``job``, from its (:func:`combined`) ``result``."""
    # Identifiers the newly folded items hold (not the previous summary's own text: its
    # bookkeeping, such as a count of omitted steps, is not a fact to keep).
    folded_text = "\n".join(item_text(it) for it in job.items)
    previous = job.plan.previous
    return SummaryRecord(
        text=result.text, shadow=result.shadow, turns=(1, job.plan.last_turn),
        items=(previous.items[0] if previous else job.plan.start, job.plan.end),
        generation=job.generation + 1, created_at=time.time() if now is None else now,
        summarizer=summarizer, input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        missing_identifiers=tuple(missing_from(identifier_values(folded_text), result.text)),
        incremental=job.incremental, duration_s=round(duration, 6), digest=job.digest,
        epoch=job.epoch, pending_calls=job.pending, state=result.state,
        calls=int(result.extra.get("calls", 1)))


# ------------------------------------------------------------------ the public function


def fold(
    items: Sequence[Mapping[str, Any]],
    state: SummaryRecord | Mapping[str, Any] | None = None,
    params: SummarizeParams | str | None = None,
    *,
    answers: Sequence[Any] = (),
    summarizer: str = "summarizer",
    token_counter: TokenCounter | None = None,
    now: float | None = None,
) -> FoldStep:
    """One step of summarizing ``items`` (the whole raw history, oldest first) given the
    running summary ``state`` (a :class:`~ctxlab.SummaryRecord`, its ``to_dict()`` form, or
    None before the first fold) and ``params`` (:class:`~ctxlab.policies.SummarizeParams`,
    a spec such as ``"summarize:2/4"`` or ``"summarize:2@60%/16k"``; default ``2/4``).

    Pure: nothing is called, stored or changed. When a fold is due, ``requests`` holds the
    summarizer call to make; pass every answer so far (a :class:`~ctxlab.SummaryResult` or a
    string) as ``answers`` and call again, until ``requests`` is empty: ``state`` is then
    the new running summary and ``view`` already shows it. ``summarizer`` names the
    summarizer in the record; ``now`` stamps it (default: the current time).
    """
    params = _params(params)
    log = RawLog(token_counter or get_token_counter())
    log.extend([dict(item) for item in _items(items)])
    summary = _state(state, len(log))
    results = [coerce_result(a) for a in answers]
    plan = next_plan(log, summary, params, generation=summary.generation if summary else 0,
                     pair_tokens=_pair_tokens(log, summary, params))
    if plan is None and results:
        raise ValueError(f"fold: got {len(results)} answer(s) but no fold is due for this "
                         "state; pass answers only to the step that asked for them")
    requests: list[SummaryRequest] = []
    if plan is not None:
        job = job_for(log, plan, params, generation=summary.generation if summary else 0)
        request = next_request(job, results)
        if request is not None:
            requests.append(request)
        else:
            summary = fold_record(job, combined(results), summarizer=summarizer, now=now)
    due = fold_reason(log, summary, params, _pair_tokens(log, summary, params))
    window = summary_window(log, summary, params, waiting="answer the summarizer request")
    view = build_view(log, window, None).model_items(log)
    return FoldStep(view, summary, requests, due)


def _params(params: SummarizeParams | str | None) -> SummarizeParams:
    if params is None:
        return SummarizeParams(2, 4)
    if isinstance(params, SummarizeParams):
        return params
    if isinstance(params, str):
        from ..policies.summarize import SPEC

        return SPEC.from_spec(params)  # type: ignore[no-any-return]
    raise ValueError(f"fold: params must be a SummarizeParams or a spec string such as "
                     f"'summarize:2/4', got {type(params).__name__}")


def _items(items: Any) -> list[Mapping[str, Any]]:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise ValueError(f"fold: items must be a list of items, got {type(items).__name__}")
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"fold: item {index} of {len(items)} is not a dict "
                             f"({type(item).__name__})")
    return list(items)


def _state(state: SummaryRecord | Mapping[str, Any] | None, length: int
           ) -> SummaryRecord | None:
    if state is None or isinstance(state, SummaryRecord):
        summary = state
    elif isinstance(state, Mapping):
        try:
            summary = SummaryRecord.from_dict(state)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"fold: state is not a summary record ({type(exc).__name__}: "
                             f"{exc})") from None
    else:
        raise ValueError(f"fold: state must be a SummaryRecord, its to_dict() form or None, "
                         f"got {type(state).__name__}")
    if summary is not None and summary.items[1] > length:
        raise ValueError(f"fold: the state folds raw items up to {summary.items[1]}, but only "
                         f"{length} items were given (pass the whole history, oldest first)")
    return summary


def _pair_tokens(log: RawLog, summary: SummaryRecord | None, params: SummarizeParams) -> int:
    if params.fold_tokens is None or summary is None:
        return 0
    return sum(slot.tokens for slot in summary_slots(log, summary))
