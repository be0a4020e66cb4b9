"""First + last: pin the first F user turns and keep the last N, drop the middle.

The opening of a support chat often states what the whole conversation is about (the
device, the account, the goal) while the latest turns hold the current step. This policy
keeps both and lets the middle go, whole turns at a time, so tool calls stay paired.
Like every strategy it is this one file: the params, the policy and, at the end, the
:class:`~ctxlab.policies.spec.StrategySpec` from which :class:`ctxlab.FirstLastSession` is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.checks import check_int
from ..core.ledger import DROPPED, ItemState
from .base import PREAMBLE_DROPPED, LogView, Window, preamble
from .spec import PlotHints, PropertyHints, StrategySpec, default_parser, log_scale


@dataclass(frozen=True)
class FirstLastParams:
    """Pin the first ``first_turns`` (>= 1) and keep the last ``last_turns`` (>= 1) turns."""

    first_turns: int = 1
    last_turns: int = 4
    keep_preamble: bool = True

    def __post_init__(self) -> None:
        check_int("first_turns", self.first_turns)
        check_int("last_turns", self.last_turns)
        if not isinstance(self.keep_preamble, bool):
            raise ValueError(f"keep_preamble must be True or False, got {self.keep_preamble!r}")


def first_last_window(log: LogView, params: FirstLastParams) -> Window:
    """The window of :class:`ctxlab.FirstLastSession` (see the module doc)."""
    n = len(log)
    starts = log.turn_starts
    total = len(starts)
    first, last = params.first_turns, params.last_turns
    window = preamble(log, params.keep_preamble)
    if total <= first + last:
        if starts:
            window.add(range(starts[0], n), f"all {total} turns fit (first {first} + last {last})")
        middle = range(0)
    else:
        middle = range(starts[first], starts[total - last])
        window.add(range(starts[0], middle.start), f"one of the first {first} turns (pinned)")
        window.add(range(middle.stop, n), f"in the last {last} turns")

    def excluded(index: int) -> tuple[ItemState, str]:
        if index < log.preamble_end:
            return DROPPED, PREAMBLE_DROPPED
        assert index in middle
        return DROPPED, f"between the first {first} and the last {last} turns"

    window.fate_of = excluded
    return window


_LABEL = re.compile(r"first ?(\d+) ?\+ ?last ?(\d+)")


def _read_label(text: str) -> dict[str, Any] | None:
    """``first 1 + last 4`` (the label) or ``firstlast 1/4``."""
    match = _LABEL.fullmatch(text)
    if match is None and text.startswith("firstlast "):
        match = re.fullmatch(r"firstlast (\d+) ?/ ?(\d+)", text)
    return None if match is None else {"first_turns": int(match[1]), "last_turns": int(match[2])}


SPEC = StrategySpec(
    name="firstlast", syntax="firstlast:F[/N]",
    help="FirstLastSession: pin the first F turns and keep the last N (default 4)",
    parse=default_parser("firstlast", FirstLastParams,
                         {"first_turns": "F", "last_turns": "N"}),
    params_type=FirstLastParams, policy=first_last_window,
    session_name="FirstLastSession",
    hints=PropertyHints(ranges={"first_turns": range(1, 4), "last_turns": range(1, 6)}),
    plot=PlotHints("firstlast", size=lambda p: log_scale(
        p.first_turns + p.last_turns + p.first_turns / (p.first_turns + p.last_turns + 1), 2, 12)),
    label=lambda kw: f"first {kw['first_turns']} + last {kw['last_turns']}",
    read_label=_read_label,
    tail_read=lambda p: True,
)
