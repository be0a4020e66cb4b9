"""One translation for every model call: real servers' error answers become errors that
name the URL, the model, the server's limit and what to do.

The error bodies are the ones the servers send (OpenAI, vLLM, llama.cpp's llama-server,
llama-cpp-python[server] 0.3.36 as run on this machine, Ollama); each is turned into the
``openai`` exception the client raises for it, exactly as the client does (the exception's
``body`` is the ``error`` object).
"""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from ctxlab.core.model_errors import (
    CONTEXT_ADVICE,
    CompatibleServerError,
    ContextOverflowError,
    ModelCallError,
    context_overflow,
    rejects_response_format,
    translate_error,
)

URL = "http://127.0.0.1:8080/v1/chat/completions"


def api_error(status: int, body: dict[str, Any],
              messages: list[dict[str, Any]] | None = None) -> openai.APIStatusError:
    """The exception ``openai`` raises for an error answer with this JSON body to a request
    with ``messages``."""
    client = openai.OpenAI(api_key="x", base_url="http://127.0.0.1:8080/v1",
                           http_client=httpx.Client(transport=httpx.MockTransport(
                               lambda request: httpx.Response(status, json=body))),
                           max_retries=0)
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(
            model="m", messages=messages or [{"role": "user", "content": "q"}])
    return info.value


OVERFLOWS = {
    "llama-cpp-python": (400, {"error": {
        "message": "This model's maximum context length is 8192 tokens, however you requested "
                   "9238 tokens (8214 in the messages, 1024 in the completion). Please reduce "
                   "the length of the messages or completion.",
        "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}}, 8192, 9238),
    "openai": (400, {"error": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
                   "messages resulted in 130012 tokens. Please reduce the length of the "
                   "messages.", "type": "invalid_request_error", "param": "messages",
        "code": "context_length_exceeded"}}, 128000, 130012),
    "vllm": (400, {"object": "error", "message": "This model's maximum context length is "
                   "16384 tokens. However, you requested 17000 tokens (16000 in the messages, "
                   "1000 in the completion). Please reduce the length of the messages or "
                   "completion.", "type": "BadRequestError", "param": None, "code": 400},
             16384, 17000),
    "llama-server": (400, {"error": {
        "code": 400, "message": "request (9238 tokens) exceeds the available context size "
        "(8192 tokens), try increasing it", "type": "exceed_context_size_error",
        "n_prompt_tokens": 9238, "n_ctx": 8192}}, 8192, 9238),
    "llama-server, no figures in the text": (400, {"error": {
        "code": 400, "message": "the request exceeds the available context size, try "
        "increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 9238,
        "n_ctx": 8192}}, 8192, 9238),
}


@pytest.mark.parametrize("server", sorted(OVERFLOWS))
def test_a_context_overflow_names_both_figures_and_says_what_to_do(server):
    status, body, window, requested = OVERFLOWS[server]
    exc = api_error(status, body)
    assert context_overflow(exc) == (window, requested)
    error = translate_error(exc, url=URL, model="smollm2", caller="agent")
    assert isinstance(error, ContextOverflowError) and isinstance(error, ModelCallError)
    assert (error.context_window, error.requested, error.status) == (window, requested, status)
    assert error.limit == f"context window of {window:,} tokens"
    message = str(error)
    assert message.startswith("agent (smollm2): the request does not fit the model's context")
    assert f"server limit: context window of {window:,} tokens" in message
    assert f"this request needs {requested:,}" in message
    assert f"What to do: {CONTEXT_ADVICE}." in message
    assert "16k tokens" in CONTEXT_ADVICE and "OLLAMA_CONTEXT_LENGTH=16384" in CONTEXT_ADVICE


@pytest.mark.parametrize("status, message", [
    (400, "Invalid value for 'temperature': expected a number <= 2"),
    (400, "messages[3]: content must be a string"),
    (500, "llama_decode returned -3"),
    (400, "The context of this conversation is not available"),
])
def test_other_answers_are_not_mistaken_for_an_overflow(status, message):
    exc = api_error(status, {"error": {"message": message, "type": "invalid_request_error"}})
    assert context_overflow(exc) is None
    error = translate_error(exc, url=URL, model="m")
    assert type(error) is ModelCallError and error.status == status
    assert message in str(error) and URL in str(error)


def test_a_refused_response_format_names_the_limit():
    exc = api_error(500, {"error": {
        "message": "1 validation error:\n  body.response_format.type\n    Input should be "
                   "'text' or 'json_object'", "type": "internal_server_error"}})
    assert rejects_response_format(exc)
    error = translate_error(exc, url=URL, model="m", caller="LLMStateExtractor")
    assert error is not None and error.limit and "json_schema" in error.limit
    assert "server limit: no structured output" in str(error)
    plain = api_error(500, {"error": {"message": "llama_decode returned -3"}})
    assert not rejects_response_format(plain)
    assert not rejects_response_format(api_error(404, {"error": {"message": "json_schema"}}))


def test_a_500_says_what_local_servers_mean_by_it():
    exc = api_error(500, {"error": {
        "message": "11 validation errors:\n  body.messages.3.role\n    Input should be "
                   "'system'", "type": "internal_server_error"}})
    error = translate_error(exc, url=URL, model="smollm2", caller="agent")
    assert error is not None and error.limit is None
    message = str(error)
    assert message.startswith(f"{URL} answered 500 to agent (smollm2): the server failed")
    assert "a message role, a content form or an option they do not support" in message
    assert "Input should be 'system'" in message and "\n" not in message


def test_404_401_and_429():
    ollama = api_error(404, {"error": {"message": 'model "llama3.1" not found, try pulling '
                                       "it first", "type": "api_error"}})
    error = translate_error(ollama, url=URL, model="llama3.1")
    assert error is not None and str(error).startswith(f"{URL} answered 404 Not Found (model")
    assert "CTXLAB_MODEL='llama3.1'" in str(error) and "/v1/models" in str(error)
    key = translate_error(api_error(401, {"error": {"message": "Invalid API key"}}), url=URL,
                          model="m")
    assert key is not None and "set OPENAI_API_KEY" in str(key)
    busy = translate_error(api_error(429, {"error": {"message": "Rate limit reached"}}),
                           url=URL, model="m")
    assert busy is not None and "429" in str(busy) and "wait" in str(busy)


def test_no_answer_names_the_url_and_the_checks():
    request = httpx.Request("POST", URL)
    refused = openai.APIConnectionError(request=request)
    refused.__cause__ = httpx.ConnectError("[Errno 111] Connection refused")
    error = translate_error(refused, url=URL, model="m", caller="LLMSummarizer")
    assert isinstance(error, CompatibleServerError)  # the old name still catches it
    assert str(error) == (f"cannot reach {URL} ([Errno 111] Connection refused): is the "
                          "server running?; does the URL end in /v1? it does")
    slow = translate_error(openai.APITimeoutError(request=request), url=URL, model="m")
    assert slow is not None and "did not answer in time" in str(slow)


def test_what_is_not_an_api_error_is_left_alone():
    assert translate_error(ValueError("a bug"), url=URL, model="m") is None
    assert translate_error(KeyError("x"), url=URL, model="m") is None


#: The first lines of llama-cpp-python's answer to a request whose assistant message has
#: content null and tool_calls (seen here; 7 errors, one per message type).
NULL_CONTENT_ANSWER = (
    "7 validation errors:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, "
    "'ChatCompletionRequestSystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
    "'input': 'assistant', 'ctx': {'expected': \"'system'\"}}\n  {'type': 'string_type', "
    "'loc': ('body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', 'content'), "
    "'msg': 'Input should be a valid string', 'input': None}")
TOOL_ROUND = [
    {"role": "user", "content": "Look up SN-1"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "lookup_device",
                                                      "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{}"}]


def test_a_refused_message_form_is_read_from_the_request_and_named():
    from ctxlab.core.model_errors import TOOL_HISTORY_LIMIT, request_form_limit

    answer = {"error": {"message": NULL_CONTENT_ANSWER, "type": "internal_server_error"}}
    exc = api_error(500, answer, TOOL_ROUND)
    error = translate_error(exc, url=URL, model="smollm2", caller="agent")
    assert error is not None and error.limit == TOOL_HISTORY_LIMIT
    assert "the server refuses an assistant message with content null and tool_calls" in \
        str(error) and "cannot use tools on this server" in str(error)
    developer = api_error(500, answer, [{"role": "developer", "content": "note"},
                                        {"role": "user", "content": "q"}])
    assert request_form_limit(developer)[0] == "no developer role"
    listed = api_error(500, answer, [{"role": "system", "content": [
        {"type": "text", "text": "s"}]}, {"role": "user", "content": "q"}])
    assert request_form_limit(listed)[0] == "system content must be a string"
    # the same request refused for another reason names no form
    assert request_form_limit(api_error(500, {"error": {"message": "llama_decode returned -3"}},
                                        TOOL_ROUND)) is None
