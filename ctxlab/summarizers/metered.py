"""MeteredSummarizer: count every summarizer call and its tokens, so folds are priced.

Every fold of a :class:`~ctxlab.SummarizingSession` is a summarizer call, and with a model
behind it each one is billed: the prompt, the previous summary and the newly folded turns
go in, the new summary comes out. A cost that leaves them out makes "fold every turn" look
free. :class:`MeteredSummarizer` wraps any summarizer and records, per call, its input and
output tokens:

* the figures the summarizer reports (an :class:`~ctxlab.LLMSummarizer` returns the
  model's usage), or, when it reports none (the offline
  :class:`~ctxlab.ExtractiveSummarizer` calls no model), the tokens of the request an
  :class:`~ctxlab.LLMSummarizer` with the default prompt would send for the same fold and
  of the summary it returned (``estimated=True``): the price of the fold with a model;
* a failed call counts too: its request was sent (input tokens), nothing came back.

Evaluation (:mod:`ctxlab.eval`), the course's run recorder and the cache simulation wrap a
session's summarizer in one of these; :meth:`MeteredSummarizer.drain` hands over the calls
made since it was last called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.tokens import DEFAULT_ENCODING, ITEM_OVERHEAD_TOKENS, get_token_counter
from .base import SummaryResult, call_summarizer, summarizer_name
from .prompt import SUMMARY_PROMPT, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN
from .transcript import render_transcript

#: The tool-output cut an LLMSummarizer applies by default (characters).
DEFAULT_TOOL_TRIM = 600


@dataclass(frozen=True)
class SummaryCall:
    """One summarizer call: its input and output tokens, whether they are the
    summarizer's own figures or counted as an LLMSummarizer request (``estimated``), and
    whether it returned a summary (``ok``)."""

    input_tokens: int
    output_tokens: int
    estimated: bool
    ok: bool = True


def summary_request_text(items: Sequence[Mapping[str, Any]], *,
                         tool_trim_limit: int | None = DEFAULT_TOOL_TRIM) -> str:
    """The user message an :class:`~ctxlab.LLMSummarizer` sends for ``items``."""
    transcript = render_transcript(list(items), tool_trim_limit=tool_trim_limit)
    return ("Write the hand-over note for this conversation.\n"
            f"{TRANSCRIPT_OPEN}\n{transcript}\n{TRANSCRIPT_CLOSE}")


def summary_request_tokens(items: Sequence[Mapping[str, Any]], *, prompt: str = SUMMARY_PROMPT,
                           tool_trim_limit: int | None = DEFAULT_TOOL_TRIM,
                           encoding: str = DEFAULT_ENCODING) -> int:
    """Input tokens of that request: the system prompt and the user message, each with
    the per-message framing :data:`~ctxlab.core.tokens.ITEM_OVERHEAD_TOKENS`."""
    counter = get_token_counter(encoding)
    text = summary_request_text(items, tool_trim_limit=tool_trim_limit)
    return counter.count(prompt) + counter.count(text) + 2 * ITEM_OVERHEAD_TOKENS


class MeteredSummarizer:
    """A summarizer that records every call of the one it wraps (module docstring).

    Args:
        inner: the summarizer to wrap (anything :func:`~ctxlab.summarizers.call_summarizer`
            accepts).
        prompt: the system prompt an estimated call is priced with.
        tool_trim_limit: the tool-output cut an estimated call is priced with.
        encoding: the tokenizer of estimated calls.
    """

    def __init__(self, inner: Any, *, prompt: str = SUMMARY_PROMPT,
                 tool_trim_limit: int | None = DEFAULT_TOOL_TRIM,
                 encoding: str = DEFAULT_ENCODING):
        if isinstance(inner, MeteredSummarizer):
            inner = inner.inner
        if inner is None or not (hasattr(inner, "summarize") or callable(inner)):
            raise TypeError(f"MeteredSummarizer needs a summarizer, got {inner!r}")
        self.inner = inner
        self.prompt = prompt
        self.tool_trim_limit = tool_trim_limit
        self.encoding = encoding
        self.calls: list[SummaryCall] = []
        self._drained = 0

    @property
    def name(self) -> str:
        return summarizer_name(self.inner)

    def __repr__(self) -> str:
        return f"MeteredSummarizer({self.inner!r})"

    async def summarize(self, items: list[dict[str, Any]], *,
                        previous_summary: str | None = None,
                        previous_state: dict[str, Any] | None = None) -> SummaryResult:
        """Call the wrapped summarizer the way it accepts, and record the call."""
        try:
            result = await call_summarizer(self.inner, items, previous_summary, previous_state)
        except BaseException:
            self.calls.append(SummaryCall(self._request_tokens(items), 0, True, ok=False))
            raise
        if result.input_tokens is not None and result.output_tokens is not None:
            self.calls.append(SummaryCall(int(result.input_tokens), int(result.output_tokens),
                                          False))
        else:
            counter = get_token_counter(self.encoding)
            self.calls.append(SummaryCall(self._request_tokens(items),
                                          counter.count(result.text), True))
        return result

    def _request_tokens(self, items: Sequence[Mapping[str, Any]]) -> int:
        return summary_request_tokens(items, prompt=self.prompt,
                                      tool_trim_limit=self.tool_trim_limit,
                                      encoding=self.encoding)

    def drain(self) -> list[SummaryCall]:
        """The calls made since the last ``drain`` (every call, the first time)."""
        new = self.calls[self._drained:]
        self._drained = len(self.calls)
        return new

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)


def metered(session: Any) -> MeteredSummarizer | None:
    """The :class:`MeteredSummarizer` of ``session``'s summarizer, wrapping it in one first
    if needed (None when the session has no summarizer)."""
    inner = getattr(session, "summarizer", None)
    if inner is None:
        return None
    if not isinstance(inner, MeteredSummarizer):
        inner = MeteredSummarizer(inner)
        session.summarizer = inner
    return inner
