"""Questions about a corpus that help choose memory settings.

How many user turns do conversations have? If the model sees only the last ``max_turns``
turns, how many of the facts a conversation mentioned are still in view at its end? How
wrong is "characters / 4" as a token count, and how much worse is it for Chinese?
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..core.display import display_width, pad
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


@dataclass(frozen=True)
class EstimateError:
    """How far ``ceil(chars / 4)`` lands from exact o200k_base counts over some texts."""

    texts: int
    exact_tokens: int
    estimated_tokens: int
    median_error: float  # relative error per text, signed (estimate - exact) / exact
    p95_abs_error: float
    worst: tuple[str, int, int]  # (text preview, exact, estimate) with the largest error

    @property
    def total_error(self) -> float:
        return (self.estimated_tokens - self.exact_tokens) / self.exact_tokens


def estimate_error(texts: Iterable[str]) -> EstimateError:
    """Compare the "chars / 4" rule of thumb with exact token counts, text by text."""
    import math

    from ..core.items import preview
    from ..core.tokens import get_token_counter

    counter = get_token_counter()
    rows = []
    for text in texts:
        exact = counter.count(text)
        if exact:
            rows.append((text, exact, math.ceil(len(text) / 4)))
    if not rows:
        raise ValueError("no non-empty texts to compare")
    errors = sorted((est - exact) / exact for _, exact, est in rows)
    absolute = sorted(abs(e) for e in errors)
    worst = max(rows, key=lambda r: abs(r[2] - r[1]) / r[1])
    return EstimateError(
        texts=len(rows),
        exact_tokens=sum(r[1] for r in rows),
        estimated_tokens=sum(r[2] for r in rows),
        median_error=statistics.median(errors),
        p95_abs_error=absolute[min(len(absolute) - 1, round(0.95 * (len(absolute) - 1)))],
        worst=(preview(worst[0], 60), worst[1], worst[2]),
    )


@dataclass(frozen=True)
class TokenComparison:
    """One text counted two ways: exactly (o200k_base) and as ``ceil(chars / 4)``."""

    label: str
    chars: int
    exact: int
    estimate: int

    @property
    def tokens_per_char(self) -> float:
        """Exact tokens per character (about 0.25 for English prose, 0.7-0.9 for Chinese)."""
        return self.exact / self.chars if self.chars else 0.0

    @property
    def undercount(self) -> float:
        """How many times more tokens there are than chars/4 says (1.0 = the guess is right)."""
        return self.exact / self.estimate if self.estimate else 0.0


def compare_token_counts(
    texts: Mapping[str, str], *, encoding: str = "o200k_base"
) -> list[TokenComparison]:
    """Count each labelled text exactly and with the chars/4 rule, in the order given.

    >>> rows = compare_token_counts({"en": "Hello there", "zh": "你好"})
    """
    import math

    from ..core.tokens import get_token_counter

    if not isinstance(texts, Mapping) or not texts:
        raise ValueError("texts must be a non-empty dict of label -> text")
    counter = get_token_counter(encoding)
    rows = []
    for label, text in texts.items():
        if not isinstance(text, str) or not text:
            raise ValueError(f"text {label!r} must be a non-empty string")
        rows.append(TokenComparison(str(label), len(text), counter.count(text),
                                    math.ceil(len(text) / 4)))
    return rows


def token_comparison_table(rows: Sequence[TokenComparison]) -> str:
    """:func:`compare_token_counts` rows as a plain-text table (aligned for CJK labels)."""
    width = max([len("text"), *(display_width(r.label) for r in rows)])
    lines = [f"{'text':<{width}}  chars  exact  chars/4  tokens/char  exact / (chars/4)",
             "-" * (width + 53)]
    for r in rows:
        lines.append(f"{pad(r.label, width)}  {r.chars:>5}  {r.exact:>5}  {r.estimate:>7}  "
                     f"{r.tokens_per_char:>11.2f}  {r.undercount:>17.2f}")
    return "\n".join(lines)


#: tau-bench actions that carry out something the customer asked for: one task each (the
#: lookups around them, such as ``get_reservation_details``, are part of a task).
TASK_ACTIONS = frozenset({
    "book_reservation", "cancel_reservation", "update_reservation_flights",
    "update_reservation_baggages", "update_reservation_passengers", "send_certificate",
    "transfer_to_human_agents",
})


@dataclass(frozen=True)
class TaskStats:
    """Tasks per conversation and user turns per task (median and 90th percentile), and the
    ``max_turns`` that keeps one whole task of the 90th percentile in view."""

    conversations: int
    tasks_median: float
    turns_per_task_median: float
    turns_per_task_p90: float
    max_turns: int


def tasks_in(conversation: Conversation) -> int:
    """How many tasks a conversation holds: the task actions among the correct tool calls
    its record lists (``meta["actions"]``, as tau-bench's do); at least one."""
    actions = conversation.meta.get("actions") or []
    return max(1, sum(1 for a in actions if isinstance(a, Mapping)
                      and a.get("name") in TASK_ACTIONS))


def task_stats(conversations: Sequence[Conversation]) -> TaskStats:
    """The source tutorial's second way to choose ``max_turns``: count the tasks (issues)
    each conversation holds, divide its user turns by them, and keep enough turns for one
    task of the 90th percentile (see :func:`tasks_in`)."""
    if not conversations:
        raise ValueError("no conversations to describe")
    tasks = [tasks_in(c) for c in conversations]
    per_task = sorted(c.turn_count / n for c, n in zip(conversations, tasks, strict=True))
    p90 = per_task[min(len(per_task) - 1, round(0.9 * (len(per_task) - 1)))]
    return TaskStats(len(tasks), statistics.median(tasks), statistics.median(per_task), p90,
                     max(1, math.ceil(p90)))
