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
SDK's ``OpenAIChatCompletionsModel`` whose connection and 404 errors are re-raised as a
:class:`CompatibleServerError` carrying the URL and these hints.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx
import openai
from agents import OpenAIChatCompletionsModel

#: The two questions to ask first when a compatible server cannot be reached.
REACH_HINT = "is the server running? does the URL end in /v1?"

#: Paths people paste instead of the API root, and what they are.
_ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/responses", "/models")


class CompatibleServerError(RuntimeError):
    """A request to an OpenAI-compatible server failed; the message says what to check.

    ``url`` is the URL that failed, ``hints`` the checks suggested; the SDK's own error is
    the ``__cause__``.
    """

    def __init__(self, message: str, url: str, hints: tuple[str, ...]):
        super().__init__(message)
        self.url = url
        self.hints = hints


def url_problem(base_url: str) -> str | None:
    """Why ``base_url`` cannot be a server's API root, or None when it can."""
    if not isinstance(base_url, str) or not base_url.strip():
        return f"the base URL must be a non-empty string, got {base_url!r}"
    parsed = urlparse(base_url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return (f"OPENAI_BASE_URL={base_url!r} has no http:// or https:// scheme; write it "
                f"in full, e.g. http://{base_url.strip().lstrip('/')}")
    path = parsed.path.rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.endswith(suffix):
            root = base_url.strip().rstrip("/")[: -len(suffix)]
            return (f"OPENAI_BASE_URL={base_url!r} ends in {suffix}, an endpoint; give the API "
                    f"root instead ({root}): the client adds {suffix} itself")
    return None


def url_hints(base_url: str) -> tuple[str, ...]:
    """The checks worth suggesting for ``base_url`` when a request to it fails."""
    hints = ["is the server running?"]
    problem = url_problem(base_url)
    if problem is not None:
        hints.append(problem)
    elif not urlparse(base_url.strip()).path.rstrip("/").endswith("/v1"):
        hints.append(f"does the URL end in /v1? {base_url!r} does not; most servers serve "
                     "the API under /v1 (Ollama: http://localhost:11434/v1)")
    else:
        hints.append("does the URL end in /v1? it does")
    return tuple(hints)


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
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    client = http_client or httpx.Client(timeout=timeout)
    try:
        response = client.get(url, headers=headers)
    except httpx.HTTPError as exc:
        return ServerCheck(base_url, model, reachable=False,
                           problem=f"cannot reach {url} ({_reason(exc)}): {REACH_HINT}")
    finally:
        if http_client is None:
            client.close()
    if response.status_code == 404:
        return ServerCheck(base_url, model, reachable=True,
                           problem=f"{url} answered 404 Not Found: {url_hints(base_url)[-1]}")
    if response.status_code in (401, 403):
        return ServerCheck(base_url, model, reachable=True,
                           problem=f"{url} answered {response.status_code}: the server wants "
                           "an API key; set OPENAI_API_KEY to it")
    if response.status_code >= 400:
        return ServerCheck(base_url, model, reachable=True,
                           problem=f"{url} answered {response.status_code}: "
                           f"{response.text[:200]}")
    try:
        data = response.json().get("data") or []
        served = tuple(str(entry.get("id")) for entry in data if isinstance(entry, dict))
    except (ValueError, AttributeError):
        return ServerCheck(base_url, model, reachable=True,
                           problem=f"{url} did not answer with a model list (is this an "
                           "OpenAI-compatible API root? does the URL end in /v1?)")
    if served and model not in served:
        return ServerCheck(base_url, model, reachable=True, models=served, warning=(
            f"the server does not list CTXLAB_MODEL={model!r}; it serves: "
            f"{', '.join(served)}. Ollama and vLLM answer 404 for an unlisted name; "
            "llama.cpp's servers answer with the model they loaded, whatever the name"))
    return ServerCheck(base_url, model, reachable=True, models=served)


def _reason(exc: BaseException) -> str:
    while exc.__cause__ is not None and str(exc) in ("", "Connection error."):
        exc = exc.__cause__
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


def server_error(base_url: str, model: str, exc: Exception) -> CompatibleServerError:
    """The error to raise instead of ``exc`` (a connection error or a 404) for a request
    to the server at ``base_url``."""
    hints = url_hints(base_url)
    endpoint = base_url.strip().rstrip("/") + "/chat/completions"
    if isinstance(exc, openai.NotFoundError):
        detail = _api_message(exc)
        message = (f"{endpoint} answered 404 Not Found ({detail}). Check that the server "
                   f"serves CTXLAB_MODEL={model!r} (GET {base_url.rstrip('/')}/models lists "
                   f"what it serves) and: {'; '.join(hints[1:])}")
    else:
        message = f"cannot reach {endpoint} ({_reason(exc)}): {'; '.join(hints)}"
    return CompatibleServerError(message, endpoint, hints)


def _api_message(exc: openai.APIStatusError) -> str:
    body: Any = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:200]
        if isinstance(error, str):
            return error[:200]
    return str(exc)[:200]


_SERVER_ERRORS = (openai.APIConnectionError, openai.NotFoundError)


class CompatibleChatModel(OpenAIChatCompletionsModel):
    """``OpenAIChatCompletionsModel`` for an OpenAI-compatible server whose connection
    errors and 404s are re-raised as :class:`CompatibleServerError` with the URL and hints.
    Everything else (request building, conversion, parsing) is the SDK's, unchanged."""

    def __init__(self, model: str, openai_client: openai.AsyncOpenAI, **kwargs: Any) -> None:
        super().__init__(model=model, openai_client=openai_client, **kwargs)
        self.base_url = str(openai_client.base_url)

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().get_response(*args, **kwargs)
        except _SERVER_ERRORS as exc:
            raise server_error(self.base_url, str(self.model), exc) from exc

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        try:
            async for event in super().stream_response(*args, **kwargs):
                yield event
        except _SERVER_ERRORS as exc:
            raise server_error(self.base_url, str(self.model), exc) from exc
