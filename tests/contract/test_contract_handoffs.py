"""Contract: handoffs and cross-session memory under the SDK's real model classes.

The support team (support agent, repair desk, human desk) runs on
``OpenAIChatCompletionsModel`` and on ``OpenAIResponsesModel`` over the fake API, with a
planted multi-issue chat in an SDK session; the customer asks to be passed to the repair
team and the support agent hands off through each handoff input filter. The receiver's
request is built by the SDK's converters and must fit the ``openai`` request types and the
API's sequence rules (the fake answers 400 otherwise, and the run fails). The same for a new
session that long-term memory injects into, and for the forget-me tool and preloading.
"""

from __future__ import annotations

import json

import httpx
import pytest
from agents import OpenAIResponsesModel, RunConfig, Runner, SQLiteSession

from ctxlab.course.backends import compatible_backend
from ctxlab.course.team import OfflineTeamModel, make_support_team
from ctxlab.course.team.model import _HANDOFFS
from ctxlab.eval.handoff_eval import history_filter
from ctxlab.eval.multi_issue import multi_issue_case
from ctxlab.longterm import LongTermMemory
from ctxlab.records.users import UserContext

from conftest import arun
from contract_runs import ENDPOINT, KINDS, MODEL
from openai_fake_api import FAKE_BASE_URL, BrainInput, FakeOpenAI, Reply, schema_example
from openai_schema import request_problem

_TEAM = OfflineTeamModel()


def team_brain(request: BrainInput) -> Reply:
    """The offline team model behind the fake API (handoffs arrive as transfer_to_ tools)."""
    if request.json_schema is not None:
        return Reply(text=json.dumps(schema_example(request.json_schema)))
    handoffs = tuple((t["name"], t["name"][len("transfer_to_"):]) for t in request.tools
                     if t["name"].startswith("transfer_to_"))
    tools = [t for t in request.tools if not t["name"].startswith("transfer_to_")]
    token = _HANDOFFS.set(handoffs)
    try:
        result = _TEAM.respond(request.instructions, request.items, tools)
    finally:
        _HANDOFFS.reset(token)
    calls = tuple((i["name"], i["arguments"]) for i in result.output
                  if i.get("type") == "function_call")
    return Reply(result.text, calls, result.input_tokens, result.output_tokens)


def model_on(fake: FakeOpenAI, kind: str):
    if kind == "chat":
        http = httpx.AsyncClient(transport=httpx.MockTransport(fake))
        return compatible_backend(FAKE_BASE_URL, MODEL, http_client=http)
    return OpenAIResponsesModel(model=MODEL, openai_client=fake.async_client())


def check_bodies(fake: FakeOpenAI, kind: str) -> list[dict]:
    assert fake.rejections == []
    assert all(r.status == 200 for r in fake.requests)
    bodies = fake.bodies(ENDPOINT[kind])
    assert bodies
    for body in bodies:
        assert request_problem(kind, body) is None
    return bodies


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["full", "trim:3", "sdk-nested", "handover", "per-issue"])
@pytest.mark.parametrize("streamed", [False, True], ids=["run", "streamed"])
def test_every_handoff_view_is_accepted_by_both_model_classes(kind, mode, streamed):
    case = multi_issue_case(4)
    fake = FakeOpenAI(brain=team_brain)
    team = make_support_team(model_on(fake, kind), input_filter=history_filter(mode))

    async def go():
        session = SQLiteSession(f"contract-{kind}-{mode}")
        await session.add_items(case.items)
        config = RunConfig(tracing_disabled=True, nest_handoff_history=mode == "sdk-nested")
        if streamed:
            result = Runner.run_streamed(team["support"], case.resume, session=session,
                                         run_config=config)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(team["support"], case.resume, session=session,
                                      run_config=config)
        return result

    result = arun(go())
    assert result.last_agent.name == "Repair desk"
    bodies = check_bodies(fake, kind)
    repair = [b for b in bodies if "You are the repair desk" in json.dumps(b)]
    assert repair, "the repair desk's request never reached the API"
    if mode == "per-issue":
        sent = json.dumps(repair[0])
        assert case.resumed.facts["serial"] in sent
        assert case.other.facts["serial"] not in sent


@pytest.mark.parametrize("kind", KINDS)
def test_escalation_to_the_human_desk_and_long_term_memory_on_both_classes(kind, tmp_path):
    fake = FakeOpenAI(brain=team_brain)
    team = make_support_team(model_on(fake, kind), input_filter=history_filter("per-issue"))
    memory = LongTermMemory(str(tmp_path / "memory.db"))
    me = UserContext("user-5")

    async def go():
        day1 = SQLiteSession("day-1")
        await Runner.run(team["support"], "My laptop freezes, the serial is C02XK7ML9Q4.",
                         session=day1, context=me)
        await Runner.run(team["support"], "I dropped it at the FixIt repair shop on Park Row.",
                         session=day1, context=me)
        await memory.end_session("user-5", day1)
        await memory.drain()
        day4 = SQLiteSession("day-4")
        config = RunConfig(tracing_disabled=True, call_model_input_filter=memory.input_filter())
        shop = await Runner.run(team["support"], "Is that shop I mentioned open on Saturday?",
                                session=day4, context=me, run_config=config)
        person = await Runner.run(team["support"], "Can I talk to a real person please?",
                                  session=day4, context=me, run_config=config)
        return shop, person

    shop, person = arun(go())
    assert "FixIt" in shop.final_output
    assert person.last_agent.name == "Human agent" and "ESC-0001" in person.final_output
    check_bodies(fake, kind)
    assert len(team["human"].model.queue) == 1
