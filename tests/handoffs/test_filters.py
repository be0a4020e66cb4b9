"""What the receiving agent sees, through the real Runner: each filter's view is what the
receiver's model is sent, the session still stores everything, and the per-issue handover
keeps the other issue's facts out. Bad wiring gets clear errors."""

from __future__ import annotations

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled

from ctxlab import validate_items
from ctxlab.core.turns import segment_turns
from ctxlab.course.team import OfflineTeamModel, make_support_team
from ctxlab.eval.multi_issue import multi_issue_case
from ctxlab.handoffs import (
    HANDOVER_PROMPT,
    FullHistory,
    HandoverSummary,
    IssueHandover,
    TrimmedHistory,
    UnknownAgentError,
    connect,
    view_text,
)

from conftest import arun
from handoff_data import handoff_data

set_tracing_disabled(True)


async def hand_off(case, input_filter):
    """Run the resume turn through the team; (what the repair desk's model got, session)."""
    team = make_support_team(OfflineTeamModel(), input_filter=input_filter)
    sent = []

    async def record(data):
        if data.agent.name == "Repair desk" and not sent:
            sent.append(list(data.model_data.input))
        return data.model_data

    session = SQLiteSession(case.id)
    await session.add_items(case.items)
    result = await Runner.run(team["support"], case.resume, session=session,
                              run_config=RunConfig(call_model_input_filter=record))
    assert result.last_agent.name == "Repair desk"
    return sent[0], session, result


@pytest.mark.parametrize("make", [FullHistory, lambda: TrimmedHistory(3), HandoverSummary,
                                  IssueHandover], ids=["full", "trim", "handover", "per-issue"])
def test_the_receiver_is_sent_the_filters_view_and_the_session_keeps_everything(make):
    case = multi_issue_case(5)
    chosen = make()
    view, session, _ = arun(hand_off(case, chosen))
    assert view == chosen.last_view and chosen.views == 1
    assert validate_items(view) == []
    assert view[-2]["type"] == "function_call" and view[-2]["name"] == "transfer_to_repair_desk"
    assert view[-1]["type"] == "function_call_output"
    stored = arun(session.get_items())
    assert stored[: len(case.items)] == case.items  # the filter never touches the log
    assert stored[len(case.items)]["content"] == case.resume


def test_what_each_view_holds():
    case = multi_issue_case(5)
    a, b = case.resumed.facts, case.other.facts
    full, _, _ = arun(hand_off(case, FullHistory()))
    assert all(v in view_text(full) for v in (*a.values(), *b.values()))
    trimmed, _, _ = arun(hand_off(case, TrimmedHistory(2)))
    assert len(segment_turns(trimmed).turns) == 2
    handover, _, _ = arun(hand_off(case, HandoverSummary()))
    assert handover[0] == {"role": "user", "content": HANDOVER_PROMPT}
    assert handover[1]["role"] == "assistant" and isinstance(handover[1]["content"], str)
    mine, _, result = arun(hand_off(case, IssueHandover()))
    text = view_text(mine)
    assert all(v in text for v in a.values())
    assert not any(v in text for v in b.values() if v not in a.values())
    assert case.customer["email"] in text  # the customer's own facts hold for every issue
    assert f"the {case.resumed.device} issue" in mine[1]["content"]
    checked = [i.raw_item.arguments for i in result.new_items
               if getattr(i.raw_item, "name", None) == "check_warranty"]
    assert checked == [f'{{"serial": "{a["serial"]}"}}']


def test_the_full_history_leads_the_repair_desk_to_the_wrong_device():
    case = multi_issue_case(5)
    _, _, result = arun(hand_off(case, FullHistory()))
    checked = [i.raw_item.arguments for i in result.new_items
               if getattr(i.raw_item, "name", None) == "check_warranty"]
    assert checked == [f'{{"serial": "{case.other.facts["serial"]}"}}']


def test_without_a_device_the_issue_handover_is_the_whole_handover():
    history = [{"role": "user", "content": "Hi, I'm Dana, dana@example.com."},
               {"role": "assistant", "content": "Hello Dana."},
               {"role": "user", "content": "Please pass me to the repair team."}]
    per_issue, whole = IssueHandover(), HandoverSummary()
    data = handoff_data(history)
    arun(per_issue(data))
    arun(whole(data))
    assert per_issue.last_view == whole.last_view  # the same summary, turn and handoff


def test_a_custom_async_summarizer_is_used():
    class Short:
        async def summarize(self, items):
            return f"{len(items)} earlier items"

    chosen = HandoverSummary(Short())
    history = [{"role": "user", "content": "one"}, {"role": "assistant", "content": "a"},
               {"role": "user", "content": "two"}]
    arun(chosen(handoff_data(history)))
    assert chosen.last_view[1] == {"role": "assistant", "content": "2 earlier items"}


def test_bad_wiring_is_refused_before_anything_changes():
    with pytest.raises(ValueError, match="turns must be an integer >= 1"):
        TrimmedHistory(0)
    team = make_support_team(OfflineTeamModel())
    before = {name: list(agent.handoffs) for name, agent in team.items()}
    with pytest.raises(UnknownAgentError, match=r"route 'repair' -> 'billing': no agent "
                       r"named 'billing' in the team \(agents: human, repair, support\)"):
        connect(team, {"support": ["repair"], "repair": ["billing"]})
    with pytest.raises(UnknownAgentError, match="route from 'sales'"):
        connect(team, {"sales": ["repair"]})
    with pytest.raises(ValueError, match="cannot hand off to itself"):
        connect(team, {"support": ["support"]})
    with pytest.raises(UnknownAgentError, match="filters names route 'repair' -> 'support'"):
        connect(team, {"support": ["repair"]}, filters={("repair", "support"): FullHistory()})
    with pytest.raises(TypeError, match=r"must be an agents\.Agent"):
        connect({"x": "not an agent"}, {})
    assert {name: list(agent.handoffs) for name, agent in team.items()} == before


def test_a_handoff_the_model_invents_fails_with_the_sdks_clear_error():
    from agents.exceptions import ModelBehaviorError
    from agents.testing import ScriptedModel, function_call

    agent = Agent(name="Support", model=ScriptedModel(
        [[function_call("transfer_to_billing", "{}", call_id="c1")]]))
    with pytest.raises(ModelBehaviorError, match="transfer_to_billing"):
        arun(Runner.run(agent, "pass me to billing"))
