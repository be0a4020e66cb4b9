"""Planted-fact conversations: deterministic, valid, and with an exact answer key."""

from __future__ import annotations

import pytest

from ctxlab import OfflineSupportModel, item_kind, item_text, segment_turns, validate_items
from ctxlab.eval import planted_case, planted_corpus

CASES = [planted_case(seed, turns) for seed, turns in ((0, 30), (1, 55), (2, 90))]


def test_the_same_seed_gives_the_same_conversation_and_others_differ():
    again = planted_case(1, 55)
    assert again.items == CASES[1].items and again.facts == CASES[1].facts
    assert again.probes == CASES[1].probes
    assert planted_case(3, 55).items != CASES[1].items


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_length_validity_and_unique_call_ids(case):
    assert case.n_turns == case.meta["turns"]
    assert validate_items(case.items) == []
    ids = [it["call_id"] for it in case.items if it.get("type") == "function_call"]
    assert len(ids) == len(set(ids)) > 0


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_value_first_appears_exactly_where_the_answer_key_says(case):
    seg = segment_turns(case.items)
    texts = [item_text(it) for it in case.items]
    for n, fact in enumerate(case.facts):
        assert fact.found_in(texts[fact.first_item])
        again = any(f.name == fact.name and f.value == fact.value for f in case.facts[:n])
        if not again:  # a value that comes back (a reverted email) was said before
            assert not any(fact.found_in(t) for t in texts[: fact.first_item]), fact
        assert seg.turn_of(fact.first_item) == fact.first_turn
        assert item_kind(case.items[fact.first_item]) == fact.where


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_tool_values_are_only_in_tool_traffic_and_user_values_in_user_text(case):
    messages = [item_text(it) for it in case.items if item_kind(it) in ("user", "assistant")]
    kinds = {f.where for f in case.facts}
    assert {"user", "tool_output"} <= kinds <= {"user", "tool_output", "assistant"}
    for fact in case.facts:
        if fact.where == "tool_output":
            assert not any(fact.found_in(text) for text in messages), fact


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_superseded_values_point_at_their_replacement(case):
    superseded = [f for f in case.facts if f.superseded_by]
    names = {f.name for f in superseded}
    assert "email" in names and any(n.endswith(".firmware") for n in names)
    for old in superseded:
        new = [f for f in case.values_of(old.name) if f.value == old.superseded_by
               and f.first_turn == old.superseded_turn]
        assert len(new) == 1 and old.superseded_turn > old.first_turn
    assert any(f.category == "constraint" and f.kind == "constraint" for f in case.facts)
    assert len({f.name.split(".")[0] for f in case.facts if f.name.startswith("issue")}) >= 2


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_probes_ask_for_values_already_said_and_end_after_the_last_turn(case):
    assert max(p.turn for p in case.probes) == case.n_turns + 1
    for probe in case.probes:
        fact = case.fact(probe.fact, probe.expected)
        assert fact.first_turn < probe.turn
        for old in probe.stale:
            assert case.fact(probe.fact, old).superseded_turn < probe.turn
    assert any(p.stale for p in case.probes)


def test_the_offline_model_answers_every_answerable_probe_from_the_full_history():
    model = OfflineSupportModel()
    case = CASES[1]
    answerable = [p for p in case.probes if p.answerable]
    assert len(answerable) >= 10
    for probe in answerable:
        history = case.items[: case.start_of(probe.turn)]
        reply = model.respond(None, [*history, {"role": "user", "content": probe.question}])
        assert probe.expected in reply.text, (probe, reply.text)


def test_a_corpus_has_updates_of_every_kind_and_constraints_and_commitments():
    corpus = planted_corpus(24, min_turns=30, max_turns=90)
    updated = {f.category for c in corpus for f in c.facts if f.superseded_by}
    assert updated >= {"email", "firmware", "serial", "error_code", "ticket", "order", "rma",
                       "constraint", "commitment"}
    texts = [item_text(it) for c in corpus for it in c.items]
    assert any("go back to" in t for t in texts)  # a reverted email
    assert any("Back to my" in t for t in texts)  # a return to an earlier device
    assert any(f.name.endswith("order_spare") for c in corpus for f in c.facts)
    for topic in ("contact", "po_box", "availability"):
        assert any(f.name == f"constraint.{topic}" for c in corpus for f in c.facts), topic
    asked = [p for c in corpus for p in c.probes if p.answerable]
    assert {"constraint", "commitment"} <= {p.category for p in asked}


def test_corpus_lengths_spread_over_the_range():
    corpus = planted_corpus(4, min_turns=30, max_turns=90, seed=5)
    assert [c.n_turns for c in corpus] == [30, 50, 70, 90]
    assert [c.meta["seed"] for c in corpus] == [5, 6, 7, 8]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"turns": 5}, "turns must be an integer >= 12"),
    ({"seed": -1}, "seed must be"),
    ({"issues": 9}, "issues must be an integer from 1"),
    ({"constraints": 4}, "constraints must be"),
    ({"turns": 14, "issues": 4}, "too short for 4 issues"),
    ({"probe_every": 0}, "probe_every"),
])
def test_bad_arguments_name_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        planted_case(**kwargs)
    with pytest.raises(ValueError, match="n must be"):
        planted_corpus(0)
