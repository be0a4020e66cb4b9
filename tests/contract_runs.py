"""Shared parts of the contract tests: ctxlab memory under the SDK's real model classes.

The agent is the course's support agent on ``OpenAIChatCompletionsModel`` (through
:func:`ctxlab.course.backends.compatible_backend`, as ``OPENAI_BASE_URL`` gives it) or on
``OpenAIResponsesModel``, both on a :class:`openai_fake_api.FakeOpenAI` transport, so the
SDK's converters build real request bodies and every body is checked against the
``openai`` request types (a violation is a 400, so the run fails).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from agents import Agent, OpenAIResponsesModel, RunConfig, set_tracing_disabled

from ctxlab import LLMSummarizer, validate_items
from ctxlab.course.agent import SUPPORT_TOOLS, make_support_agent
from ctxlab.course.backends import compatible_backend
from ctxlab.eval.strategies import parse_strategy

from openai_fake_api import FAKE_BASE_URL, FakeOpenAI
from openai_schema import request_problem

set_tracing_disabled(True)

MODEL = "gpt-4.1-mini"
KINDS = ("chat", "responses")
ENDPOINT = {"chat": "chat/completions", "responses": "responses"}


def agent_on(fake: FakeOpenAI, kind: str) -> Agent[Any]:
    """The support agent on the SDK model class for ``kind``, talking to ``fake``."""
    if kind == "chat":
        http = httpx.AsyncClient(transport=httpx.MockTransport(fake))
        return make_support_agent(compatible_backend(FAKE_BASE_URL, MODEL, http_client=http))
    model = OpenAIResponsesModel(model=MODEL, openai_client=fake.async_client())
    return make_support_agent(model)


def summarizer_on(fake: FakeOpenAI, kind: str) -> LLMSummarizer:
    """An LLMSummarizer on the same server and API as the agent."""
    return LLMSummarizer(fake.async_client(), model=MODEL, api=kind)  # type: ignore[arg-type]


def memory(spec: str, fake: FakeOpenAI, kind: str, session_id: str) -> tuple[Any, RunConfig]:
    """A fresh session for ``spec`` (the ``ctxlab eval`` syntax) and the RunConfig that
    applies its ContextManager addons, if any."""
    strategy = parse_strategy(spec, summarizer=lambda: summarizer_on(fake, kind))
    session = strategy.make_session(session_id)
    if strategy.make_transform is None:
        return session, RunConfig()
    transform = strategy.make_transform(session, list(SUPPORT_TOOLS))
    return session, transform.manager.run_config()  # type: ignore[attr-defined]


def agent_bodies(fake: FakeOpenAI, kind: str) -> list[dict[str, Any]]:
    """Request bodies of the agent's model calls (the agent offers tools; the summarizer
    and the other single-purpose callers do not)."""
    return [b for b in fake.bodies(ENDPOINT[kind]) if b.get("tools")]


def sent_text(body: Mapping[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


async def check_sent_and_kept(fake: FakeOpenAI, kind: str, session: Any) -> None:
    """Every request was accepted and fits the API's types; what the session shows is a
    valid sequence for this model class; every stored item is in a form both accept."""
    assert fake.rejections == []
    bodies = fake.bodies(ENDPOINT[kind])
    assert bodies, "no model request was made"
    assert all(r.status == 200 for r in fake.requests)
    for body in bodies:
        assert request_problem(kind, body) is None
    view = await session.get_items()
    assert validate_items(view, for_chat=kind == "chat") == []
    raw = await session.raw_items() if hasattr(session, "raw_items") else view
    assert [p for p in validate_items(raw, check_keys=False) if p.code == "message_form"] == []


async def preload(session: Any, items: Sequence[Mapping[str, Any]]) -> None:
    """Store a recorded conversation the way the Runner would have written it."""
    from ctxlab.eval.replay import runner_batches

    for batch in runner_batches(items):
        await session.add_items(batch)
    if hasattr(session, "flush"):
        await session.flush()
