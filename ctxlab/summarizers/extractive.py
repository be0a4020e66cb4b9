"""ExtractiveSummarizer: a deterministic, offline hand-over note with no model.

It fills the same sections as the LLM prompt by extraction, and it folds correctly however
many times it folds:

* it keeps a **structured record** (:class:`~ctxlab.summarizers.record.HandoverRecord`):
  every fact per entity (the customer, each device, the case) with its current value and
  the earlier values with the turns they held, constraints and commitments with their
  revisions, reported problems, troubleshooting steps and their results, pending tool
  calls, tool health, milestones;
* an incremental fold reads the newly folded turns **into the previous record** (which the
  session hands back as ``previous_state``) and renders the text again; it never re-reads
  its own prose, so a value marked "earlier" can never come back as current, and its own
  bookkeeping (counts of omitted steps) is never taken for a fact;
* the text is **bounded** (``max_tokens``, default 1,200): the least important details go
  first, oldest first (:mod:`ctxlab.summarizers.render`); the record itself is bounded too,
  so a fold costs the same at turn 20,000 as at turn 1,000.

With ``topics=True`` it also keeps a :class:`~ctxlab.facts.topic_book.TopicBook` in its
record: the values the conversation established per topic (a service, a domain, an issue),
in any domain, the latest value of each with the superseded ones marked "earlier", written as
a ``Topics:`` section after the note.

It never writes a value that is not in its input, which makes it the course's offline
default and a baseline for LLM summaries. Given a previous summary without a record (one
another summarizer wrote), it reads that note once as a memory note, honouring what the
note marks as earlier values, and continues from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.checks import check_int
from ..core.items import item_text
from ..facts.topic_book import TopicBook
from .base import SummaryResult, is_summary_pair
from .record import HandoverRecord
from .render import render
from .text import gist

__all__ = ["ExtractiveSummarizer", "gist"]

#: Default token budget of the summary text.
DEFAULT_MAX_TOKENS = 1200


class ExtractiveSummarizer:
    """Deterministic offline summaries with the same sections as the LLM prompt.

    Args:
        max_steps: how many "Steps Tried & Results" bullets to show (the newest; a count
            says how many older ones are not shown).
        gist_words: words kept from each message in step, issue and status bullets.
        max_tokens: the summary's hard size bound in tokens (o200k_base), applied across
            sections with the newest and most important kept.
        tool_trim_limit: unused by the extraction itself (tool outputs are read in full
            for identifiers); accepted for symmetry with :class:`LLMSummarizer`.
        topics: also keep each topic's latest values (a ``Topics:`` section; see the module
            docstring).
    """

    name = "ExtractiveSummarizer"

    def __init__(self, *, max_steps: int = 3, gist_words: int = 14,
                 max_tokens: int = DEFAULT_MAX_TOKENS, tool_trim_limit: int | None = None,
                 topics: bool = False):
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        check_int("gist_words", gist_words, minimum=3)
        check_int("max_tokens", max_tokens, minimum=200)
        self.max_steps = max_steps
        self.gist_words = gist_words
        self.max_tokens = max_tokens
        self.tool_trim_limit = tool_trim_limit
        self.topics = bool(topics)

    def __repr__(self) -> str:
        return (f"ExtractiveSummarizer(max_steps={self.max_steps}, gist_words={self.gist_words},"
                f" max_tokens={self.max_tokens}" + (", topics=True)" if self.topics else ")"))

    def summarize(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        previous_summary: str | None = None,
        previous_state: Mapping[str, Any] | None = None,
    ) -> SummaryResult:
        """Fold ``items`` (optionally after the previous summary pair) into the record of
        the previous fold (``previous_state``) and render it (see the module docstring)."""
        items = list(items)
        if is_summary_pair(items):
            previous_summary = previous_summary or item_text(items[1])
            items = items[2:]
        record = self.record(previous_state)
        if record is None:
            record = HandoverRecord(gist_words=self.gist_words)
            if previous_summary:
                record.read_note(previous_summary)
        record.read(items)
        self.amend(record, items)
        text = render(record, max_steps=self.max_steps, max_tokens=self.max_tokens)
        extra: dict[str, Any] = {"summarizer": self.name, "turns_read": record.turn}
        if record.seeded_from_text:
            extra["seeded_from_text"] = True
        state = record.to_dict()
        if self.topics:
            book = self.topic_book(previous_state)
            book.feed(items)
            lines = book.render()
            text = f"{text}\n\nTopics:\n{lines}" if lines else text
            state["topics"] = book.to_dict()
        return SummaryResult(text, model=None, extra=extra, state=state)

    @staticmethod
    def topic_book(state: Mapping[str, Any] | None) -> TopicBook:
        """The topic book a ``previous_state`` holds, or a new one."""
        book = TopicBook()
        if state and isinstance(state.get("topics"), Mapping):
            try:
                book.load(state["topics"])
            except (KeyError, TypeError):
                book.reset()
        return book

    def amend(self, record: HandoverRecord, items: Sequence[Mapping[str, Any]]) -> None:
        """Called after each fold has read ``items`` into ``record``, before it is rendered
        (nothing here; a teaching subclass such as ``DriftingSummarizer`` changes the record)."""

    def record(self, state: Mapping[str, Any] | None) -> HandoverRecord | None:
        """The record a ``previous_state`` holds (None when there is none or it is not ours)."""
        if not state:
            return None
        state = {k: v for k, v in state.items() if k != "topics"}
        try:
            return HandoverRecord.from_dict(state, gist_words=self.gist_words)
        except (KeyError, TypeError, ValueError):
            return None
