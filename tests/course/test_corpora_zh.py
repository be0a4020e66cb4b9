"""The Chinese support corpus: valid items, facts that point at the items holding them,
typed facts the Chinese patterns find, updates, the fridge example and its license."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from ctxlab import validate_items
from ctxlab.core.items import item_text
from ctxlab.course.corpora import ZH_SOURCE, load_zh_support
from ctxlab.facts.typed import ALL_FACT_KINDS, facts_in_text

CONVERSATIONS = load_zh_support()


def test_the_corpus_has_fourteen_long_enough_valid_conversations():
    assert len(CONVERSATIONS) == 14
    assert len({c.id for c in CONVERSATIONS}) == 14
    for conv in CONVERSATIONS:
        assert conv.source == ZH_SOURCE and conv.meta["language"] == "zh"
        assert validate_items(conv.items) == [], conv.id
        assert 10 <= conv.turn_count <= 12, conv.id
        assert any(it.get("type") == "function_call" for it in conv.items), conv.id
    call_ids = [it["call_id"] for c in CONVERSATIONS for it in c.items
                if it.get("type") == "function_call"]
    assert len(call_ids) == len(set(call_ids))  # unique across the whole corpus


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_every_fact_points_at_the_first_item_that_holds_it(conv):
    texts = [item_text(it) for it in conv.items]
    assert conv.facts and all(f.mentioned for f in conv.facts)
    for fact in conv.facts:
        bounded = re.compile(r"(?<![A-Za-z0-9])" + re.escape(fact.value) + r"(?![A-Za-z0-9])")
        holders = [i for i, text in enumerate(texts) if bounded.search(text)]
        assert holders and holders[0] == fact.first_item, fact


@pytest.mark.parametrize("conv", CONVERSATIONS, ids=lambda c: c.id)
def test_typed_facts_are_found_by_the_chinese_patterns(conv):
    for fact in conv.facts:
        if fact.name not in ALL_FACT_KINDS:
            continue
        found = {f.value for it in conv.items
                 for f in facts_in_text(item_text(it), kinds=[fact.name])}
        assert fact.value in found, fact


def test_updates_name_a_replaced_value_and_where_the_new_one_holds():
    updated = [c for c in CONVERSATIONS if c.meta["updates"]]
    kinds = {u["fact"] for c in updated for u in c.meta["updates"]}
    assert {"email", "firmware", "phone", "date"} <= kinds
    for conv in updated:
        values = {(f.name, f.value): f for f in conv.facts}
        for update in conv.meta["updates"]:
            old, new = values[update["fact"], update["old"]], values[update["fact"], update["new"]]
            assert old.first_item < update["from_item"]
            assert new.first_item <= update["from_item"]


def test_constraints_and_commitments_are_planted():
    names = [f.name for c in CONVERSATIONS for f in c.facts]
    assert sum(n.startswith("constraint.") for n in names) >= 10
    assert sum(n.startswith("commitment.") for n in names) >= 4
    values = {f.value for c in CONVERSATIONS for f in c.facts}
    assert {"别寄到快递柜", "不要给我打电话"} <= values


def test_the_fridge_example_buries_the_model_under_tool_noise():
    fridge = next(c for c in CONVERSATIONS if c.id == "zh-01-fridge-bcd123")
    model = next(f for f in fridge.facts if f.name == "model")
    assert (model.value, model.first_item, model.where) == ("BCD-123", 0, "user")
    noise = sum(len(item_text(it)) for it in fridge.items
                if it.get("type") == "function_call_output")
    assert noise > 1200  # characters of JSON logs and policy clauses
    last_user = [it for it in fridge.items if it.get("role") == "user"][-1]
    assert "我这个型号能免费维修吗" in last_user["content"]
    assert "BCD-123" not in last_user["content"]
    assert fridge.fact_ages()["model=BCD-123"] == fridge.turn_count - 1  # said in turn 1


def test_loaders_return_fresh_copies_and_the_license_ships():
    first = load_zh_support()
    first[0].items.clear()
    assert load_zh_support()[0].items
    data = resources.files("ctxlab").joinpath("data", "zh_support")
    assert "CC BY 4.0" in data.joinpath("LICENSE").read_text(encoding="utf-8")


def test_no_chat_reuses_another_chats_small_talk_word_for_word():
    """Each chat's filler turns (opening hours, points, invoices, manuals, trade-ins, "are
    you still there?") are written for that chat and its device; only a bare "好的，谢谢。"
    may recur."""
    seen: dict[str, str] = {}
    repeats = []
    for conv in CONVERSATIONS:
        for item in conv.items:
            text = item.get("content")
            if not isinstance(text, str) or len(text) <= 8:
                continue
            if text in seen and seen[text] != conv.id:
                repeats.append((seen[text], conv.id, text))
            seen.setdefault(text, conv.id)
    assert repeats == []
