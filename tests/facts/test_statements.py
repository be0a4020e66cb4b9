"""Constraints and commitments: found sentence by sentence, with topics, keys and revisions."""

from __future__ import annotations

import pytest

from ctxlab.facts.statements import (
    as_statement,
    commitment_key,
    constraint_topic,
    current_statements,
    find_commitments,
    find_constraints,
    find_done,
)


@pytest.mark.parametrize(("text", "topic"), [
    ("Please reach me by email only, never call.", "contact"),
    ("Please never ship anything to my home address; use the Porto office instead.",
     "shipping"),
    ("Please don't ship anything to a PO box.", "shipping"),
    ("I'm away until the 14th, so no visits before then.", "availability"),
    ("Whatever you do, don't wipe the Payroll Archive folder.", "data"),
    ("One more thing: I'm out of the office every Monday, so no visits that day.", "schedule"),
])
def test_constraints_are_found_with_their_topic(text, topic):
    found = find_constraints(text)
    assert len(found) == 1 and found[0].topic == topic and found[0].text == text
    assert constraint_topic(text) == topic


@pytest.mark.parametrize("text", [
    "It only seems to happen in the afternoon.",
    "I'm on a video call in a bit, can we speed this up?",
    "Sorry, I had to step away for a moment. Where were we?",
    "Should I keep the laptop plugged in while we do this?",
    "I tried that, but nothing changed.",
])
def test_small_talk_and_questions_are_not_constraints(text):
    assert find_constraints(text) == []


def test_a_revision_replaces_the_closest_constraint_on_its_topic():
    said = [*find_constraints("Please never ship anything to my home address; use the Porto "
                              "office instead."),
            *find_constraints("Please don't ship anything to a PO box."),
            *find_constraints("Please ship to the Leeds office instead of the Porto office "
                              "from now on.")]
    assert said[-1].revises and not said[0].revises
    current = [s.text for s in current_statements(said)]
    assert current == ["Please don't ship anything to a PO box.",
                       "Please ship to the Leeds office instead of the Porto office from now "
                       "on."]


def test_commitments_are_keyed_by_what_is_promised_and_end_when_done():
    first = find_commitments("I'll send the replacement label by Friday.")
    later = find_commitments("Small change: I'll send the replacement label by Monday instead "
                             "of Friday.")
    assert first[0].topic == later[0].topic == "send replacement label"
    assert [s.text for s in current_statements(first + later)] == [later[0].text]
    done = find_done("I've sent the replacement label just now.")
    assert current_statements(first + done) == []
    assert commitment_key("I'll email you the repair quote by Thursday.") == "email repair quote"
    for text in ("I'll stay with you.", "Understood, I'll keep it short.",
                 "I'll note that the printer is working again."):
        assert find_commitments(text) == []


def test_sentences_marked_earlier_never_hold():
    text = ("(turn 9): I'm now away until the 9th. "
            "(earlier: I'm away until the 14th, so no visits before then until turn 3)")
    found = find_constraints(text)
    assert [s.stale for s in found] == [False, True]
    assert [s.text for s in current_statements(found)] == ["(turn 9): I'm now away until the "
                                                          "9th."]


def test_any_sentence_can_be_taken_as_a_statement():
    assert as_statement("constraint", "  ") is None
    odd = as_statement("constraint", "Keep the blue cable")
    assert odd is not None and odd.topic == "other" and not odd.revises
    promise = as_statement("commitment", "Will courier the part tomorrow")
    assert promise is not None and promise.kind == "commitment"


def test_a_dot_inside_a_value_does_not_end_a_sentence():
    from ctxlab.facts.statements import sentences

    found = [s for _, _, s in sentences("It says firmware v1.0.3, email a@x.org. Then more!")]
    assert found == ["It says firmware v1.0.3, email a@x.org.", "Then more!"]


@pytest.mark.parametrize(("text", "kind"), [
    ("好，安排师傅吧。不要给我打电话，我上班不方便接，有事发短信就行。", "constraint"),
    ("新手机千万别寄到快递柜，我们小区的快递柜老丢件。", "constraint"),
    ("先说好，里面是我们所有项目的素材，千万不能格式化。", "constraint"),
    ("工单已经建好了，师傅会在48小时内联系您确认周末的时间。", "commitment"),
    ("IT经理审批后24小时内给您推送新的VPN配置。", "commitment"),
])
def test_chinese_constraints_and_commitments_are_found_from_the_cue_table(text, kind):
    found = find_constraints(text) if kind == "constraint" else find_commitments(text)
    assert len(found) == 1 and found[0].text in text
    other = find_commitments(text) if kind == "constraint" else find_constraints(text)
    assert other == []
