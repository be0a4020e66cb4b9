"""The offline model answers a question about any slot from its view, or says it does not
know; the extractive summary and the LLM prompt keep each topic's latest values."""

from __future__ import annotations

import pytest

from ctxlab.course.offline.responder import plan_reply
from ctxlab.course.offline.slots import slot_answer, slot_question
from ctxlab.memory.topic_memory import TopicMemory
from ctxlab.summarizers import ExtractiveSummarizer
from ctxlab.summarizers.llm import LLMSummarizer
from ctxlab.summarizers.prompt import SUMMARY_PROMPT, SUMMARY_PROMPT_TOPICS

RENTAL = [
    {"role": "user", "content": "I need a rental car in Fresno from March 11th."},
    {"role": "assistant", "content": "Until when do you need it?"},
    {"role": "user", "content": "I'll drop it off on March 13th."},
    {"role": "assistant", "content": "Booked: pick-up March 11th, drop-off March 13th."},
]


def ask(items, question):
    return plan_reply(None, [*items, {"role": "user", "content": question}], {}).text


def test_a_slot_in_view_is_answered():
    reply = ask(RENTAL, "What was the drop-off date of my rental car?")
    assert "March 13th" in reply and "March 11th" not in reply
    assert "Fresno" in ask(RENTAL, "Remind me, what was the pickup city again?")


def test_a_slot_not_in_view_is_not_made_up():
    no_date = [{"role": "user", "content": "I need a rental car in Fresno."}]
    reply = ask(no_date, "What was the drop-off date of my rental car again?")
    assert "don't see the drop-off date of your rental car" in reply
    assert "没有看到" in ask([{"role": "user", "content": "我想订一家酒店。"}],
                          "酒店的电话是多少来着？")


def test_the_answer_comes_from_the_memory_message_when_the_turns_are_gone():
    memory = TopicMemory()
    memory.feed(RENTAL)
    view = [memory.message(), {"role": "user", "content": "thanks"}]
    assert "March 13th" in ask(view, "What was the drop-off date of my rental car again?")


def test_a_value_marked_earlier_is_not_the_answer():
    view = [{"role": "user", "content": "car: Fresno; March 15th (earlier: March 13th)"}]
    reply = ask(view, "What was the dropoff date again?")
    assert "March 15th" in reply


def test_a_broken_answerer_that_ignores_the_view_is_caught():
    """Broken on purpose: answers from a fixed value whatever the view holds."""
    question = slot_question("What was the drop-off date again?")
    assert question is not None

    def broken(q, items, language):
        return "The drop-off date is March 13th."

    for answer in (slot_answer, broken):
        empty = answer(question, [{"role": "user", "content": "A car in Fresno."}], "en")
        caught = "March 13th" in empty
        assert caught == (answer is broken)


@pytest.mark.parametrize("text", ["What should I do?", "What is the next step?",
                                  "What time is it?", "Thanks, that's all."])
def test_other_questions_are_not_slot_questions(text):
    assert slot_question(text) is None


def test_extractive_summary_keeps_each_topics_latest_values():
    summarizer = ExtractiveSummarizer(topics=True)
    first = summarizer.summarize([
        {"role": "user", "content": "I need a bus to Fresno on March 8th at 6 pm."},
        {"role": "assistant", "content": "There is one at 6 pm."}])
    second = summarizer.summarize([
        {"role": "user", "content": "Actually make it 7 pm."},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "I also want to rent a car in Fresno."},
        {"role": "assistant", "content": "Sure."}],
        previous_summary=first.text, previous_state=first.state)
    topics = second.text.split("Topics:\n", 1)[1]
    assert "7 pm" in topics and "(earlier: 6 pm)" in topics
    assert "bus:" in topics and "car:" in topics
    assert "Topics:" not in ExtractiveSummarizer().summarize(RENTAL).text


def test_the_llm_prompt_asks_for_a_topics_line():
    assert '"Topics:"' in SUMMARY_PROMPT_TOPICS and "agent said:" in SUMMARY_PROMPT_TOPICS
    assert LLMSummarizer(object(), topics=True).prompt == SUMMARY_PROMPT_TOPICS
    assert LLMSummarizer(object()).prompt == SUMMARY_PROMPT
