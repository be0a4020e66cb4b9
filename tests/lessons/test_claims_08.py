"""Lesson 08: the cost table says what it computes, and the prose matches it."""

from __future__ import annotations

import re

from lesson_outputs import Lesson

LESSON = Lesson.load("08_sdk_memory_and_prompt_caching")
TABLE_CELL = LESSON.find("cache_costs(chat.items, strategies", kind="code")


def rows() -> dict[str, list[float]]:
    out = {}
    for line in LESSON.output(TABLE_CELL).splitlines():
        parts = line.split()
        if parts and parts[0] in ("full", "trim:8", "trim:8/8", "summarize:2/8"):
            out[parts[0]] = [float(p.rstrip("%").replace(",", "")) for p in parts[1:]]
    return out


def test_dollars_per_1000_chats_are_the_whole_chat_times_1000():
    source = LESSON.source(TABLE_CELL)
    assert "1000 * c.cost_per_chat" in source and "1000 * c.cached_cost_per_chat" in source
    assert "cost_per_100_turns" not in source
    assert "$ per 1,000 chats" in LESSON.output(TABLE_CELL)


def test_the_prose_matches_the_table():
    table = rows()
    full, trim, steps, summary = (table[k] for k in ("full", "trim:8", "trim:8/8",
                                                     "summarize:2/8"))
    prose = LESSON.markdown(LESSON.find("Dollars are what 1,000 chats like this one cost"))
    assert "less than a third of the tokens" in prose and trim[0] < full[0] / 3
    assert "costs about what the full history costs" in prose
    assert abs(trim[4] - full[4]) / full[4] < 0.05  # with cache: about the same
    assert min(table.values(), key=lambda r: r[3])[3] == trim[3]  # no cache: trim cheapest
    assert steps[4] < full[4] and steps[2] > 50  # most of it cached
    assert "costs a little more than the cached full\nhistory" in prose
    assert full[4] < summary[4] < 1.1 * full[4] and summary[1] > 0
    assert re.search(r"\(\*folds\* of them\)", prose)
