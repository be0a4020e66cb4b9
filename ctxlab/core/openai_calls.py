"""Call an ``openai`` client's create method the right way, sync or async.

``AsyncOpenAI``'s methods are wrapped, so ``inspect.iscoroutinefunction`` cannot tell them
from a sync client's: decide by the client's type, run a sync client in a worker thread
(so the event loop keeps serving other sessions), and await whatever is awaitable.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlparse


def is_async_client(client: Any) -> bool:
    """True for ``openai.AsyncOpenAI`` (and subclasses such as ``AsyncAzureOpenAI``)."""
    try:
        from openai import AsyncOpenAI
    except ImportError:  # pragma: no cover - openai is a dependency
        return False
    return isinstance(client, AsyncOpenAI)


async def call_create(client: Any, create: Callable[..., Any], **kwargs: Any) -> Any:
    """``create(**kwargs)`` for ``client``'s create method, awaited when needed."""
    if is_async_client(client) or inspect.iscoroutinefunction(create):
        response = create(**kwargs)
    else:
        response = await asyncio.to_thread(create, **kwargs)
    if inspect.isawaitable(response):
        response = await response
    return response


Api = Literal["auto", "responses", "chat"]


def _positive(label: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{label} must be a positive integer, got {value!r}")
    return value


class ModelCaller:
    """What LLMSummarizer, LLMStateExtractor and SummaryJudge share: an ``openai`` client,
    a model, an output-token cap, a tool-output trim limit, and which API to speak.

    ``api="auto"`` speaks the Responses API to api.openai.com and Chat Completions to any
    other ``base_url`` (which is what OpenAI-compatible servers implement).
    """

    def __init__(self, client: Any, model: str, *, api: Api, max_tokens: int,
                 tool_trim_limit: int):
        if client is None:
            raise ValueError(f"{type(self).__name__} needs an openai client "
                             "(OpenAI() or AsyncOpenAI())")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if api not in ("auto", "responses", "chat"):
            raise ValueError(f"api must be 'auto', 'responses' or 'chat', got {api!r}")
        self.client = client
        self.model = model
        self.api: Api = api
        self.max_tokens = _positive("max_tokens", max_tokens)
        self.tool_trim_limit = _positive("tool_trim_limit", tool_trim_limit)

    def resolved_api(self) -> Literal["responses", "chat"]:
        """The API this caller speaks (see the class docstring for ``"auto"``)."""
        if self.api != "auto":
            return self.api
        host = urlparse(str(getattr(self.client, "base_url", "") or "")).hostname or ""
        return "responses" if host in ("", "api.openai.com") else "chat"

    def create_method(self) -> Callable[..., Any]:
        """The client's create method for :meth:`resolved_api`."""
        if self.resolved_api() == "responses":
            return self.client.responses.create
        return self.client.chat.completions.create
