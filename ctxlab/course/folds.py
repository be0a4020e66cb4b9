"""When does a summarizing session fold? The tokens it shows the model, turn by turn.

:func:`watch_folds` stores a recorded conversation in a session the way the Runner would
have stored it (one ``add_items`` per user message, tool round and reply) and measures,
after every user turn, what the model would be shown next (the session's items, counted
with the session's own tokenizer) and how many folds the turn made. For a token-triggered
session (``summarize:K@T``, ``summarize:K@P%/W``) it shows the trigger at work: the view
grows turn by turn until one pushes it past the threshold, a fold takes every turn but the
last K in, and the view drops to the summary pair plus those turns. For a turn-triggered one
(``summarize:K/L``) it shows the folds every few turns. The session's summarizer is metered
(:class:`~ctxlab.summarizers.metered.MeteredSummarizer`), so the folds' own tokens are
counted too. Nothing is sent to a model.

A summarizer that keeps failing (on a real server: every fold's request larger than the
server's window) would log one long warning per failed fold; :func:`grouped_fold_warnings`
(which :func:`watch_folds` uses) turns them into one warning line with the count, the cause
and what to do, and logs each failure's details at DEBUG.
"""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..summarizers.metered import metered


@dataclass(frozen=True)
class TurnTokens:
    """One user turn: the tokens of the session's items once it is stored (``tokens``),
    and, when the turn made a fold, what the items came to just before it (``peak``: the
    items shown so far plus the batch that fired the trigger). Items are counted as they
    are stored and the view is counted again after each fold."""

    turn: int
    tokens: int
    folds: int = 0
    peak: int | None = None


@dataclass(frozen=True)
class FoldWatch:
    """Every turn of one conversation in one session, and what its folds cost."""

    turns: list[TurnTokens]
    summarizer_calls: int
    summarizer_input_tokens: int
    summarizer_output_tokens: int
    summary_turns: tuple[int, int] | None = None  #: the turns the final summary covers
    summarizer_failures: int = 0  #: summarizer calls that raised (the fold was retried)

    def coverage(self) -> str:
        """One line: the turns the final summary covers, or why there is no summary (no
        fold was due, or every fold's summarizer call failed: its warnings say why)."""
        if self.summary_turns is not None:
            return f"the summary covers turns {self.summary_turns[0]}-{self.summary_turns[1]}"
        if self.summarizer_failures:
            return (f"no summary: {self.summarizer_failures} summarizer calls failed (the "
                    "warning above says why), so every turn stayed in the view")
        return "no summary: the conversation never reached the fold trigger"

    @property
    def folds(self) -> list[TurnTokens]:
        """The turns that made a fold, in order."""
        return [t for t in self.turns if t.folds]

    @property
    def n_folds(self) -> int:
        """How many folds the conversation made."""
        return sum(t.folds for t in self.turns)

    @property
    def shown_total(self) -> int:
        """Tokens of the session's items summed over the turns: roughly what the agent's
        calls would read of the history over the whole conversation."""
        return sum(t.tokens for t in self.turns)

    @property
    def largest(self) -> int:
        """The most the model would be shown of the history in one call."""
        return max((t.peak or t.tokens for t in self.turns), default=0)


#: The logger whose per-fold failure warnings :func:`grouped_fold_warnings` groups.
FOLD_LOGGER = "ctxlab.summarizing"


class _FoldFailures(logging.Filter):
    """Keeps each fold-failure warning back (demoted to DEBUG) and remembers its reason."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.reasons: list[str] = []
        self.sessions: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or "failed (%s)" not in str(record.msg):
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        self.reasons.append(str(args[-1]) if args else record.getMessage())
        if args:
            self.sessions.add(str(args[0]))
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return self.logger.isEnabledFor(logging.DEBUG)


def fold_failure_summary(reasons: Sequence[str], sessions: Sequence[str] = (),
                         waiting: int = 0) -> str:
    """One line for ``reasons`` (each failed fold's error text): the count, the cause
    (the server limit when the error names one) and what to do (the error's own advice);
    ``waiting`` counts the views shown over the fold limit meanwhile (each a
    ``TokenBudgetWarning`` that repeated the error)."""
    first = reasons[0]
    limit = re.search(r"server limit: ([^)]*)\)", first)
    cause = limit.group(1) if limit else _one_line(first, 120)
    advice = (_one_line(first.split("What to do: ", 1)[1], 300) + "; "
              if "What to do: " in first else "")
    where = f" in {', '.join(repr(s) for s in sorted(sessions))}" if sessions else ""
    same = "all" if all(r == first for r in reasons) else "the first"
    folds = f"{len(reasons)} folds failed" if len(reasons) > 1 else "a fold failed"
    over = (f", and {waiting} views went over the fold limit while it waited" if waiting
            else "")
    return (f"{folds}{where} ({same}: {cause}){over}; every unfolded turn stayed in the view. "
            f"What to do: {advice}each failure's details are logged at DEBUG "
            "(logging.getLogger('ctxlab.summarizing').setLevel(logging.DEBUG))")


def _one_line(text: str, width: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


_WAITING = re.compile(r"the summarizer failed \((.*)\); retried when items are next added",
                      re.DOTALL)


@contextlib.contextmanager
def grouped_fold_warnings() -> Iterator[list[str]]:
    """While the block runs, each fold-failure warning of a summarizing session (the log
    line, and the ``TokenBudgetWarning`` every view repeats it in) goes to DEBUG instead;
    after it, one warning sums them up (:func:`fold_failure_summary`). Other warnings are
    passed on unchanged. Yields the list the failures' reasons are collected in."""
    from ..sessions import TokenBudgetWarning

    logger = logging.getLogger(FOLD_LOGGER)
    failures = _FoldFailures(logger)
    logger.addFilter(failures)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield failures.reasons
        finally:
            logger.removeFilter(failures)
    waiting: list[str] = []
    for found in caught:
        match = _WAITING.search(str(found.message))
        if issubclass(found.category, TokenBudgetWarning) and match:
            waiting.append(match.group(1))
            logger.debug("%s", found.message)
        else:
            warnings.warn_explicit(found.message, found.category, found.filename,
                                   found.lineno)
    reasons = failures.reasons or waiting[:1]
    if reasons:
        logger.warning("%s", fold_failure_summary(reasons, sorted(failures.sessions),
                                                  len(waiting)))


def _is_user_message(item: Any) -> bool:
    return isinstance(item, Mapping) and item.get("role") == "user" and item.get(
        "type", "message") == "message"


async def watch_folds(session: Any, items: Sequence[Mapping[str, Any]]) -> FoldWatch:
    """Store ``items`` in ``session`` batch by batch, as the Runner would, and record the
    tokens it shows after every user turn and the folds each turn made (see the module
    doc). ``session`` is a fresh :class:`~ctxlab.SummarizingSession` (any ctxlab session
    works; one without ``summaries_applied`` never folds). Failed folds are logged as one
    warning line (:func:`grouped_fold_warnings`)."""
    with grouped_fold_warnings():
        return await _watch(session, items)


async def _watch(session: Any, items: Sequence[Mapping[str, Any]]) -> FoldWatch:
    from ..eval.replay import runner_batches  # eval imports the course; import late

    meter = metered(session)
    counter = session.token_counter
    turns: list[TurnTokens] = []
    shown, turn, folds, peak = 0, 0, 0, None
    for batch in runner_batches(items):
        if any(_is_user_message(item) for item in batch):
            if turn:
                turns.append(TurnTokens(turn, shown, folds, peak))
            turn, folds, peak = turn + 1, 0, None
        before = getattr(session, "summaries_applied", 0)
        await session.add_items(batch)
        shown += counter.count_items(batch)
        applied = getattr(session, "summaries_applied", 0)
        if applied != before:  # recount what the fold left
            folds += applied - before
            peak, shown = shown, counter.count_items(await session.get_items())
    if turn:
        turns.append(TurnTokens(turn, shown, folds, peak))
    calls = meter.calls if meter is not None else []
    summary = getattr(session, "summary", None)
    covered = tuple(summary.turns[:2]) if summary is not None else None
    return FoldWatch(turns, len(calls), sum(c.input_tokens for c in calls),
                     sum(c.output_tokens for c in calls), covered,
                     sum(not c.ok for c in calls))
