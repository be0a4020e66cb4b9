"""The offline model in Chinese: it reads Chinese questions for every fact kind it knows,
answers in the language of the question, and, through the real Runner, answers the fridge
chat's questions from a full view and admits it once trimming dropped the fact."""

from __future__ import annotations

import pytest
from agents import RunConfig, Runner, SQLiteSession, set_tracing_disabled

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.course.agent import make_support_agent
from ctxlab.course.corpora import load_zh_support
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.offline.intents import read_intent
from ctxlab.course.runs import ask_after, preload
from ctxlab.eval.zh_cases import ZH_CATEGORY_QUESTIONS, ZH_KIND_QUESTIONS
from ctxlab.facts.typed import ALL_FACT_KINDS

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
    assert reply(chat) == "您的冰箱型号是 BCD-123。"  # the device as the customer calls it
    assert reply([*FRIDGE, user("我这台设备的型号是什么来着？")]) == "您的冰箱型号是 BCD-123。"
    assert reply([*FRIDGE, user("你们记的我的手机号是多少？")]) == "您留的手机号是 13912345678。"
    assert reply([*FRIDGE, user("我的工单号是多少来着？")]) == "您的工单号是 TCK-50821。"
    # the ticket number came from a tool result and the agent's message; the agent said it
    english = reply([*FRIDGE, user("What was my ticket number again?")])
    assert english == "Your ticket number is TCK-50821."
    missing = reply([user("你好，冰箱不制冷了。"), assistant("好的。"), user(MODEL_QUESTION)])
    assert missing == "我这边没看到您提供的型号，方便再发一下吗？"
    both = reply([user("冰箱不制冷了。"), user("我的订单号和邮箱是多少？")])
    assert both == "我这边没看到您提供的邮箱和订单号，方便再发一下吗？"
    # no device named anywhere: the device in general, never "您设备的"
    serial = reply([user("序列号是SN-4Q7K-22981。"), user("我的序列号是多少来着？")])
    assert serial == "您的设备序列号是 SN-4Q7K-22981。"


def test_statements_dates_and_tool_values_in_chinese():
    fridge = reply([*FRIDGE, user("我之前跟你说过要注意什么？")])
    assert fridge.startswith("您之前特别交代过：“") and "只能周末上门。”" in fridge
    promise = reply([*FRIDGE, user("你之前答应过我什么？")])
    assert promise.startswith("我们之前答应过您：“") and "48小时内联系" in promise
    washer = next(c for c in load_zh_support() if c.id == "zh-04-washer-e4").items
    assert reply([*washer, user("约好的日期是哪天来着？")]) == "跟您约好的日期是 12月11日。"
    from_tool = reply([user("冰箱不制冷了。"), call("c1", "lookup_order", phone="x"),
                       output("c1", {"order_id": "ORD-55120"}), assistant("查到了。"),
                       user("我的订单号是多少来着？")])
    assert from_tool == "您的订单号是 ORD-55120（这是从 lookup_order 的查询结果里看到的）。"


def test_chinese_tool_requests_get_chinese_replies():
    agent = make_support_agent(OfflineSupportModel())
    result = arun(Runner.run(agent, "我的笔记本序列号是SN-4Q7K-22981，还在保修期内吗？",
                             run_config=QUIET))
    text = str(result.final_output)
    assert text.startswith("好消息：") and "SN-4Q7K-22981" in text and "2027-03-14" in text
    asked = arun(Runner.run(agent, "我这个型号能免费维修吗？", run_config=QUIET))
    assert str(asked.final_output) == "好的，麻烦您先发一下序列号，我马上帮您查。"


def test_through_the_runner_full_history_answers_and_trimming_forgets():
    agent = make_support_agent(OfflineSupportModel())
    full = arun(ask_after(agent, FRIDGE, MODEL_QUESTION, lambda: SQLiteSession("zh-full")))
    trimmed = arun(ask_after(agent, FRIDGE, MODEL_QUESTION,
                             lambda: TrimmingSession("zh-trim", max_turns=3)))
    summarized = arun(ask_after(agent, FRIDGE, MODEL_QUESTION,
                                lambda: SummarizingSession(2, 4, session_id="zh-sum")))
    assert full.reply == "您的冰箱型号是 BCD-123。"
    assert trimmed.reply == "我这边没看到您提供的型号，方便再发一下吗？"
    assert summarized.reply == "您的冰箱型号是 BCD-123。"
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
    ("滚筒洗衣机洗到一半就停了，屏幕上显示故障码E4，地上还有水。", "运行到一半停机",
     "故障码 E4 和漏水的问题"),
    ("燃气热水器打不着火，显示屏上是故障码E1。", "打不着火", "故障码 E1 的问题"),
    ("我的笔记本最近老是蓝屏，错误代码是0x0000007E。", "蓝屏", "故障码 0x0000007E 的问题"),
])
def test_a_chinese_message_with_two_symptoms_handles_the_first_and_keeps_the_other(
        message, first, also):
    lines = reply([user(message)]).splitlines()
    assert f"我们先解决{first}的问题，您可以按下面的步骤试一下：" in lines
    kept = [line for line in lines if line.endswith("的问题我先记下了，这个处理完再看。")]
    assert len(kept) == 1 and kept[0].startswith(also)


@pytest.mark.parametrize(("message", "title"), [
    ("我家冰箱型号是BCD-123，这两天冷藏室一点都不凉了。", "冰箱不制冷"),
    ("天冷了空调开制热一直吹冷风。", "空调不制热"),
    ("屋里空调不制冷了，开了半天还是热。", "不制冷"),
    ("扫地机器人最近总是原地打转。", "原地打转"),
])
def test_a_fault_is_named_as_it_fits_the_device(message, title):
    """A fridge that does not cool is not a fridge with an air conditioner's 制冷制热, and it
    is one problem, not a fridge problem plus a separate "does not cool" one."""
    from ctxlab.memory.playbook import match_symptoms

    found = match_symptoms(message)
    assert [m.title for m in found] == [title]
    assert "制冷制热" not in reply([user(message)])


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
    assert "我们先解决空调不制热的问题，您可以按下面的步骤试一下：" in result.final_output
    assert "故障码 F3 的问题我先记下了" in result.final_output
