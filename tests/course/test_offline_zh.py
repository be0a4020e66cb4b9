"""The offline model in Chinese: it reads Chinese questions for every fact kind it knows,
answers in the language of the question, and, through the real Runner, answers the fridge
chat's questions from a full view and admits it once trimming dropped the fact."""

from __future__ import annotations

import pytest
from agents import RunConfig, Runner, SQLiteSession, set_tracing_disabled

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.core.facts import ALL_FACT_KINDS
from ctxlab.course.agent import make_support_agent
from ctxlab.course.corpora import load_zh_support
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.offline.intents import read_intent
from ctxlab.course.runs import ask_after, preload
from ctxlab.eval.zh_cases import ZH_CATEGORY_QUESTIONS, ZH_KIND_QUESTIONS

from conftest import arun, assistant, call, output, user

set_tracing_disabled(True)
QUIET = RunConfig(tracing_disabled=True)
FRIDGE = next(c for c in load_zh_support() if c.id == "zh-01-fridge-bcd123").items
MODEL_QUESTION = "对了，我冰箱的型号是多少来着？"


def reply(items, tools=()) -> str:
    return OfflineSupportModel().respond(None, items, tools).text


@pytest.mark.parametrize("kind", ALL_FACT_KINDS)
def test_each_chinese_probe_question_asks_for_exactly_its_kind(kind):
    intent = read_intent(ZH_KIND_QUESTIONS[kind])
    assert intent.recall == (kind,) and intent.language == "zh"


def test_chinese_questions_about_constraints_promises_and_small_talk():
    assert read_intent(ZH_CATEGORY_QUESTIONS["constraint"]).constraints
    assert read_intent(ZH_CATEGORY_QUESTIONS["commitment"]).commitments
    assert read_intent("师傅哪天来？").recall == ("date",)
    # a question about the number, not for it; a message that states the value
    assert read_intent("是不是要重新绑定手机号？").recall == ()
    assert read_intent("我手机号是13912345678，有事可以打这个。").recall == ()
    assert read_intent("最后问一句，我这个型号能免费维修吗？").warranty
    assert read_intent("你好").greeting and read_intent("谢谢").thanks
    assert read_intent("好了，修好了").closure and not read_intent("还是没好吗？").closure


def test_answers_come_in_the_language_of_the_question():
    chat = [*FRIDGE, user(MODEL_QUESTION)]
    assert reply(chat) == "您设备的型号是 BCD-123。"
    assert reply([*FRIDGE, user("你们记的我的手机号是多少？")]) == "您的手机号是 13912345678。"
    assert reply([*FRIDGE, user("我的工单号是多少来着？")]) == "您的工单号是 TCK-50821。"
    # the ticket number came from a tool result and the agent's message; the agent said it
    english = reply([*FRIDGE, user("What was my ticket number again?")])
    assert english == "Your ticket number is TCK-50821."
    missing = reply([user("你好，冰箱不制冷了。"), assistant("好的。"), user(MODEL_QUESTION)])
    assert missing == "我在我们的对话里没有看到您的型号，能再告诉我一次吗？"
    both = reply([user("冰箱不制冷了。"), user("我的订单号和邮箱是多少？")])
    assert both == "我在我们的对话里没有看到您的邮箱和订单号，能再告诉我一次吗？"


def test_statements_dates_and_tool_values_in_chinese():
    fridge = reply([*FRIDGE, user("我之前跟你说过要注意什么？")])
    assert fridge.startswith("您之前请我们注意：") and "只能周末上门" in fridge
    promise = reply([*FRIDGE, user("你之前答应过我什么？")])
    assert promise.startswith("我答应过您：") and "48小时内联系" in promise
    washer = next(c for c in load_zh_support() if c.id == "zh-04-washer-e4").items
    assert reply([*washer, user("约好的日期是哪天来着？")]) == "约好的日期是 12月11日。"
    from_tool = reply([user("冰箱不制冷了。"), call("c1", "lookup_order", phone="x"),
                       output("c1", {"order_id": "ORD-55120"}), assistant("查到了。"),
                       user("我的订单号是多少来着？")])
    assert from_tool == "您的订单号是 ORD-55120（我是在 lookup_order 的结果里找到的）。"


def test_chinese_tool_requests_get_chinese_replies():
    agent = make_support_agent(OfflineSupportModel())
    result = arun(Runner.run(agent, "我的笔记本序列号是SN-4Q7K-22981，还在保修期内吗？",
                             run_config=QUIET))
    text = str(result.final_output)
    assert text.startswith("好消息：") and "SN-4Q7K-22981" in text and "2027-03-14" in text
    asked = arun(Runner.run(agent, "我这个型号能免费维修吗？", run_config=QUIET))
    assert str(asked.final_output) == "我可以帮您查，但需要先知道您的序列号。能发给我吗？"


def test_through_the_runner_full_history_answers_and_trimming_forgets():
    agent = make_support_agent(OfflineSupportModel())
    full = arun(ask_after(agent, FRIDGE, MODEL_QUESTION, lambda: SQLiteSession("zh-full")))
    trimmed = arun(ask_after(agent, FRIDGE, MODEL_QUESTION,
                             lambda: TrimmingSession("zh-trim", max_turns=3)))
    summarized = arun(ask_after(agent, FRIDGE, MODEL_QUESTION,
                                lambda: SummarizingSession(2, 4, session_id="zh-sum")))
    assert full.reply == "您设备的型号是 BCD-123。"
    assert trimmed.reply == "我在我们的对话里没有看到您的型号，能再告诉我一次吗？"
    assert summarized.reply == "您设备的型号是 BCD-123。"
    # what the model was sent: the trimmed view no longer holds the value at all
    assert "BCD-123" in str(full.calls[0].items)
    assert "BCD-123" not in str(trimmed.calls[0].items)
    assert full.input_tokens > summarized.input_tokens > trimmed.input_tokens


def test_preload_stores_the_chat_as_the_runner_would():
    session = TrimmingSession("zh-preload", max_turns=50)
    arun(preload(session, FRIDGE))
    assert arun(session.get_items()) == FRIDGE


def _first_user_messages():
    chats = load_zh_support()
    return {c.id: next(i["content"] for i in c.items if i.get("role") == "user") for c in chats}


def test_every_chinese_chat_opening_gets_chinese_troubleshooting_steps():
    """A Chinese customer who describes a problem gets numbered steps for it and one
    question, in Chinese, never the generic "which device?" fallback."""
    openings = _first_user_messages()
    assert len(openings) == 14
    for chat_id, message in openings.items():
        text = reply([user(message)])
        assert "1. " in text and "2. " in text and "3. " in text, (chat_id, text)
        assert text.count("？") == 1, (chat_id, text)
        assert "能再说说具体情况" not in text and "Let's" not in text, (chat_id, text)


@pytest.mark.parametrize(("message", "first", "also"), [
    ("滚筒洗衣机洗到一半就停了，屏幕上显示故障码E4，地上还有水。", "运行中途停止", "故障码E4"),
    ("燃气热水器打不着火，显示屏上是故障码E1。", "点火", "故障码E1"),
    ("我的笔记本最近老是蓝屏，错误代码是0x0000007E。", "蓝屏", "故障码0x0000007E"),
])
def test_a_chinese_message_with_two_symptoms_handles_the_first_and_keeps_the_other(
        message, first, also):
    lines = reply([user(message)]).splitlines()
    assert f"我们先处理{first}的问题，请按下面的步骤试试：" in lines
    kept = [line for line in lines if line.endswith("的问题我先记下，接下来再处理。")]
    assert len(kept) == 1 and also in kept[0]


def test_english_text_keeps_the_english_playbook_and_bad_language_is_refused():
    from ctxlab.memory.playbook import match_symptoms

    assert [m.key for m in match_symptoms("My laptop overheats")] == ["overheating"]
    assert [m.key for m in match_symptoms("电脑很烫")] == ["overheating"]
    assert match_symptoms("电脑很烫", language="en") == []
    with pytest.raises(ValueError, match="language must be"):
        match_symptoms("电脑很烫", language="fr")  # type: ignore[arg-type]


def test_a_chinese_symptom_goes_through_the_runner_in_chinese():
    agent = make_support_agent()
    session = SQLiteSession("zh-symptom")
    result = arun(Runner.run(agent, "空调开制热一直吹冷风，面板上闪着故障码F3。",
                             session=session, run_config=QUIET))
    assert "我们先处理制冷制热的问题，请按下面的步骤试试：" in result.final_output
    assert "故障码F3的问题我先记下" in result.final_output
