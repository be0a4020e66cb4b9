"""Questions about a corpus that help choose memory settings.

How many user turns do conversations have? If the model sees only the last ``max_turns``
turns, how many of the facts a conversation mentioned are still in view at its end?
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .corpora import Conversation


@dataclass(frozen=True)
class TurnStats:
    """User turns per conversation: count, median, 90th percentile, maximum."""

    conversations: int
    median: float
    p90: float
    maximum: int


def turn_counts(conversations: Iterable[Conversation]) -> list[int]:
    """Real user turns of each conversation."""
    return [c.turn_count for c in conversations]


def turn_stats(counts: Sequence[int]) -> TurnStats:
    """Summary statistics of :func:`turn_counts`."""
    if not counts:
        raise ValueError("no conversations to describe")
    ordered = sorted(counts)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return TurnStats(len(ordered), statistics.median(ordered), p90, ordered[-1])


def fact_coverage(conversations: Iterable[Conversation], windows: Iterable[int]) -> list[float]:
    """For each ``max_turns`` in ``windows``: the share of mentioned facts whose first
    mention is still inside a trimming window of that size at the conversation's end."""
    ages = [age for c in conversations for age in c.fact_ages().values()]
    if not ages:
        raise ValueError("the conversations mention no facts")
    return [sum(age < window for age in ages) / len(ages) for window in windows]


def recommend_max_turns(
    conversations: Sequence[Conversation], target: float = 0.9, largest: int = 60
) -> int:
    """The smallest ``max_turns`` that keeps at least ``target`` of the facts in view."""
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], got {target}")
    for window, share in zip(range(1, largest + 1),
                             fact_coverage(conversations, range(1, largest + 1)), strict=True):
        if share >= target:
            return window
    return largest
