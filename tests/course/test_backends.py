"""choose_backend: environment rules, clear errors, and no network at construction."""

from __future__ import annotations

import socket

import pytest
from agents import OpenAIChatCompletionsModel

from ctxlab.core.display import NOTEBOOK_COLUMNS
from ctxlab.course.backends import (
    BACKEND_CHOICES,
    DEFAULT_OPENAI_MODEL,
    PLACEHOLDER_API_KEY,
    Backend,
    BackendConfigError,
    choose_backend,
    describe_backend,
)
from ctxlab.course.offline import OfflineSupportModel

BASE_URL = "http://localhost:11434/v1"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


def test_no_variables_means_offline():
    backend = choose_backend({})
    assert backend.name == "offline" and backend.is_offline
    assert isinstance(backend.model, OfflineSupportModel)
    assert backend.model_name == backend.model.model_name
    assert "OPENAI_API_KEY" in backend.how_to_switch


def test_an_api_key_selects_openai_by_model_name():
    backend = choose_backend({"OPENAI_API_KEY": "sk-test"})
    assert (backend.name, backend.model, backend.model_name) == (
        "openai",
        DEFAULT_OPENAI_MODEL,
        DEFAULT_OPENAI_MODEL,
    )
    assert DEFAULT_OPENAI_MODEL == "gpt-4.1-mini"
    chosen = choose_backend({"OPENAI_API_KEY": "sk-test", "CTXLAB_MODEL": "gpt-5-mini"})
    assert chosen.model == "gpt-5-mini"


def test_a_base_url_selects_an_openai_compatible_server():
    backend = choose_backend({"OPENAI_BASE_URL": BASE_URL, "CTXLAB_MODEL": "llama3.1"})
    assert backend.name == "openai-compatible" and backend.model_name == "llama3.1"
    assert isinstance(backend.model, OpenAIChatCompletionsModel)
    assert backend.model.model == "llama3.1"
    client = backend.model._client
    assert str(client.base_url).rstrip("/") == BASE_URL
    assert client.api_key == PLACEHOLDER_API_KEY
    assert "set_tracing_disabled(True)" in backend.description

    keyed = choose_backend(
        {"OPENAI_BASE_URL": BASE_URL, "CTXLAB_MODEL": "m", "OPENAI_API_KEY": "secret"}
    )
    assert keyed.name == "openai-compatible" and keyed.model._client.api_key == "secret"


def test_a_base_url_without_a_model_names_ctxlab_model():
    with pytest.raises(BackendConfigError, match="CTXLAB_MODEL"):
        choose_backend({"OPENAI_BASE_URL": BASE_URL})


@pytest.mark.parametrize("value", ["offline", "OFFLINE", " offline "])
def test_ctxlab_backend_offline_wins_over_keys(value):
    env = {"CTXLAB_BACKEND": value, "OPENAI_API_KEY": "sk", "OPENAI_BASE_URL": BASE_URL}
    assert choose_backend(env).name == "offline"


def test_forced_backends_need_their_variables():
    with pytest.raises(BackendConfigError, match="OPENAI_API_KEY"):
        choose_backend({"CTXLAB_BACKEND": "openai"})
    with pytest.raises(BackendConfigError, match="OPENAI_BASE_URL"):
        choose_backend({"CTXLAB_BACKEND": "openai-compatible", "OPENAI_API_KEY": "sk"})
    forced = choose_backend(
        {"CTXLAB_BACKEND": "openai", "OPENAI_API_KEY": "sk", "OPENAI_BASE_URL": BASE_URL}
    )
    assert forced.name == "openai"
    assert choose_backend({"CTXLAB_BACKEND": "auto", "OPENAI_API_KEY": "sk"}).name == "openai"


def test_an_unknown_backend_lists_the_allowed_values():
    with pytest.raises(ValueError, match="CTXLAB_BACKEND='gemini'") as info:
        choose_backend({"CTXLAB_BACKEND": "gemini"})
    for choice in BACKEND_CHOICES:
        assert choice in str(info.value)


def test_empty_variables_count_as_unset():
    assert choose_backend({"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "  "}).name == "offline"


def test_none_reads_the_process_environment(monkeypatch):
    for key in ("CTXLAB_BACKEND", "OPENAI_BASE_URL", "CTXLAB_MODEL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert choose_backend().name == "openai"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert choose_backend().name == "offline"


def test_describe_backend_says_which_backend_model_and_how_to_switch():
    for env in (
        {},
        {"OPENAI_API_KEY": "sk"},
        {"OPENAI_BASE_URL": BASE_URL, "CTXLAB_MODEL": "qwen2.5"},
    ):
        backend = choose_backend(env)
        text = describe_backend(backend, check=False)  # the server check: test_server_check
        assert backend.name in text and backend.model_name in text
        flat = " ".join(text.split())  # long lines are wrapped at spaces to fit a notebook
        assert backend.how_to_switch in flat and backend.description in flat
        assert max(len(line) for line in text.splitlines()) <= NOTEBOOK_COLUMNS
        assert "\n" not in backend.description
    assert "tracing" in choose_backend({"OPENAI_API_KEY": "sk"}).description


def test_backend_rejects_bad_values():
    with pytest.raises(ValueError, match="Backend name must be one of"):
        Backend("local", "m", "m", "d", "s")
    with pytest.raises(TypeError, match="Model instance or a model name"):
        Backend("openai", 3, "m", "d", "s")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="describe_backend expects a Backend"):
        describe_backend("offline")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="env must be a mapping"):
        choose_backend(["OPENAI_API_KEY"])  # type: ignore[arg-type]
