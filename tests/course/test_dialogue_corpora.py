"""SGD and CrossWOZ loaders and the answer keys their state annotations give."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ctxlab.core.validate import validate_items
from ctxlab.course.corpora import (
    Dialogue,
    Turn,
    answer_key,
    chain_customers,
    load_crosswoz,
    load_sgd,
    load_sgd_schema,
    sgd_dialogue,
    split_half,
)
from ctxlab.course.corpora import dialogues as dialogues_module

SHARED = Path("/work/shared/data")


def _dialogue(*turns: tuple[str, str, dict | None]) -> Dialogue:
    return Dialogue("d1", "test", "en", tuple(Turn(s, t, st) for s, t, st in turns), ("Hotels",))


CHANGED = _dialogue(
    ("user", "Book a room in Paris for March 3rd.", {"Hotels": {"city": ("Paris",),
                                                                 "date": ("March 3rd",)}}),
    ("agent", "Which hotel? The Ritz or the Hilton?", None),
    ("user", "The Ritz. Actually make it March 5th.", {"Hotels": {
        "city": ("Paris",), "date": ("March 5th",), "name": ("The Ritz", "Ritz")}}),
    ("agent", "Booked the Ritz for March 5th.", None),
)


def test_answer_key_keeps_the_last_value_and_the_superseded_ones():
    key = {f.slot: f for f in answer_key(CHANGED)}
    assert key["date"].value == "March 5th" and key["date"].superseded == ("March 3rd",)
    assert key["city"].superseded == () and key["city"].speaker == "user"
    assert key["name"].turn == 2 and key["name"].speaker == "user"


def test_answer_key_drops_values_no_turn_contains():
    unsaid = _dialogue(("user", "Book a room.", {"Hotels": {"rating": ("4.5",)}}))
    assert answer_key(unsaid) == ()


def test_an_accepted_offer_is_the_agents_value():
    offered = _dialogue(("agent", "Shall I book the Hilton?", None),
                        ("user", "Yes please.", {"Hotels": {"name": ("Hilton",)}}))
    (fact,) = answer_key(offered)
    assert (fact.speaker, fact.turn) == ("agent", 0)


def test_more_surface_forms_of_one_value_are_not_a_change():
    forms = _dialogue(("user", "On the 11th of March.", {"H": {"date": ("11th of March",)}}),
                      ("agent", "March 11th, then.", None),
                      ("user", "Yes.", {"H": {"date": ("11th of March", "March 11th")}}))
    (fact,) = answer_key(forms)
    assert fact.superseded == () and fact.speaker == "user"


def test_a_key_that_keeps_the_first_value_is_caught(monkeypatch):
    """Broken variant: an answer key reading the first state instead of the last."""
    real = dialogues_module.slot_histories

    def first_only(turns):
        return {k: v[:1] for k, v in real(turns).items()}

    monkeypatch.setattr(dialogues_module, "slot_histories", first_only)
    key = {f.slot: f for f in answer_key(CHANGED)}
    assert key["date"].value != "March 5th"  # the test above would fail on it


def test_packaged_sgd_subset_loads_with_schema_and_changes():
    dialogues = load_sgd()
    assert len(dialogues) == 160 and all(d.language == "en" for d in dialogues)
    assert sum(len(d.topics) > 1 for d in dialogues) == 128
    facts = [f for d in dialogues for f in d.facts()]
    assert sum(bool(f.superseded) for f in facts) > 50
    services = {s["service_name"] for s in load_sgd_schema()}
    assert {t for d in dialogues for t in d.topics} <= services
    for d in dialogues[:20]:
        assert validate_items(d.items()) == []


def test_packaged_crosswoz_subset_has_topics_per_sub_goal():
    dialogues = load_crosswoz()
    assert len(dialogues) == 160 and all(d.language == "zh" for d in dialogues)
    facts = [f for d in dialogues for f in d.facts()]
    assert {f.speaker for f in facts} == {"user", "agent"}
    assert all("#" in f.topic and f.value not in ("是", "否") for f in facts)
    assert not any("id=" in f.value or f.value.startswith("#") for f in facts)
    text = {d.id: "".join(t.text for t in d.turns) for d in dialogues}
    assert all(f.value in text[f.dialogue_id] for f in facts)


def test_customers_chain_four_days_and_halves_are_disjoint():
    customers = chain_customers(load_sgd())
    assert len(customers) == 40 and all(len(c.dialogues) == 4 for c in customers)
    assert {f.day for f in customers[0].facts()} == {0, 1, 2, 3}
    tune, report = split_half(customers, "tune"), split_half(customers, "report")
    assert len(tune) == len(report) == 20
    assert not {c.id for c in tune} & {c.id for c in report}
    with pytest.raises(ValueError, match="half"):
        split_half(customers, "test")  # type: ignore[arg-type]


def test_bad_records_name_what_is_wrong():
    with pytest.raises(ValueError, match="SGD"):
        sgd_dialogue({"dialogue_id": "x"})
    with pytest.raises(FileNotFoundError, match="load_sgd"):
        load_sgd("/nonexistent-dir")


def test_loaders_return_fresh_lists():
    first = load_sgd()
    first.clear()
    assert len(load_sgd()) == 160
    assert dataclasses.is_dataclass(load_crosswoz()[0])


@pytest.mark.skipif(not SHARED.exists(), reason="the full splits are not on this machine")
def test_full_splits_load():
    assert len(load_sgd(SHARED / "sgd")) == 640
    assert len(load_crosswoz(SHARED / "crosswoz")) == 500
