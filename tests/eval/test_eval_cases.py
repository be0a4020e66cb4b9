"""Evaluation cases: answer keys, probes, matching, and the corpora by name."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import OfflineSupportModel, seed_support_conversation
from ctxlab.course.offline.intents import read_intent
from ctxlab.eval import (
    KIND_QUESTIONS,
    EvalCase,
    KeyFact,
    RecallProbe,
    case_from_conversation,
    case_from_items,
    load_cases,
    load_corpora,
)
from ctxlab.eval.cases import mark_answerable, probes_at

from conftest import assistant, call, output, user


@pytest.mark.parametrize("kind", sorted(KIND_QUESTIONS))
def test_each_probe_question_is_a_recall_request_for_exactly_its_kind(kind):
    intent = read_intent(KIND_QUESTIONS[kind])
    assert intent.recall == (kind,)
    assert not intent.wants_tool


@pytest.mark.parametrize(("value", "text", "whole", "found"), [
    ("42", "error 42 again", True, True),
    ("42", "error 4200", True, False),
    ("42", "error 4200", False, True),
    ("v1.0.3", "firmware v1.0.30", True, False),
    ("v1.0.3", "firmware v1.0.3.", True, True),
    ("TCK-1", "TCK-1x TCK-1", True, True),
    ("a@b.io", "mail a@b.io", True, True),
])
def test_values_are_found_verbatim_with_word_boundaries(value, text, whole, found):
    assert KeyFact("f", value, "c", whole_word=whole).found_in(text) is found


def test_ignore_case_matching_is_for_sources_that_lowercase_values():
    fact = KeyFact("name", "crystal minh", "name", ignore_case=True)
    assert fact.found_in("Hi, I'm Crystal Minh.")
    assert not KeyFact("state", "ny", "state", ignore_case=True).found_in("any news?")


@settings(max_examples=200, deadline=None)
@given(value=st.text(alphabet="ab1-", min_size=1, max_size=3),
       text=st.text(alphabet="ab1- x", max_size=20))
def test_the_fast_search_agrees_with_the_regular_expression(value, text):
    fact = KeyFact("f", value, "c")
    assert fact.found_in(text) == (fact.pattern.search(text) is not None)


def _case(**overrides):
    items = [user("My ticket is TCK-10001."), assistant("Noted."),
             user("Email me at old@example.com"), assistant("Done."),
             user("Actually use new@example.com"), assistant("Updated.")]
    facts = (
        KeyFact("ticket", "TCK-10001", "ticket", "ticket", 0, 1, "user"),
        KeyFact("email", "old@example.com", "email", "email", 2, 2, "user",
                superseded_by="new@example.com", superseded_turn=3),
        KeyFact("email", "new@example.com", "email", "email", 4, 3, "user"),
    )
    data = {"id": "c1", "source": "test", "items": items, "facts": facts}
    data.update(overrides)
    return EvalCase(**data)


def test_probes_ask_for_the_current_value_and_list_the_stale_one():
    case = _case()
    probes = probes_at(case.facts, 4)
    email = next(p for p in probes if p.fact == "email")
    assert email.expected == "new@example.com" and email.stale == ("old@example.com",)
    before = next(p for p in probes_at(case.facts, 3) if p.fact == "email")
    assert before.expected == "old@example.com" and before.stale == ()
    assert [p.fact for p in probes_at(case.facts, 2)] == ["ticket"]
    assert probes_at(case.facts, 4, min_age=3) == [
        p for p in probes_at(case.facts, 4) if p.fact == "ticket"]


def test_answerable_means_the_full_history_has_one_right_answer():
    case = _case()
    marked = mark_answerable(case.items, case.turn_starts, probes_at(case.facts, 4))
    assert all(p.answerable for p in marked)
    model = OfflineSupportModel()
    for probe in marked:
        reply = model.respond(None, [*case.items, user(probe.question)]).text
        assert probe.expected in reply
    stale = mark_answerable(case.items, case.turn_starts, [
        RecallProbe(4, "email", "old@example.com", "email", KIND_QUESTIONS["email"], "email")])
    assert not stale[0].answerable


def test_a_case_rejects_invalid_items_unknown_facts_and_probes_out_of_range():
    with pytest.raises(ValueError, match="not a valid item sequence"):
        _case(items=[user("hi"), output("c9", "orphan")])
    with pytest.raises(ValueError, match="names fact 'serial'"):
        _case(probes=(RecallProbe(2, "serial", "X", "serial", "q"),))
    with pytest.raises(ValueError, match=r"turns 1\.\.3"):
        _case(probes=(RecallProbe(9, "ticket", "TCK-10001", "ticket", "q"),))
    with pytest.raises(ValueError, match="case id"):
        _case(id="")
    assert _case(probes=(RecallProbe(4, "ticket", "TCK-10001", "ticket", "q"),)).n_turns == 3


def test_a_corpus_conversation_becomes_a_case_probed_after_its_last_turn():
    conversation = seed_support_conversation()
    case = case_from_conversation(conversation)
    assert case.n_turns == conversation.turn_count
    assert {p.turn for p in case.probes} == {case.n_turns + 1}
    assert {f.name for f in case.facts} == {f.name for f in conversation.facts_mentioned()}
    ticket = next(f for f in case.facts if f.name == "ticket_id")
    assert ticket.kind == "ticket" and ticket.first_turn == 1 and ticket.where == "assistant"
    errors = [p for p in case.probes if p.fact == "error_code"]
    assert sorted(p.expected for p in errors) == ["404", "42"]
    assert sum(p.answerable for p in errors) == 1  # only the latest error has one answer


def test_your_own_items_get_typed_facts_found_and_superseded():
    items = [user("Ticket TCK-20001 please, email me at a@example.com"), assistant("Ok."),
             user("Also ticket TCK-20002."), call("c1", "get_ticket_status", ticket_id="TCK-20002"),
             output("c1", {"status": "open"}), assistant("Open."),
             user("New email: b@example.com"), assistant("Updated.")]
    case = case_from_items(items, case_id="mine")
    by_name = {f.name: f for f in case.facts}
    assert by_name["ticket#1"].value == "TCK-20001" and by_name["ticket#2"].value == "TCK-20002"
    old = next(f for f in case.facts if f.value == "a@example.com")
    assert old.superseded_by == "b@example.com" and old.superseded_turn == 3
    email = next(p for p in case.probes if p.fact == "email")
    assert email.expected == "b@example.com" and email.stale == ("a@example.com",)


def test_corpora_by_name(tmp_path):
    assert len(load_cases("tau:5")) == 5
    assert [c.source for c in load_cases("abcd")] == ["abcd"] * 3
    assert len(load_cases("seed")) == 3
    planted = load_cases("planted:2:20-24:7")
    assert [c.n_turns for c in planted] == [20, 24] and planted[0].id == "planted-7-20t"
    log = tmp_path / "chat.jsonl"
    log.write_text("\n".join(json.dumps(i) for i in seed_support_conversation().items))
    (mine,) = load_cases(str(log))
    assert mine.id == "chat" and mine.source == "file" and mine.facts
    abcd = load_cases("abcd")[0]
    assert all(f.ignore_case and f.whole_word for f in abcd.facts)


@pytest.mark.parametrize(("spec", "message"), [
    ("nope", "unknown corpus 'nope'"),
    ("tau:x", "N must be a whole number"),
    ("planted:0", "N must be >= 1"),
    ("planted:3:40", "look like 30-90"),
    ("planted:3:50-40", "MIN must not exceed MAX"),
    ("abcd:2", "takes no argument"),
    ("missing/chat.jsonl", "no such file"),
    ("", "non-empty string"),
])
def test_bad_corpus_specs_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_cases(spec)


def test_corpora_must_not_repeat_cases():
    with pytest.raises(ValueError, match="occurs twice"):
        load_corpora(["seed", "seed"])
