"""token_source: a cost table says where its token figures come from.

Streamed runs through the SDK's own model class on a server that sends no usage report 0
tokens (seen on llama-cpp-python, issue 34); ctxlab's backend counts them and marks them.
A line that always says "reported" (the broken variant below) hides both.
"""

from __future__ import annotations

import httpx
from agents import ModelSettings, OpenAIChatCompletionsModel, SQLiteSession, set_tracing_disabled
from openai_server_rules import LLAMA_CPP_PYTHON

from ctxlab import token_source
from ctxlab.course.agent import make_support_agent
from ctxlab.course.backends import compatible_backend, offline_backend
from ctxlab.course.runs import run_conversation

from conftest import arun
from openai_fake_api import FAKE_BASE_URL, FakeOpenAI

set_tracing_disabled(True)
MODEL = "gpt-4.1-mini"

ASK = ["Hi, my ticket is TCK-48213.", "A red light keeps blinking on my laptop."]


def backend_on(fake: FakeOpenAI):
    return compatible_backend(FAKE_BASE_URL, MODEL, http_client=httpx.AsyncClient(
        transport=httpx.MockTransport(fake)))


def run(agent, streamed: bool):
    return arun(run_conversation(agent, ASK, SQLiteSession("t"), streamed=streamed))


def truthful(line: str, records) -> bool:
    """Does ``line`` say what ``records`` hold: missing, counted or reported figures?"""
    calls = [c for r in records for c in r.calls]
    if any(not c.input_tokens and not c.output_tokens for c in calls):
        return "reported 0 tokens" in line and "unknown, not zero" in line
    if any(c.usage_estimated for c in calls):
        return "counted by ctxlab" in line
    return "reported by" in line


def naive(records, backend=None) -> str:
    """The broken variant: every figure called reported."""
    return "token source: reported by the model"


def test_each_source_is_named():
    offline = offline_backend()
    records = run(make_support_agent(offline), streamed=False)
    calls = sum(len(r.calls) for r in records)
    assert token_source(records, offline) == (
        f"token source: all {calls} model calls reported by the offline model, which counts "
        "exactly (o200k_base)")
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON)
    counted = run(make_support_agent(backend_on(fake)), streamed=True)
    line = token_source(counted)
    assert line.startswith(f"token source: {len(counted)} of {len(counted)} model calls "
                           "counted by ctxlab (o200k_base, marked ~)")
    bare = OpenAIChatCompletionsModel(model=MODEL, openai_client=fake.async_client())
    zero = run(make_support_agent(bare, model_settings=ModelSettings(include_usage=True)),
               streamed=True)
    assert token_source(zero).startswith(f"token source: {len(zero)} of {len(zero)} model "
                                         "calls reported 0 tokens")
    plain = run(make_support_agent(backend_on(fake)), streamed=False)
    assert token_source(plain, backend_on(fake)).endswith(
        f"reported by the server at {FAKE_BASE_URL}")
    for recs in (records, counted, zero, plain):
        assert truthful(token_source(recs), recs)
    # the broken variant passes only where every figure really was reported
    assert not truthful(naive(zero), zero) and not truthful(naive(counted), counted)
