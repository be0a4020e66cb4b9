"""FactTracker on Chinese chats: model numbers, phone numbers and agreed dates, with their
updates; Chinese stale labels; Chinese dates among identifiers; English text unchanged."""

from __future__ import annotations

from ctxlab.course.corpora import load_zh_support
from ctxlab.facts.identifiers import find_identifiers
from ctxlab.facts.staleness import stale_marks
from ctxlab.facts.tracker import FactTracker
from ctxlab.facts.typed import FACT_KINDS, kinds_for

from conftest import assistant, call, output, user


def chat(chat_id: str):
    return next(c for c in load_zh_support() if c.id == chat_id).items


def tracked(items) -> FactTracker:
    tracker = FactTracker()
    tracker.feed(items)
    return tracker


def test_the_fridge_model_and_phone_are_tracked_per_device_and_customer():
    tracker = tracked(chat("zh-01-fridge-bcd123"))
    assert tracker.language == "zh"
    (fridge,) = tracker.devices()
    assert fridge.noun == "冰箱" and fridge.model == "BCD-123"
    assert tracker.current("model", fridge.id) == ["BCD-123"]
    assert tracker.current("phone", "customer") == ["13912345678"]
    # "重新绑定手机号" names a phone number, not a second device
    assert [d.noun for d in tracker.devices()] == ["冰箱"]


def test_a_new_phone_number_replaces_the_old_one():
    tracker = tracked(chat("zh-05-phone-exchange"))
    assert tracker.current("phone") == ["13600002222"]
    old = tracker.status("phone", "15800001111")
    assert old is not None and not old.current and old.replaced_by == ("13600002222",)


def test_a_moved_visit_replaces_the_date_and_tool_dates_are_not_tracked():
    washer = tracked(chat("zh-04-washer-e4"))
    assert washer.current("date") == ["12月11日"]
    assert washer.status("date", "12月9日").replaced_by == ("12月11日",)
    # the schedule_visit call and output carry 2025-12-09 / 2025-12-11: records, not said
    assert washer.status("date", "2025-12-11") is None
    heater = tracked(chat("zh-12-heater-ignition"))
    assert heater.current("date") == ["12月18日"]
    assert not heater.status("date", "12月16日").current


def test_model_updates_within_a_device():
    tracker = tracked([user("我家空调型号是KFR-35GW，制热不行。"), assistant("好的。"),
                       user("不好意思，看错了，型号是KFR-26GW。"), assistant("好的。")])
    assert tracker.current("model") == ["KFR-26GW"]
    assert tracker.status("model", "KFR-35GW").replaced_by == ("KFR-26GW",)


def test_english_text_is_read_exactly_as_before():
    assert kinds_for("Call me on 13912345678 about model XK-100 on 2025-12-14") == FACT_KINDS
    tracker = tracked([
        user("My printer model is XK-100; call me on 13912345678."), assistant("Noted."),
        call("c1", "schedule", date="2025-12-14"), output("c1", {"date": "2025-12-14"}),
        assistant("Booked for 2025-12-14."),
    ])
    assert tracker.language == "en"
    assert {slot.kind for slot in tracker.slots.values()} <= set(FACT_KINDS)


def test_feeding_in_parts_gives_the_same_state():
    items = chat("zh-05-phone-exchange")
    whole = tracked(items).to_dict()
    first = FactTracker()
    first.feed(items[:7])
    second = FactTracker(first.to_dict())
    second.feed(items[7:])
    assert second.to_dict() == whole


def test_chinese_stale_labels_and_dates():
    text = "手机号：13600002222（此前：15800001111 至第5轮）"
    marks = stale_marks(text)
    old, new = text.index("158"), text.index("136")
    assert marks.covers(old, old + 11) and not marks.covers(new, new + 11)
    found = find_identifiers("约好2025年12月14日上门，改到12月18号，日期2025-12-20的单子")
    assert [(i.kind, i.value) for i in found] == [
        ("date", "2025年12月14日"), ("date", "12月18号"), ("date", "2025-12-20")]
