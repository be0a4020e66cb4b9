"""Pick the model behind the course's agent from environment variables, in one call.

:func:`choose_backend` reads:

* ``CTXLAB_BACKEND``: ``auto`` (the default), ``offline``, ``openai`` or
  ``openai-compatible``;
* ``OPENAI_BASE_URL``: an OpenAI-compatible server (Ollama, vLLM, llama.cpp server, ...),
  reached through the Chat Completions API; needs ``CTXLAB_MODEL``;
* ``OPENAI_API_KEY``: the OpenAI Responses API (optional for a base-URL server);
* ``CTXLAB_MODEL``: the model name (default ``gpt-4.1-mini`` on OpenAI);
* ``CTXLAB_MAX_TOKENS``: the reply cap on an OpenAI-compatible server (default
  :data:`DEFAULT_COMPATIBLE_MAX_TOKENS`).

With ``auto`` the first that applies wins: a base URL, then an API key, then the offline
simulator (:class:`ctxlab.course.offline.OfflineSupportModel`). Empty variables count as unset.
Choosing a backend opens no connection; :func:`describe_backend` asks a compatible server
``GET /models`` once, and says what is wrong if it does not answer as expected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from agents import ModelSettings
from agents.models.interface import Model

from ..core.display import NOTEBOOK_COLUMNS, wrap
from .offline import OFFLINE_MODEL_NAME, OfflineSupportModel
from .server_check import CompatibleChatModel, ServerCheck, check_server, url_problem

#: Backend names, and the values CTXLAB_BACKEND accepts.
BACKEND_NAMES: tuple[str, ...] = ("offline", "openai", "openai-compatible")
BACKEND_CHOICES: tuple[str, ...] = ("offline", "openai", "openai-compatible", "auto")

#: The OpenAI model used when CTXLAB_MODEL is not set.
DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"

#: The real model every text recommends (README, lesson 00, lesson notes): tool calls and
#: summaries need a 7B-or-larger instruct model; Ollama's default window must be raised.
RECOMMENDED_MODEL = "qwen2.5:7b"
RECOMMENDATION = (
    "a 7B-or-larger instruct model with tool calling, for example Ollama's qwen2.5:7b "
    "(CTXLAB_MODEL=qwen2.5:7b), with Ollama's context raised (OLLAMA_CONTEXT_LENGTH=16384): "
    "its default window is small and cuts the history silently"
)

#: The API key sent to a base-URL server when OPENAI_API_KEY is unset (most local servers
#: ignore it, but the client requires one).
PLACEHOLDER_API_KEY = "not-needed"

#: The reply cap (``max_tokens``) the agent sends to an OpenAI-compatible server: small local
#: models can ramble until their context is full, and the course's replies are short.
DEFAULT_COMPATIBLE_MAX_TOKENS = 1024


class BackendConfigError(ValueError):
    """The environment asks for a backend that cannot be built; the message says why."""


@dataclass(frozen=True)
class Backend:
    """The model an agent should use, and how to explain the choice to a learner.

    ``model`` is either an ``agents`` ``Model`` instance or a model name for
    ``Agent(model=...)``; ``model_name`` is its display name; ``description`` is one line
    for the first lesson to print; ``how_to_switch`` says which variables change it.
    ``model_settings`` are the settings an agent on this backend should use (None: the
    SDK's defaults); ``base_url`` is the server of an OpenAI-compatible backend.
    """

    name: str
    model: Model | str
    model_name: str
    description: str
    how_to_switch: str
    model_settings: ModelSettings | None = None
    base_url: str | None = None

    def __post_init__(self) -> None:
        if self.name not in BACKEND_NAMES:
            raise ValueError(
                f"Backend name must be one of {', '.join(BACKEND_NAMES)}; got {self.name!r}"
            )
        if not isinstance(self.model, (Model, str)):
            raise TypeError(
                "Backend model must be an agents Model instance or a model name string, "
                f"got {type(self.model).__name__}"
            )
        if self.model_settings is not None and not isinstance(self.model_settings, ModelSettings):
            raise TypeError(
                "Backend model_settings must be an agents ModelSettings or None, "
                f"got {type(self.model_settings).__name__}"
            )
        if self.base_url is not None and url_problem(self.base_url) is not None:
            raise ValueError(f"Backend base_url: {url_problem(self.base_url)}")

    @property
    def is_offline(self) -> bool:
        return self.name == "offline"


def _get(env: Mapping[str, str], key: str) -> str:
    value = env.get(key)
    return value.strip() if isinstance(value, str) else ""


def choose_backend(env: Mapping[str, str] | None = None) -> Backend:
    """The backend the environment asks for (``os.environ`` when ``env`` is None).

    Raises :class:`BackendConfigError` (a ``ValueError``) when ``CTXLAB_BACKEND`` has an
    unknown value or a forced backend lacks its variables.

    The ``openai`` backend is a model *name*: the Agents SDK's default client sends it and
    reads ``OPENAI_API_KEY`` from the process environment when the agent first runs (or
    from ``agents.set_default_openai_key``), not from ``env``. The ``openai-compatible``
    backend builds its own client from ``env``.
    """
    if env is None:
        env = os.environ
    if not isinstance(env, Mapping):
        raise TypeError(f"env must be a mapping of strings, got {type(env).__name__}")
    choice = _get(env, "CTXLAB_BACKEND").lower() or "auto"
    if choice not in BACKEND_CHOICES:
        raise BackendConfigError(
            f"CTXLAB_BACKEND={env.get('CTXLAB_BACKEND')!r} is not a backend; "
            f"use one of: {', '.join(BACKEND_CHOICES)}"
        )
    if choice == "auto":
        if _get(env, "OPENAI_BASE_URL"):
            choice = "openai-compatible"
        elif _get(env, "OPENAI_API_KEY"):
            choice = "openai"
        else:
            choice = "offline"
    if choice == "openai-compatible":
        return _compatible(env)
    if choice == "openai":
        return _openai(env)
    return offline_backend()


def offline_backend() -> Backend:
    """The offline simulator, whatever the environment says."""
    return Backend(
        name="offline",
        model=OfflineSupportModel(),
        model_name=OFFLINE_MODEL_NAME,
        description=(
            "offline: ctxlab's deterministic support simulator (no API key, no network); "
            "it answers only from what is in its context window"
        ),
        how_to_switch=(
            "set OPENAI_API_KEY (and optionally CTXLAB_MODEL, default "
            f"{DEFAULT_OPENAI_MODEL}) for OpenAI, or OPENAI_BASE_URL and CTXLAB_MODEL for an "
            "OpenAI-compatible server such as Ollama, vLLM or llama.cpp; then restart the "
            "kernel"
        ),
    )


def _openai(env: Mapping[str, str]) -> Backend:
    if not _get(env, "OPENAI_API_KEY"):
        raise BackendConfigError(
            "CTXLAB_BACKEND=openai needs OPENAI_API_KEY; set it, or use "
            "CTXLAB_BACKEND=offline for the offline simulator"
        )
    model_name = _get(env, "CTXLAB_MODEL") or DEFAULT_OPENAI_MODEL
    return Backend(
        name="openai",
        model=model_name,
        model_name=model_name,
        description=(
            f"openai: {model_name} through the OpenAI Responses API; traces are exported "
            "with your OPENAI_API_KEY (agents.set_tracing_disabled(True) turns that off)"
        ),
        how_to_switch=(
            "set CTXLAB_MODEL to use another OpenAI model, or CTXLAB_BACKEND=offline for the "
            "offline simulator; then restart the kernel"
        ),
    )


def _compatible(env: Mapping[str, str]) -> Backend:
    base_url = _get(env, "OPENAI_BASE_URL")
    if not base_url:
        raise BackendConfigError(
            "CTXLAB_BACKEND=openai-compatible needs OPENAI_BASE_URL, the server's API root "
            "(for Ollama: http://localhost:11434/v1)"
        )
    model_name = _get(env, "CTXLAB_MODEL")
    if not model_name:
        raise BackendConfigError(
            f"OPENAI_BASE_URL is set ({base_url}) but CTXLAB_MODEL is not: set CTXLAB_MODEL "
            f"to a model the server serves; recommended: {RECOMMENDATION}"
        )
    max_tokens = _get(env, "CTXLAB_MAX_TOKENS")
    if max_tokens and (not max_tokens.isdigit() or int(max_tokens) < 1):
        raise BackendConfigError(
            f"CTXLAB_MAX_TOKENS={max_tokens!r} must be a whole number >= 1 (the reply cap)"
        )
    return compatible_backend(
        base_url,
        model_name,
        api_key=_get(env, "OPENAI_API_KEY") or None,
        max_tokens=int(max_tokens) if max_tokens else DEFAULT_COMPATIBLE_MAX_TOKENS,
    )


def compatible_backend(
    base_url: str,
    model_name: str,
    *,
    api_key: str | None = None,
    max_tokens: int = DEFAULT_COMPATIBLE_MAX_TOKENS,
    http_client: httpx.AsyncClient | None = None,
) -> Backend:
    """The backend for an OpenAI-compatible server at ``base_url`` serving ``model_name``.

    The agent talks Chat Completions through :class:`~ctxlab.course.server_check.
    CompatibleChatModel` (the SDK's ``OpenAIChatCompletionsModel``, whose connection errors
    and 404s name the URL and what to check), asks for usage on streamed runs
    (``include_usage``) and caps replies at ``max_tokens``. ``http_client`` is passed to
    ``AsyncOpenAI`` (tests use one on an ``httpx.MockTransport``). No request is made.

    Raises:
        BackendConfigError: the URL has no scheme or names an endpoint instead of the API
            root, the model name is empty, or ``max_tokens`` is not a whole number >= 1.
    """
    problem = url_problem(base_url)
    if problem is not None:
        raise BackendConfigError(problem)
    if not isinstance(model_name, str) or not model_name.strip():
        raise BackendConfigError(f"model_name must be a non-empty string, got {model_name!r}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise BackendConfigError(f"max_tokens must be a whole number >= 1, got {max_tokens!r}")
    from openai import AsyncOpenAI

    base_url = base_url.strip()
    client = AsyncOpenAI(
        base_url=base_url, api_key=api_key or PLACEHOLDER_API_KEY, http_client=http_client
    )
    return Backend(
        name="openai-compatible",
        model=CompatibleChatModel(model=model_name, openai_client=client),
        model_name=model_name,
        description=(
            f"openai-compatible: {model_name} at {base_url} through Chat Completions; "
            "trace export needs a real OpenAI key, so call agents.set_tracing_disabled(True)"
        ),
        how_to_switch=(
            "set CTXLAB_MODEL for another model on this server, unset OPENAI_BASE_URL to use "
            "OpenAI (with OPENAI_API_KEY) or the offline simulator, or set "
            "CTXLAB_BACKEND=offline; then restart the kernel"
        ),
        model_settings=ModelSettings(include_usage=True, max_tokens=max_tokens),
        base_url=base_url,
    )


#: Server checks already made, by (base URL, model): a server is asked once per process.
_CHECKS: dict[tuple[str, str], ServerCheck] = {}


def server_check(
    backend: Backend, *, recheck: bool = False, http_client: httpx.Client | None = None
) -> ServerCheck | None:
    """The result of ``GET {base_url}/models`` for a compatible backend (None for others).

    Asked once per base URL and model; ``recheck=True`` asks again. ``http_client`` is used
    for the request (tests pass one on an ``httpx.MockTransport``).
    """
    if not isinstance(backend, Backend):
        raise TypeError(f"server_check expects a Backend, got {type(backend).__name__}")
    if backend.base_url is None:
        return None
    key = (backend.base_url, backend.model_name)
    if recheck or key not in _CHECKS:
        client = getattr(backend.model, "_client", None)
        api_key = getattr(client, "api_key", None)
        _CHECKS[key] = check_server(
            backend.base_url,
            backend.model_name,
            api_key=None if api_key == PLACEHOLDER_API_KEY else api_key,
            http_client=http_client,
        )
    return _CHECKS[key]


def describe_backend(
    backend: Backend, *, check: bool = True, http_client: httpx.Client | None = None
) -> str:
    """A few lines for the quickstart: which backend, which model, how to switch (wrapped
    at spaces to fit a notebook line).

    For an OpenAI-compatible server (with ``check=True``) the first call asks the server
    ``GET /models`` (:func:`server_check`) and adds a line: reachable and serving the model,
    a ``Problem:`` (unreachable: the URL and "is the server running? does the URL end in
    /v1?") or a ``Warning:`` (the model is not listed: the models it serves).
    """
    if not isinstance(backend, Backend):
        raise TypeError(f"describe_backend expects a Backend, got {type(backend).__name__}")
    lines = [
        f"Backend: {backend.name}",
        f"Model:   {backend.model_name}",
        *wrap(backend.description, NOTEBOOK_COLUMNS, first_indent="About:   ", indent=" " * 9),
        *wrap(backend.how_to_switch, NOTEBOOK_COLUMNS, first_indent="Switch:  ", indent=" " * 9),
    ]
    if check:
        found = server_check(backend, http_client=http_client)
        if found is not None:
            lines.extend(found.lines())
    return "\n".join(lines)


def default_summarizer(backend: Backend, *, model: str | None = None) -> Any:
    """The summarizer that goes with ``backend``.

    Offline: :class:`~ctxlab.summarizers.ExtractiveSummarizer` (no model). OpenAI: an
    :class:`~ctxlab.summarizers.LLMSummarizer` on the Responses API with ``model`` (default:
    the backend's model). OpenAI-compatible: an ``LLMSummarizer`` over Chat Completions on
    the same server. Constructing one makes no request.
    """
    from ..summarizers import ExtractiveSummarizer, LLMSummarizer

    if not isinstance(backend, Backend):
        raise TypeError(f"default_summarizer expects a Backend, got {type(backend).__name__}")
    if backend.name == "offline":
        return ExtractiveSummarizer()
    if backend.name == "openai":
        from openai import AsyncOpenAI

        return LLMSummarizer(AsyncOpenAI(), model=model or backend.model_name, api="responses")
    client = getattr(backend.model, "_client", None)
    if client is None:  # pragma: no cover - the SDK keeps its client in _client
        raise BackendConfigError("cannot find the OpenAI-compatible client of this backend")
    return LLMSummarizer(client, model=model or backend.model_name, api="chat")
