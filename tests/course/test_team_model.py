"""The offline team model: hands off only when asked to be passed on, escalates to a person,
calls the team's tools, quotes what was mentioned before, and otherwise answers exactly as
the plain offline model."""

from __future__ import annotations

import pytest
from agents import Runner, SQLiteSession, set_tracing_disabled

from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.team import ORDER_TOOLS, OfflineTeamModel, make_support_team
from ctxlab.course.team.rules import mentioned, route_for, wants_return
from ctxlab.handoffs import DESK_REPLY_ZH, HumanQueue, IssueHandover

from conftest import arun, assistant, user

set_tracing_disabled(True)
TARGETS = [("transfer_to_repair_desk", "Repair desk"), ("transfer_to_human_agent", "Human agent")]


@pytest.mark.parametrize("text,tool", [
    ("Can you pass me to the repair team?", "transfer_to_repair_desk"),
    ("I want to talk to a real person.", "transfer_to_human_agent"),
    ("Could you connect me with a human please", "transfer_to_human_agent"),
    ("帮我转人工", "transfer_to_human_agent"),
    ("能不能转给维修部门？", "transfer_to_repair_desk"),
    ("Is it still covered? I might need a repair.", None),  # no request to be passed on
    ("The technician said it's fine.", None),
    ("Pass me to billing.", None),  # no such route in this team
])
def test_routes(text, tool):
    assert route_for(text, TARGETS) == tool


def test_returns_and_mentions_are_read():
    assert wants_return("I want to return it, it's not what I expected.")
    assert wants_return("我想退货")
    assert not wants_return("Back to my laptop: it still freezes.")
    assert not wants_return("I'll return to the office tomorrow.")
    earlier = [user("I dropped it at the FixIt repair shop on Park Row."), assistant("ok"),
               {"role": "developer", "content": "notes:\n- (day 1) My printer is a LaserDesk."}]
    assert mentioned("Is that shop I mentioned open?", earlier).startswith("I dropped it")
    assert mentioned("The printer I told you about?", earlier) == "(day 1) My printer is a " \
                                                                   "LaserDesk."
    assert mentioned("That restaurant I mentioned?", earlier) is None


def test_without_team_rules_the_team_model_answers_like_the_plain_model():
    plain, team = OfflineSupportModel(), OfflineTeamModel()
    items = [user("My laptop overheats, serial C02XK1ZJG8WP."), assistant("Let's check."),
             user("Is it still under warranty?")]
    for history in (items, items[:1], [user("What was my ticket number again?")]):
        assert team.respond("help", history, []).output[0]["type"] == \
            plain.respond("help", history, []).output[0]["type"]
        assert team.respond("help", history, []).text == plain.respond("help", history, []).text


def test_escalation_files_the_case_and_the_desk_answers_in_the_customers_language():
    queue = HumanQueue()
    team = make_support_team(OfflineTeamModel(), input_filter=IssueHandover(), queue=queue)

    async def go():
        session = SQLiteSession("escalate")
        await Runner.run(team["support"], "My laptop freezes, the serial is C02XK1ZJG8WP.",
                         session=session)
        english = await Runner.run(team["support"], "I want to talk to a real person.",
                                   session=session)
        chinese = await Runner.run(team["support"], "我的打印机卡纸了，帮我转人工。")
        return english, chinese

    english, chinese = arun(go())
    assert english.last_agent.name == "Human agent" and "case ESC-0001" in english.final_output
    assert chinese.final_output == DESK_REPLY_ZH.format(case="ESC-0002")
    first = queue.cases[0]
    assert first.request == "I want to talk to a real person."
    assert "C02XK1ZJG8WP" in first.note and "Case handover: the laptop issue" in first.note
    assert "ESC-0001" in str(first) and len(queue) == 2


def test_returns_call_the_order_tools_and_are_answered_from_them():
    team = make_support_team(OfflineTeamModel(), extra_tools=ORDER_TOOLS)

    async def go():
        session = SQLiteSession("returns")
        await session.add_items([user("My order ORD-24680 arrived: the printer I bought."),
                                 assistant("Thanks.")])
        result = await Runner.run(team["support"], "I want to return it.", session=session)
        missing = await Runner.run(team["support"], "I want to return it.")
        return result, missing

    result, missing = arun(go())
    calls = [i.raw_item.name for i in result.new_items if i.type == "tool_call_item"]
    assert calls == ["lookup_order", "get_return_policy"]
    assert result.final_output.startswith("Order ORD-24680")
    assert "order number" in missing.final_output  # no order in view: it asks
