"""Pick the model behind the course's agent from environment variables, in one call.

:func:`choose_backend` reads:

* ``CTXLAB_BACKEND``: ``auto`` (the default), ``offline``, ``openai`` or
  ``openai-compatible``;
* ``OPENAI_BASE_URL``: an OpenAI-compatible server (Ollama, vLLM, llama.cpp server, ...),
  reached through the Chat Completions API; needs ``CTXLAB_MODEL``;
* ``OPENAI_API_KEY``: the OpenAI Responses API (optional for a base-URL server);
* ``CTXLAB_MODEL``: the model name (default ``gpt-4.1-mini`` on OpenAI).

With ``auto`` the first that applies wins: a base URL, then an API key, then the offline
simulator (:class:`ctxlab.course.offline.OfflineSupportModel`). Empty variables count as unset.
Nothing here opens a connection: clients are only constructed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.models.interface import Model

from .offline import OFFLINE_MODEL_NAME, OfflineSupportModel

#: Backend names, and the values CTXLAB_BACKEND accepts.
BACKEND_NAMES: tuple[str, ...] = ("offline", "openai", "openai-compatible")
BACKEND_CHOICES: tuple[str, ...] = ("offline", "openai", "openai-compatible", "auto")

#: The OpenAI model used when CTXLAB_MODEL is not set.
DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"

#: The API key sent to a base-URL server when OPENAI_API_KEY is unset (most local servers
#: ignore it, but the client requires one).
PLACEHOLDER_API_KEY = "not-needed"


class BackendConfigError(ValueError):
    """The environment asks for a backend that cannot be built; the message says why."""


@dataclass(frozen=True)
class Backend:
    """The model an agent should use, and how to explain the choice to a learner.

    ``model`` is either an ``agents`` ``Model`` instance or a model name for
    ``Agent(model=...)``; ``model_name`` is its display name; ``description`` is one line
    for the first lesson to print; ``how_to_switch`` says which variables change it.
    """

    name: str
    model: Model | str
    model_name: str
    description: str
    how_to_switch: str

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
            "to a model the server serves (for Ollama, e.g. llama3.1)"
        )
    from agents import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI

    client = AsyncOpenAI(
        base_url=base_url, api_key=_get(env, "OPENAI_API_KEY") or PLACEHOLDER_API_KEY
    )
    model: Any = OpenAIChatCompletionsModel(model=model_name, openai_client=client)
    return Backend(
        name="openai-compatible",
        model=model,
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
    )


def describe_backend(backend: Backend) -> str:
    """A few lines for the quickstart: which backend, which model, how to switch."""
    if not isinstance(backend, Backend):
        raise TypeError(f"describe_backend expects a Backend, got {type(backend).__name__}")
    return "\n".join(
        [
            f"Backend: {backend.name}",
            f"Model:   {backend.model_name}",
            f"About:   {backend.description}",
            f"Switch:  {backend.how_to_switch}",
        ]
    )


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
