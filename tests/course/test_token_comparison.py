"""chars/4 against exact o200k_base counts, for Chinese next to English."""

from __future__ import annotations

import unicodedata

import pytest

from ctxlab.core.items import item_text
from ctxlab.course.analysis import (
    compare_token_counts,
    estimate_error,
    token_comparison_table,
)
from ctxlab.course.corpora import load_zh_support, seed_support_conversation

ZH = "我家冰箱型号是BCD-123，冷藏室这两天一点都不凉了，冷冻室倒还正常，请问能免费上门维修吗？"
EN = ("My fridge model is BCD-123; the fridge section stopped cooling two days ago, the "
      "freezer still works. Can you send someone?")


def test_chars_over_four_undercounts_a_chinese_sentence_three_times():
    zh, en = compare_token_counts({"zh": ZH, "en": EN})
    assert (zh.chars, zh.estimate, zh.exact) == (47, 12, 37)
    assert zh.undercount > 3 and 0.7 < zh.tokens_per_char < 0.9
    assert 0.8 < en.undercount < 1.2 and en.tokens_per_char < 0.3
    table = token_comparison_table([zh, en])
    assert table.splitlines()[2].startswith("zh  ") and "37" in table


def test_table_columns_line_up_with_chinese_labels():
    table = token_comparison_table(compare_token_counts({"中文": ZH, "English": EN}))
    header, _, zh_row, en_row = table.splitlines()

    def width(text: str) -> int:  # columns on screen: a Chinese character takes two
        return sum(2 if unicodedata.east_asian_width(ch) == "W" else 1 for ch in text)

    assert width(zh_row) == width(en_row) == width(header)
    assert width(zh_row[: zh_row.index("47") + 2]) == width(en_row[: en_row.index("123") + 3])


def test_the_chinese_corpus_is_undercounted_far_more_than_the_english_one():
    zh = estimate_error(item_text(i) for c in load_zh_support() for i in c.items)
    en = estimate_error(item_text(i) for i in seed_support_conversation().items)
    assert zh.total_error < -0.5 < en.total_error < 0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="non-empty dict"):
        compare_token_counts({})
    with pytest.raises(ValueError, match="text 'x' must be a non-empty string"):
        compare_token_counts({"x": ""})
