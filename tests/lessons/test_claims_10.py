"""Lesson 10's prose says what the outputs above it show (the committed, executed notebook)."""

from __future__ import annotations

import re
from itertools import takewhile

from lesson_outputs import Lesson, number_after, numbers

LESSON = Lesson.load("10_memory_across_sessions")


def test_the_write_happens_after_end_session_returns_and_keeps_what_the_prose_says():
    shown = LESSON.output("write")
    prose = LESSON.markdown("write-after")
    assert "the write is done? False (1 pending)" in shown
    kept = re.search(r"(\d+) notes kept from (\d+) customer messages", shown)
    assert kept is not None
    assert f"({kept.group(1)} of {kept.group(2)} here" in prose
    for part in ("profile: name", "standing requests:", "open promises:", "devices and cases:"):
        assert part in shown


def test_day_four_answers_without_and_with_memory():
    shown = LESSON.output("later")
    # one block per question: the question, "  without: ...", "  with it: ...", each answer
    # wrapped on lines starting with 11 spaces
    blocks = [block.splitlines() for block in shown.split("\n\n")[1:]]
    assert len(blocks) == 6  # "all six"

    def answer(lines: list[str], label: str) -> str:
        at = next(n for n, line in enumerate(lines) if line.startswith(f"  {label}: "))
        rest = [line.strip() for line in takewhile(lambda line: line.startswith(" " * 11),
                                                   lines[at + 1:])]
        return " ".join([lines[at][len(f"  {label}: "):], *rest])

    for lines in blocks:
        assert answer(lines, "without").startswith(("I don't see", "Sorry, I can't find"))
        assert max(len(line) for line in lines) <= 100  # no line the output area must break
    with_it = [answer(lines, "with it") for lines in blocks]
    assert with_it[0].startswith("You mentioned this on 2025-03-02")
    assert "K5T7MQSJB3HM" in with_it[1] and "TCK-37972" in with_it[2]
    assert "sofia.nakamura@example.com" in with_it[3]
    recollection = LESSON.output("recollection")
    note = recollection.split("Earlier, the customer said")[1]
    assert "repair shop" in note and "Saturdays" not in note


def test_the_chinese_day_four():
    shown = LESSON.output("zh")
    assert "客户此前提到的相关内容：" in shown and "极客修维修店" in shown
    for expected in ("极客修", "H2MRY70LWD3W", "TCK-25295", "13983778863", "短信", "寄修标签"):
        assert shown.count(expected) >= 2  # in the recollection and in an answer
    assert "维修店" in LESSON.markdown("zh-md")


def table(shown: str) -> dict[str, list[float]]:
    return {line.split()[0]: numbers(line) for line in shown.splitlines()
            if line.split() and line.split()[0] in ("none", "structured", "retrieval", "both")}


def test_the_recall_measurement_prose():
    prose = LESSON.markdown("measure-after")
    rows = table(LESSON.output_above("measure-after"))
    # columns: en structured, en long-tail, zh structured, zh long-tail
    assert rows["structured"][0] == rows["structured"][2] == 100
    assert rows["structured"][1] == rows["structured"][3] == 0
    assert rows["retrieval"][1] == rows["retrieval"][3] == 100
    assert number_after(prose, "but only") == rows["retrieval"][0]
    assert rows["both"] == [100, 100, 100, 100] and rows["none"] == [0, 0, 0, 0]


def test_the_hub_and_the_race():
    assert "sales: Your device's serial number is C02XK7ML9Q4." in LESSON.output("hub")
    race = LESSON.output("race")
    assert "lost the race for user 'customer-7': it read the shared state at version 1" in race
    assert "it is at version 2 now" in race and "Nothing was written" in race
    assert "re-applied the change to version 2: member level gold, ticket TCK-51234" in race
    assert "read version 1" in LESSON.markdown("race-md")


def test_the_preloading_prose():
    prose = LESSON.markdown("preload-after")
    shown = LESSON.output_above("preload-after")
    without = re.search(r"without  preloading: (\d+) model calls, (\d+) tool calls by the "
                        r"model, 0 preloaded, ([\d,]+) tokens", shown)
    with_it = re.search(r"with     preloading: (\d+) model calls, 0 tool calls by the model, "
                        r"(\d+) preloaded, ([\d,]+) tokens", shown)
    assert without and with_it
    assert (without.group(1), with_it.group(1)) == ("2", "1")  # "two model calls into one"
    assert without.group(2) == "2"  # "the model's two tool calls"
    assert f"({with_it.group(3)})" in prose and f"({without.group(3)})" in prose
    totals = re.search(r"\((\d+) chats; (\d+) model tool calls saved; (\d+) preloaded calls "
                       r"wasted", shown)
    assert totals is not None
    assert number_after(prose, "Over the") == float(totals.group(1))
    assert totals.group(3) == "0" and "none on these chats" in prose
    assert re.search(r"replies missing a tool value\s+0\s+0", shown)


def test_forgetting():
    shown = LESSON.output("forget")
    assert shown.startswith("['delete_my_data']")
    assert "users before: ['customer-en-0', 'customer-zh-0']" in shown
    assert "users after:  ['customer-zh-0']" in shown
    assert "day one's session now holds 0 items" in shown and "bytes: False" in shown
    assert "nothing is stored for user 'nobody-here'" in shown
    assert "nothing was deleted" in shown


def test_the_forget_cell_checks_the_store_not_the_reply():
    """Issue 34: a model said "I'll delete everything" without calling the tool and the
    cell passed silently; now it reads memory and the hub back and prints the verdict."""
    cell = LESSON.find("forget_me_tool(memory=memory", kind="code")
    assert "happened=gone" in LESSON.source(cell)
    shown = LESSON.output(cell)
    assert "checked: delete the customer's data: it happened (the model called " \
           "delete_my_data)" in shown
    before, after = (line.split(":", 1)[1] for line in shown.splitlines()
                     if line.startswith(("users before", "users after")))
    assert "customer-en-0" in before and "customer-en-0" not in after


def test_real_corpora_prose_reads_its_figures_from_the_tables():
    from lesson_outputs import blocks, percents

    prose = LESSON.markdown("real-after")
    tables = blocks(LESSON.output_above("real-after"))
    sgd, zh = tables["sgd"], tables["crosswoz"]
    # columns: questions, recalled, stale, tokens, false profile, false fault
    assert percents(prose) == [sgd["structured"][1], zh["structured"][1], sgd["notes"][1],
                               zh["notes"][1], sgd["notes"][2], zh["notes"][2],
                               sgd["topics"][1], zh["topics"][1]]
    after = prose[prose.index("recollection ("):]
    assert numbers(after)[:4] == [sgd["topics"][3], zh["topics"][3], sgd["notes"][3],
                                  zh["notes"][3]]
    assert number_after(prose, "in any setting (") == 0
    assert all(row[4] == 0 for table in (sgd, zh) for row in table.values())
    for table in (sgd, zh):
        assert table["topics"][1] >= 90 > table["notes"][1] >= table["structured"][1]
