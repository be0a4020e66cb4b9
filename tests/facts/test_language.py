"""facts.language: which language a text, a turn or a conversation is written in."""

from __future__ import annotations

import pytest

from ctxlab.facts.language import (
    LanguageCount,
    check_language,
    cjk_share,
    conversation_language,
    has_cjk,
    language_of,
)

from conftest import assistant, user


def test_letters_decide_the_language_not_identifiers():
    assert language_of("我家冰箱型号是BCD-123，这两天冷藏室一点都不凉了。") == "zh"
    assert language_of("型号是BCD-123") == "zh"  # 3 CJK against 3 Latin letters
    assert language_of("The fridge label says 型号 BCD-123, model number of the unit.") == "en"
    assert language_of("13912345678") == "en"  # no letters at all: English by default
    assert language_of("") == "en"
    assert cjk_share("abc") == 0.0 and cjk_share("冰箱") == 1.0 and cjk_share("") == 0.0
    assert has_cjk("型号") and not has_cjk("model BCD-123")


def test_conversation_language_reads_the_user_turns_together():
    chat = [user("你好，我家冰箱型号是BCD-123，冷藏室不凉了。"), assistant("OK, noted."),
            user("OK"), user("好的，谢谢。")]
    assert conversation_language(chat) == "zh"
    english = [user("My laptop overheats, the label says 型号 X1."), assistant("好的")]
    assert conversation_language(english) == "en"  # the agent's Chinese does not count
    assert conversation_language(["冰箱不制冷了", "OK"]) == "zh"


def test_language_count_adds_up_in_any_batching():
    texts = ["你好，冰箱不凉了。", "OK", "thanks a lot for the quick help", "好的"]
    once = LanguageCount()
    for text in texts:
        once.add(text)
    parts = LanguageCount()
    for text in texts[:2]:
        parts.add(text)
    again = LanguageCount(parts.cjk, parts.latin)
    for text in texts[2:]:
        again.add(text)
    assert (once.cjk, once.latin, once.language) == (again.cjk, again.latin, again.language)


def test_check_language_names_the_choices():
    assert check_language("zh") == "zh"
    with pytest.raises(ValueError, match="en, zh"):
        check_language("fr")
