"""A trip opened right after another trip is the same journey (issue 30): "a flight there"
after a bus from Washington to New York for four people is handed over with where it goes,
where it leaves from and for how many, unless its own turns say otherwise."""

from __future__ import annotations

import pytest

from ctxlab.handoffs import packaged_schema, split_issues

from conftest import assistant, user

SGD = packaged_schema("sgd")

_BUS = [user("I need a bus to New York from Washington for four people."),
        assistant("One leaves at 8:10 am with 0 transfers."),
        user("Which station does it leave from?"), assistant("Union Station."),
        user("Okay, that sounds fine."), assistant("Shall I buy the tickets?"),
        user("No, not now."), assistant("Anything else?")]


def _flight(*turns: dict) -> tuple:
    split = split_issues([*_BUS, *turns], schema=SGD)
    assert [i.subject for i in split.issues] == ["Buses", "Flights"]
    return split.issues[1].context


@pytest.mark.parametrize("broken", ["", "no same trip", "no party"])
def test_a_flight_after_a_bus_is_the_same_journey(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken == "no same trip":
        monkeypatch.setattr(service_split, "_same_trip", lambda state: None)
    if broken == "no party":
        monkeypatch.setattr(service_split, "_party", lambda state, number: None)
    context = _flight(user("Are there any one-way flights that will go there?"),
                      assistant("On March 3rd?"), user("Yes."), assistant("United, 9 am."))
    if broken == "no same trip":  # "there" alone: the destination, nothing of the rest
        assert context == ("New York",)
    elif broken == "no party":
        assert context == ("New York", "Washington")
    else:
        assert context == ("New York", "Washington", "four people")


def test_what_the_trips_own_turns_say_wins():
    # its own origin and party: only where it goes is carried
    context = _flight(user("A one-way flight there from Boston for 2 people, please."),
                      assistant("On March 3rd?"))
    assert context == ("New York",)
    # its own destination: where it leaves from and the party are still the bus's
    context = _flight(user("Find me a one-way flight to Chicago instead."),
                      assistant("From Washington?"))
    assert context == ("Washington", "four people")


@pytest.mark.parametrize("broken", [False, True])
def test_a_trip_after_a_service_that_is_no_trip_carries_no_origin(broken, monkeypatch):
    from ctxlab.handoffs.services import ServiceSchema

    if broken:  # every service taken for a trip
        monkeypatch.setattr(ServiceSchema, "leaves_from", lambda self, service: True)
    items = [user("Find me a hotel in Denver for four people, I leave from Austin."),
             assistant("The Brown Palace, 4 stars."), user("Good."),
             assistant("Anything else?"),
             user("Yes, a one-way flight there on the 3rd."), assistant("From where?")]
    split = split_issues(items, schema=SGD)
    assert [i.subject for i in split.issues] == ["Hotels", "Flights"]
    # a hotel stay is no journey: the flight goes there, nothing about origins or party
    assert (split.issues[1].context == ("Denver",)) is not broken


def test_the_english_note_lists_what_was_named_apart():
    from ctxlab.handoffs import IssueHandover, view_text

    from conftest import arun

    items = [*_BUS, user("Are there any one-way flights that will go there?"),
             assistant("On March 3rd?")]
    handover = IssueHandover(schema=SGD)
    split = handover.split(items)
    text = view_text(arun(handover.issue_items(split, 2)))
    # "Seattle, WA" holds a comma itself: the entries are kept apart by semicolons
    assert "Earlier the customer named: New York; Washington; four people" in text
    assert "、" not in text
