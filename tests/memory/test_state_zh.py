"""Structured state from Chinese chats: the fridge model, phone numbers and agreed dates,
the state message in Chinese; recall marks replaced values in Chinese text."""

from __future__ import annotations

import re

from ctxlab.course.corpora import load_zh_support
from ctxlab.facts.staleness import stale_marks
from ctxlab.facts.tracker import FactTracker
from ctxlab.memory import RuleBasedStateExtractor, StateMemory, SupportState
from ctxlab.memory.extract import turn_language
from ctxlab.memory.llm_extract import StateUpdate
from ctxlab.memory.superseded import mark_superseded

from conftest import arun, assistant, call, output, user


def chat(chat_id: str):
    return next(c for c in load_zh_support() if c.id == chat_id).items


def state_of(items) -> StateMemory:
    memory = StateMemory()
    arun(memory.feed(items))
    return memory


def test_the_extractor_reads_model_phone_and_date_in_chinese():
    fridge = state_of(chat("zh-01-fridge-bcd123")).state
    assert fridge.language == "zh"
    assert fridge.issue.device_model == "BCD-123"
    assert fridge.user.phone == "13912345678"
    assert fridge.issue.ticket_id == "TCK-50821"
    washer = state_of(chat("zh-04-washer-e4")).state
    assert washer.issue.date == "12月11日"  # moved from 12月9日; tool dates are not read
    assert [(h.field, h.value, h.replaced_by) for h in washer.history] == [
        ("issue.date", "12月9日", "12月11日")]
    phone = state_of(chat("zh-05-phone-exchange")).state
    assert phone.user.phone == "13600002222"
    assert any(h.field == "user.phone" and h.value == "15800001111" for h in phone.history)


def test_the_state_message_is_written_in_the_customers_language():
    text = state_of(chat("zh-01-fridge-bcd123")).render()
    lines = text.splitlines()
    assert lines[0] == "对话状态（由记忆系统维护，以最新信息为准；截至第12轮）"
    assert "客户：手机号 13912345678" in lines
    assert "设备：冰箱（型号 BCD-123，工单号 TCK-50821，状态 待派单）" in lines
    assert "问题：冰箱不制冷" in lines  # the fridge's fault, not an air conditioner's 制冷制热
    assert "客户要求：" in lines and "客服承诺：" in lines
    assert any(line.startswith("- 时间安排（第5轮）：") and "只能周末上门" in line
               for line in lines)
    assert any(line.startswith("- 第5轮：工单已经建好了") for line in lines)
    assert "- 第5轮 create_service_ticket 13912345678：工单号 TCK-50821，状态 待派单" in lines
    assert "- 第4轮 query_service_log 13912345678：已完成" in lines
    phone = state_of(chat("zh-05-phone-exchange")).render()
    assert "- 手机号 15800001111（第2轮）→ 13600002222（第5轮）" in phone.splitlines()


def test_no_english_and_one_kind_of_colon_in_a_chinese_state_message():
    """Every label and connective of a Chinese state message is Chinese, with full-width
    colons; English words appear only where the conversation's own data has them (a tool's
    status value such as ``open``)."""
    for conversation in load_zh_support():
        text = state_of(conversation.items).render()
        half_width = re.findall(r"(?<!\d):|:(?!\d)", text.replace("://", ""))  # not 14:00
        assert half_width == [], (conversation.id, text)
        data = " ".join(str(item.get(key, "")) for item in conversation.items
                        for key in ("content", "name", "arguments", "output"))
        words = [w for w in re.findall(r"[\w@.+-]+", text)
                 if w.isascii() and w.isalpha() and len(w) > 1
                 and not re.search(rf"(?<![A-Za-z]){w}(?![A-Za-z])", data)]
        assert words == [], (conversation.id, words, text)


def test_a_replaced_value_in_a_chinese_milestone_is_marked_and_read_as_stale():
    text = state_of(chat("zh-05-phone-exchange")).render()
    assert "lookup_order 15800001111（已更换为 13600002222）" in text
    marks = stale_marks(text)
    at = text.index("15800001111（已更换为")
    assert marks.covers(at, at + len("15800001111"))


def test_language_is_decided_by_turns_with_enough_letters():
    assert turn_language([user("好的，我晚点试试。")]) == "zh"
    assert turn_language([user("OK")]) is None  # too few letters to tell
    assert turn_language([user("13912345678")]) is None
    assert turn_language([assistant("好的，已经记下。")]) is None  # the agent's words do not count
    extractor = RuleBasedStateExtractor()
    state = SupportState()
    state.apply(extractor.extract_turn([user("我家冰箱型号是BCD-123，不制冷了。")], state=state),
                turn=1)
    assert state.language == "zh"
    patch = extractor.extract_turn([user("OK")], state=state)
    assert patch.language is None
    state.apply(patch, turn=2)
    assert state.language == "zh"


def test_english_chats_keep_their_state_and_message():
    memory = state_of([user("My printer model is XK-100; call me on 13912345678."),
                       assistant("Noted."), call("c1", "schedule", date="2025-12-14"),
                       output("c1", {"date": "2025-12-14", "status": "booked"}),
                       assistant("Booked for 2025-12-14.")])
    state = memory.state
    assert state.language == "en" and state.issue.date is None
    assert state.issue.device_model is None  # the Chinese-only kinds are not read
    assert memory.render().startswith("Conversation state (kept by the memory system")


def test_the_llm_extractor_can_report_the_agreed_date():
    update = StateUpdate.model_validate({"issue": {"date": "12月11日"}})
    assert update.to_patch().values == {"issue.date": "12月11日"}


def test_recall_marks_replaced_values_even_without_a_label():
    items = chat("zh-02-laptop-bsod")
    tracker = FactTracker()
    tracker.feed(items)
    marked = mark_superseded("您好。0x0000007E通常和驱动或者系统文件有关。", tracker)
    assert "0x0000007E [superseded by 0x00000116 in turn 4]" in marked
    nas = FactTracker()
    nas.feed(chat("zh-14-nas-disk"))
    args = 'check_firmware({"model": "DS923+", "current": "7.2.1"})'
    assert "7.2.1 [superseded by 7.2.2" in mark_superseded(args, nas)
    phone = FactTracker()
    phone.feed(chat("zh-05-phone-exchange"))
    assert "15800001111 [superseded by 13600002222" in mark_superseded("手机号15800001111。", phone)


def test_the_state_follows_the_conversations_language_not_one_turn():
    """Like a summary, the state message is written in the language the customer's messages
    add up to: one English question in a Chinese chat does not switch it (and the reverse)."""
    memory = state_of([*chat("zh-01-fridge-bcd123"), user("What was my ticket number again?"),
                       assistant("TCK-50821.")])
    assert memory.state.language == "zh" and memory.render().startswith("对话状态")
    english = state_of([user("My printer jams on every page, can you help?"),
                        assistant("Sure."), user("打印机型号是XK-100。"), assistant("OK.")])
    assert english.state.language == "en"
    cjk, latin = english.state.letters
    assert cjk == len("打印机型号是") and latin > cjk
