"""What evaluate_case measures: availability, stale values, answers, pressure, validity."""

from __future__ import annotations

import pytest

from ctxlab import OfflineSupportModel, TrimmingSession, make_support_agent
from ctxlab.eval import (
    CaseResult,
    EvalCase,
    KeyFact,
    ProbeAsker,
    Strategy,
    TransformResult,
    evaluate_case,
)
from ctxlab.eval.cases import mark_answerable, probes_at
from ctxlab.eval.metrics import answer_probe_ids

from conftest import arun, assistant, call, output, user

OLD, NEW, SERIAL, FIRMWARE = "old@example.com", "new@example.com", "C02XK1ZJG8WP", "v2.4.1"
ITEMS = [
    user(f"Hi, my email is {OLD}."), assistant("Thanks."),
    user(f"The serial is {SERIAL}."), call("c1", "lookup_device", serial=SERIAL),
    output("c1", {"model": "Aurora 14", "firmware": FIRMWARE}), assistant("Found it."),
    user(f"Please use {NEW} from now on."), assistant("Updated."),
    user("Okay, it is restarting now."), assistant("Good, tell me what you see."),
    user("It came back fine."), assistant("Great."),
]
FACTS = (
    KeyFact("email", OLD, "email", "email", 0, 1, "user", superseded_by=NEW, superseded_turn=3),
    KeyFact("serial", SERIAL, "serial", "serial", 2, 2, "user"),
    KeyFact("firmware", FIRMWARE, "firmware", "firmware", 4, 2, "tool_output"),
    KeyFact("email", NEW, "email", "email", 6, 3, "user"),
)
STARTS = [0, 2, 6, 8, 10]
CASE = EvalCase("mini", "test", ITEMS, FACTS,
                mark_answerable(ITEMS, STARTS, probes_at(FACTS, 6)))
ASKER = ProbeAsker(make_support_agent(OfflineSupportModel()))


def run(strategy, case=CASE, **options):
    return arun(evaluate_case(case, strategy, **options))


def by_fact(result: CaseResult):
    return {p.fact: p for p in result.probes}


def dropping(text: str) -> Strategy:
    """A strategy whose transform removes every item that mentions ``text``."""

    def make(session, tools):
        async def transform(instructions, items):
            kept = [it for it in items if text not in str(it)]
            return TransformResult(kept, (f"items mentioning {text}",))

        return transform

    return Strategy(f"drop {text}", lambda sid: TrimmingSession(sid, max_turns=50), make)


def test_full_history_keeps_and_answers_everything():
    result = run("full", asker=ASKER)
    probes = by_fact(result)
    assert set(probes) == {"email", "serial", "firmware"}
    assert all(p.available and not p.stale for p in probes.values())
    assert all(p.asked and p.correct for p in probes.values())
    assert probes["email"].superseded == 1 and probes["firmware"].from_tool
    assert result.tokens == result.full_tokens > 0
    running = result.cumulative_tokens()
    assert running[-1] == result.tokens and running == sorted(running)
    assert [t.turn for t in result.turns] == [1, 2, 3, 4, 5]
    assert result.turns[1].calls == 2  # the tool round makes a second model call
    assert result.calls == 6 and result.invalid_calls == 0


def test_trimming_loses_old_values_and_the_agent_says_so():
    result = run("trim:1", asker=ASKER)
    probes = by_fact(result)
    assert not any(p.available for p in probes.values())
    assert all(p.asked and not p.correct for p in probes.values())
    assert "I don't see" in probes["serial"].reply
    assert result.tokens < result.full_tokens


def test_a_stale_value_in_view_is_an_error_in_view_and_in_the_answer():
    result = run(dropping(NEW), asker=ASKER)
    email = by_fact(result)["email"]
    assert not email.available and email.stale
    assert email.asked and not email.correct and email.answer_stale
    assert OLD in email.reply
    assert not by_fact(run(dropping(OLD)))["email"].stale


def test_a_context_budget_that_cuts_a_pinned_fact_is_reported_once_with_tokens():
    result = run("budget:60")
    assert result.pressure, "a 60-token budget must cut something"
    keys = [(e.fact, e.value) for e in result.pressure]
    assert len(keys) == len(set(keys))
    for event in result.pressure:
        assert event.cause == "context budget"
        assert event.tokens_before > event.tokens_after
        assert "turn" in event.detail
    assert not run("full").pressure and not run("trim:1").pressure


def test_a_session_budget_that_cuts_a_pinned_fact_is_read_from_the_ledger():
    result = run("trim:10@40")
    assert result.pressure
    for event in result.pressure:
        assert event.cause == "session budget" and "budget" in event.detail
        assert event.tokens_before > event.tokens_after


def test_an_invalid_view_is_counted_and_its_problem_kept():
    def make(session, tools):
        async def transform(instructions, items):
            return TransformResult([output("ghost", "orphan"), *items])

        return transform

    result = run(Strategy("orphans", lambda sid: TrimmingSession(sid, max_turns=9), make))
    assert result.invalid_calls == result.calls == 6
    assert len(result.problems) == 3 and "orphan_output" in result.problems[0]


def test_latency_is_recorded_per_operation_and_results_round_trip():
    result = run("summarize:1/2")
    assert set(result.latency_ms) == {"get_items", "add_items"}
    assert all(v >= 0 for v in result.latency_ms["add_items"])
    assert result.summary is not None and result.summary["turns"][0] == 1
    again = CaseResult.from_dict(result.to_dict())
    assert again == result


def test_answer_probes_are_the_last_allowed_ones():
    answerable = [p.id for p in CASE.probes if p.answerable]
    assert answer_probe_ids(CASE, "offline-kinds", None) == set(answerable)
    assert answer_probe_ids(CASE, "offline-kinds", 1) == {answerable[-1]}
    assert answer_probe_ids(CASE, "offline-kinds", 0) == set()
    assert answer_probe_ids(CASE, "all", None) == {p.id for p in CASE.probes}
    with pytest.raises(ValueError, match="max_answer_probes"):
        answer_probe_ids(CASE, "all", -1)
    with pytest.raises(ValueError, match="scope"):
        answer_probe_ids(CASE, "some", None)  # type: ignore[arg-type]
    asked = by_fact(run("full", asker=ASKER, max_answer_probes=1))
    assert sum(p.asked for p in asked.values()) == 1
