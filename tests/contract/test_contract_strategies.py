"""Contract: every memory strategy under the SDK's real model classes.

For every registered strategy (``ctxlab.sessions.strategies()``, at its smallest and a
middle setting) and ContextManager addons (state, recall, compaction, budget), the course's
support agent runs the lessons' chat script (``support_chat_script``: 20 turns, tool loops,
recall questions) with ``OpenAIChatCompletionsModel`` and with ``OpenAIResponsesModel``,
with ``Runner.run`` and ``Runner.run_streamed``. The SDK's converters build every request
for real; each body must fit the ``openai`` request types and the API's sequence rules (or
the fake server answers 400 and the run fails). Summaries come from an LLMSummarizer on
the same server, so a fold is followed by agent turns on both APIs.
"""

from __future__ import annotations

import pytest

from ctxlab.context.sources import RETRIEVED_HEADER
from ctxlab.course.corpora import support_chat_script
from ctxlab.course.runs import run_conversation
from ctxlab.memory.render import STATE_HEADER
from ctxlab.sessions import strategies
from ctxlab.summarizers.base import SUMMARY_SHADOW_PROMPT

from conftest import arun
from contract_runs import (
    ENDPOINT,
    KINDS,
    agent_bodies,
    agent_on,
    check_sent_and_kept,
    memory,
    sent_text,
)
from openai_fake_api import FakeOpenAI

pytestmark = pytest.mark.filterwarnings("ignore:.*over the max_tokens budget")


def registered_specs() -> list[str]:
    """Each registered strategy at the start and the middle of its parameter ranges (an
    optional token cap off at the start)."""
    specs: list[str] = []
    for spec in strategies():
        for middle in (False, True):
            kwargs = {name: values[len(values) // 2] if middle else values[0]
                      for name, values in spec.params.items()}
            if not middle and "max_tokens" in kwargs:
                kwargs["max_tokens"] = None
            try:
                spec.session(session_id="probe", **kwargs)
            except (ValueError, TypeError):
                continue
            specs.append(spec.canonical(kwargs))
    return list(dict.fromkeys(specs))


ADDON_SPECS = ["full", "summarize:2/4", "trim:4+state", "trim:4+recall", "budget:3000",
               "trim:3+compact", "summarize:1/3+state+recall",
               "trim:6+compact+state+recall+budget:2500"]
SPECS = registered_specs() + ADDON_SPECS


def test_the_matrix_covers_every_registered_strategy():
    names = {s.partition(":")[0] for s in SPECS}
    assert {spec.name for spec in strategies()} <= names
    assert len(SPECS) >= 12


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "streamed"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("spec", SPECS)
def test_strategy_runs_the_chat_script_on_the_real_model_classes(spec, kind, streamed):
    messages, _ = support_chat_script()
    fake = FakeOpenAI()
    agent = agent_on(fake, kind)
    session, config = memory(spec, fake, kind, f"{spec}-{kind}")

    async def go():
        records = await run_conversation(agent, messages, session, run_config=config,
                                         streamed=streamed)
        if hasattr(session, "flush"):
            await session.flush()
        await check_sent_and_kept(fake, kind, session)
        return records

    records = arun(go())
    assert [r.reply != "" for r in records] == [True] * len(messages)
    assert sum(len(r.tool_calls) for r in records) >= 1  # the tool loop ran
    assert all(r.input_tokens > 0 and r.output_tokens > 0 for r in records)  # usage, streamed too

    bodies = agent_bodies(fake, kind)
    assert len(bodies) == sum(len(r.calls) for r in records)
    texts = [sent_text(b) for b in bodies]
    if spec.startswith("summarize"):
        folded = [n for n, t in enumerate(texts) if SUMMARY_SHADOW_PROMPT in t]
        assert folded and folded[0] < len(texts) - 1, "a fold, then agent turns with it"
        assert len(fake.bodies(ENDPOINT[kind])) > len(bodies)  # the summarizer's calls
    if "state" in spec:
        assert any(STATE_HEADER in t for t in texts)
    if "recall" in spec:
        assert any(RETRIEVED_HEADER in t for t in texts)
    if spec.startswith("trim") and "+" not in spec:
        assert "TCK-48213" not in texts[-1]  # the first turn was trimmed away
