"""A compatible server that is down, mistyped or serving another model: the error says
what to check (the URL, "is the server running? does the URL end in /v1?", the served
models). Servers are an httpx.MockTransport or a closed port on 127.0.0.1; no other network.
"""

from __future__ import annotations

import socket

import httpx
import pytest
from agents import ModelSettings, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from ctxlab.course.agent import make_support_agent
from ctxlab.course.backends import (
    DEFAULT_COMPATIBLE_MAX_TOKENS,
    BackendConfigError,
    choose_backend,
    compatible_backend,
    describe_backend,
    server_check,
)
from ctxlab.course.server_check import (
    REACH_HINT,
    CompatibleChatModel,
    CompatibleServerError,
    check_server,
    url_hints,
    url_problem,
)

from conftest import arun
from openai_fake_api import FakeOpenAI

set_tracing_disabled(True)


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def mock_http(fake: FakeOpenAI) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(fake))


# ---------------------------------------------------------------------------- URLs


@pytest.mark.parametrize("url, expected", [
    ("localhost:11434/v1", "no http:// or https:// scheme"),
    ("http://localhost:11434/v1/chat/completions", "ends in /chat/completions"),
    ("http://localhost:8080/v1/responses/", "ends in /responses"),
    ("", "non-empty string"),
])
def test_url_problems_name_the_fix(url, expected):
    problem = url_problem(url)
    assert problem is not None and expected in problem
    if "chat/completions" in url:
        assert "(http://localhost:11434/v1)" in problem


@pytest.mark.parametrize("url", ["http://localhost:11434/v1", "https://example.org/api/v1/",
                                 "http://127.0.0.1:8080"])
def test_good_urls_have_no_problem(url):
    assert url_problem(url) is None


def test_hints_say_when_the_url_lacks_v1():
    assert url_hints("http://localhost:11434")[0] == "is the server running?"
    assert "does not" in url_hints("http://localhost:11434")[1]
    assert url_hints("http://localhost:11434/v1")[1] == "does the URL end in /v1? it does"


@pytest.mark.parametrize("url", ["localhost:11434/v1", "http://localhost:11434/v1/chat/completions"])
def test_choose_backend_rejects_a_url_that_cannot_work(url):
    with pytest.raises(BackendConfigError, match="OPENAI_BASE_URL="):
        choose_backend({"OPENAI_BASE_URL": url, "CTXLAB_MODEL": "llama3.1"})


# ---------------------------------------------------------------------------- settings


def test_a_compatible_backend_asks_for_usage_and_caps_replies():
    backend = choose_backend({"OPENAI_BASE_URL": "http://localhost:11434/v1",
                              "CTXLAB_MODEL": "llama3.1"})
    assert isinstance(backend.model, CompatibleChatModel)
    assert backend.model_settings == ModelSettings(
        include_usage=True, max_tokens=DEFAULT_COMPATIBLE_MAX_TOKENS)
    assert backend.base_url == "http://localhost:11434/v1"
    agent = make_support_agent(backend)
    assert agent.model_settings.include_usage is True
    assert agent.model_settings.max_tokens == DEFAULT_COMPATIBLE_MAX_TOKENS
    capped = choose_backend({"OPENAI_BASE_URL": "http://h/v1", "CTXLAB_MODEL": "m",
                             "CTXLAB_MAX_TOKENS": "300"})
    assert capped.model_settings is not None and capped.model_settings.max_tokens == 300
    with pytest.raises(BackendConfigError, match="CTXLAB_MAX_TOKENS='lots'"):
        choose_backend({"OPENAI_BASE_URL": "http://h/v1", "CTXLAB_MODEL": "m",
                        "CTXLAB_MAX_TOKENS": "lots"})
    explicit = make_support_agent(backend, model_settings=ModelSettings(max_tokens=50))
    assert explicit.model_settings.max_tokens == 50


def test_offline_and_openai_backends_keep_the_sdk_defaults():
    assert make_support_agent(choose_backend({})).model_settings == ModelSettings()
    openai = choose_backend({"OPENAI_API_KEY": "sk"})
    assert openai.model_settings is None and openai.base_url is None
    assert make_support_agent(openai).model_settings == ModelSettings()
    assert server_check(openai) is None
    assert "Server:" not in describe_backend(openai)


def test_bad_settings_are_named():
    with pytest.raises(TypeError, match="model_settings must be an agents ModelSettings"):
        make_support_agent(choose_backend({}), model_settings={"max_tokens": 5})  # type: ignore[arg-type]
    with pytest.raises(BackendConfigError, match="max_tokens must be a whole number"):
        compatible_backend("http://h/v1", "m", max_tokens=0)


# ---------------------------------------------------------------------------- GET /models


def test_describe_backend_checks_the_server_once():
    fake = FakeOpenAI(models=["qwen2.5:7b"])
    backend = compatible_backend("http://check-once.test/v1", "qwen2.5:7b")
    text = describe_backend(backend, http_client=mock_http(fake))
    assert text.splitlines()[-1] == "Server:  reachable, serves qwen2.5:7b"
    describe_backend(backend, http_client=mock_http(fake))
    assert [(r.method, r.path) for r in fake.requests] == [("GET", "/v1/models")]
    server_check(backend, recheck=True, http_client=mock_http(fake))
    assert len(fake.requests) == 2


def test_a_model_the_server_does_not_list_is_a_warning_naming_what_it_serves():
    fake = FakeOpenAI(models=["llama3.2:3b", "qwen2.5:7b"])
    backend = compatible_backend("http://unlisted.test/v1", "llama3.1")
    text = describe_backend(backend, http_client=mock_http(fake))
    warning = text.splitlines()[-1]
    assert warning.startswith("Warning: the server does not list CTXLAB_MODEL='llama3.1'")
    assert "it serves: llama3.2:3b, qwen2.5:7b" in warning


def test_an_unreachable_server_gives_the_url_and_the_two_questions(closed_port):
    url = f"http://127.0.0.1:{closed_port}/v1"
    found = check_server(url, "llama3.1")
    assert not found.reachable and not found.ok
    assert found.problem is not None
    assert found.problem.startswith(f"cannot reach {url}/models (")
    assert found.problem.endswith(REACH_HINT)
    backend = compatible_backend(url, "llama3.1")
    assert describe_backend(backend).splitlines()[-1] == f"Problem: {found.problem}"


def test_a_url_without_v1_answers_404_and_the_check_says_so():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, text="404 page not found")

    found = check_server("http://ollama.test", "llama3.1",
                         http_client=httpx.Client(transport=httpx.MockTransport(handler)))
    assert found.reachable and found.problem is not None
    assert "http://ollama.test/models answered 404" in found.problem
    assert "does the URL end in /v1?" in found.problem


def test_an_api_key_is_sent_and_a_401_asks_for_one():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(401, json={"error": "unauthorized"})

    found = check_server("http://vllm.test/v1", "m", api_key="secret",
                         http_client=httpx.Client(transport=httpx.MockTransport(handler)))
    assert seen == ["Bearer secret"]
    assert found.problem is not None and "set OPENAI_API_KEY" in found.problem


# ---------------------------------------------------------------------------- during runs


def test_a_run_against_a_stopped_server_names_the_url_and_the_checks(closed_port):
    url = f"http://127.0.0.1:{closed_port}/v1"
    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    agent = make_support_agent(CompatibleChatModel(model="llama3.1", openai_client=client))

    async def go(streamed: bool) -> None:
        if streamed:
            result = Runner.run_streamed(agent, "hello")
            async for _ in result.stream_events():
                pass
        else:
            await Runner.run(agent, "hello")

    for streamed in (False, True):
        with pytest.raises(CompatibleServerError) as info:
            arun(go(streamed))
        message = str(info.value)
        assert message.startswith(f"cannot reach {url}/chat/completions (")
        assert "is the server running?" in message and "does the URL end in /v1?" in message
        assert info.value.url == f"{url}/chat/completions"
        assert info.value.__cause__ is not None


def test_a_404_during_a_run_names_the_model_and_the_url():
    fake = FakeOpenAI(models=["qwen2.5:7b"])  # answers 404 for a model it does not serve
    backend = compatible_backend("http://notfound.test/v1", "llama3.1",
                                 http_client=httpx.AsyncClient(transport=httpx.MockTransport(fake)))
    agent = make_support_agent(backend)
    with pytest.raises(CompatibleServerError) as info:
        arun(Runner.run(agent, "hello"))
    message = str(info.value)
    assert message.startswith("http://notfound.test/v1/chat/completions answered 404 Not Found")
    assert "The model `llama3.1` does not exist" in message
    assert "CTXLAB_MODEL='llama3.1'" in message and "/v1/models" in message


def test_a_base_url_without_v1_gives_a_404_hint_during_runs():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"detail": "Not Found"})

    backend = compatible_backend(
        "http://llama.test:8080", "smollm2",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)))
    with pytest.raises(CompatibleServerError, match="does the URL end in /v1\\? 'http://llama"):
        arun(Runner.run(make_support_agent(backend), "hello"))


@pytest.mark.parametrize("path, expected", [
    ("", "has no http:// or https:// scheme"),
    ("/v1/chat/completions", "ends in /chat/completions, an endpoint; give the API root"),
])
def test_a_url_built_by_hand_gets_its_hint_during_runs(closed_port, path, expected):
    url = f"127.0.0.1:{closed_port}/v1" if not path else f"http://127.0.0.1:{closed_port}{path}"
    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    agent = make_support_agent(CompatibleChatModel(model="m", openai_client=client))
    with pytest.raises(CompatibleServerError, match=expected):
        arun(Runner.run(agent, "hello"))
