"""The offline model reads memory like a careful reader: what is marked superseded is never
current, values a note lists as tool results stay tool results, and constraints and
commitments are answered from what is still in force."""

from __future__ import annotations

import pytest

from ctxlab import SUMMARY_SHADOW_PROMPT
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.memory import StateMemory

from conftest import arun, assistant, call, output, user

MODEL = OfflineSupportModel()


def ask(items, question):
    return MODEL.respond(None, [*items, user(question)]).text


def summary(text):
    return [{"role": "user", "content": SUMMARY_SHADOW_PROMPT},
            {"role": "assistant", "content": text}]


@pytest.mark.parametrize("items", [
    # raw turns
    [user("Reach me at a@x.org."), user("Please use b@x.org instead of a@x.org.")],
    # the summary format
    summary("Identifiers:\n- Email: b@x.org (earlier: a@x.org until turn 3)"),
    # the state format
    [{"role": "developer", "content": "Conversation state (...)\nuser: email b@x.org\n"
      "superseded: user.email a@x.org (t1) -> b@x.org (t3)"}],
    # a recalled turn marked by recall
    [user("Please use b@x.org from now on."), {"role": "developer", "content": (
        "Recalled history:\n[turn 1]\nuser: reach me at a@x.org [superseded by b@x.org in "
        "turn 3]")}],
])
def test_the_current_value_wins_in_every_format(items):
    reply = ask(items, "Which email address do you have for me?")
    assert "b@x.org" in reply and "a@x.org" not in reply


def test_a_value_a_summary_lists_from_tools_gives_way_to_a_newer_tool_result():
    items = [*summary("Identifiers:\n- Firmware (from tools): v1.0.0 (laptop)"),
             user("Is there an update?"), call("u1", "update_firmware", serial="X"),
             output("u1", '{"firmware": "v2.0.0", "status": "installed"}'),
             assistant("Installed.")]
    assert "v2.0.0" in ask(items, "Which firmware version is the device on now?")
    said = [*summary("Identifiers:\n- Email: a@x.org"), user("Any news?"),
            call("o1", "lookup_order"), output("o1", '{"email": "other@x.org"}')]
    assert "a@x.org" in ask(said, "Which email address do you have for me?")


def test_constraints_and_commitments_still_in_force_are_answered():
    items = [user("I'm away until the 14th, so no visits before then."),
             user("Please don't ship anything to a PO box."),
             assistant("I'll send the replacement label by Friday."),
             user("Change of plans: I'm now away until the 21st.")]
    reply = ask(items, "Remind me: what did I ask you to keep in mind about this case?")
    assert "away until the 21st" in reply and "PO box" in reply
    assert "14th" not in reply
    assert "replacement label by Friday" in ask(items, "What did you promise to do for me?")
    done = [*items, assistant("I've sent the replacement label.")]
    assert "don't see a promise" in ask(done, "What did you promise to do for me?")
    assert "don't see any constraint" in ask([user("Hi")], "What did I ask you to keep in "
                                                            "mind?")


def test_constraints_are_read_from_a_summary_and_from_the_state():
    note = summary("Constraints & Preferences:\n- availability (turn 9): I'm now away until "
                   "the 21st. (earlier: I'm away until the 14th until turn 9)")
    reply = ask(note, "What did I ask you to keep in mind?")
    assert "away until the 21st" in reply and "14th" not in reply

    async def state_view():
        memory = StateMemory()
        await memory.feed([user("Please reach me by email only, never call."),
                           assistant("I'll email you the repair quote by Thursday.")])
        return [memory.message()]

    view = arun(state_view())
    assert "never call" in ask(view, "What did I ask you to keep in mind?")
    assert "repair quote by Thursday" in ask(view, "What did you promise to do for me?")
