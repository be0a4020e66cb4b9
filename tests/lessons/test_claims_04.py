"""Lesson 04 says what its outputs show: the assembly order the text gives is the order of
the table, and every number in the prose is read from the output it talks about."""

from __future__ import annotations

import re

import pytest

from lesson_outputs import Lesson, number_after, numbers


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    return Lesson.load("04_token_budgets")


def prose(lesson: Lesson, cell: str) -> str:
    return " ".join(lesson.markdown(cell).split())


SECTION_WORDS = {"instructions": "instructions", "structured state": "structured_state",
                 "summary": "summary", "recent turns": "recent_turns",
                 "retrieved memory": "retrieved_memory", "new input": "new_input"}


def test_the_assembly_order_in_the_text_is_the_order_of_the_table(lesson):
    cell = lesson.find("assembles every model call from named sections")
    text = prose(lesson, cell)
    table = lesson.output(lesson.find("observer = ContextManager", kind="code"))
    rows = [line.split()[0] for line in table.splitlines()[1:]
            if line and not line[0].isspace() and line.split()[0] != "total"]
    said = text.split("in this order:")[1].split(". Used as")[0]
    order = sorted(SECTION_WORDS, key=lambda words: said.find(words))
    assert all(said.find(words) >= 0 for words in SECTION_WORDS)
    assert [SECTION_WORDS[w] for w in order] == [r for r in rows if r != "tool_outputs"]
    flowchart = re.findall(r"\[([^\]]+)\]", lesson.markdown(cell))
    assert [f.replace(" + tools", "") for f in flowchart] == order
    # the tool outputs' own line sits with the recent turns, as the text says
    assert rows.index("tool_outputs") == rows.index("recent_turns") + 1
    assert "tool outputs, which travel inside the recent turns" in text


def test_the_largest_call_under_the_budget(lesson):
    cell = lesson.find("Every call stays at or under 2,500 tokens")
    shown = lesson.output_above(cell)
    tokens = number_after(shown, "largest call under the budget:")
    turn, call = (int(n) for n in re.search(r"turn (\d+), call (\d+)", shown).groups())
    assert tokens <= 2500
    assert (turn, call) == (2, 2) and "The closest is the second call of turn 2" in prose(
        lesson, cell)


def test_what_the_ceiling_cost_in_memory(lesson):
    cell = lesson.find("The budget drops the oldest turns first")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    rows = {line.split()[1]: line for line in shown.splitlines()
            if re.match(r"\s+\d+\s+\w+\s", line)}
    assert rows["ticket_id"].rstrip().endswith("✗ forgot") and "turn 1 (the ticket id)" in text
    assert rows["serial"].rstrip().endswith("✗ forgot") and "turn 2 (the serial)" in text
    assert rows["rma"].rstrip().endswith("○ never obtained")
    totals = re.search(r"total\s+(\d)/5\s+(\d)/5", shown).groups()
    assert f'"{totals[1]} of 5 recalled"' in text
    warranty = int(number_after(shown, "budget 2,500, turn"))
    assert f"at turn {warranty} the customer asks about the warranty" in text
    budget_part = shown.split("budget 2,500, turn")[1]
    assert "tools called: none" in budget_part and "serial number first" in budget_part


def test_the_compactor_against_the_sdk_trimmer(lesson):
    cell = lesson.find("The SDK's trimmer is a little smaller")
    shown = lesson.output_above(cell)
    ours = numbers(shown.split("ctxlab ToolOutputCompactor")[1].splitlines()[0])
    sdk = numbers(shown.split("SDK ToolOutputTrimmer")[1].splitlines()[0])
    assert sdk[1] < ours[1]  # "a little smaller"
    assert ours[2] == ours[3] and sdk[2] < sdk[3]  # ours keeps every identifier


def test_chars_over_four_undercounts(lesson):
    cell = lesson.find("tokenize worse than prose")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    errors = [float(e) for e in re.findall(r"\(([-+]\d+)% overall\)", shown)]
    assert len(errors) == 2 and all(-25 <= e <= -15 for e in errors)
    assert "by a fifth" in text


def test_the_chinese_counts(lesson):
    cell = lesson.find("The English sentence is")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    english = numbers(shown.split("English")[1].splitlines()[0])
    chinese = numbers(shown.split("中文")[1].splitlines()[0])
    assert (f"The English sentence is {english[0]:.0f} characters and {english[1]:.0f} tokens, "
            f"and chars/4 ({english[2]:.0f})") in text
    assert (f"The Chinese one is {chinese[0]:.0f} characters and {chinese[1]:.0f} tokens, "
            f"{chinese[3]:.2f} tokens per character, so chars/4 ({chinese[2]:.0f})") in text
    corpus = number_after(shown, "Chinese support corpus:")
    short = re.search(r"\(-(\d+)% overall\)", shown.split("Chinese support corpus")[1])
    assert f"falls {short.group(1)}% short" in text and corpus > 0


def test_the_last_resort_compacts_the_current_turn_under_a_budget_it_cannot_fit(lesson):
    cell = lesson.find("Under 2,500 tokens the current turn fits")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    flat = " ".join(shown.split())  # long lines are wrapped at spaces
    wide = re.search(r"budget 2,500: ([\d,]+) tokens sent; dropped: earlier turn 1 of 1", flat)
    tight = re.search(r"budget 1,800: ([\d,]+) tokens sent; dropped: the current turn's "
                      r"lookup_device output compacted \((\d+) -> (\d+) tokens\)", flat)
    assert wide and tight, shown
    sent_wide, sent, before, after = (float(g.replace(",", "")) for g in (*wide.groups(),
                                                                          *tight.groups()))
    assert sent_wide <= 2500 and sent <= 1800 < before  # over by itself, and then it fits
    assert number_after(text, "room: ") == sent_wide
    assert (number_after(text, "as a preview, "), number_after(text, "-> ")) == (before, after)
    assert f"{sent:,.0f} tokens in all" in text
    assert "TCK-48213" in shown.split("total")[1]  # turn 1 (the ticket number) is back
    budget_text = prose(lesson, lesson.find("A hard budget"))
    assert "last resort" in budget_text and "current turn's bulky tool outputs as previews" in (
        budget_text)


def test_the_exercise_names_the_call_over_the_budget_by_itself(lesson):
    text = prose(lesson, lesson.find("Make it tighter"))
    largest = lesson.output(lesson.find("budget = ContextManager(max_tokens=2500)", kind="code"))
    device = lesson.output(lesson.find("device_output = next", kind="code"))
    assert re.search(r"turn 2, call 2", largest) and "The second call of turn 2" in text
    original = number_after(device, "original:")
    assert f"({original:,.0f} tokens)" in text and original > 1800
    assert "sends it as a preview" in text and "never dropped or shortened" not in text
