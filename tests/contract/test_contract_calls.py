"""Contract: ctxlab's own model calls, a fold followed by an agent turn, and streamed usage,
with the real SDK model classes and the ``openai`` client on the fake API.

* LLMSummarizer, LLMStateExtractor and SummaryJudge send bodies that fit the request types
  of both APIs (structured output included) and read the replies;
* a summarizing session folds, then the agent takes turns with ``OpenAIChatCompletionsModel``
  (this crashed with a typed assistant summary without an id);
* a streamed run on a compatible backend reports tokens (the backend asks for usage).
"""

from __future__ import annotations

import pytest
from agents import ModelSettings, OpenAIChatCompletionsModel, Runner
from agents.exceptions import UserError
from agents.models.chatcmpl_converter import Converter

from ctxlab import SummarizingSession, validate_items
from ctxlab.context import ContextManager
from ctxlab.course.agent import make_support_agent
from ctxlab.course.corpora import seed_support_conversation, support_chat_script
from ctxlab.eval.judge import SummaryJudge
from ctxlab.memory import StateMemory
from ctxlab.memory.llm_extract import LLMStateExtractor
from ctxlab.memory.render import STATE_HEADER
from ctxlab.sessions import TrimmingSession
from ctxlab.summarizers.base import SUMMARY_SHADOW_PROMPT

from conftest import arun
from contract_runs import (
    ENDPOINT,
    KINDS,
    MODEL,
    agent_bodies,
    agent_on,
    check_sent_and_kept,
    sent_text,
    summarizer_on,
)
from openai_fake_api import FakeOpenAI

ITEMS = seed_support_conversation().items


@pytest.mark.parametrize("kind", KINDS)
def test_the_llm_summarizer_state_extractor_and_judge_fit_both_apis(kind):
    fake = FakeOpenAI()
    client = fake.async_client()

    async def go():
        summary = await summarizer_on(fake, kind).summarize(ITEMS[:12])
        patch = await LLMStateExtractor(client, MODEL, api=kind).extract(ITEMS[:6])
        verdict = await SummaryJudge(client, MODEL, api=kind).judge(ITEMS[:12], summary.text)
        return summary, patch, verdict

    summary, patch, verdict = arun(go())
    assert summary.text and summary.input_tokens and summary.output_tokens
    assert patch is not None
    assert verdict.overall >= 1
    bodies = fake.bodies(ENDPOINT[kind])
    assert len(bodies) == 3 and fake.rejections == []
    schema_key = "text" if kind == "responses" else "response_format"
    assert [schema_key in b for b in bodies] == [False, True, True]


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "streamed"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_fold_then_agent_turns(kind, streamed):
    fake = FakeOpenAI()
    agent = agent_on(fake, kind)
    session = SummarizingSession(keep_last_n_turns=1, context_limit=2, session_id="fold",
                                 summarizer=summarizer_on(fake, kind))
    messages, _ = support_chat_script()

    async def go():
        for text in messages[:6]:
            if streamed:
                result = Runner.run_streamed(agent, text, session=session)
                async for _ in result.stream_events():
                    pass
            else:
                await Runner.run(agent, text, session=session)
        await session.flush()
        await check_sent_and_kept(fake, kind, session)
        return await session.get_items()

    view = arun(go())
    assert view[0] == {"role": "user", "content": SUMMARY_SHADOW_PROMPT}
    assert view[1]["role"] == "assistant" and isinstance(view[1]["content"], str)
    texts = [sent_text(b) for b in agent_bodies(fake, kind)]
    after_fold = [t for t in texts if SUMMARY_SHADOW_PROMPT in t]
    assert len(after_fold) >= 3


def test_the_old_typed_summary_reply_is_what_the_chat_converter_rejected():
    """Why summary pairs are plain text: the form they used to have is refused."""
    old = {"type": "message", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": "summary", "annotations": []}]}
    with pytest.raises(UserError, match="Unhandled item type or structure"):
        Converter.items_to_messages([{"role": "user", "content": SUMMARY_SHADOW_PROMPT}, old])
    assert [p.code for p in validate_items([old])] == ["message_form"]


def test_state_and_recall_messages_survive_the_chat_converter():
    fake = FakeOpenAI()
    agent = agent_on(fake, "chat")
    session = TrimmingSession("state-recall", max_turns=2)
    llm_state = StateMemory(session=session,
                            extractor=LLMStateExtractor(fake.async_client(), MODEL, api="chat"))
    manager = ContextManager(6000, state=llm_state, session=session)
    messages, _ = support_chat_script()

    async def go():
        for text in messages[:5]:
            await Runner.run(agent, text, session=session, run_config=manager.run_config())
        await check_sent_and_kept(fake, "chat", session)

    arun(go())
    extractor_calls = [b for b in fake.bodies("chat/completions") if "response_format" in b]
    assert extractor_calls
    sent = [m for b in agent_bodies(fake, "chat") for m in b["messages"]]
    state = [m for m in sent if STATE_HEADER in str(m.get("content"))]
    assert state and all(m == {"role": "user", "content": m["content"]}  # data, not orders
                         and isinstance(m["content"], str) for m in state)
    assert all(m["role"] in ("system", "user", "assistant", "tool") for m in sent)


def test_streamed_runs_on_a_compatible_backend_report_tokens():
    fake = FakeOpenAI()
    agent = agent_on(fake, "chat")  # through compatible_backend: include_usage, max_tokens
    bare = make_support_agent(OpenAIChatCompletionsModel(model=MODEL,
                                                         openai_client=fake.async_client()),
                              model_settings=ModelSettings())

    async def stream(which):
        result = Runner.run_streamed(which, "Hi, my ticket is TCK-48213.")
        async for _ in result.stream_events():
            pass
        return result.context_wrapper.usage

    usage = arun(stream(agent))
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    body = fake.bodies("chat/completions")[-1]
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 1024
    without = arun(stream(bare))  # what issue 14 saw: the SDK asks for usage only on request
    assert (without.input_tokens, without.output_tokens) == (0, 0)
