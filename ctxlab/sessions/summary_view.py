"""What a summarizing session shows: the summary pair (made once per summary) and the
window around it, with a note only when a fold is failing or another process holds it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..policies.base import LogView, Synthetic, Window
from ..policies.summarize import SummarizeParams, SummaryRecord, summary_slots, summary_window

if TYPE_CHECKING:
    from .folding import FoldEngine


class SummaryView:
    """The summary pair of the current summary, kept until the summary changes."""

    def __init__(self) -> None:
        self._slots: tuple[SummaryRecord | None, list[Synthetic]] | None = None

    def slots(self, log: LogView, summary: SummaryRecord | None) -> list[Synthetic]:
        cached = self._slots
        if cached is None or cached[0] is not summary:  # the pair is rebuilt per summary
            cached = self._slots = (summary, summary_slots(log, summary))
        return cached[1]

    def window(self, log: LogView, summary: SummaryRecord | None, params: SummarizeParams,
               engine: FoldEngine) -> Window:
        """:func:`~ctxlab.policies.summarize.summary_window`, saying why unfolded turns
        wait (a warning only while the summarizer fails or another process holds the
        lease: a fold in flight is normal)."""
        failure, blocked = engine.failure, engine.outcome == "blocked"
        if failure is not None:
            waiting = f"the summarizer failed ({failure.error}); retried when items are next added"
        elif blocked:
            waiting = "another process holds the fold lease"
        else:
            waiting = "a fold is due or in flight"
        window = summary_window(log, summary, params, waiting=waiting,
                                slots=self.slots(log, summary))
        if failure is None and not blocked:
            window.notes = []
        return window
