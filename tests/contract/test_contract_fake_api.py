"""The fake API the contract tests rely on rejects what the real API rejects."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from ctxlab.eval.judge import JudgeVerdict
from ctxlab.memory.llm_extract import strict_schema

from conftest import arun
from openai_fake_api import FakeOpenAI, schema_example
from openai_schema import RequestSchemaError, check_request, request_problem

TYPED_NO_ID = {"type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "a", "annotations": []}]}


def test_request_types_reject_what_the_api_rejects():
    good = {"model": "m", "input": [{"role": "user", "content": "q"},
                                    {"role": "assistant", "content": "a"}]}
    assert request_problem("responses", good) is None
    bad = {"model": "m", "input": [{"role": "user", "content": "q"}, TYPED_NO_ID]}
    problem = request_problem("responses", bad)
    assert problem is not None and problem.startswith("responses request rejected: input[1]")
    private = {"model": "m", "messages": [{"role": "user", "content": "q", "synthetic": True}]}
    problem = request_problem("chat", private)
    assert problem is not None and "messages[0]" in problem and "synthetic" in problem
    # nested iterables (messages, content parts, tools) are checked too
    assert request_problem("chat", {"model": "m", "messages": [
        {"role": "assistant", "content": [{"type": "output_text", "text": "a"}]}]})
    assert request_problem("responses", {"model": "m", "input": [
        {**TYPED_NO_ID, "id": "msg_1", "content": [{"type": "bogus"}]}]})
    assert request_problem("chat", {"model": "m", "messages": [], "tools": [{"name": "x"}]})
    with pytest.raises(RequestSchemaError, match="bogus"):
        check_request("chat", {"model": "m", "messages": [], "bogus": 1})
    streaming = {"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": True,
                 "stream_options": {"include_usage": True}}
    assert request_problem("chat", streaming) is None
    with pytest.raises(ValueError, match="endpoint must be"):
        request_problem("completions", good)


def test_the_fake_answers_400_for_broken_sequences_and_404_for_unknown_things():
    fake = FakeOpenAI(models=["m"])
    client = fake.sync_client()
    with pytest.raises(openai.BadRequestError, match="no matching call"):
        client.responses.create(model="m", input=[
            {"role": "user", "content": "q"},
            {"type": "function_call_output", "call_id": "c9", "output": "x"}])
    with pytest.raises(openai.BadRequestError, match="which no earlier assistant message"):
        client.chat.completions.create(model="m", messages=[
            {"role": "user", "content": "q"},
            {"role": "tool", "tool_call_id": "c9", "content": "x"}])
    with pytest.raises(openai.BadRequestError, match="input\\[0\\]"):
        client.responses.create(model="m", input=[TYPED_NO_ID])
    assert len(fake.rejections) == 3
    with pytest.raises(openai.NotFoundError, match="`other` does not exist"):
        client.chat.completions.create(model="other", messages=[{"role": "user", "content": "q"}])
    assert [m.id for m in client.models.list()] == ["m"]
    assert httpx.Client(transport=httpx.MockTransport(fake)).get(
        "http://x/v1/nothing").status_code == 404
    lenient = FakeOpenAI(models=["m"], serve_unknown_models=True).sync_client()
    reply = lenient.chat.completions.create(model="other",
                                            messages=[{"role": "user", "content": "hello"}])
    assert reply.choices[0].message.content


def test_streamed_chat_carries_usage_only_when_asked():
    fake = FakeOpenAI(models=["m"])
    client = fake.async_client()
    messages = [{"role": "user", "content": "hello"}]

    async def chunks(**extra):
        stream = await client.chat.completions.create(model="m", messages=messages,
                                                      stream=True, **extra)
        return [chunk async for chunk in stream]

    plain = arun(chunks())
    asked = arun(chunks(stream_options={"include_usage": True}))
    assert all(c.usage is None for c in plain)
    assert asked[-1].usage is not None and asked[-1].usage.prompt_tokens > 0
    text = "".join(c.choices[0].delta.content or "" for c in plain if c.choices)
    assert text


def test_schema_examples_fit_the_structured_output_schemas():
    verdict = schema_example(strict_schema(JudgeVerdict))
    assert JudgeVerdict.model_validate_json(json.dumps(verdict)).overall == 1
