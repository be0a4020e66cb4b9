"""Fact patterns on Chinese text, the opt-in kinds (model, phone, date) and the label tables."""

from __future__ import annotations

import pytest

from ctxlab.facts.typed import (
    ALL_FACT_KINDS,
    EXTRA_FACT_KINDS,
    FACT_KINDS,
    FACT_LABELS,
    FACT_LABELS_ZH,
    fact_label,
    facts_in_text,
    find_facts,
    latest_fact,
)

from conftest import assistant, call, output, user


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("我的工单号是TCK-48213，麻烦查一下。", "ticket", "TCK-48213"),
        ("报修单号：20251214", "ticket", "20251214"),
        ("序列号是SN-4Q7K-22981。", "serial", "SN-4Q7K-22981"),
        ("机身序列号 C02XK1ZJG8WP", "serial", "C02XK1ZJG8WP"),
        ("固件版本v1.0.3，还是不行", "firmware", "v1.0.3"),
        ("固件已经升级到了v2.1.0", "firmware", "v2.1.0"),
        ("路由器现在是v1.0.4了", "firmware", "v1.0.4"),
        ("屏幕上显示故障码E5", "error_code", "E5"),
        ("错误代码：0x80070005", "error_code", "0x80070005"),
        ("重置以后报错42。", "error_code", "42"),
        ("打开官网出现404", "error_code", "404"),
        ("一直是502错误", "error_code", "502"),
        ("邮箱是li.wei@example.com，谢谢", "email", "li.wei@example.com"),
        ("订单号：2025121400123", "order", "2025121400123"),
        ("订单号ORD-55120还没发货", "order", "ORD-55120"),
        ("返修单号RMA-601342已经生成", "rma", "RMA-601342"),
        ("上门预约号：K7Q2XP", "reservation", "K7Q2XP"),
    ],
)
def test_default_kinds_are_found_after_their_chinese_labels(text, kind, value):
    found = facts_in_text(text)
    assert [(f.kind, f.value) for f in found] == [(kind, value)]
    assert text[found[0].start : found[0].start + len(value)] == value


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("我家冰箱型号是BCD-123，冷藏室不制冷。", "model", "BCD-123"),
        ("机型：KFR-35GW", "model", "KFR-35GW"),
        ("my fridge is model BCD-123", "model", "BCD-123"),
        ("手机号13812345678", "phone", "13812345678"),
        ("有事打我电话138-1234-5678吧", "phone", "138-1234-5678"),
        ("+86 139 0000 1234 是我的号码", "phone", "+86 139 0000 1234"),
        ("联系电话：021-62345678", "phone", "021-62345678"),
        ("师傅12月14日上午来", "date", "12月14日"),
        ("2025年12月14日安装的", "date", "2025年12月14日"),
        ("下周一12月15号可以", "date", "12月15号"),
        ("购买日期2024-03-02", "date", "2024-03-02"),
    ],
)
def test_extra_kinds_are_found_only_when_asked_for(text, kind, value):
    assert facts_in_text(text) == []  # the default kinds stay as they were
    found = facts_in_text(text, kinds=ALL_FACT_KINDS)
    assert [(f.kind, f.value) for f in found] == [(kind, value)]
    assert facts_in_text(text, kinds=[kind])[0].value == value


@pytest.mark.parametrize(
    "text",
    [
        "这台冰箱花了3500元，用了两年。",
        "等了404天也没人管",  # a number of days, not an HTTP error
        "型号我不记得了",
        "电话里说不清楚",
        "日志时间 2025-03-14 10:04:00",  # a timestamp, not a date anyone quotes
        "The model Aurora 14 is fine",  # no code with letters and digits
    ],
)
def test_ordinary_chinese_text_has_no_facts(text):
    assert facts_in_text(text, kinds=ALL_FACT_KINDS) == []


def test_mixed_chinese_english_and_identifiers():
    text = "Hi，我的冰箱型号是BCD-123，工单号TCK-50112，邮箱 wang.fang@example.cn，error 42 again"
    found = facts_in_text(text, kinds=ALL_FACT_KINDS)
    assert [(f.kind, f.value) for f in found] == [
        ("model", "BCD-123"),
        ("ticket", "TCK-50112"),
        ("email", "wang.fang@example.cn"),
        ("error_code", "42"),
    ]


def test_find_facts_on_a_chinese_conversation_keeps_the_latest_value():
    items = [
        user("你好，我的邮箱是old.li@example.com，冰箱型号BCD-123。"),
        assistant("收到，我先查一下保修。"),
        call("c1", "check_warranty", model="BCD-123"),
        output("c1", {"model": "BCD-123", "covered": True}),
        user("邮箱换成了new.li@example.com，以后发这个。"),
    ]
    facts = find_facts(items, kinds=ALL_FACT_KINDS)
    assert set(facts) == set(ALL_FACT_KINDS)
    assert [f.value for f in facts["email"]] == ["old.li@example.com", "new.li@example.com"]
    assert latest_fact(facts["email"]).value == "new.li@example.com"
    assert [(f.index, f.source) for f in facts["model"]] == [
        (0, "user"), (2, "tool_call"), (3, "tool_output")]
    assert set(find_facts(items)) == set(FACT_KINDS)  # the default is unchanged


def test_every_kind_has_an_english_and_a_chinese_label():
    assert ALL_FACT_KINDS == FACT_KINDS + EXTRA_FACT_KINDS
    assert set(FACT_LABELS) == set(FACT_LABELS_ZH) == set(ALL_FACT_KINDS)
    assert fact_label("model") == "model number"
    assert fact_label("ticket", "zh") == "工单号"
    with pytest.raises(ValueError, match="language must be"):
        fact_label("ticket", "fr")
    with pytest.raises(ValueError, match="unknown fact kind 'shoe_size'"):
        fact_label("shoe_size")
    with pytest.raises(ValueError, match=r"unknown fact kind.*'shoe_size'"):
        find_facts([], kinds=["shoe_size"])
