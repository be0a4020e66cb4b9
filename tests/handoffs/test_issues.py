"""Which issue each turn belongs to: the planted chats' answer key, and phrasings the
generator does not use (Chinese, plurals, a resume by serial number)."""

from __future__ import annotations

import pytest

from ctxlab.eval.multi_issue import multi_issue_case, multi_issue_corpus
from ctxlab.handoffs import CUSTOMER, devices_in, split_issues

from conftest import assistant, user


def test_every_planted_turn_lands_in_its_issue():
    for case in multi_issue_corpus(40):
        split = split_issues([*case.items, user(case.resume)])
        names = {"": CUSTOMER, "A": split.find(case.resumed.device).number,
                 "B": split.find(case.other.device).number}
        assert list(split.turn_issue) == [names[x] for x in case.turn_issue] + [names["A"]]
        assert split.current.subject == case.resumed.device


def test_devices_are_read_in_english_and_chinese():
    assert devices_in("Back to my Laptops: and the docking station?") == ["laptop",
                                                                            "docking station"]
    assert devices_in("我的笔记本电脑坏了，打印机也不行") == ["笔记本", "打印机"]
    assert devices_in("The screen says error 42") == []


def test_resume_by_identifier_and_the_customer_part():
    items = [user("Hi, I'm Mei, reach me at mei@example.com."), assistant("Hello Mei."),
             user("My laptop freezes, serial C02AB12CD34."), assistant("Let's look."),
             user("Also my printer jams, serial F4KZZ9911QQ."), assistant("Noted."),
             user("Any news on C02AB12CD34?"), assistant("Checking."),
             user("OK thanks.")]
    split = split_issues(items)
    laptop, printer = split.find("laptop"), split.find("printer")
    assert split.turn_issue == (CUSTOMER, laptop.number, printer.number, laptop.number,
                                laptop.number)
    assert [m["content"] for m in split.customer_items() if m.get("role") == "user"] == [
        "Hi, I'm Mei, reach me at mei@example.com."]
    assert "F4KZZ9911QQ" not in str(split.items_of(laptop.number))
    with pytest.raises(KeyError, match="no issue about 'router'"):
        split.find("router")
    with pytest.raises(KeyError, match="no issue 9"):
        split.issue(9)


def test_chinese_multi_issue_chat():
    items = [user("你好，我的笔记本电脑开机就蓝屏，序列号是C02XK7ML9Q4。"), assistant("好的。"),
             user("另外打印机也卡纸了，序列号F4KWQ2283LM。"), assistant("先看打印机。"),
             user("打印机好了。回到笔记本的问题吧。")]
    split = split_issues(items)
    assert [split.issue(n).subject for n in split.turn_issue] == ["笔记本", "打印机", "笔记本"]
    mixed = [user("My laptop freezes."), assistant("ok"), user("And my printer jams."),
             assistant("ok"), user("The printer is fine now, but the laptop still freezes.")]
    assert split_issues(mixed).current.subject == "laptop"  # the last one named
    case = multi_issue_case(3)  # before the resume message, the chat is on issue B
    assert split_issues(case.items).current.subject == case.other.device
