"""MeteredSummarizer: every summarizer call is counted, with the tokens it costs."""

from __future__ import annotations

import pytest

from ctxlab import SummarizingSession, seed_support_conversation
from ctxlab.core.tokens import get_token_counter
from ctxlab.summarizers import (
    SUMMARY_PROMPT,
    ExtractiveSummarizer,
    LLMSummarizer,
    MeteredSummarizer,
    SummaryResult,
)
from ctxlab.summarizers.metered import metered, summary_request_text, summary_request_tokens

from conftest import arun

ITEMS = seed_support_conversation().items[:12]


class Reporting:
    """Reports usage, as an LLMSummarizer does."""

    async def summarize(self, items):
        return SummaryResult("a note", input_tokens=321, output_tokens=45)


class Failing:
    def summarize(self, items):
        raise RuntimeError("the summarization service is unavailable")


def test_an_estimated_call_is_the_request_an_llm_summarizer_would_send():
    llm = LLMSummarizer(object(), model="m")
    assert summary_request_text(ITEMS) == llm.build_user_message(ITEMS)
    counter = get_token_counter()
    expected = counter.count(SUMMARY_PROMPT) + counter.count(llm.build_user_message(ITEMS)) + 8
    assert summary_request_tokens(ITEMS) == expected
    meter = MeteredSummarizer(ExtractiveSummarizer())
    result = arun(meter.summarize(ITEMS))
    [call] = meter.calls
    assert call.estimated and call.ok and call.input_tokens == expected
    assert call.output_tokens == counter.count(result.text) > 0
    assert meter.name == "ExtractiveSummarizer"


def test_reported_usage_is_used_as_is():
    meter = MeteredSummarizer(Reporting())
    arun(meter.summarize(ITEMS))
    assert meter.calls[0].input_tokens == 321 and not meter.calls[0].estimated


def test_a_failed_call_is_counted_and_the_error_still_raised():
    meter = MeteredSummarizer(Failing())
    with pytest.raises(RuntimeError, match="unavailable"):
        arun(meter.summarize(ITEMS))
    assert meter.calls[0].ok is False and meter.calls[0].input_tokens > 0


def test_drain_hands_over_each_call_once():
    meter = MeteredSummarizer(ExtractiveSummarizer())
    arun(meter.summarize(ITEMS))
    arun(meter.summarize(ITEMS))
    assert len(meter.drain()) == 2 and meter.drain() == []
    arun(meter.summarize(ITEMS))
    assert len(meter.drain()) == 1 and len(meter.calls) == 3


def test_a_session_folds_through_the_meter_and_keeps_its_summary_state():
    session = SummarizingSession(keep_last_n_turns=1, context_limit=2, session_id="m")
    meter = metered(session)
    assert isinstance(session.summarizer, MeteredSummarizer) and metered(session) is meter
    for item in seed_support_conversation().items:
        arun(session.add_items([item]))
    assert len(meter.calls) == session.summaries_applied > 2
    assert session.summary.summarizer == "ExtractiveSummarizer"
    assert session.summary.state  # the record went through the wrapper and came back
    assert MeteredSummarizer(meter).inner is meter.inner  # never wrapped twice
    with pytest.raises(TypeError):
        MeteredSummarizer(None)
