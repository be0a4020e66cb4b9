"""The extractive summary of a Chinese conversation is written in Chinese, with the same
structure and guarantees as the English one; SUMMARY_PROMPT asks for the conversation's
language."""

from __future__ import annotations

from ctxlab.core.tokens import count_tokens
from ctxlab.course.corpora import load_zh_support
from ctxlab.facts.staleness import Mention, current_mention, stale_marks
from ctxlab.summarizers import SUMMARY_PROMPT, SUMMARY_SECTIONS
from ctxlab.summarizers.extractive import ExtractiveSummarizer
from ctxlab.summarizers.prompt import SUMMARY_SECTIONS_ZH
from ctxlab.summarizers.record import HandoverRecord
from ctxlab.summarizers.render import render

from conftest import assistant, call, output, user


def chat(chat_id: str):
    return next(c for c in load_zh_support() if c.id == chat_id).items


def headings(text: str) -> list[str]:
    return [line[:-1] for line in text.splitlines() if not line.startswith("- ")]


def presented(text: str, values: list[str]) -> str | None:
    """The value a reader takes as current among ``values`` (facts.staleness rule)."""
    marks = stale_marks(text)
    mentions = []
    for value in values:
        start = text.find(value)
        while start >= 0:
            mentions.append(Mention(value, start, start + len(value),
                                    marks.covers(start, start + len(value))))
            start = text.find(value, start + 1)
    chosen = current_mention(mentions)
    return chosen.value if chosen else None


def test_the_fridge_summary_is_chinese_and_keeps_every_fact():
    text = ExtractiveSummarizer().summarize(chat("zh-01-fridge-bcd123")).text
    assert set(headings(text)) <= set(SUMMARY_SECTIONS_ZH)
    assert not set(headings(text)) & set(SUMMARY_SECTIONS)
    assert "- 冰箱（BCD-123）" in text  # the device with its model
    assert "- 型号：BCD-123" in text and "- 手机号：13912345678" in text
    assert "- 工单号：TCK-50821" in text
    assert "只能周末上门" in text and "48小时内联系" in text  # constraint and commitment
    assert "未解决：客户第1轮反映的冰箱问题" in text
    # tool steps and health in Chinese (no "-> ok", "status=", "done"), the promise with a
    # label, latencies apart from amounts
    assert "- create_service_ticket（冰箱，第5轮）：状态 待派单" in text
    assert "- query_warranty_policy（冰箱，第1轮）：成功" in text
    assert "- 第5轮：工单已经建好了" in text and "- （" not in text
    assert "- 耗时：184ms、233ms、97ms" in text and "金额与数量" not in text


def test_earlier_values_are_marked_in_chinese_and_read_as_stale():
    phone = ExtractiveSummarizer().summarize(chat("zh-05-phone-exchange")).text
    assert "手机号：13600002222（此前：15800001111 至第5轮）" in phone
    assert presented(phone, ["13600002222", "15800001111"]) == "13600002222"
    washer = ExtractiveSummarizer().summarize(chat("zh-04-washer-e4")).text
    assert "日期：12月11日（此前：12月9日 至第6轮）" in washer
    assert presented(washer, ["12月11日", "12月9日"]) == "12月11日"
    laptop = ExtractiveSummarizer().summarize(chat("zh-02-laptop-bsod")).text
    assert presented(laptop, ["chenjing88@example.net", "chen.jing@example.com"]) == (
        "chenjing88@example.net")


def test_language_follows_the_customer_not_the_tools():
    english_tools = [user("冰箱型号是BCD-123，冷藏室不制冷了。"),
                     call("c1", "lookup", model="BCD-123"),
                     output("c1", {"status": "ok", "note": "compressor check recommended"}),
                     assistant("OK, checking the compressor.")]
    text = ExtractiveSummarizer().summarize(english_tools).text
    assert headings(text)[0] in SUMMARY_SECTIONS_ZH
    english = [user("My fridge shows 型号 BCD-123 on the label and it stopped cooling."),
               assistant("Thanks, let's check it.")]
    assert headings(ExtractiveSummarizer().summarize(english).text)[0] in SUMMARY_SECTIONS


def test_pending_actions_and_the_size_bound_hold_in_chinese():
    items = [*chat("zh-07-aircon-heating"), user("师傅到哪了？"),
             call("c-late", "track_engineer", visit="VST-9127")]
    text = ExtractiveSummarizer().summarize(items).text
    assert "待处理事项" in headings(text)
    assert "track_engineer（空调，第11轮调用）：还没有返回结果" in text
    assert "先等 track_engineer" in text
    long_chat = list(chat("zh-04-washer-e4"))
    for n in range(1, 121):
        long_chat += [user(f"好的，第{n}个办法我试过了，还是显示故障码E4。"),
                      assistant(f"请先断电，然后检查第{n}号排水管有没有弯折。")]
    full = ExtractiveSummarizer(max_tokens=5000).summarize(long_chat).text
    summary = ExtractiveSummarizer(max_tokens=250).summarize(long_chat).text
    assert count_tokens(summary) <= 250 < count_tokens(full)
    assert headings(summary)[0] in SUMMARY_SECTIONS_ZH
    for kept in ("型号：XQG100-B14", "12月11日", "不要给我打电话"):  # never given up
        assert kept in summary


def test_folding_in_steps_gives_the_same_chinese_summary():
    items = chat("zh-04-washer-e4")
    summarizer = ExtractiveSummarizer()
    once = summarizer.summarize(items)
    first = summarizer.summarize(items[:9])
    again = summarizer.summarize(items[9:], previous_state=first.state)
    assert again.text == once.text
    record = HandoverRecord.from_dict(once.state)
    assert record.language == "zh"
    assert render(record, language="en").splitlines()[0] == "Product & Environment:"


def test_the_llm_prompt_keeps_the_conversation_language():
    assert "language the customer writes in" in SUMMARY_PROMPT
    assert "never translate" in SUMMARY_PROMPT


def test_durations_are_listed_apart_from_amounts_in_either_language():
    """A latency in a tool trace (184ms) is not an amount: both languages list durations
    under their own label."""
    from ctxlab import seed_support_conversation

    english = ExtractiveSummarizer().summarize(seed_support_conversation().items).text
    assert "- Durations: 5 minutes, 15 seconds" in english
    assert "- Amounts: 96 W, 4 years" in english
    fridge = ExtractiveSummarizer().summarize(chat("zh-01-fridge-bcd123")).text
    assert "- 耗时：184ms、233ms、97ms" in fridge and "金额与数量" not in fridge
