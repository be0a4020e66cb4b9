"""Say what is wrong with an OpenAI-compatible server, instead of a bare SDK traceback.

Three things go wrong when a learner points ``OPENAI_BASE_URL`` at a local server
(Ollama, vLLM, llama.cpp's ``llama-server``, ``llama-cpp-python[server]``):

* the URL: no ``http://`` scheme (httpx refuses it), the endpoint instead of the API root
  (``.../v1/chat/completions``), or the root without ``/v1`` (every request is a 404);
* the server is not running (a bare ``APIConnectionError: Connection error.``);
* the model: Ollama and vLLM answer 404 for a name they do not serve, llama.cpp's servers
  silently answer with whatever model they loaded.

:func:`url_problem` catches the first kind before any request; :func:`check_server` asks
``GET {base}/models`` once and reports the rest; :class:`CompatibleChatModel` is the
SDK's ``OpenAIChatCompletionsModel`` whose API errors are re-raised as a
:class:`~ctxlab.core.model_errors.ModelCallError` (``CompatibleServerError``) naming the URL,
the model, the server's limit and what to do (:mod:`ctxlab.core.model_errors`, the one
translation every ctxlab model call uses), and whose replies without usage get usage
counted and marked as estimated (:mod:`ctxlab.course.usage_estimate`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import openai
from agents import OpenAIChatCompletionsModel

from ..core.model_errors import (
    REACH_HINT,
    CompatibleServerError,
    ModelCallError,
    exception_reason,
    translate_error,
    url_hints,
    url_problem,
)
from .chat_forms import ToolCallContentClient
from .server_limits import server_kind
from .usage_estimate import estimate_missing_usage, estimate_stream_usage

__all__ = ["REACH_HINT", "CompatibleChatModel", "CompatibleServerError", "ModelCallError",
           "ServerCheck", "check_server", "server_error", "url_hints", "url_problem"]


@dataclass(frozen=True)
class ServerCheck:
    """What ``GET {base_url}/models`` said.

    ``reachable`` is False when no HTTP answer came back; ``models`` lists what the server
    serves (empty when unknown); ``problem`` explains a failure, ``warning`` a model that
    is not listed.
    """

    base_url: str
    model: str
    reachable: bool
    models: tuple[str, ...] = ()
    problem: str | None = None
    warning: str | None = None
    owners: tuple[str, ...] = ()

    @property
    def kind(self) -> str | None:
        """The server the model list identifies (``"llama-cpp-python[server]"`` when every
        model is ``owned_by: "me"``), None when unknown."""
        return server_kind(self.owners) if self.owners else None

    @property
    def ok(self) -> bool:
        return self.problem is None and self.warning is None

    def lines(self) -> list[str]:
        """One line per finding, for :func:`ctxlab.course.backends.describe_backend`."""
        if self.problem is not None:
            return [f"Problem: {self.problem}"]
        if self.warning is not None:
            return [f"Warning: {self.warning}"]
        return [f"Server:  reachable, serves {self.model}"]


#: Why ``GET /models`` can time out on a server that is running.
BUSY_HINT = ("the server may be busy with another request (llama-cpp-python serves one at a "
             f"time; a small model on a CPU can take minutes per reply), or {REACH_HINT}")


def check_server(base_url: str, model: str, *, api_key: str | None = None,
                 http_client: httpx.Client | None = None, timeout: float = 5.0) -> ServerCheck:
    """Ask ``GET {base_url}/models`` whether the server is up and serves ``model``.

    Never raises for a server problem: the result says what is wrong. ``http_client`` is
    used when given (tests pass one on an ``httpx.MockTransport``).
    """
    problem = url_problem(base_url)
    if problem is not None:
        return ServerCheck(base_url, model, reachable=False, problem=problem)
    url = base_url.strip().rstrip("/") + "/models"
    response = _get(url, api_key, http_client, timeout)
    if isinstance(response, str):
        return ServerCheck(base_url, model, reachable=False, problem=response)
    refused = _status_problem(response, url, base_url)
    if refused is not None:
        return ServerCheck(base_url, model, reachable=True, problem=refused)
    try:
        data = response.json().get("data") or []
        served = tuple(str(entry.get("id")) for entry in data if isinstance(entry, dict))
        owners = tuple(str(entry.get("owned_by")) for entry in data
                       if isinstance(entry, dict) and entry.get("owned_by") is not None)
    except (ValueError, AttributeError):
        return ServerCheck(base_url, model, reachable=True,
                           problem=f"{url} did not answer with a model list (is this an "
                           "OpenAI-compatible API root? does the URL end in /v1?)")
    if served and model not in served:
        return ServerCheck(base_url, model, reachable=True, models=served, owners=owners,
                           warning=(
            f"the server does not list CTXLAB_MODEL={model!r}; it serves: "
            f"{', '.join(served)}. Ollama and vLLM answer 404 for an unlisted name; "
            "llama.cpp's servers answer with the model they loaded, whatever the name"))
    return ServerCheck(base_url, model, reachable=True, models=served, owners=owners)


def _get(url: str, api_key: str | None, http_client: httpx.Client | None, timeout: float
         ) -> httpx.Response | str:
    """``GET url``, or why no answer came (the problem, in words)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    client = http_client or httpx.Client(timeout=timeout)
    try:
        return client.get(url, headers=headers)
    except httpx.TimeoutException as exc:  # connected (or connecting), but no answer in time
        seconds = client.timeout.read or timeout
        return (f"no answer from {url} within {seconds:g} s ({exception_reason(exc)}): "
                f"{BUSY_HINT}")
    except httpx.HTTPError as exc:
        return f"cannot reach {url} ({exception_reason(exc)}): {REACH_HINT}"
    finally:
        if http_client is None:
            client.close()


def _status_problem(response: httpx.Response, url: str, base_url: str) -> str | None:
    """What an error status of ``GET /models`` says is wrong (None: not an error)."""
    if response.status_code == 404:
        return f"{url} answered 404 Not Found: {url_hints(base_url)[-1]}"
    if response.status_code in (401, 403):
        return (f"{url} answered {response.status_code}: the server wants an API key; set "
                "OPENAI_API_KEY to it")
    if response.status_code >= 400:
        return f"{url} answered {response.status_code}: {response.text[:200]}"
    return None


def server_error(base_url: str, model: str, exc: Exception) -> ModelCallError:
    """The error to raise instead of ``exc`` (an ``openai`` API error) for the agent's
    request to the server at ``base_url`` (:func:`~ctxlab.core.model_errors.translate_error`
    with the Chat Completions endpoint)."""
    endpoint = base_url.strip().rstrip("/") + "/chat/completions"
    error = translate_error(exc, url=endpoint, model=model, caller="agent")
    if error is None:
        raise TypeError(f"server_error expects an openai API error, got {type(exc).__name__}")
    return error


class CompatibleChatModel(OpenAIChatCompletionsModel):
    """``OpenAIChatCompletionsModel`` for an OpenAI-compatible server.

    Everything (request building, conversion, parsing) is the SDK's, with three additions:

    * every API error (no answer, 404, a context overflow, a 500) is re-raised as a
      :class:`~ctxlab.core.model_errors.ModelCallError` naming the URL, the model, the
      server's limit and what to do;
    * a reply without token usage (``llama-cpp-python[server]`` sends no usage chunk in
      streams, even with ``include_usage``) gets usage counted with ctxlab's exact
      o200k_base tokenizer, marked as estimated
      (:func:`~ctxlab.course.usage_estimate.usage_is_estimated`);
    * an assistant message with ``tool_calls`` goes out with ``content: ""``, not ``null``
      (``llama-cpp-python[server]`` refuses ``null``; :mod:`ctxlab.course.chat_forms`);
    * a streamed call answered with an empty event stream (HTTP 200, no event) raises a
      :class:`~ctxlab.core.model_errors.ModelCallError` naming the limit (with
      ``tool_choice="auto"``: :data:`~ctxlab.course.server_limits.STREAMED_AUTO_TOOL_CHOICE`)
      instead of ending the run with an empty answer.
    """

    def __init__(self, model: str, openai_client: openai.AsyncOpenAI, **kwargs: Any) -> None:
        super().__init__(model=model, openai_client=openai_client, **kwargs)
        self.base_url = str(openai_client.base_url)

    def _get_client(self) -> Any:  # the SDK sends every request through this client
        return ToolCallContentClient(super()._get_client())

    async def get_response(self, system_instructions: str | None, input: Any,
                           *args: Any, **kwargs: Any) -> Any:
        try:
            response = await super().get_response(system_instructions, input, *args, **kwargs)
        except openai.APIError as exc:
            raise server_error(self.base_url, str(self.model), exc) from exc
        tools = kwargs.get("tools", args[1] if len(args) > 1 else ())
        return estimate_missing_usage(response, system_instructions, input, tools)

    async def stream_response(self, system_instructions: str | None, input: Any,
                              *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        tools = kwargs.get("tools", args[1] if len(args) > 1 else ())
        try:
            async for event in super().stream_response(system_instructions, input, *args,
                                                       **kwargs):
                yield estimate_stream_usage(event, system_instructions, input, tools)
        except openai.APIError as exc:
            raise server_error(self.base_url, str(self.model), exc) from exc
