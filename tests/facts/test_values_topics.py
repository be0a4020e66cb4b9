"""Values a conversation establishes, topics without a word list, corrections EN/ZH."""

from __future__ import annotations

from itertools import pairwise

import pytest

from ctxlab.facts.corrections import find_corrections
from ctxlab.facts.topics import SchemaTopics, topic_of
from ctxlab.facts.values import find_values


def kinds(text: str, **kw) -> dict[str, str]:
    return {v.text: v.kind for v in find_values(text, **kw)}


@pytest.mark.parametrize("text,value,kind", [
    ("Pick it up on the 11th of March at half past 3 in the afternoon.", "the 11th of March",
     "date"),
    ("Pick it up on the 11th of March at half past 3 in the afternoon.",
     "half past 3 in the afternoon", "time"),
    ("Make it Monday next week, please.", "Monday next week", "date"),
    ("I am leaving from san diego to go to fresno.", "san diego", "place"),
    ("There's a Standard Accord at Fresno Yosemite International Airport on March 10th.",
     "Fresno Yosemite International Airport", "name"),
    ("We'd like to stay in Paris, France for seven nights.", "Paris, France", "name"),
    ("We'd like to stay in Paris, France for seven nights.", "seven", "count"),
    ("The total is $125.50 for 2 people.", "$125.50", "amount"),
    ("推荐您去人均消费68元的讲礼驴肉馆用餐。", "讲礼驴肉馆", "name"),
    ("推荐您去人均消费68元的讲礼驴肉馆用餐。", "68元", "amount"),
    ("电话是010-58168888，地址在北京海淀区大钟寺东路9号。", "010-58168888", "phone"),
    ("电话是010-58168888，地址在北京海淀区大钟寺东路9号。", "北京海淀区大钟寺东路9号",
     "address"),
    ("帮我推荐一个评分是4.5分以上的舒适型酒店。", "4.5分以上", "rating"),
    ("营业时间是周一至周日 11:00-14:00 17:00-21:00。", "周一至周日 11:00-14:00 17:00-21:00",
     "time"),
])
def test_values_in_both_languages(text, value, kind):
    assert kinds(text).get(value) == kind


def test_no_overlaps_and_sentence_words_are_not_names():
    found = find_values("Yes, please book the Hilton for March 3rd.")
    assert [v.text for v in found] == ["Hilton", "March 3rd"]
    listed = find_values("周边酒店有北京首都宾馆、北京贵都大酒店。")
    spans = sorted((v.start, v.end) for v in listed)
    assert all(a[1] <= b[0] for a, b in pairwise(spans))
    assert {"北京首都宾馆", "北京贵都大酒店"} <= {v.text for v in listed}


def test_a_schema_value_is_found_whatever_its_case():
    assert kinds("an economy car please", known=["Economy"]).get("economy") == "category"
    assert "economy" not in kinds("an economy car please")


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="find_values"):
        find_values(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="find_corrections"):
        find_corrections(b"x")  # type: ignore[arg-type]


@pytest.mark.parametrize("text,topic", [
    ("I need a rental car in Fresno.", "rental car"),
    ("Can you find me a restaurant nearby?", "restaurant"),
    ("My AirDock Pro keeps disconnecting, I want to book a repair.", "repair"),
    ("What's their phone number?", None),
    ("Please tell me the address and phone number.", None),
    ("你好，可以帮我推荐一个评分是4.5分以上的景点吗？", "景点"),
    ("北京天伦王朝酒店电话是多少？", None),
])
def test_topics_without_a_word_list(text, topic):
    assert topic_of(text) == topic


def test_schema_topics_from_sgd_names():
    topics = SchemaTopics.from_sgd([
        {"service_name": "RentalCars_1", "intents": [{"name": "ReserveCar"}]},
        {"service_name": "Hotels_4", "intents": [{"name": "SearchHotel"}]},
    ])
    assert topics.topic_of("I also need a car for the trip") == "RentalCars"
    assert topics.topic_of("Find hotels in Paris") == "Hotels"
    assert topics.topic_of("What's the weather?") is None


def _span(text: str, span: tuple[int, int] | None) -> str | None:
    return None if span is None else text[span[0]:span[1]].strip()


@pytest.mark.parametrize("text,new,old", [
    ("The serial is not A123, it is B456.", "B456", "A123"),
    ("Actually make it 7 pm.", "7 pm", None),
    ("Change it to March 9th please.", "March 9th please", None),
    ("Let's do Fresno instead of Sacramento.", "Let's do Fresno", "Sacramento"),
    ("时间改成下午3点。", "下午3点", None),
    ("不是A123，是B456。", "B456", "A123"),
    ("新的订单号是 NEW-2（旧的 OLD-1 已取消）", "NEW-2", "OLD-1"),
])
def test_corrections_in_both_languages(text, new, old):
    (found,) = find_corrections(text)
    assert _span(text, found.new) == new
    assert _span(text, found.old) == old


def test_a_sentence_without_a_correction_has_none():
    assert find_corrections("I need a car from March 3rd to March 5th.") == []
    assert find_corrections("我想订一家酒店。") == []
