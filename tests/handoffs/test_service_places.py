"""Where a service issue is (issue 30, SGD): a back-reference's place note, the place an
issue carries from the one before it, and a thank-you that only pauses the conversation.
Each rule is switched off in a broken variant, which must change the outcome."""

from __future__ import annotations

import re

import pytest

from ctxlab.handoffs import packaged_schema, split_issues

from conftest import assistant, user

SGD = packaged_schema("sgd")


def _contexts(items: list[dict]) -> list[tuple[str, tuple[str, ...]]]:
    return [(i.subject, i.context) for i in split_issues(items, schema=SGD).issues]


def _hotel_then_rental(where: str) -> list[dict]:
    return [user("Find me a hotel in Chicago for 2 nights."),
            assistant("The Palmer House has a room."),
            user("Good. Can I get a rental car there?"), assistant("When do you want it?"),
            user(where), assistant("A Honda Civic, $40 a day.")]


def _hotel_then_flight(when: str) -> list[dict]:
    return [user("Find me a hotel in Seattle for 2 nights."),
            assistant("The Mayflower Park has a room."),
            user("Good. I also need a flight there."), assistant("When do you leave?"),
            user(when), assistant("Alaska at 9 am.")]


@pytest.mark.parametrize("broken", ["", "no drop", "origins never", "origins always"])
def test_a_back_references_place_is_dropped_when_the_issues_own_turns_say_where_it_is(
        broken, monkeypatch):
    from ctxlab.handoffs import service_split
    from ctxlab.handoffs.services import ServiceSchema

    if broken == "no drop":  # the note stays, whatever the issue's own turns say
        monkeypatch.setattr(service_split, "located", lambda line, origins=True, cities=False: [])
    if broken == "origins never":  # every service a trip: "pick it up from" is no place
        monkeypatch.setattr(ServiceSchema, "leaves_from", lambda self, service: True)
    if broken == "origins always":  # no service a trip: a flight's origin is where it is
        monkeypatch.setattr(ServiceSchema, "leaves_from", lambda self, service: False)
    # "a rental car there" points to Chicago; the customer then says where it is
    inside = _contexts(_hotel_then_rental("On March 3rd, in Evanston."))
    assert [s for s, _c in inside] == ["Hotels", "RentalCars"]
    assert (inside[1][1] == ()) is (broken != "no drop")
    # a rental's pickup is where it is ("pick it up from Evanston")
    pickup = _contexts(_hotel_then_rental("On March 3rd. I'll pick it up from Evanston."))
    assert (pickup[1][1] == ()) is (broken not in ("no drop", "origins never"))
    # a turn that names no place keeps the note
    assert _contexts(_hotel_then_rental("On March 3rd, at 10 am."))[1] == ("RentalCars",
                                                                          ("Chicago",))
    # a flight's "from Fresno" is where it leaves from, not where it goes: "there" stays
    flight = _contexts(_hotel_then_flight("On March 3rd, from Fresno."))
    assert flight[1][0] == "Flights"
    assert (flight[1][1] == ("Seattle",)) is (broken != "origins always")


def _rental_then_hotel() -> list[dict]:
    """The pickup city said once, more than four turns before the hotel is asked for."""
    return [user("I'd like to rent a car from Boston on March 3rd."),
            assistant("A Ford Focus at Logan Airport, $38 a day."),
            user("Anything bigger?"), assistant("A Toyota Camry, $45 a day."),
            user("Does it have a sunroof?"), assistant("Yes."),
            user("Can I return it on the 6th?"), assistant("Yes."),
            user("Book it."), assistant("Booked."),
            user("Now I need a hotel for 2 nights."), assistant("How many rooms?")]


def _hotel_then_flight_leaving(flight: str) -> list[dict]:
    return [user("Find me a hotel in Chicago for 2 nights."),
            assistant("The Palmer House has a room."),
            user("Book it."), assistant("Booked."),
            user(flight), assistant("United at 9 am.")]


@pytest.mark.parametrize("broken", ["", "toward only", "any place stops it"])
def test_a_new_issue_carries_where_the_issue_before_was_located(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken == "toward only":  # a rental's pickup "from Boston" is not where it is
        carry = service_split._carry
        monkeypatch.setattr(service_split, "_carry", lambda state, previous, origins:
                            carry(state, previous, origins=False))
    if broken == "any place stops it":  # the first edition: a trip's origin stops the carry
        monkeypatch.setattr(service_split, "located",
                            lambda line, origins=True, cities=False: service_split.places_in(line))
    rental = _contexts(_rental_then_hotel())
    assert [s for s, _c in rental] == ["RentalCars", "Hotels"]
    assert (rental[1][1] == ("Boston",)) is (broken != "toward only")
    # the hotel was in Chicago; the flight's own turns say only where it leaves from
    origin = _contexts(_hotel_then_flight_leaving("I also need a flight on March 5th, "
                                                  "from Denver."))
    assert [s for s, _c in origin] == ["Hotels", "Flights"]
    assert (origin[1][1] == ("Chicago",)) is (broken != "any place stops it")
    # a flight whose own turns say where it goes carries nothing
    assert _contexts(_hotel_then_flight_leaving("I also need a flight on March 5th, to "
                                                "Denver."))[1] == ("Flights", ())


def _hotel_then(thanks: str, reply: str, next_turn: str) -> list[dict]:
    return [user("I need a hotel in Portland for 2 nights."),
            assistant("The Nines has a room. Shall I book it?"),
            user("Yes, please."), assistant("Booked."),
            user(thanks), assistant(reply),
            user(next_turn), assistant("When would you like it?")]


_THERE = "Yes, find me a restaurant there."
_CAR = "I also need a rental car for the 5th."


@pytest.mark.parametrize("broken", ["", "no pause", "farewell pauses", "goodbye pauses"])
def test_a_thank_you_answered_with_a_question_only_pauses_the_conversation(broken,
                                                                           monkeypatch):
    from ctxlab.handoffs import service_split

    if broken == "no pause":  # every thank-you ends the conversation
        monkeypatch.setattr(service_split, "_asks", lambda replies: False)
    if broken == "farewell pauses":  # any reply taken for a question
        monkeypatch.setattr(service_split, "_asks", lambda replies: True)
    if broken == "goodbye pauses":  # "that's all" read as a plain thank-you
        monkeypatch.setattr(service_split, "GOODBYE", re.compile(r"(?!)"))
    paused, ended = ("Portland",), ()
    # "Thanks!" -> "Anything else?": "there" still finds Portland, and a new issue still
    # carries the hotel's place
    for turn in (_THERE, _CAR):
        got = _contexts(_hotel_then("Thanks!", "Anything else I can help with?", turn))
        assert [s for s, _c in got] == ["Hotels", "Restaurants" if turn == _THERE
                                        else "RentalCars"]
        assert (got[1][1] == paused) is (broken != "no pause")
    # "Thanks!" -> "Have a nice day.": the conversation ended; Portland is not used
    for turn in (_THERE, _CAR):
        got = _contexts(_hotel_then("Thanks!", "Have a nice day.", turn))
        assert (got[1][1] == ended) is (broken != "farewell pauses")
    # a goodbye ends it, whatever the agent answers
    for turn in (_THERE, _CAR):
        got = _contexts(_hotel_then("Thanks, that's all.", "Anything else I can do?", turn))
        assert (got[1][1] == ended) is (broken != "goodbye pauses")


@pytest.mark.parametrize("broken", [False, True])
def test_a_venue_or_landmark_is_not_the_issues_own_city(broken, monkeypatch):
    from ctxlab.handoffs import service_split

    if broken:  # any place after to/in/at/near counts as the issue's own city
        monkeypatch.setattr(service_split, "_IN_CITY", service_split._TOWARD)
    # "a rental car there" is in Chicago; "at O'Hare" names where in Chicago
    context = _contexts(_hotel_then_rental("On March 3rd, pick it up at Midway Airport."))
    assert (context[1] == ("RentalCars", ("Chicago",))) is not broken


@pytest.mark.parametrize("broken", [False, True])
def test_where_a_hotel_guest_comes_from_is_not_carried(broken, monkeypatch):
    from ctxlab.handoffs.services import ServiceSchema

    if broken:  # every service's "from X" taken for where it is
        monkeypatch.setattr(ServiceSchema, "picks_up", lambda self, service: True)
    items = [user("I need a hotel for 2 nights; I'm driving in from Fresno."),
             assistant("Where should I look?"), user("Anywhere is fine."),
             assistant("The Hilton has a room."), user("Book it."), assistant("Booked."),
             user("I also need a rental car for the 5th."), assistant("Where?")]
    context = _contexts(items)
    assert [s for s, _c in context] == ["Hotels", "RentalCars"]
    assert (context[1][1] == ()) is not broken
