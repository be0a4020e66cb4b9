"""Memory that stays true: recall marks what a later turn superseded, and the state keeps
constraints and commitments and never lets an old value read as current."""

from __future__ import annotations

from ctxlab import TrimmingSession
from ctxlab.facts.typed import facts_in_text, latest_fact
from ctxlab.memory import Recall, RuleBasedStateExtractor, StateMemory
from ctxlab.memory.state import StatePatch, SupportState

from conftest import arun, assistant, user

CHAT = [
    user("Hi, you can reach me at dana@example.com if we get cut off."),
    assistant("Thanks Dana, noted."),
    user("I'm away until the 14th, so no visits before then."),
    assistant("Noted, I've added that to your case."),
    user("Before I forget, please use dana.new@example.com from now on."),
    assistant("Updated."),
    user("Change of plans: I'm now away until the 21st."),
    assistant("Noted."),
    user("Still the same, unfortunately."),
    assistant("Let's keep going."),
]


def test_recall_marks_a_recalled_value_that_a_later_turn_superseded():
    async def go():
        session = TrimmingSession("r", max_turns=1)
        await session.add_items(CHAT)
        recall = Recall(session=session, threshold=0.0)
        await recall.sync()
        return recall, recall.recall("which email address do you have for me dana")

    recall, turns = arun(go())
    shown = "\n".join(t.text for t in turns)
    assert "dana@example.com [superseded by dana.new@example.com in turn 3]" in shown
    latest = latest_fact(facts_in_text(shown, kinds=["email"]))
    assert latest is not None and latest.value == "dana.new@example.com"
    away = next(t.text for t in recall.recall("away until visits", k=8) if t.turn == 2)
    assert "earlier: user: I'm away until the 14th" in away
    assert "[revised in turn 4: Change of plans: I'm now away until the 21st.]" in away


def test_recall_rereads_the_conversation_when_it_changes():
    recall = Recall(threshold=0.0)
    recall.index_conversation(CHAT[:2])
    assert recall.facts.current("email") == ["dana@example.com"]
    recall.index_conversation(CHAT)
    assert recall.facts.current("email") == ["dana.new@example.com"]
    recall.index_conversation([user("Reach me at x@y.org")])  # another conversation
    assert recall.facts.current("email") == ["x@y.org"]


def test_the_state_keeps_constraints_and_commitments_and_revises_them():
    async def go():
        memory = StateMemory()
        await memory.feed([*CHAT, assistant("I'll send the replacement label by Friday."),
                           user("Thanks."),
                           assistant("Small change: I'll send the replacement label by Monday "
                                     "instead of Friday.")])
        return memory

    memory = arun(go())
    state = memory.state
    assert [n.text for n in state.constraints] == [
        "Change of plans: I'm now away until the 21st."]
    assert [n.topic for n in state.commitments] == ["send replacement label"]
    text = memory.render()
    assert "constraints: availability (t4): Change of plans: I'm now away until the 21st." in text
    assert "commitments: (t6): Small change: I'll send the replacement label by Monday" in text
    assert "14th" not in text


def test_a_new_error_code_replaces_the_old_one_and_old_values_are_marked_in_milestones():
    async def go():
        memory = StateMemory()
        await memory.feed([user("My printer says error E1001."),
                           user("It's showing a new error code instead now: error E2002."),
                           user("Reach me at a@x.org."),
                           {"type": "function_call", "call_id": "c1", "name": "lookup_order",
                            "arguments": '{"email": "a@x.org"}'},
                           {"type": "function_call_output", "call_id": "c1",
                            "output": '{"order_id": "ORD-1234", "status": "shipped"}'},
                           user("Please use b@x.org from now on.")])
        return memory

    memory = arun(go())
    assert memory.state.issue.error_codes == ["E2002"]
    text = memory.render()
    assert "a@x.org [superseded by b@x.org]" in text
    assert latest_fact(facts_in_text(text, kinds=["email"])).value == "b@x.org"
    assert latest_fact(facts_in_text(text, kinds=["error_code"])).value == "E2002"


def test_the_rule_extractor_and_patches_carry_statements():
    patch = RuleBasedStateExtractor().extract_turn(
        [user("Please reach me by email only, never call."),
         assistant("I'll email you the repair quote by Thursday.")])
    assert patch.constraints == ["Please reach me by email only, never call."]
    assert patch.commitments == ["I'll email you the repair quote by Thursday."]
    state = SupportState()
    state.apply(patch, 1)
    state.apply(StatePatch(done=["I've emailed the repair quote."]), 2)
    assert state.commitments == [] and len(state.constraints) == 1
    assert StatePatch(constraints=["x"]).is_empty() is False
