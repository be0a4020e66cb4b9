"""First + last: pin the first F user turns and keep the last N, drop the middle.

The opening of a support chat often states what the whole conversation is about (the
device, the account, the goal) while the latest turns hold the current step. This policy
keeps both and lets the middle go, whole turns at a time, so tool calls stay paired.
It is also the worked example of adding a strategy: this file, plus a few lines in
:mod:`ctxlab.sessions.first_last` that register :class:`ctxlab.FirstLastSession`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.checks import check_int
from ..core.ledger import DROPPED, ItemState
from .base import PREAMBLE_DROPPED, LogView, Window, preamble


@dataclass(frozen=True)
class FirstLastParams:
    """Pin the first ``first_turns`` (>= 1) and keep the last ``last_turns`` (>= 1) turns."""

    first_turns: int = 1
    last_turns: int = 4
    keep_preamble: bool = True

    def __post_init__(self) -> None:
        check_int("first_turns", self.first_turns)
        check_int("last_turns", self.last_turns)


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

    window.excluded = excluded
    return window
