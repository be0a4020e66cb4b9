"""An httpx.MockTransport stand-in for the OpenAI API (or a compatible server).

It answers every request with a fixed reply and records the request, so tests can check
exactly what a summarizer, state extractor or judge would send, and how the reply is read.
For a server that answers like the API (tool calls, streaming, /models, request bodies
checked against the openai request types), see :mod:`openai_fake_api`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from openai import AsyncOpenAI, OpenAI


class Recorder:
    """The transport's handler: records each request, answers with ``reply``."""

    def __init__(self, reply: dict, status: int = 200):
        self.reply, self.status = reply, status
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append({"url": str(request.url), "body": json.loads(request.content)})
        return httpx.Response(self.status, json=self.reply)


def responses_reply(text: str, *, model: str = "gpt-4.1-mini", input_tokens: int = 321,
                    output_tokens: int = 45) -> dict[str, Any]:
    """A Responses API reply holding ``text``."""
    return {
        "id": "resp_1", "object": "response", "created_at": 0, "model": model,
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "total_tokens": input_tokens + output_tokens,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def chat_reply(content: str | None, *, refusal: str | None = None, model: str = "llama3.2",
               prompt_tokens: int = 210, completion_tokens: int = 30) -> dict[str, Any]:
    """A Chat Completions reply holding ``content`` (or a refusal)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal:
        message["refusal"] = refusal
    return {
        "id": "chat_1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def async_client(recorder: Recorder, base_url: str | None = None,
                 api_key: str = "sk-test") -> AsyncOpenAI:
    return AsyncOpenAI(api_key=api_key, base_url=base_url,
                       http_client=httpx.AsyncClient(transport=httpx.MockTransport(recorder)))


def sync_client(recorder: Recorder, base_url: str | None = None,
                api_key: str = "sk-test") -> OpenAI:
    return OpenAI(api_key=api_key, base_url=base_url,
                  http_client=httpx.Client(transport=httpx.MockTransport(recorder)))
