"""The limits of OpenAI-compatible servers that ctxlab knows by name.

A limit is a thing a server cannot do, said in one phrase that errors, lesson checks and
``scripts/real_server_smoke.py`` all use, so that "the server cannot do this" is never
mistaken for a bug, nor for an empty answer:

* :data:`TOOLS_NEED_TOOL_CHOICE`: ``llama-cpp-python[server]`` drops a request's tools
  unless ``tool_choice`` is sent, and the Agents SDK sends none: the model never sees the
  tools, so it cannot call one, hand off, or delete anything (it may still *say* it did);
* :data:`STREAMED_AUTO_TOOL_CHOICE`: the same server answers a streamed request with
  ``tool_choice="auto"`` with HTTP 200 and an empty event stream (its log: "Automatic
  streaming tool choice is not supported"): no text, no tool call, no error.

:func:`server_kind` recognises the server from its ``GET /models`` answer
(``llama-cpp-python[server]`` lists its model with ``owned_by: "me"``);
:func:`empty_stream_error` is the error a streamed call that came back empty raises.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from ..core.model_errors import ModelCallError

#: The server ``owned_by: "me"`` identifies.
LLAMA_CPP_PYTHON = "llama-cpp-python[server]"

#: Tools reach the model only with a ``tool_choice`` (the SDK sends none).
TOOLS_NEED_TOOL_CHOICE = (
    "tools are used only when tool_choice is sent (llama-cpp-python[server] drops a "
    "request's tools without one, and the Agents SDK sends none)")

#: A streamed request with ``tool_choice="auto"`` gets an empty event stream.
STREAMED_AUTO_TOOL_CHOICE = "streamed tool_choice=auto"

#: What to do about :data:`STREAMED_AUTO_TOOL_CHOICE`.
STREAMED_AUTO_ADVICE = (
    "run this agent without streaming (Runner.run), or stream without tool_choice=\"auto\" "
    "(the server then drops the tools); llama-cpp-python[server] logs \"Automatic streaming "
    "tool choice is not supported\"")

#: What to do about :data:`TOOLS_NEED_TOOL_CHOICE`.
TOOLS_ADVICE = (
    "start llama-cpp-python with --chat_format chatml-function-calling and give the agent "
    "ModelSettings(tool_choice=\"auto\") (plain runs only), or use a server that passes tools "
    "through (Ollama, vLLM with --enable-auto-tool-choice, llama-server --jinja)")


def server_kind(owners: Iterable[str]) -> str | None:
    """The server a ``GET /models`` answer's ``owned_by`` values identify, or None."""
    found = {str(owner) for owner in owners}
    return LLAMA_CPP_PYTHON if found == {"me"} else None


def empty_stream_error(url: str, model: str, tool_choice: Any,
                       offered_tools: bool) -> ModelCallError:
    """The error for a streamed call whose server sent no event at all (HTTP 200): with
    ``tool_choice="auto"`` and tools offered, the named limit
    :data:`STREAMED_AUTO_TOOL_CHOICE`; otherwise an empty stream, named as such."""
    if tool_choice == "auto" and offered_tools:
        limit = STREAMED_AUTO_TOOL_CHOICE
        what = f"What to do: {STREAMED_AUTO_ADVICE}."
    else:
        limit = "an empty event stream (HTTP 200, no event)"
        what = ("What to do: run without streaming (Runner.run) and look at the server's log "
                "for the request's error.")
    return ModelCallError(
        f"{url} answered the agent's streamed request ({model}) with HTTP 200 and an empty "
        f"event stream: no text, no tool call, no error (server limit: {limit}). This is not "
        f"an empty answer: the model said nothing because the server did not run it. {what}",
        url, model=model, status=200, limit=limit, caller="agent")


class EmptyStreamGuard:
    """A Chat Completions chunk stream that raises :func:`empty_stream_error` when it ends
    without a single chunk (a stream of empty chunks is a reply, and passes); everything
    else is the wrapped stream's."""

    def __init__(self, stream: Any, url: str, request: Mapping[str, Any]) -> None:
        self._stream = stream
        self._url = url
        self._request = request

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[Any]:
        seen = 0
        async for chunk in self._stream:
            seen += 1
            yield chunk
        if not seen:
            request = self._request
            raise empty_stream_error(self._url, str(request.get("model")),
                                     request.get("tool_choice"), bool(request.get("tools")))
