"""Lesson 07 says what its outputs show: the restart, the leak, the rollback, the debug
log (turn 1 leaves the view in the call that no longer sends it) and the redaction."""

from __future__ import annotations

import ast
import re

import pytest

from lesson_outputs import Lesson, number_after


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    return Lesson.load("07_production")


def prose(lesson: Lesson, cell: str) -> str:
    return " ".join(lesson.markdown(cell).split())


def test_a_restart_reads_the_summary_instead_of_making_a_second_one(lesson):
    first = lesson.output(lesson.find("first = SummarizingSession", kind="code"))
    resumed = lesson.output_above(lesson.find("No second summary was made"))
    covers = re.search(r"covers turns (\(\d+, \d+\))", first).group(1)
    assert number_after(first, "folds so far:") >= 1
    assert "identical view: True" in resumed
    assert number_after(resumed, "folds by the new object:") == 0
    assert f"its summary covers turns {covers}" in resumed


def test_the_shared_session_leaks_and_the_registry_does_not(lesson):
    leak = " ".join(lesson.output(lesson.find("leaky = SharedSessionService", kind="code")).split())
    fixed = " ".join(lesson.output(lesson.find("registry = SessionRegistry", kind="code")).split())
    assert "Bob is told: Your ticket number is TCK-48213" in leak
    assert "TCK-48213" not in fixed.split("Bob is told:")[1].split("sessions:")[0]


def test_the_debug_log_drops_turn_1_in_the_first_call_without_it(lesson):
    cell = lesson.find("The ledger diff puts turn 1")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    call, turn, change = re.search(r"ledger diff at call (\d+) \(turn (\d+)\): (\{.*\})",
                                   shown).groups()
    assert len(re.findall("ledger diff at call", shown)) == 1  # the only change in the log
    first, last = ast.literal_eval(change)["kept->dropped"][0]
    assert (f"turn 1 (items {first}-{last}) moving from kept to dropped at call {call}, the "
            f"first call of turn {turn}") in text
    max_turns = int(re.search(r"max_turns=(\d+)", lesson.source(
        lesson.find("watched = TrimmingSession", kind="code"))).group(1))
    assert int(turn) == max_turns + 2  # the Runner read turns 1-3 before storing turn 4
    assert f"turn {int(turn) - 1}'s calls were still sent turns 1-{max_turns}" in text
    logged = shown.split("sections of the last call:")[1]  # a dict, wrapped at spaces
    sections = ast.literal_eval(logged[:logged.index("}") + 1])
    assert f"its {sections['tool_outputs']:,} tokens are the `tool_outputs`" in text
    alerts = re.findall(r"call (\d+) \(turn (\d+)\)", shown.split("alerts:")[1])
    assert alerts[0] == ("3", "2") and "from the second call of turn 2 on" in text
    assert [int(c) for c, _ in alerts] == list(range(3, int(call) + 1))  # "the last included"


def test_redaction_keeps_what_the_text_says(lesson):
    cell = lesson.find("The stored output keeps the order id and status")
    text, shown = prose(lesson, cell), lesson.output_above(cell)
    stored = ast.literal_eval(shown.split("stored:")[1].splitlines()[0].strip())
    assert stored == {"order_id": "ORD-55120", "status": "shipped", "contact": "[email]"}
    assert "customer's name is gone" in text and "unexpected_field:customer_name" in shown


def test_the_exercise_shows_what_the_check_stores(lesson):
    text = prose(lesson, lesson.find("`LEAKY_ORDER_OUTPUT` below leaks"))
    shown = lesson.output(lesson.find("print(json.dumps(LEAKY_ORDER_OUTPUT", kind="code"))
    said = shown.split("customer:")[1].split("\n{")[0]  # the message, wrapped at spaces
    assert "4111 1111 1111 1111" in " ".join(said.split())
    assert "the customer's own message before the lookup holds her card number" in text
    for field in ("order_id", "status", "carrier", "customer_name", "home_address", "contact"):
        assert f'"{field}"' in shown


def test_the_failover_figures_say_what_the_text_says(lesson):
    cell = lesson.find('Read the "acked lost" column')
    shown = lesson.output_above(cell)
    rows = {}
    for line in shown.splitlines():
        match = re.match(r"^(default|durable) .*?\)\s+(natural|frozen)\s+(.*)$", line)
        if match:
            rows[(match.group(1), match.group(2))] = [float(v) for v in match.group(3).split()]
    assert rows[("default", "frozen")][1] > 0  # the default mode loses acknowledged turns
    assert rows[("durable", "frozen")][1] == rows[("durable", "natural")][1] == 0
    assert all(row[2] == 0 for row in rows.values())  # nothing stored twice
    for crash in ("natural", "frozen"):  # the outage is longer in durable mode
        assert rows[("durable", crash)][3] > rows[("default", crash)][3]


def test_the_load_figures_say_what_the_text_says(lesson):
    cell = lesson.find('The "session" columns are the time')
    shown = lesson.output_above(cell)
    prose = " ".join(lesson.markdown(cell).split())
    for line in shown.splitlines()[2:]:  # a wrapped line's continuation starts with spaces
        if "/" in line.split()[0] and not line.startswith(("ctxlab", " ")):
            assert line.split()[-3:] == ["0", "0", "0"], line  # lost, dup, cross
    on_postgres, on_redis = shown.split("on postgres")[1], shown.split("on redis")[1]
    assert number_after(prose, "On PostgreSQL ctxlab took ") == number_after(
        on_postgres, "per turn")
    assert number_after(prose, "script on the server, ctxlab took ") == number_after(
        on_redis, "per turn")
    assert number_after(prose, "its `get_items` took ") == number_after(on_redis, "get_items")
    assert "1.2x target" in prose and "target <= 1.2x" in shown
    ratios = [number_after(part, op) for part in (on_postgres, on_redis)
              for op in ("get_items", "add_items", "per turn")]
    assert all(0 < r <= 1.2 for r in ratios), ratios  # "inside the target"
    assert "each row here is 20,000 turns from 1,000 users" in prose
    assert "users=1000, turns=20," in shown  # the provenance line: 1,000 users x 20 turns
