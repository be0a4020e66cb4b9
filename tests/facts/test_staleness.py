"""Stale regions: the one reading rule for "which value does this text present as current"."""

from __future__ import annotations

import pytest

from ctxlab.facts.staleness import Mention, current_mention, is_stale_at, stale_marks
from ctxlab.facts.typed import facts_in_text, latest_fact


def stale_values(text: str) -> set[str]:
    return {f.value for f in facts_in_text(text) if f.stale}


@pytest.mark.parametrize(("text", "stale", "current"), [
    ("Email: b@x.org (since turn 31; earlier: a@x.org until turn 30)", {"a@x.org"}, "b@x.org"),
    ("superseded: user.email a@x.org (t1) -> b@x.org (t12)", {"a@x.org"}, "b@x.org"),
    ("Superseded: v1.0.3 -> v1.0.4", {"v1.0.3"}, "v1.0.4"),
    ("Please use b@x.org instead of a@x.org.", {"a@x.org"}, "b@x.org"),
    ("Ticket TCK-12345 was merged into TCK-67890.", {"TCK-12345"}, "TCK-67890"),
    ('{"rma": "RMA-222222", "replaces": "RMA-111111"}', {"RMA-111111"}, "RMA-222222"),
    ("reach me at a@x.org [superseded by b@x.org in turn 20]", {"a@x.org"}, "b@x.org"),
    ("the serial is actually C02ABC123XYZ, not C02ABC123XYW.", {"C02ABC123XYW"},
     "C02ABC123XYZ"),
    ("my old address a@x.org is being shut down, please use b@x.org from now on",
     {"a@x.org"}, "b@x.org"),
])
def test_values_marked_old_are_stale_and_the_reader_takes_the_other(text, stale, current):
    assert stale_values(text) == stale
    assert latest_fact(facts_in_text(text)).value == current


@pytest.mark.parametrize("text", [
    "Actually, please go back to my old address a@x.org, the new one bounces.",
    "Firmware v1.0.3 needs an update to v1.0.4.",
    "You can reach me at a@x.org if we get cut off.",
])
def test_ordinary_sentences_mark_nothing(text):
    assert stale_values(text) == set()


def test_an_earlier_note_runs_past_semicolons_to_the_end_of_its_sentence():
    text = "earlier: Please never ship to my home; use the Porto office instead. Leeds office"
    marks = stale_marks(text)
    porto = text.index("Porto office")
    leeds = text.index("Leeds office")
    assert marks.covers(porto, porto + len("Porto office"))
    assert not marks.covers(leeds, leeds + len("Leeds office"))
    assert is_stale_at(text, porto) and not is_stale_at(text, leeds)


def test_only_stale_mentions_mean_there_is_no_current_value():
    assert latest_fact(facts_in_text("earlier: a@x.org until turn 3")) is None
    mentions = [Mention("a", 0, 1, True), Mention("b", 5, 6, False), Mention("a", 9, 10, True)]
    assert current_mention(mentions).value == "b"
    assert current_mention([Mention("a", 0, 1, True)]) is None
    assert not stale_marks("") and len(stale_marks("x -> y")) == 1


def test_a_bad_argument_is_named():
    with pytest.raises(TypeError, match="expects a str"):
        stale_marks(42)  # type: ignore[arg-type]
