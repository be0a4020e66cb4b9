"""Contract: every lesson's conversation, stored in a session, then sent by the real SDK
model classes.

The course's recorded conversations (``seed_*``), a planted evaluation case, a tau-bench
and an ABCD transcript and lesson 05b's Chinese fridge chat (whose summary, state and
recall messages are Chinese) are written into a session of each strategy the way the Runner
writes them; then the support agent takes a turn with ``Runner.run`` and one with
``Runner.run_streamed``, on ``OpenAIChatCompletionsModel`` and on ``OpenAIResponsesModel``.
What ctxlab built (converted transcripts, summary pairs, shortened turns, state and
recall messages) goes through the SDK's converters for real, and each request body must
fit the ``openai`` request types.
"""

from __future__ import annotations

import pytest
from agents import Runner
from agents.models.chatcmpl_converter import Converter

from ctxlab import validate_items
from ctxlab.course.corpora import (
    load_abcd,
    load_tau_bench,
    load_zh_support,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
)
from ctxlab.eval.planted import planted_case
from ctxlab.memory.render import STATE_HEADER, STATE_HEADER_ZH
from ctxlab.summarizers.base import SUMMARY_SHADOW_PROMPT

from conftest import arun
from contract_runs import (
    KINDS,
    agent_bodies,
    agent_on,
    check_sent_and_kept,
    memory,
    preload,
    sent_text,
)
from openai_fake_api import FakeOpenAI

pytestmark = pytest.mark.filterwarnings("ignore:.*over the max_tokens budget")

CONVERSATIONS = {
    "seed_trimming_flow": lambda: seed_trimming_flow().items,
    "seed_router_flow": lambda: seed_router_flow().items,
    "seed_support_conversation": lambda: seed_support_conversation().items,
    "planted_case": lambda: planted_case(seed=3, turns=24).items,
    "tau_bench": lambda: load_tau_bench(limit=1)[0].items,
    "abcd": lambda: load_abcd()[0].items,
    "zh_fridge": lambda: next(c for c in load_zh_support()
                              if c.id == "zh-01-fridge-bcd123").items,
}
SPECS = ["full", "trim:2", "summarize:1/2", "firstlast:1/2", "trim:2+state+recall",
         "trim:3+compact+budget:1500"]
QUESTIONS = ["What was my ticket number again?", "Can you check the warranty for SN-4Q7K-22981?"]


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_the_conversation_itself_is_accepted_by_both_converters(name):
    items = CONVERSATIONS[name]()
    assert validate_items(items, for_chat=True) == []
    Converter.items_to_messages(items)  # raises on an item the chat converter cannot read


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_an_agent_turn_after_the_stored_conversation(name, spec, kind):
    fake = FakeOpenAI()
    agent = agent_on(fake, kind)
    session, config = memory(spec, fake, kind, f"{name}-{spec}-{kind}")

    async def go():
        await preload(session, CONVERSATIONS[name]())
        replies = [(await Runner.run(agent, QUESTIONS[0], session=session,
                                     run_config=config)).final_output]
        streamed = Runner.run_streamed(agent, QUESTIONS[1], session=session, run_config=config)
        async for _ in streamed.stream_events():
            pass
        replies.append(streamed.final_output)
        if hasattr(session, "flush"):
            await session.flush()
        await check_sent_and_kept(fake, kind, session)
        return replies

    replies = arun(go())
    assert all(isinstance(r, str) and r for r in replies)
    bodies = agent_bodies(fake, kind)
    assert len(bodies) >= 2
    assert all(len(b.get("input", b.get("messages", []))) >= 2 for b in bodies)
    first = sent_text(bodies[0])
    if spec.startswith("summarize"):
        assert SUMMARY_SHADOW_PROMPT in first  # the fold, then an agent turn
    if "state" in spec:
        assert (STATE_HEADER_ZH if name.startswith("zh") else STATE_HEADER) in first
