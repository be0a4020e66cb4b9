"""Token tail: pin the first user turn, then the newest whole turns within T tokens.

The first turn usually says what the conversation is about; the newest turns hold the
current step. Unlike first + last N, the tail is measured in tokens, so a few bulky turns
cannot push the call over the model's window. The whole strategy is this file (registered
in :mod:`ctxlab.sessions.strategies`): ``tokentail:T``, :class:`ctxlab.TokenTailSession`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.checks import check_int
from ..core.ledger import DROPPED, ItemState
from .base import PREAMBLE_DROPPED, LogView, Window, preamble
from .spec import (
    Invariants,
    PlotHints,
    PropertyHints,
    StrategySpec,
    default_parser,
    log_scale,
)


@dataclass(frozen=True)
class TokenTailParams:
    """At most ``max_tokens`` (>= 1) tokens: the preamble (unless ``keep_preamble`` is
    False), the first turn, then the newest turns that fit. The first and the newest turn
    are kept even when they alone are over (with a note)."""

    max_tokens: int = 2000
    keep_preamble: bool = True

    def __post_init__(self) -> None:
        check_int("max_tokens", self.max_tokens)
        if not isinstance(self.keep_preamble, bool):
            raise ValueError(f"keep_preamble must be True or False, got {self.keep_preamble!r}")


def token_tail_window(log: LogView, params: TokenTailParams) -> Window:
    """The window of :class:`ctxlab.TokenTailSession` (see the module doc)."""
    n, starts, budget = len(log), log.turn_starts, params.max_tokens
    window = preamble(log, params.keep_preamble)
    first_end = starts[1] if len(starts) > 1 else n
    pinned = log.tokens_between(0 if params.keep_preamble else log.preamble_end, first_end)
    oldest = log.first_turn_fitting(budget - pinned, lo_turn=1)  # an index into starts
    if oldest == len(starts) > 1 or pinned > budget:  # the newest turn does not fit
        oldest = max(1, len(starts) - 1)
        over = pinned + (log.tokens_between(starts[oldest], n) if len(starts) > 1 else 0)
        window.notes.append(f"what is always kept (the preamble, the first and the newest "
                            f"turn) has {over} tokens, over the max_tokens budget of {budget}")
    if starts:
        window.add(range(starts[0], first_end), "the first turn (pinned)")
    if oldest < len(starts):
        window.add(range(starts[oldest], n), f"among the newest turns within {budget} tokens")

    def fate_of(index: int) -> tuple[ItemState, str]:
        if index < log.preamble_end:
            return DROPPED, PREAMBLE_DROPPED
        return DROPPED, f"between the first turn and the newest turns within {budget} tokens"

    window.fate_of = fate_of
    return window


SPEC = StrategySpec(
    name="tokentail", syntax="tokentail:T, tokentail:P%/W",
    help="TokenTailSession: pin the first turn, then the newest turns within T tokens (or "
         "P% of a W-token window: tokentail:60%/16k)",
    parse=default_parser("tokentail", TokenTailParams, {"max_tokens": "T (tokens)"}),
    params_type=TokenTailParams, policy=token_tail_window, session_name="TokenTailSession",
    hints=PropertyHints(ranges={"max_tokens": range(40, 3000)}),
    invariants=Invariants(budget=lambda p: p.max_tokens),
    plot=PlotHints("firstlast", size=lambda p: log_scale(p.max_tokens, 500, 16_000),
                   marks=lambda p: ("cap",)),
    tail_read=lambda p: True,
)
