"""Trimming: the model sees the last N user turns, whole (optionally within a token budget).

A turn is a real user message plus everything up to the next one (see
:mod:`ctxlab.core.turns`), so a tool call is never separated from its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.checks import check_int, check_optional_int
from ..core.ledger import DROPPED, ItemState
from .base import PREAMBLE_DROPPED, LogView, Window, preamble
from .spec import (
    Invariants,
    PlotHints,
    PropertyHints,
    StrategySpec,
    log_scale,
    token_budget,
    whole_number,
)


@dataclass(frozen=True)
class TrimParams:
    """``max_turns`` newest user turns (>= 1), at most ``max_tokens`` tokens (the newest turn
    is kept even when it alone is over), and the preamble unless ``keep_preamble`` is False.

    ``step`` (>= 1) makes trimming cache-friendly: the window's start moves only in steps of
    ``step`` turns, so between ``max_turns`` and ``max_turns + step - 1`` turns are shown and
    the start of the model input (what a provider's prompt cache matches) stays the same for
    ``step`` turns at a time. ``step=1`` is plain trimming (the start moves every turn).
    """

    max_turns: int = 8
    max_tokens: int | None = None
    keep_preamble: bool = True
    step: int = 1

    def __post_init__(self) -> None:
        check_int("max_turns", self.max_turns)
        check_optional_int("max_tokens", self.max_tokens)
        check_int("step", self.step)
        if not isinstance(self.keep_preamble, bool):
            raise ValueError(f"keep_preamble must be True or False, got {self.keep_preamble!r}")


def trim_window(log: LogView, params: TrimParams, *, session_id: str = "") -> Window:
    """The window of :class:`ctxlab.TrimmingSession` (see the module doc)."""
    n = len(log)
    starts = log.turn_starts
    first = log.preamble_end
    keep_turns = params.max_turns
    budget = params.max_tokens
    notes: list[str] = []

    # position in `starts` of the oldest turn: drop whole steps of `step` turns at a time
    excess = max(0, len(starts) - keep_turns)
    by_turns = (excess // params.step) * params.step if params.step > 1 else excess
    oldest = by_turns
    over_budget_kept = False
    if budget is not None and starts:
        preamble_tokens = log.tokens_between(0, first) if params.keep_preamble else 0
        oldest = log.first_turn_fitting(budget - preamble_tokens, lo_turn=by_turns)
        if oldest >= len(starts):
            oldest = len(starts) - 1
            over_budget_kept = True
            newest = log.turn_tokens(-1)
            who = f"session {session_id!r}: " if session_id else ""
            notes.append(
                f"{who}the newest turn alone has {newest} tokens (plus {preamble_tokens} in "
                f"the preamble), over the max_tokens budget of {budget}; it is kept anyway"
            )
    elif budget is not None and params.keep_preamble and log.tokens_between(0, first) > budget:
        notes.append(f"the preamble alone has {log.tokens_between(0, first)} tokens, over the "
                     f"max_tokens budget of {budget}; it is kept anyway")
    window_start = starts[oldest] if starts else n
    turns_start = starts[by_turns] if starts else n

    window = preamble(log, params.keep_preamble)
    if over_budget_kept:
        reason = f"newest turn: kept although it alone exceeds the {budget}-token budget"
    elif budget is not None:
        reason = f"in the last {keep_turns} turns and within the {budget}-token budget"
    elif params.step > 1:
        reason = f"in the last {keep_turns} turns (dropped in steps of {params.step})"
    else:
        reason = f"in the last {keep_turns} turns"
    window.add(range(window_start, n), reason)
    window.notes = notes

    def excluded(index: int) -> tuple[ItemState, str]:
        if index < first:
            return DROPPED, PREAMBLE_DROPPED
        if index < turns_start:
            if params.step > 1:
                return DROPPED, (f"older than the last {keep_turns} turns (dropped in a step "
                                 f"of {params.step})")
            return DROPPED, f"older than the last {keep_turns} turns"
        return DROPPED, f"over the {budget}-token budget (older turns go first)"

    window.fate_of = excluded
    return window


# ---------------------------------------------------------------- the spec: trim:N[/S][@T]


def parse_trim(arg: str | None) -> dict[str, Any]:
    """``N[/S][@T]`` -> max_turns, step, max_tokens (T also as ``P%/W``: a share of a
    W-token window, ``trim:8@60%/16k``)."""
    if arg is None:
        raise ValueError("strategy part 'trim' needs a turn count: trim:N, trim:N@TOKENS or "
                         "trim:N/STEP")
    head, at, tokens_text = arg.partition("@")
    turns_text, slash, step_text = head.partition("/")
    spec = f"trim:{arg}"
    out: dict[str, Any] = {"max_turns": whole_number(spec, turns_text, "N (turns)"),
                           "max_tokens": token_budget(spec, tokens_text, "TOKENS") if at else None}
    if slash:
        out["step"] = whole_number(spec, step_text, "STEP")
    return out


def spell_trim(kw: dict[str, Any]) -> str:
    return (f"trim:{kw['max_turns']}" + (f"/{kw['step']}" if kw.get("step", 1) > 1 else "")
            + (f"@{kw['max_tokens']}" if kw.get("max_tokens") else ""))


def trim_label(kw: dict[str, Any]) -> str:
    step = f" step {kw['step']}" if kw.get("step", 1) > 1 else ""
    return (f"trim {kw['max_turns']}{step}"
            + (f" ≤{kw['max_tokens']} tok" if kw.get("max_tokens") else ""))


_LABEL = re.compile(r"trim(?:ming|med)? ?(\d+)(?: ?(?:user )?turns?)?(?:(?: ?/ ?| step )(\d+))?"
                    r"(?: ?[@≤] ?(\d+)(?: ?tok(?:en)?s?)?)?")


def read_trim_label(text: str) -> dict[str, Any] | None:
    """``trim 8``, ``trim 3 turns``, ``trimming 3``, ``trim 8 step 4``, ``trim 8 ≤4000 tok``."""
    match = _LABEL.fullmatch(text)
    if match is None:
        return None
    turns, step, tokens = match.groups()
    out: dict[str, Any] = {"max_turns": int(turns), "max_tokens": int(tokens) if tokens else None}
    if step:
        out["step"] = int(step)
    return out


def _marks(p: TrimParams) -> tuple[str, ...]:
    return (("step",) if p.step > 1 else ()) + (("cap",) if p.max_tokens else ())


SPEC = StrategySpec(
    name="trim", syntax="trim:N[/S][@T]",
    help="TrimmingSession: the last N user turns (dropped S at a time for the prompt cache; "
         "at most T tokens, or P% of a W-token window: trim:8@60%/16k)",
    parse=parse_trim, params_type=TrimParams, policy=trim_window,
    session_name="TrimmingSession",
    hints=PropertyHints(ranges={"max_turns": range(1, 7), "max_tokens": range(60, 2000),
                                "step": range(1, 4)}, optional=("max_tokens",)),
    invariants=Invariants(budget=lambda p: p.max_tokens),
    plot=PlotHints("trim", size=lambda p: log_scale(p.max_turns, 2, 12), marks=_marks,
                   step=lambda p: p.step),
    label=trim_label, spell=spell_trim, read_label=read_trim_label,
    tail_read=lambda p: p.step == 1,  # (step > 1: the start depends on the turn count)
)
