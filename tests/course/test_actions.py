"""check_action: the verdict on an action comes from what is stored, never from the reply.

Seen on a real llama-cpp-python server (issue 34): lesson 09's escalation never reached the
human desk (the server dropped the tools), and lesson 10's agent said "I'll delete
everything you know about me" without calling the forget tool. The fake API with that
server's rules (:mod:`openai_server_rules`) stands in for it here. The broken variant, a
check that trusts the model's claim, is kept below and shown to pass the claim off as done.
"""

from __future__ import annotations

import httpx
import pytest
from agents import Runner, SQLiteSession, set_tracing_disabled
from openai_server_rules import LLAMA_CPP_PYTHON

from ctxlab import ActionCheck, ActionNotTaken, HumanQueue, check_action, multi_issue_case
from ctxlab.course.actions import called_tools
from ctxlab.course.backends import compatible_backend, offline_backend, server_check
from ctxlab.course.server_limits import TOOLS_NEED_TOOL_CHOICE
from ctxlab.course.team import OfflineTeamModel, make_support_team
from ctxlab.eval.handoff_eval import run_handoff
from ctxlab.handoffs import IssueHandover

from conftest import arun
from openai_fake_api import FAKE_BASE_URL, FakeOpenAI, Reply, ScriptedBrain

set_tracing_disabled(True)

CASE = multi_issue_case(5)
ASK = "Back to my monitor: it still has the same problem. I'd like to talk to a real person."
CLAIM = "I've passed your case to a member of our support staff; they will contact you."


def llama_backend(brain=None):
    """A compatible backend on the fake llama-cpp-python server, its GET /models asked."""
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON, **({"brain": brain} if brain else {}))
    backend = compatible_backend(FAKE_BASE_URL, "smollm2", http_client=httpx.AsyncClient(
        transport=httpx.MockTransport(fake)))
    server_check(backend, recheck=True, http_client=httpx.Client(
        transport=httpx.MockTransport(fake)))
    return backend, fake


async def escalate(model) -> tuple[HumanQueue, object]:
    queue = HumanQueue()
    team = make_support_team(model, input_filter=IssueHandover(), queue=queue)
    session = SQLiteSession("escalate")
    await session.add_items([dict(i) for i in CASE.items])
    return queue, await Runner.run(team["support"], ASK, session=session)


def trusting_check(action: str, result) -> ActionCheck:
    """The broken variant: a check that believes the model's reply."""
    claimed = any(word in str(result.final_output) for word in ("passed", "deleted", "Done"))
    return ActionCheck(action, claimed)


def test_an_escalation_that_happened_is_reported_with_the_call():
    queue, result = arun(escalate(OfflineTeamModel()))
    check = check_action("escalate to the human desk", happened=bool(queue.cases),
                         result=result, tool="transfer_to_human_agent",
                         backend=offline_backend())
    assert check and check.happened and "transfer_to_human_agent" in check.called
    assert str(check) == ("checked: escalate to the human desk: it happened (the model called "
                          "transfer_to_human_agent)")


def test_a_claimed_escalation_on_llama_cpp_python_is_caught_and_the_limit_named():
    backend, fake = llama_backend(ScriptedBrain([Reply(text=CLAIM)]))
    queue, result = arun(escalate(backend))
    assert queue.cases == [] and str(result.final_output) == CLAIM  # the claim, no action
    body = fake.bodies("chat/completions")[0]
    assert body["tools"] and "tool_choice" not in body  # sent with none: the server drops them
    check = check_action("escalate to the human desk", happened=bool(queue.cases),
                         result=result, tool="transfer_to_human_agent", backend=backend)
    assert not check and check.limit == TOOLS_NEED_TOOL_CHOICE
    text = str(check)
    assert text.startswith("checked: escalate to the human desk: it did NOT happen. The model "
                           "did not call transfer_to_human_agent: the server is "
                           "llama-cpp-python[server]: server limit: tools are used only when "
                           "tool_choice is sent")
    assert "What to do: start llama-cpp-python with --chat_format chatml-function-calling" \
        in text
    assert text.splitlines()[1] == f"  the reply (a claim, not evidence): {CLAIM!r}"
    # the broken variant believes the reply, and would let the lesson go on as if done
    assert trusting_check("escalate to the human desk", result).happened is True
    with pytest.raises(ActionNotTaken) as info:
        check.require()
    assert info.value.limit == TOOLS_NEED_TOOL_CHOICE and "server limit" in str(info.value)


def test_a_tool_that_was_called_but_changed_nothing_is_not_blamed_on_the_server():
    check = check_action("delete the customer's data", happened=False,
                         called=["delete_my_data"], tool="delete_my_data",
                         backend=offline_backend())
    assert check.limit is None and "The model called delete_my_data, but nothing changed" \
        in str(check)


def test_offline_and_unknown_servers_get_no_invented_limit():
    offline = check_action("x", happened=False, called=[], tool="t", backend=offline_backend())
    assert offline.limit is None and "the offline model chose not to call it" in str(offline)
    fake = FakeOpenAI()  # owned_by "fake": not recognised as llama-cpp-python
    backend = compatible_backend(FAKE_BASE_URL, "other-model", http_client=httpx.AsyncClient(
        transport=httpx.MockTransport(fake)))
    server_check(backend, recheck=True, http_client=httpx.Client(
        transport=httpx.MockTransport(fake)))
    unknown = check_action("x", happened=False, called=[], tool="t", backend=backend)
    assert unknown.limit is None and "or the server did not pass the tools on" in str(unknown)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="happened must be a bool read from what is stored"):
        check_action("x", happened="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="action must be a non-empty phrase"):
        check_action(" ", happened=True)
    assert called_tools(None) == ()


def test_run_handoff_uses_the_configured_model_and_names_the_limit_when_nothing_hands_off():
    backend, fake = llama_backend()
    with pytest.raises(ActionNotTaken) as info:
        arun(run_handoff(CASE, "per-issue", model=backend))
    assert info.value.limit == TOOLS_NEED_TOOL_CHOICE
    assert str(info.value).startswith(f"checked: {CASE.id} (per-issue): hand off to the "
                                      "repair desk: it did NOT happen.")
    assert fake.bodies("chat/completions")  # it ran on the server, not offline


def test_run_handoff_defaults_to_the_configured_backend(monkeypatch):
    """The issue: with a server configured, run_handoff still ran offline."""
    seen = []
    import ctxlab.course.team.agents as agents_module

    real = agents_module.choose_backend
    monkeypatch.setattr(agents_module, "choose_backend",
                        lambda: seen.append("asked") or real())
    outcome = arun(run_handoff(CASE, "per-issue"))
    assert seen == ["asked"] and outcome.checked


def test_run_handoffs_lists_the_modes_that_did_not_hand_off_and_goes_on():
    from ctxlab.eval.handoff_eval import run_handoffs

    backend, _ = llama_backend()
    runs = arun(run_handoffs(CASE, ["full", "per-issue"], model=backend))
    assert dict(runs) == {} and list(runs.missed) == ["full", "per-issue"]
    assert all(c.limit == TOOLS_NEED_TOOL_CHOICE and not c for c in runs.missed.values())
    offline = arun(run_handoffs(CASE, ["full", "per-issue"], model=OfflineTeamModel()))
    assert list(offline) == ["full", "per-issue"] and offline.missed == {}
