"""Which issue a real SGD turn belongs to, by the annotations (issue 30's answer key): a
turn that states a service's intent ("check my bank balance") or requests one of its slots
("What's their address?") is that service's turn even when no slot value changes there."""

from __future__ import annotations

import pytest

from ctxlab.course.corpora.dialogues import Customer
from ctxlab.course.corpora.sgd import sgd_dialogue
from ctxlab.eval.dialogue_handoffs import issue_turns


def _frame(service: str, values: dict, *, intent: bool = False,
           requested: tuple[str, ...] = ()) -> dict:
    actions = [{"act": "INFORM_INTENT", "slot": "intent", "values": ["x"]}] if intent else []
    return {"service": service, "actions": actions,
            "state": {"active_intent": "x", "requested_slots": list(requested),
                      "slot_values": values}}


def _record() -> dict:
    events = {"city_of_event": ["Toronto"], "category": ["Music"]}
    return {"dialogue_id": "1_00001", "services": ["Events_1", "Banks_2"], "turns": [
        {"speaker": "USER", "utterance": "Find me a music event in Toronto.",
         "frames": [_frame("Events_1", events, intent=True)]},
        {"speaker": "SYSTEM", "utterance": "Americo plays at La Boom.", "frames": []},
        {"speaker": "USER", "utterance": "Nice. Please check my bank balance.",
         "frames": [_frame("Events_1", events), _frame("Banks_2", {}, intent=True)]},
        {"speaker": "SYSTEM", "utterance": "Checking or savings?", "frames": []},
        {"speaker": "USER", "utterance": "My checking account.",
         "frames": [_frame("Events_1", events),
                    _frame("Banks_2", {"account_type": ["checking"]})]},
        {"speaker": "SYSTEM", "utterance": "You have $1,000.", "frames": []},
        {"speaker": "USER", "utterance": "Where is the event held?",
         "frames": [_frame("Events_1", events, requested=("address_of_location",))]},
        {"speaker": "SYSTEM", "utterance": "At 56 Northern Boulevard.", "frames": []}]}


@pytest.mark.parametrize("broken", ["", "no intents", "nothing asked"])
def test_a_turn_belongs_to_the_service_it_asks_something_of(broken, monkeypatch):
    from ctxlab.course.corpora import sgd

    if broken == "no intents":  # requested slots only
        monkeypatch.setattr(sgd, "_asks", lambda frames: tuple(
            f["service"] for f in frames if f["state"]["requested_slots"]))
    if broken == "nothing asked":  # slot changes and first mentions only, as before
        monkeypatch.setattr(sgd, "_asks", lambda frames: ())
    dialogue = sgd_dialogue(_record())
    turns = issue_turns(Customer("c", "sgd", (dialogue,)))
    # "check my bank balance" changes no bank slot, yet it is the bank's turn
    assert (2 in turns[(0, "Banks_2")]) is (broken == "")
    # "Where is the event held?" comes after the bank's turn and changes no slot
    assert (4 in turns[(0, "Events_1")]) is (broken != "nothing asked")
    assert turns[(0, "Banks_2")] >= {3}


def test_agent_turns_and_records_without_frames_ask_nothing():
    record = _record()
    record["turns"][0].pop("frames")
    dialogue = sgd_dialogue(record)
    assert dialogue.turns[0].asks == () and dialogue.turns[1].asks == ()
    assert dialogue.turns[2].asks == ("Banks_2",)
