"""Categorical slot values as a service's slot words, and a tie settled by the turn's
own slot words (issue 30, SGD). Each rule is switched off in a broken variant, which must
change the outcome."""

from __future__ import annotations

import pytest

from ctxlab.handoffs import packaged_schema, service_schema, split_issues

from conftest import assistant, user

SGD = packaged_schema("sgd")

_EVENTS = [
    {"service_name": "Events_1", "description": "Find concerts and games",
     "slots": [{"name": "category", "is_categorical": True,
                "possible_values": ["Music", "Sports"]},
               {"name": "number_of_seats", "is_categorical": True,
                "possible_values": ["1", "2", "3"]},
               {"name": "is_free", "is_categorical": True,
                "possible_values": ["True", "False", "dontcare"]},
               {"name": "subcategory", "is_categorical": False,
                "possible_values": ["Rock"]},
               {"name": "event_name", "is_categorical": False, "possible_values": []}]},
    {"service_name": "Events_2", "description": "Get tickets for shows",
     "slots": [{"name": "category", "is_categorical": True,
                "possible_values": ["Theater", "Music"]}]},
]


@pytest.mark.parametrize("broken", ["", "no values", "flags are words"])
def test_a_schemas_categorical_values_are_its_slot_words_not_flags_or_counts(
        broken, monkeypatch):
    from ctxlab.handoffs import services

    if broken == "no values":
        monkeypatch.setattr(services, "_categories", lambda raw: [])
    if broken == "flags are words":
        monkeypatch.setattr(services, "_NOT_WORDS", frozenset())
    events = service_schema(_EVENTS).service("Events")
    # the categorical slots' words, variants merged, each once; a free-text slot's
    # examples ("Rock"), counts and flags are no words of the service
    wanted = ("Music", "Sports", "Theater")
    assert (events.values == wanted) is not broken, events.values
    assert events.slots[:2] == ("category", "number of seats")
    assert ("Events" in service_schema(_EVENTS).value_scores("Any pop music?")) \
        is (broken != "no values")
    # a {service: [slots]} schema has no categorical slots: no values, as before
    plain = service_schema({"Plumbing": ["address", "visit_date"], "Cleaning": ["rooms"]})
    assert [s.values for s in plain.services] == [(), ()]
    assert plain.service("Plumbing").slots == ("address", "visit date")


def _event_search() -> list[dict]:
    return [user("Find me an event in Berkeley on March 4th."), assistant("What kind of event?"),
            user("A rock concert or anything else with music."),
            assistant("Nattali Rize is at Cornerstone on March 4th.")]


@pytest.mark.parametrize("broken", [False, True])
def test_a_category_value_during_a_search_stays_with_that_service(broken, monkeypatch):
    from ctxlab.handoffs import services

    if broken:  # the packaged schema without the categorical values
        monkeypatch.setattr(services, "_categories", lambda raw: [])
    schema = services._packaged.__wrapped__("sgd")
    assert ("Music" in schema.service("Events").values) is not broken
    split = split_issues(_event_search(), schema=schema)
    subjects = [split.issue(n).subject for n in split.turn_issue]
    # "music" is the Music service's cue and an event's category: during an event search
    # it asks about the event
    assert (subjects == ["Events", "Events"]) is not broken, subjects


@pytest.mark.parametrize("broken", [False, True])
def test_a_tie_the_answer_leaves_open_goes_to_the_service_the_turn_asks_about(
        broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # the turn's own words left out: the tie to the service named last
        choose = service_split._choose
        monkeypatch.setattr(service_split, "_choose",
                            lambda cues, threshold, answer, schema, text="":
                            choose(cues, threshold, answer, schema))
    start = user("Can you find me a music event? i prefer pop music")
    # "event" (Events) and "music" (Music) tie; "music" is an event's category
    split = split_issues([start, assistant("What city should I look in?")], schema=SGD)
    assert ([i.subject for i in split.issues] == ["Events"]) is not broken
    # an answer that names a service still settles the tie first
    played = split_issues([start, assistant("Which song should I play for you?")],
                          schema=SGD)
    assert [i.subject for i in played.issues] == ["Music"]


def test_values_match_whole_and_open_nothing():
    # a value of several words is matched whole: "first thing" is not "First Class"
    assert SGD.value_scores("I want to leave first thing tomorrow.") == {}
    assert SGD.value_scores("Two First Class seats, please.") == {"Flights": 1.0}
    # a value never opens a service on its own: "something cheap" waits for a cue
    split = split_issues([user("Something cheap in Oakland, please."),
                          assistant("What are you looking for?")], schema=SGD)
    assert split.issues == ()


@pytest.mark.parametrize("broken", [False, True])
def test_a_value_is_no_cue_for_the_current_service(broken, monkeypatch):
    from ctxlab.handoffs import services

    if broken:  # values counted among the slot words a cue of the current service is
        owners = services._slot_owners.__wrapped__

        def with_values(schema):
            out = owners(schema)
            for service in schema.services:
                for value in service.values:
                    out.setdefault(value.lower(), {})[service.name] = None
            return out

        monkeypatch.setattr(services, "_slot_owners", with_values)
    split = split_issues([*_event_search(), user("Great. Now play some music."),
                          assistant("Which song?")], schema=SGD)
    # "music" is an event's category, but "play some music" asks the music service
    assert ([i.subject for i in split.issues] == ["Events", "Music"]) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_a_cue_said_with_ing_or_ed_still_counts(broken, monkeypatch):
    from ctxlab.handoffs import services

    if broken:  # the plural stem only, as before
        monkeypatch.setattr(services, "_forms", lambda word: [services.stem(word)])
    assert ("Hotels" in SGD.scores("I will be staying for seven days.")) is not broken
    assert ("Restaurants" in SGD.scores("We are eating out tonight.")) is not broken
    # a word that is a cue as it stands keeps its own service ("checking" is a bank's)
    assert "Banks" in SGD.scores("What is in my checking account?")
