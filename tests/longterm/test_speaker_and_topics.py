"""Speaker attribution and topic recall in long-term memory (issue 30): what the agent reads
out is never the customer's profile, a request for a hotel with wifi is not a fault, and a
question in the customer's words brings back the topic it is about."""

from __future__ import annotations

import importlib

import pytest

from ctxlab.handoffs import packaged_schema
from ctxlab.longterm import LongTermMemory, consolidate
from ctxlab.longterm.consolidate import customer_said
from ctxlab.longterm.record import UserMemory
from ctxlab.memory.playbook import reports_fault

from conftest import arun, assistant, user

#: The module (``ctxlab.longterm.consolidate`` the attribute is the function of that name).
consolidate_module = importlib.import_module("ctxlab.longterm.consolidate")

HOTEL_ZH = [user("晚上能帮我找一个提供wifi的酒店吗？"),
            assistant("推荐北京万商花园美居酒店，电话是010-88369280。"),
            user("好的，就去这家。它的地址是哪里？"),
            assistant("地址是北京朝阳区望京街10号。"),
            user("谢谢。")]
HOTEL_EN = [user("Hi, you can reach me at dana@example.com."), assistant("Noted."),
            user("Find me a hotel in Leeds with wifi, please."),
            assistant("The Queens Hotel has wifi; call them on 0113 243 1323 or email "
                      "stay@queens.example."),
            user("Great, thanks.")]


def _false_profile(memory: UserMemory, items: list[dict]) -> list[str]:
    said = [str(i["content"]) for i in items if i["role"] == "user"]
    return [str(v) for v in memory.profile.model_dump().values()
            if v and not customer_said(str(v), said)]


@pytest.mark.parametrize("items", [HOTEL_ZH, HOTEL_EN])
def test_the_agents_words_are_not_the_customers_profile(items, monkeypatch):
    memory = arun(consolidate(UserMemory(user_id="u1"), items, session_id="s1", at="day 1"))
    assert _false_profile(memory, items) == []
    assert not [c for c in memory.cases if c.category]  # a hotel with wifi is no fault
    if items is HOTEL_EN:
        assert memory.profile.email == "dana@example.com"  # the customer's own stays
    # the check catches the first edition, which stored whatever the extractor found (the
    # hotel's phone or email): consolidation without the speaker check
    monkeypatch.setattr(consolidate_module, "customer_said", lambda value, said: True)
    broken = arun(consolidate(UserMemory(user_id="u1"), items, session_id="s1", at="day 1"))
    assert _false_profile(broken, items)


@pytest.mark.parametrize("text, fault", [
    ("Find me a hotel that provides wifi.", False), ("提供wifi的酒店有哪些？", False),
    ("I need a place with free Wi-Fi and parking.", False),
    ("My wifi keeps dropping every few minutes.", True), ("家里的无线网连不上了。", True),
    ("The laptop can't connect to the VPN.", True),
    ("Please send 1,400 bucks to Jasbir.", False), ("The page shows a 404 error.", True)])
def test_a_request_for_wifi_is_not_a_fault_report(text, fault):
    assert reports_fault(text) is fault


def test_the_offline_responder_does_not_troubleshoot_a_hotel_with_wifi():
    from ctxlab.course.offline.responder import plan_reply

    for text in ("Can you find me a hotel that provides wifi?", "帮我找一个提供wifi的酒店。"):
        reply = plan_reply(None, [user(text)], {}).text or ""
        assert "Wi-Fi off" not in reply and "无线网再打开" not in reply and "路由器" not in reply
    broken = plan_reply(None, [user("My wifi keeps dropping.")], {}).text or ""
    assert "Wi-Fi" in broken  # a real fault still gets the playbook


def test_topics_bring_back_what_is_asked_in_both_languages():
    schema_zh, schema_en = packaged_schema("crosswoz"), packaged_schema("sgd")
    zh = LongTermMemory(schema=schema_zh, notes_k=0)
    arun(zh.write_session("zh", HOTEL_ZH, session_id="d1", at="day 1"))
    arun(zh.write_session("zh", [user("帮我找一家人均100元的餐馆。"),
                                 assistant("推荐全聚德，电话是67011379。"), user("谢谢。")],
                          session_id="d2", at="day 2"))
    text = arun(zh.recall("zh", "上次那家酒店的电话是多少来着？")).text()
    assert "010-88369280" in text and "67011379" not in text
    assert "客服：推荐北京万商花园美居酒店" in text  # labelled as the agent's words
    en = LongTermMemory(schema=schema_en, notes_k=0)
    arun(en.write_session("en", [user("I need a rental car from March 3rd to the 9th."),
                                 assistant("A Honda Fit is available."), user("Book it.")],
                          session_id="d1", at="day 1"))
    arun(en.write_session("en", [user("Find me a restaurant in Napa for 7 pm."),
                                 assistant("Bistro Don Giovanni?"), user("Thanks, bye.")],
                          session_id="d2", at="day 2"))
    text = arun(en.recall("en", "What was the dropoff date for my rental car?")).text()
    assert "the 9th" in text and "Napa" not in text
    # without a schema the memory keeps no topics: the same question finds no date
    plain = LongTermMemory(notes_k=0)
    arun(plain.write_session("en", [user("I need a rental car from March 3rd to the 9th.")],
                             session_id="d1", at="day 1"))
    assert "the 9th" not in arun(plain.recall("en", "What was the dropoff date?")).text()
