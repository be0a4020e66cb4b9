"""The recorded LLMSummarizer example is what LLMSummarizer sends, and says what made it."""

from __future__ import annotations

from ctxlab import LLMSummarizer, seed_router_flow
from ctxlab.course.recorded import recorded_llm_summary
from ctxlab.summarizers import SUMMARY_PROMPT


def test_the_recording_is_the_request_llm_summarizer_sends_for_those_turns():
    rec = recorded_llm_summary()
    assert rec.folded_items == seed_router_flow().items[:6]
    assert rec.user_message == LLMSummarizer(object(), model="m").build_user_message(
        rec.folded_items)
    # re-record (scripts/record_llm_summary.py) when the prompt changes
    assert rec.system_prompt == SUMMARY_PROMPT


def test_it_names_server_model_date_and_usage():
    rec = recorded_llm_summary()
    assert "SmolLM2-135M" in rec.model and "llama-cpp-python" in rec.server
    assert rec.recorded.startswith("2026-") and rec.usage["input_tokens"] > 500
    assert "RECORDED" in rec.describe() and "not run now" in rec.describe()
    assert rec.reply.strip()


def test_missing_identifiers_are_read_from_the_folded_turns():
    rec = recorded_llm_summary()
    assert set(rec.missing_identifiers()) <= {"v1.0.3", "42"}
    assert rec.missing_identifiers() == [v for v in ("v1.0.3", "42") if v not in rec.reply]
