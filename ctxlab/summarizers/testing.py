"""Summarizers that misbehave on purpose, for testing a session's fallbacks.

They wrap a real summarizer (the extractive one by default) and add failures or delay, the
way ``agents.testing`` scripts a model: use them to check that your own setup keeps a valid
view when summarization breaks, and to see what ctxlab does about it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .base import call_summarizer
from .extractive import ExtractiveSummarizer


class FailingSummarizer:
    """Raises ``error`` on the first ``failures`` calls, then delegates to ``inner``."""

    def __init__(self, inner: Any | None = None, *, failures: int = 1,
                 error: Exception | None = None):
        if isinstance(failures, bool) or not isinstance(failures, int) or failures < 0:
            raise ValueError(f"failures must be an integer >= 0, got {failures!r}")
        self.inner = inner or ExtractiveSummarizer()
        self.remaining_failures = failures
        self.error = error or RuntimeError("the summarization service is unavailable")
        self.calls = 0
        self.name = f"FailingSummarizer({getattr(self.inner, 'name', type(self.inner).__name__)})"

    async def summarize(self, items: list[dict[str, Any]], *,
                        previous_summary: str | None = None) -> Any:
        self.calls += 1
        if self.remaining_failures > 0:
            self.remaining_failures -= 1
            raise self.error
        return await call_summarizer(self.inner, items, previous_summary)


class SlowSummarizer:
    """Waits ``delay`` seconds before delegating to ``inner`` (to show background folds)."""

    def __init__(self, inner: Any | None = None, *, delay: float = 0.5):
        if not isinstance(delay, (int, float)) or delay < 0:
            raise ValueError(f"delay must be a number >= 0, got {delay!r}")
        self.inner = inner or ExtractiveSummarizer()
        self.delay = float(delay)
        self.name = f"SlowSummarizer({getattr(self.inner, 'name', type(self.inner).__name__)})"

    async def summarize(self, items: list[dict[str, Any]], *,
                        previous_summary: str | None = None) -> Any:
        await asyncio.sleep(self.delay)
        return await call_summarizer(self.inner, items, previous_summary)
