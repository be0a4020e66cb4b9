"""Send the Agents SDK's Chat Completions messages in the form every server takes.

After a tool call the SDK's converter sends the call as ``{"role": "assistant",
"content": null, "tool_calls": [...]}``. The OpenAI API, Ollama and vLLM take that, but
``llama-cpp-python[server]`` (0.3.36, checked here) answers HTTP 500 ("Input should be a
valid string"), so any conversation that ever used a tool fails there. The same message
with ``"content": ""`` is accepted by all of them (and by the ``openai`` request types).

:class:`ToolCallContentClient` wraps an ``AsyncOpenAI`` client: ``chat.completions.create``
gets a copy of the messages with that one change; everything else is the wrapped client's.
:class:`~ctxlab.course.server_check.CompatibleChatModel` sends its requests through it. A
streamed reply also passes through :class:`~ctxlab.course.server_limits.EmptyStreamGuard`,
so that a stream with no chunk at all (``llama-cpp-python[server]`` with
``tool_choice="auto"``) raises an error naming that limit instead of being an empty answer.
"""

from __future__ import annotations

from typing import Any

from .server_limits import EmptyStreamGuard

__all__ = ["ToolCallContentClient", "tool_call_content"]


def tool_call_content(messages: Any) -> Any:
    """``messages`` with ``content: ""`` instead of ``null`` in each assistant message that
    carries ``tool_calls`` (a new list; the other messages are the same objects)."""
    if not isinstance(messages, list):
        return messages
    return [{**m, "content": ""} if isinstance(m, dict) and m.get("role") == "assistant"
            and m.get("tool_calls") and m.get("content") is None else m for m in messages]


class _Completions:
    def __init__(self, completions: Any) -> None:
        self._completions = completions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)

    async def create(self, **kwargs: Any) -> Any:
        if "messages" in kwargs:
            kwargs["messages"] = tool_call_content(kwargs["messages"])
        response = await self._completions.create(**kwargs)
        if kwargs.get("stream") is True:
            base = str(getattr(getattr(self._completions, "_client", None), "base_url", ""))
            response = EmptyStreamGuard(response, base.rstrip("/") + "/chat/completions", kwargs)
        return response


class _Chat:
    def __init__(self, chat: Any) -> None:
        self._chat = chat

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)

    @property
    def completions(self) -> _Completions:
        return _Completions(self._chat.completions)


class ToolCallContentClient:
    """An ``AsyncOpenAI`` client whose Chat Completions requests send ``content: ""``
    next to ``tool_calls`` (see the module docstring); all else is delegated."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    @property
    def chat(self) -> _Chat:
        return _Chat(self._client.chat)
