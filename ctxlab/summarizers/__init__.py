"""Summarizers for SummarizingSession: an LLM one and a deterministic extractive one.

The extractive summarizer keeps a structured record (:class:`HandoverRecord`) behind its
text and folds by merging records (:mod:`.record`, :mod:`.render`).
"""

from .base import (
    SUMMARY_SHADOW_PROMPT,
    Summarizer,
    SummaryResult,
    call_summarizer,
    summarizer_name,
)
from .extractive import ExtractiveSummarizer
from .llm import LLMSummarizer
from .metered import MeteredSummarizer, SummaryCall
from .prompt import SUMMARY_PROMPT, SUMMARY_SECTIONS
from .record import HandoverRecord
from .transcript import render_transcript

__all__ = [
    "SUMMARY_PROMPT",
    "SUMMARY_SECTIONS",
    "SUMMARY_SHADOW_PROMPT",
    "ExtractiveSummarizer",
    "HandoverRecord",
    "LLMSummarizer",
    "MeteredSummarizer",
    "Summarizer",
    "SummaryCall",
    "SummaryResult",
    "call_summarizer",
    "render_transcript",
    "summarizer_name",
]
