"""Call an ``openai`` client's create method the right way, sync or async.

``AsyncOpenAI``'s methods are wrapped, so ``inspect.iscoroutinefunction`` cannot tell them
from a sync client's: decide by the client's type, run a sync client in a worker thread
(so the event loop keeps serving other sessions), and await whatever is awaitable.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any


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
