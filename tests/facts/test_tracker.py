"""FactTracker: facts per entity with the history of their values, from one reading."""

from __future__ import annotations

import json

import pytest

from ctxlab.facts.tracker import CASE, CUSTOMER, MAX_VALUES, RECORDS, FactTracker


def user(text):
    return {"role": "user", "content": text}


def agent(text):
    return {"role": "assistant", "content": text}


def tool(call_id, name, args, output):
    return [{"type": "function_call", "call_id": call_id, "name": name,
             "arguments": json.dumps(args)},
            {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output)}]


CHAT = [
    user("Hi, reach me at dana@example.com. My laptop fails with error E1001."),
    agent("Sorry to hear that. Could you read me the serial?"),
    user("Sure, the serial is C02AAA111XYZ."),
    *tool("c1", "lookup_device", {"serial": "C02AAA111XYZ"},
          {"serial": "C02AAA111XYZ", "model": "Aurora 14", "firmware": "v1.0.0"}),
    user("Now a different problem: my printer fails with error E2002."),
    user("Its serial is PRN22233344Q."),
    *tool("c2", "lookup_device", {"serial": "PRN22233344Q"},
          {"serial": "PRN22233344Q", "firmware": "v7.0.0", "owner_email": "it@corp.example"}),
    user("Back to my laptop: is there a firmware update?"),
    *tool("c3", "update_firmware", {"serial": "C02AAA111XYZ"},
          {"serial": "C02AAA111XYZ", "firmware": "v1.1.0", "status": "installed"}),
    user("Please use dana.new@example.com from now on."),
    *tool("c4", "create_ticket", {"serial": "C02AAA111XYZ"}, {"ticket_id": "TCK-10001"}),
    agent("Ticket TCK-10001 was merged into TCK-10002; please use the new one."),
]


def test_separate_devices_keep_their_own_values_and_history():
    facts = FactTracker()
    facts.feed(CHAT)
    laptop, printer = facts.devices()
    assert (laptop.noun, laptop.model, printer.noun) == ("laptop", "Aurora 14", "printer")
    assert facts.current("firmware", laptop.id) == ["v1.1.0"]
    assert facts.current("firmware", printer.id) == ["v7.0.0"]
    assert facts.current("error_code", printer.id) == ["E2002"]
    old = facts.slot(laptop.id, "firmware").earlier()[0]
    assert (old.value, old.since, old.until, old.by) == ("v1.0.0", 2, 5, "v1.1.0")
    assert facts.current("email", CUSTOMER) == ["dana.new@example.com"]
    assert facts.current("email", RECORDS) == ["it@corp.example"]  # a tool's, not hers
    assert facts.current("ticket", laptop.id) == ["TCK-10002"]
    status = facts.status("ticket", "TCK-10001")
    assert status is not None and not status.current and status.replaced_by == ("TCK-10002",)


def test_reading_in_batches_gives_the_same_state_as_reading_at_once():
    whole = FactTracker()
    whole.feed(CHAT)
    for cut in range(1, len(CHAT)):
        first = FactTracker()
        first.feed(CHAT[:cut])
        second = FactTracker(json.loads(json.dumps(first.to_dict())))
        second.feed(CHAT[cut:])
        assert second.to_dict() == whole.to_dict(), cut


def test_a_corrected_serial_replaces_the_misread_one_and_a_revert_is_current_again():
    facts = FactTracker()
    facts.feed([user("My router drops the connection."), user("The serial is RTR11122233A."),
                user("Sorry, I misread it: the serial is actually RTR11122233B, not "
                     "RTR11122233A."),
                user("Reach me at a@x.org."), user("Please use b@x.org from now on."),
                user("Actually, please go back to a@x.org: the new one bounces.")])
    (router,) = facts.devices()
    assert facts.current("serial", router.id) == ["RTR11122233B"]
    assert facts.current("email") == ["a@x.org"]
    periods = [(p.value, p.until) for p in facts.slot(CUSTOMER, "email").periods]
    assert periods == [("a@x.org", 5), ("b@x.org", 6), ("a@x.org", None)]


def test_several_values_of_a_multi_valued_kind_all_hold_unless_one_replaces_another():
    facts = FactTracker()
    facts.feed([user("I have reservation ABC123 and reservation XYZ789.")])
    assert sorted(facts.current("reservation", CASE)) == ["ABC123", "XYZ789"]
    facts.feed([user("My printer shows error E1. It's showing a new error code instead: "
                     "error E2.")])
    assert facts.current("error_code") == ["E2"]


def test_a_new_serial_goes_to_the_latest_device_still_without_one():
    facts = FactTracker()
    facts.feed([user("My monitor flickers."), user("The serial is MON12345678A."),
                user("Now a different problem: my laptop shuts down."),
                user("Back to my monitor for a second."),
                user("Sure, the serial is LAP12345678B.")])
    monitor, laptop = facts.devices()
    assert facts.current("serial", monitor.id) == ["MON12345678A"]
    assert facts.current("serial", laptop.id) == ["LAP12345678B"]
    assert len(facts.devices()) == 2


def test_constraints_and_commitments_are_kept_with_their_revisions():
    facts = FactTracker()
    facts.feed([user("I'm away until the 14th, so no visits before then."),
                user("Please don't ship anything to a PO box."),
                agent("I'll send the replacement label by Friday."),
                user("Change of plans: I'm now away until the 21st."),
                agent("Small change: I'll send the replacement label by Monday instead.")])
    constraints = [s.text for s in facts.current_statements("constraint")]
    assert constraints == ["Please don't ship anything to a PO box.",
                           "Change of plans: I'm now away until the 21st."]
    (promise,) = facts.current_statements("commitment")
    assert "Monday" in promise.text
    assert [s.text for s in facts.revisions(promise)] == [
        "I'll send the replacement label by Friday."]
    facts.feed([agent("I've sent the replacement label.")])
    assert facts.current_statements("commitment") == []


def test_the_state_is_bounded_and_round_trips():
    facts = FactTracker()
    facts.feed([user(f"Also reservation ABC{n:03d} please.") for n in range(3 * MAX_VALUES)])
    assert len(facts.current("reservation")) == MAX_VALUES
    again = FactTracker(facts.to_dict())
    assert again.to_dict() == facts.to_dict()
    with pytest.raises(ValueError, match="not a FactTracker state"):
        FactTracker({"format": 99})


def test_only_the_most_recently_discussed_devices_are_kept():
    from ctxlab.facts.tracker import MAX_DEVICES

    facts = FactTracker()
    facts.feed([user("My laptop fails with error E1.")])
    for n in range(MAX_DEVICES + 3):
        facts.feed([user(f"Now a different problem: another router fails with error "
                         f"E{100 + n}.")])
    assert len(facts.devices()) == MAX_DEVICES
    assert facts.dropped_devices == 4
    assert facts.focus in facts.entities
    assert "E1" not in facts.current("error_code")


def test_chinese_device_nouns_and_updates_come_from_the_cue_table():
    facts = FactTracker()
    facts.feed([user("你好，我家冰箱不制冷，错误代码E101。"),
                user("重启以后错误代码变成E205了。")])
    (fridge,) = facts.devices()
    assert fridge.noun == "冰箱"
    assert facts.current("error_code", fridge.id) == ["E205"]
