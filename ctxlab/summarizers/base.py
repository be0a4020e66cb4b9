"""The summarizer contract shared by SummarizingSession and every summarizer.

A summarizer turns a list of Responses items (the turns being folded, tool pairs intact,
possibly preceded by the previous summary pair) into a summary text. It may be sync or
async and may return a plain string, a ``(shadow_prompt, summary)`` tuple (the source
tutorial's shape), or a :class:`SummaryResult` with usage figures.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: The synthetic user line that precedes the summary in the model's view.
SUMMARY_SHADOW_PROMPT = "Please summarize our conversation so far, so we can continue from it."


@dataclass(frozen=True)
class SummaryResult:
    """A summary plus what it cost. ``shadow`` is the user line shown before it.

    ``state`` is the summarizer's own structured record behind the text (JSON-ready; None
    when it keeps none). A :class:`~ctxlab.SummarizingSession` stores it with the summary
    and hands it back on the next fold as ``previous_state``, so an incremental summarizer
    merges records instead of re-reading its own prose.
    """

    text: str
    shadow: str = SUMMARY_SHADOW_PROMPT
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] | None = None


@runtime_checkable
class Summarizer(Protocol):
    """Anything with ``summarize(items)`` (sync or async).

    Summarizers that also accept a keyword ``previous_summary`` receive the text of the
    summary being extended (it is also present at the start of ``items`` as the synthetic
    pair, so summarizers without the keyword still see it); those that accept
    ``previous_state`` also receive the ``state`` their previous :class:`SummaryResult`
    returned (None for the first fold, a rebuild, or a summary made by someone else).
    """

    def summarize(self, items: list[dict[str, Any]]) -> Any: ...


def summarizer_name(summarizer: Any) -> str:
    name = getattr(summarizer, "name", None)
    return name if isinstance(name, str) and name else type(summarizer).__name__


def accepts_keyword(func: Any, keyword: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return keyword in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def coerce_result(value: Any) -> SummaryResult:
    """Turn whatever a summarizer returned into a :class:`SummaryResult`, or raise TypeError."""
    if isinstance(value, SummaryResult):
        result = value
    elif isinstance(value, str):
        result = SummaryResult(value)
    elif (
        isinstance(value, Sequence)
        and len(value) == 2
        and all(isinstance(v, str) for v in value)
    ):
        result = SummaryResult(value[1], shadow=value[0] or SUMMARY_SHADOW_PROMPT)
    else:
        raise TypeError(
            "a summarizer must return a str, a (shadow_prompt, summary) tuple or a "
            f"SummaryResult, got {type(value).__name__}"
        )
    if not result.text.strip():
        raise ValueError("the summarizer returned an empty summary")
    if result.state is not None and not isinstance(result.state, dict):
        raise TypeError(f"SummaryResult.state must be a dict or None, got "
                        f"{type(result.state).__name__}")
    return result


async def call_summarizer(
    summarizer: Any, items: list[dict[str, Any]], previous_summary: str | None,
    previous_state: dict[str, Any] | None = None, *, thread: bool = False,
) -> SummaryResult:
    """Call ``summarizer.summarize`` the way it accepts, await it if needed, coerce the result.

    ``previous_state`` goes to summarizers whose ``summarize`` takes that keyword. With
    ``thread``, a plain (sync) ``summarize`` runs in a worker thread, so a slow one never
    blocks the event loop (an ``async def`` one is awaited on the loop as always)."""
    method = getattr(summarizer, "summarize", None)
    if method is None:
        if callable(summarizer):
            method = summarizer
        else:
            raise TypeError(f"{summarizer!r} has no summarize() method and is not callable")
    keywords: dict[str, Any] = {}
    if accepts_keyword(method, "previous_summary"):
        keywords["previous_summary"] = previous_summary
    if previous_state is not None and accepts_keyword(method, "previous_state"):
        keywords["previous_state"] = previous_state
    if thread and not _is_async(method):
        value = await asyncio.to_thread(method, items, **keywords)
    else:
        value = method(items, **keywords)
    if inspect.isawaitable(value):
        value = await value
    return coerce_result(value)


def _is_async(method: Any) -> bool:
    call = None if inspect.isroutine(method) else type(method).__call__
    return inspect.iscoroutinefunction(method) or inspect.iscoroutinefunction(call)


def is_summary_pair(items: Sequence[Mapping[str, Any]]) -> bool:
    """True when ``items`` starts with a summary pair made by a SummarizingSession."""
    from ..core.items import content_text

    return (
        len(items) >= 2
        and items[0].get("role") == "user"
        and content_text(items[0].get("content")) == SUMMARY_SHADOW_PROMPT
        and items[1].get("role") == "assistant"
    )
