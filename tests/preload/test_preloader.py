"""Proactive preloading: the model answers in one call from what was fetched for it, the
session stores nothing extra, a missing argument or a failing tool preloads nothing, and
the preloaded input is valid for both SDK model classes."""

from __future__ import annotations

import json

import pytest
from agents import RunConfig, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.models.chatcmpl_converter import Converter

from ctxlab import validate_items
from ctxlab.course.agent import SUPPORT_TOOLS
from ctxlab.course.team import ORDER_TOOLS, OfflineTeamModel, make_support_team
from ctxlab.course.team.preload import TEAM_PRELOAD_RULES
from ctxlab.eval.preload_eval import preload_case
from ctxlab.preload import Planned, Preloader, PreloadRule

from conftest import arun, assistant, user

set_tracing_disabled(True)


def setup():
    agent = make_support_team(OfflineTeamModel(), extra_tools=ORDER_TOOLS)["support"]
    return agent, Preloader([*SUPPORT_TOOLS, *ORDER_TOOLS], TEAM_PRELOAD_RULES)


def test_a_return_is_answered_in_one_model_call_and_the_session_stores_no_preload():
    case = preload_case(2, "return")
    agent, preloader = setup()
    sent = []

    async def watch(data):
        sent.append(list(data.model_data.input))
        return data.model_data

    async def go():
        from ctxlab.context import compose_filters

        session = SQLiteSession("p")
        await session.add_items(case.items)
        config = RunConfig(call_model_input_filter=compose_filters(preloader.input_filter(),
                                                                   watch))
        result = await Runner.run(agent, case.last, session=session, run_config=config)
        return result, await session.get_items()

    result, stored = arun(go())
    assert result.context_wrapper.usage.requests == 1
    assert not [i for i in result.new_items if i.type == "tool_call_item"]
    assert all(value in result.final_output for value in case.expected)
    assert [i["name"] for i in sent[0] if i.get("type") == "function_call"] == [
        "lookup_order", "get_return_policy"]
    assert validate_items(sent[0]) == []
    Converter.items_to_messages(sent[0])  # the chat converter accepts the preloaded pairs
    assert len(stored) == len(case.items) + 2  # the question and the reply, nothing else
    assert preloader.stats.preloaded_turns == 1 and preloader.stats.calls == 2
    assert preloader.stats.by_rule == {"return": 1}


def test_nothing_is_preloaded_without_the_argument_or_when_the_tool_fails():
    _, preloader = setup()

    async def go():
        none = await preloader.preload([user("I want to return it.")])
        turn_started = await preloader.preload([user("I want to return it, ORD-12345."),
                                                assistant("Let me check.")])
        return none, turn_started

    assert arun(go()) == ([], [])

    def down(order_id: str) -> str:
        """Always fails."""
        raise RuntimeError("order service down")

    rule = PreloadRule("return", lambda text: True,
                       lambda items, text: [Planned("down", {"order_id": "ORD-1"})])
    raising = Preloader([function_tool(down, failure_error_function=None)], [rule])
    assert arun(raising.preload([user("return ORD-12345")])) == []
    assert raising.stats.failed == 1 and raising.stats.preloaded_turns == 0
    answering = Preloader([function_tool(down)], [rule])  # the SDK's default error handling
    added = arun(answering.preload([user("return ORD-12345")]))
    assert added[1]["output"].startswith("An error occurred while running the tool")


def test_a_turn_that_needs_no_tool_is_left_alone():
    case = preload_case(3, "none")
    agent, preloader = setup()

    async def go():
        session = SQLiteSession("n")
        await session.add_items(case.items)
        return await Runner.run(agent, "Thanks, that's all for now.", session=session,
                                run_config=RunConfig(call_model_input_filter=preloader
                                                     .input_filter()))

    arun(go())
    assert preloader.stats.turns == 1 and preloader.stats.preloaded_turns == 0


def test_bad_configuration_is_refused():
    with pytest.raises(TypeError, match="FunctionTool"):
        Preloader(["not a tool"], TEAM_PRELOAD_RULES)
    with pytest.raises(TypeError, match="PreloadRule"):
        Preloader(list(SUPPORT_TOOLS), [("return", None)])


def test_warranty_questions_preload_the_check_in_chinese_too():
    case = preload_case(1, "warranty", "zh")
    _, preloader = setup()
    added = arun(preloader.preload([*case.items, user(case.last)]))
    assert [i["name"] for i in added if i["type"] == "function_call"] == ["check_warranty"]
    assert json.loads(added[0]["arguments"])["serial"] in case.items[2]["content"]
