"""Handovers and long-term recall scored on the SGD and CrossWOZ subsets (issue 30): the
per-service handover beats the device-word one, topic memory recalls what notes do not,
no customer gets a profile value they never wrote, and the CLI runs both on a corpus."""

from __future__ import annotations

import json

import pytest

from ctxlab.cli import main
from ctxlab.course.corpora.dialogues import SlotFact
from ctxlab.eval.dialogue_cases import dialogue_customers
from ctxlab.eval.dialogue_handoffs import issue_turns, score_dialogue_handoffs, score_view
from ctxlab.eval.dialogue_sessions import question, questions, score_dialogue_sessions

from conftest import arun


def _fact(topic: str, slot: str, value: str, old: tuple[str, ...] = ()) -> SlotFact:
    return SlotFact("d", topic, slot, value, (value,), old, "user", 0)


def test_score_view_reads_missing_leaked_and_stale_values():
    facts = {(0, "Hotels_1"): [_fact("Hotels_1", "check_in", "March 3rd", ("March 2nd",))],
             (0, "Buses_1"): [_fact("Buses_1", "origin", "Fresno"),
                              _fact("Buses_1", "date", "March 3rd")]}
    own = "I need a hotel from March 3rd."
    assert score_view("Hotel from March 3rd.", (0, "Hotels_1"), facts, own, "en") == ((), (), ())
    missing, leaked, stale = score_view("Hotel from March 2nd; bus from Fresno.",
                                        (0, "Hotels_1"), facts, own, "en")
    assert missing == ("March 3rd",) and leaked == ("Fresno",) and stale == ("March 2nd",)
    # a value the issue's own turns also hold is no leak (the bus date is the hotel's too)
    assert score_view("March 3rd", (0, "Hotels_1"), facts, own, "en")[1] == ()


@pytest.mark.parametrize("spec", ["sgd:tune:2", "crosswoz:report:1"])
def test_per_service_handovers_beat_device_words_and_full_history(spec):
    rows = {r["mode"]: r for r in arun(score_dialogue_handoffs(
        spec, ["full", "per-issue", "per-service"])).rows()}
    assert rows["full"]["leaked"] == 1.0  # every customer has several issues
    assert rows["per-service"]["right"] > max(rows["full"]["right"], rows["per-issue"]["right"])
    assert rows["per-service"]["tokens"] < rows["full"]["tokens"] / 3


def test_issue_turns_cover_every_issue_with_values():
    customer = dialogue_customers("sgd:tune:1")[0]
    turns = issue_turns(customer)
    for fact in customer.facts():
        assert turns[(fact.day, fact.topic)]


def test_questions_ask_the_latest_value_in_the_customers_language():
    customer = dialogue_customers("crosswoz:tune:1")[0]
    asked = questions(customer)
    assert len({(a.fact.topic.split("#")[0], a.fact.slot) for a in asked}) == len(asked)
    assert all(a.text.endswith("？") for a in asked)
    assert question(_fact("酒店#2", "名称", "北京饭店"), "zh") == "上次那家酒店叫什么名字来着？"
    assert "rental car" in question(_fact("RentalCars_1", "dropoff_date", "the 9th"), "en")


@pytest.mark.parametrize("spec", ["sgd:report:2", "crosswoz:tune:2"])
def test_topics_recall_what_notes_miss_and_no_profile_is_false(spec):
    rows = {r["setting"]: r for r in arun(score_dialogue_sessions(
        spec, ["notes", "topics"])).rows()}
    assert rows["topics"]["recalled"] >= 0.85 > rows["notes"]["recalled"]
    assert rows["topics"]["false_profile"] == rows["notes"]["false_profile"] == 0
    assert rows["topics"]["false_fault"] == 0


def test_the_cli_runs_on_a_corpus(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["eval-handoffs", "--corpus", "sgd:report:1", "--mode", "per-service",
                 "--out", str(out)]) == 0
    assert main(["eval-sessions", "--corpus", "crosswoz:tune:1", "--setting", "topics",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "sgd:report:1: per-issue handovers" in printed and "long-term recall" in printed
    saved = {p.name.split("-")[0]: json.loads(p.read_text()) for p in out.iterdir()}
    assert saved["handoffs"]["corpora"]["sgd:report:1"][0]["mode"] == "per-service"
    assert saved["sessions"]["corpora"]["crosswoz:tune:1"][0]["setting"] == "topics"
    assert main(["eval-handoffs", "--corpus", "sgd", "--mode", "bogus"]) == 2
    assert main(["eval-sessions", "--corpus", "sgd:1", "--setting", "everything"]) == 2
    assert main(["eval-sessions", "--corpus", "woz"]) == 2


def test_the_sentence_split_mode_is_scored_and_a_misspelt_mode_is_refused():
    rows = {r["mode"]: r for r in arun(score_dialogue_handoffs(
        "sgd:report:1", ["per-service", "per-service+sentences"])).rows()}
    assert set(rows) == {"per-service", "per-service+sentences"}
    assert rows["per-service+sentences"]["issues"] == rows["per-service"]["issues"] > 0
    with pytest.raises(ValueError, match="per-service\\+sentences"):
        arun(score_dialogue_handoffs("sgd:report:1", ["per-service+sentence"]))
