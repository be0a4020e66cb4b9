"""SGD's requested slots (issue 30): a user turn that asks for a service's slot ("Can I
get their address?") belongs to that service's issue in the answer key, even when the
value the agent gives is first said there for another service (the ride to the address).
"""

from __future__ import annotations

import dataclasses

import pytest

from ctxlab.course.corpora import sgd
from ctxlab.course.corpora.dialogues import Customer, Turn
from ctxlab.eval.dialogue_handoffs import issue_turns

THERAPIST = {"city": ["Campbell"], "type": ["Psychologist"]}


def _user(text: str, *frames: tuple[str, dict, list[str]]) -> dict:
    return {"speaker": "USER", "utterance": text,
            "frames": [{"service": service, "actions": [], "slots": [],
                        "state": {"active_intent": "NONE", "requested_slots": requested,
                                  "slot_values": values}}
                       for service, values, requested in frames]}


def _agent(text: str, service: str) -> dict:
    return {"speaker": "SYSTEM", "utterance": text,
            "frames": [{"service": service, "actions": [], "slots": []}]}


def _record() -> dict:
    """A therapist, their address asked for, then a ride to that address: the address is
    first said in the agent's answer to the therapist question, and it is the ride's
    destination in the state."""
    ride = {"destination": ["2141 Winchester Boulevard"], "number_of_riders": ["2"]}
    return {"dialogue_id": "t37_00001", "services": ["Services_4", "RideSharing_2"],
            "turns": [
                _user("I'm looking for a psychologist in Campbell.",
                      ("Services_4", THERAPIST, [])),
                _agent("Dr. Helen Ortiz is a psychologist in Campbell.", "Services_4"),
                _user("Can I get their address?", ("Services_4", THERAPIST, ["address"])),
                _agent("Her office is at 2141 Winchester Boulevard.", "Services_4"),
                _user("Great. Please get me a cab there for 2 people.",
                      ("Services_4", THERAPIST, []), ("RideSharing_2", ride, [])),
                _agent("Your ride to 2141 Winchester Boulevard is on its way.",
                       "RideSharing_2"),
                _user("Thanks, that's all.", ("Services_4", THERAPIST, []),
                      ("RideSharing_2", ride, [])),
                _agent("Have a nice day.", "RideSharing_2")]}


def test_the_loader_reads_which_services_a_user_turn_asks_about():
    dialogue = sgd.sgd_dialogue(_record())
    assert [t.asks for t in dialogue.turns] == [(), (), ("Services_4",), (), (), (), (), ()]
    # a requested slot fills no value: the state stays the therapist's
    assert dialogue.turns[2].state == {"Services_4": {k: tuple(v) for k, v in THERAPIST.items()}}
    # a Turn built without ``asks`` (CrossWOZ, hand-written dialogues) asks for nothing
    assert Turn("user", "Hi.").asks == ()


@pytest.mark.parametrize("broken", ["", "loader drops requested slots", "key ignores asks"])
def test_a_turn_that_asks_for_a_services_slot_is_that_services_turn(broken, monkeypatch):
    if broken == "loader drops requested slots":
        monkeypatch.setattr(sgd, "_asks", lambda frames: ())
    dialogue = sgd.sgd_dialogue(_record())
    if broken == "key ignores asks":
        dialogue = dataclasses.replace(dialogue, turns=tuple(
            dataclasses.replace(t, asks=()) for t in dialogue.turns))
    turns = issue_turns(Customer("c-t37", "sgd", (dialogue,)))
    # the address is the ride's value (said first in the reply to turn 2): turn 2 is the
    # ride's in every case; it is the therapist's too because it asks for her address
    assert 2 in turns[(0, "RideSharing_2")]
    assert turns[(0, "Services_4")] == ({1, 2} if not broken else {1})
    assert turns[(0, "RideSharing_2")] >= {3, 4}
