"""TopicMemory: values per topic, corrections win, speaker attribution, the slots addon."""

from __future__ import annotations

import asyncio

import pytest

from ctxlab.eval.cases import KeyFact
from ctxlab.eval.strategies import parse_strategy
from ctxlab.eval.use import read_use
from ctxlab.memory.topic_memory import MEMORY_HEADER, TopicMemory


def chat(*lines: str) -> list[dict]:
    return [{"role": "user" if n % 2 == 0 else "assistant", "content": text}
            for n, text in enumerate(lines)]


def remembered(items: list[dict], **kw) -> str:
    memory = TopicMemory(**kw)
    memory.feed(items)
    return memory.render()


def presented(text: str, current: str, old: str) -> str:
    """Which value the memory presents as current, read as every ctxlab reader reads."""
    return read_use(text, KeyFact("x", current, "x", ignore_case=True),
                    [KeyFact("x", old, "x", ignore_case=True)]).use


CORRECTIONS = [
    (chat("I need a table for 4 at 6 pm.", "Booked for 6 pm.",
          "Actually make it 7 pm.", "Done, 7 pm."), "7 pm", "6 pm"),
    (chat("My serial is A123X.", "Thanks.", "Sorry, the serial is not A123X, it is B456Y.",
          "Noted."), "B456Y", "A123X"),
    (chat("帮我订一家酒店，入住时间是明天。", "好的。", "时间改成后天吧。", "好的，已改。"),
     "后天", "明天"),
    (chat("订单号是 OLD-1。", "收到。", "不是OLD-1，是NEW-2。", "好的。"), "NEW-2", "OLD-1"),
    (chat("我的订单号是 OLD-1。", "收到。", "新的订单号是 NEW-2（旧的 OLD-1 已取消）", "好的。"),
     "NEW-2", "OLD-1"),
]


@pytest.mark.parametrize("items,current,old", CORRECTIONS)
def test_a_correction_wins_and_the_old_value_is_never_current(items, current, old):
    text = remembered(items)
    assert presented(text, current, old) == "current", text
    assert current in text


def test_the_correction_check_catches_a_memory_that_keeps_the_old_value(monkeypatch):
    """Broken on purpose: corrections and cancellations are not read at all."""
    import re

    from ctxlab.facts import topic_book

    monkeypatch.setattr(topic_book, "find_corrections", lambda text: [])
    monkeypatch.setattr(topic_book, "CANCELLED", re.compile(r"(?!)"))
    caught = 0
    for items, current, old in CORRECTIONS:
        text = remembered(items)
        caught += presented(text, current, old) != "current" or f"earlier: {old}" not in text
    assert caught == len(CORRECTIONS)


def test_what_the_agent_says_is_not_the_customers_own():
    items = chat("Find me a hotel in Paris with wifi.",
                 "The Ritz has wifi; their phone number is 555-0199-2211.",
                 "What's their phone number again?", "It is 555-0199-2211.")
    memory = TopicMemory()
    memory.feed(items)
    (topic,) = memory.topics.values()
    assert "555-0199-2211" in topic.agent and "555-0199-2211" not in topic.customer
    assert "Paris" in topic.customer
    assert topic.name == "hotel"  # "phone number" opened no topic
    assert "agent said: " in memory.render()


class MixesSpeakers(TopicMemory):
    """Broken on purpose: everything is filed as the customer's."""

    def _store(self, text, values, speaker):
        super()._store(text, values, "user")


def test_the_attribution_check_catches_a_memory_that_mixes_speakers():
    memory = MixesSpeakers()
    memory.feed(chat("Find me a hotel in Paris.", "The Ritz: 555-0199-2211."))
    assert "555-0199-2211" in next(iter(memory.topics.values())).customer


def test_a_chinese_request_is_not_a_fault_and_venue_values_are_the_agents():
    memory = TopicMemory()
    memory.feed(chat("帮我找一家提供wifi的酒店吧。", "北京天伦王朝酒店可以，电话是010-58168888。"))
    (topic,) = memory.topics.values()
    assert topic.name == "酒店" and "010-58168888" in topic.agent


def test_ask_keeps_only_what_the_customer_asked_for_or_accepted():
    unasked = chat("I'll fly from Seattle.", "Delta at 9:15 am, or United at 11:40 am.")
    assert "9:15 am" not in remembered(unasked, ask=True)
    assert "9:15 am" in remembered(unasked)
    accepted = [*unasked, {"role": "user", "content": "Yes, that works."}]
    assert "9:15 am" in remembered(accepted, ask=True)
    asked = chat("Which flights leave from Seattle?", "Delta leaves at 9:15 am.")
    assert "9:15 am" in remembered(asked, ask=True)


def test_topics_are_kept_apart_and_a_value_lives_where_it_was_said_last():
    memory = TopicMemory()
    memory.feed(chat("I need a bus to Fresno on March 8th.", "OK.",
                     "I also want to rent a car in Fresno.", "Sure."))
    assert list(memory.topics) == ["bus", "car"]
    assert "Fresno" in memory.topics["car"].customer
    assert "March 8th" in memory.topics["bus"].customer


def test_the_message_is_user_role_quoted_data():
    memory = TopicMemory()
    memory.feed(chat("I need a bus to Fresno."))
    message = memory.message()
    assert message is not None and message["role"] == "user"
    assert message["content"].startswith(MEMORY_HEADER)
    assert TopicMemory().message() is None


def test_the_memory_reads_its_own_message_as_nothing():
    memory = TopicMemory()
    message = TopicMemory().message() or {"role": "user", "content": MEMORY_HEADER + "\nx: 5 pm"}
    memory.feed([message])
    assert memory.render() == ""


@pytest.mark.parametrize("spec,name", [
    ("trim:1+slots", "trim:1+slots"),
    ("trim:1+slots:ask", "trim:1+slots:ask"),
    ("trim:1+slots:sgd,ask", "trim:1+slots:ask,sgd"),
    ("slots", "full+slots"),
])
def test_the_slots_addon_in_the_spec_language(spec, name):
    assert parse_strategy(spec).name == name


@pytest.mark.parametrize("spec", ["trim:1+slots:wat", "trim:1+slots:ask,ask"])
def test_bad_slot_options_are_named(spec):
    with pytest.raises(ValueError, match="slots"):
        parse_strategy(spec)


def test_the_addon_injects_one_user_role_message_before_the_turn():
    from ctxlab.eval.strategies import FullHistorySession

    strategy = parse_strategy("trim:1+slots")
    session = strategy.make_session("s1")
    asyncio.run(session.add_items(chat("I need a bus to Fresno on March 8th.", "OK.")))
    transform = strategy.make_transform(session, [])
    new = [{"role": "user", "content": "When do I leave?"}]
    result = asyncio.run(transform("Be brief.", [*asyncio.run(session.get_items()), *new]))
    injected = [it for it in result.items if MEMORY_HEADER in str(it.get("content", ""))]
    assert len(injected) == 1 and injected[0]["role"] == "user"
    assert "March 8th" in injected[0]["content"]
    assert not any(it.get("role") in ("system", "developer") and "March 8th" in
                   str(it.get("content")) for it in result.items)
    assert isinstance(FullHistorySession("x"), FullHistorySession)
