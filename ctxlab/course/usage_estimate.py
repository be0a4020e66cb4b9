"""Token usage for replies whose server reported none, counted here and marked as estimated.

``llama-cpp-python[server]`` sends no usage chunk in a stream, even when
``stream_options.include_usage`` asks for one, so the Agents SDK records 0 input and 0
output tokens for every streamed call. :class:`~ctxlab.course.server_check.
CompatibleChatModel` fills such a reply in with what ctxlab can count exactly: the request
(instructions, items, tool schemas) and the reply's output items in o200k_base tokens, as
:func:`~ctxlab.core.tokens.count_request_tokens` counts a request. The server's model has
its own tokenizer and chat template, so the figure is an *estimate* of what the server
would have billed, and it is marked: the response's id becomes :data:`ESTIMATED_USAGE_ID`
(Chat Completions replies carry only the SDK's placeholder id there), so
:func:`usage_is_estimated` can tell, for each ``ModelResponse`` of a run, which figure was
counted here. :class:`~ctxlab.course.runs.ModelCallRecord` records it as
``usage_estimated``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from agents.usage import Usage
from openai.types.responses import ResponseCompletedEvent
from openai.types.responses.response_usage import (
    InputTokensDetails,
    OutputTokensDetails,
    ResponseUsage,
)

from ..core.tokens import count_request_tokens, get_token_counter

#: The response id that marks usage counted by ctxlab (the server reported none).
ESTIMATED_USAGE_ID = "ctxlab-usage-estimated"


def _as_dict(item: Any) -> Mapping[str, Any]:
    if isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    return dump(exclude_unset=True) if callable(dump) else {}


def estimate_tokens(system_instructions: str | None, input: Any, tools: Iterable[Any],
                    output: Iterable[Any]) -> tuple[int, int]:
    """``(input tokens, output tokens)`` of one call: the request as
    :func:`~ctxlab.core.tokens.count_request_tokens` counts it, the reply's output items
    as items (text plus per-item overhead); o200k_base."""
    items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
    sent = count_request_tokens(system_instructions, items, list(tools or ()))["total"]
    counter = get_token_counter()
    received = sum(counter.count_item(_as_dict(item)) for item in output)
    return sent, received


def _reported(usage: Any) -> bool:
    if usage is None:
        return False
    return bool(getattr(usage, "input_tokens", 0) or getattr(usage, "output_tokens", 0))


def usage_is_estimated(response: Any) -> bool:
    """True when ``response`` (an Agents SDK ``ModelResponse``, e.g. one of a run's
    ``raw_responses``) carries usage ctxlab counted because the server reported none."""
    return getattr(response, "response_id", None) == ESTIMATED_USAGE_ID


def estimate_missing_usage(response: Any, system_instructions: str | None, input: Any,
                           tools: Iterable[Any]) -> Any:
    """``response`` (a ``ModelResponse``) as is when the server reported usage; otherwise a
    copy with counted usage, marked (:func:`usage_is_estimated`)."""
    if _reported(response.usage):
        return response
    sent, received = estimate_tokens(system_instructions, input, tools, response.output)
    usage = Usage(requests=max(1, response.usage.requests), input_tokens=sent,
                  output_tokens=received, total_tokens=sent + received)
    return dataclasses.replace(response, usage=usage, response_id=ESTIMATED_USAGE_ID)


def estimate_stream_usage(event: Any, system_instructions: str | None, input: Any,
                          tools: Iterable[Any]) -> Any:
    """``event`` unchanged, unless it is the stream's ``response.completed`` without usage:
    then its response gets counted usage and is marked (:func:`usage_is_estimated` on the
    ``ModelResponse`` the Runner builds from it)."""
    if not isinstance(event, ResponseCompletedEvent) or _reported(event.response.usage):
        return event
    sent, received = estimate_tokens(system_instructions, input, tools, event.response.output)
    event.response.usage = ResponseUsage(
        input_tokens=sent, output_tokens=received, total_tokens=sent + received,
        input_tokens_details=InputTokensDetails.model_validate(
            {"cached_tokens": 0, "cache_write_tokens": 0}),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0))
    event.response.id = ESTIMATED_USAGE_ID
    return event
