"""Lesson 04's exercise: a ContextManager of at most 1,800 tokens under which the agent
still answers the five probes. The check accepts it, says exactly which call is over the
budget and why, and rejects the lesson's printed managers, degenerate budgets, managers
that do not keep their budget as sent and duck-typed fakes: each rejection is a test."""

from __future__ import annotations

import pytest
from agents import RunConfig, SQLiteSession

from ctxlab import ContextManager, ToolOutputCompactor
from ctxlab.course.agent import make_support_agent
from ctxlab.course.corpora import support_chat_script
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.runs import ModelCallRecord, TurnRecord, run_conversation
from ctxlab.eval.exercise_budget import over_budget
from ctxlab.eval.exercises import check_budget_setup

from conftest import arun
from lesson_outputs import number_after


class PassThrough(ContextManager):
    """Says max_tokens=1800, sends everything."""

    def __call__(self, data):
        return data.model_data


class DuckManager:
    max_tokens = 1800

    def run_config(self, **kwargs):
        return RunConfig(**kwargs)


#: What a learner could copy from the lesson's printed replies into a fake "state": the
#: five probed values.
HARD_CODED_FACTS = "Known facts: " + ", ".join(
    f"{probe.fact} {probe.expected}" for probe in support_chat_script()[1])


def verdict(manager):
    return arun(check_budget_setup(manager))


@pytest.mark.parametrize("manager", [
    ContextManager(1800, role_aware=True),
    ContextManager(1800, role_aware=True, compactor=ToolOutputCompactor()),
], ids=["role-aware", "role-aware+compaction"])
def test_the_answer_passes_and_every_call_keeps_the_budget(manager):
    result = verdict(manager)
    assert result.passed is True
    # turn 2's call 2 carries the 1,954-token lookup_device output: the manager's last
    # resort sends it as a preview, so no call is over (it once sent 2,481 tokens)
    assert "every one of the 23 model calls within 1,800 tokens" in result.message
    assert number_after(result.message, "largest: ") <= 1800
    assert "at most 1,800 tokens per call" not in result.message


@pytest.mark.parametrize(("manager", "expected"), [
    (ContextManager(100_000), "max_tokens=100,000: the budget is 1,800"),  # lesson's observer
    (ContextManager(2500), "max_tokens=2,500"),  # the lesson's budget
    (ContextManager(2500, compactor=ToolOutputCompactor()), "max_tokens=2,500"),  # + compaction
    (ContextManager(1800), "forgot (or never obtained): rma, serial, ticket_id"),  # section 2
    (ContextManager(1800, compactor=ToolOutputCompactor()), "ticket_id"),
    (ContextManager(1, role_aware=True), "forgot"),  # degenerate: the floor only
    (ContextManager(1800, role_aware=True, tools=[]), "did not keep its budget"),  # undercounts
    (PassThrough(1800, role_aware=True), "did not keep its budget"),
    (DuckManager(), "expected a ContextManager, got DuckManager"),
    ("1800", "expected a ContextManager, got str"),
    # the answers handed over as "state": lesson 05's check refuses the same trick
    (ContextManager(1800, role_aware=True, state=lambda: HARD_CODED_FACTS),
     "the state source (state=) should be ctxlab's StateMemory"),
    (ContextManager(1800, state=lambda: HARD_CODED_FACTS),
     "the state source (state=) should be ctxlab's StateMemory"),
    (ContextManager(1800, role_aware=True, retriever=lambda text: [HARD_CODED_FACTS]),
     "the recall source (retriever=) should be ctxlab's Recall"),
    (ContextManager(1800, role_aware=True, on_assemble=lambda call: None), "on_assemble"),
], ids=["observer", "budget-2500", "budget-2500+compaction", "plain-1800",
        "compaction-1800", "max_tokens=1", "no-tool-schemas", "pass-through", "duck-typed",
        "a-string", "hard-coded state", "hard-coded state, no role_aware",
        "hard-coded recall", "on_assemble"])
def test_wrong_answers_are_rejected_and_told_why(manager, expected):
    result = verdict(manager)
    assert result.passed is False and expected in result.message, result.message


def test_the_hard_coded_state_is_a_real_cheat():
    """Without the part check it would pass: every probe answered, within the budget."""
    messages, probes = support_chat_script()
    manager = ContextManager(1800, role_aware=True, state=lambda: HARD_CODED_FACTS)
    records = arun(run_conversation(make_support_agent(OfflineSupportModel()), messages,
                                    SQLiteSession("cheat-04"),
                                    run_config=manager.run_config(tracing_disabled=True)))
    assert all(p.expected in records[p.turn - 1].reply for p in probes)


def test_no_answer_yet():
    assert verdict(None).passed is None


def test_over_budget_tells_the_floor_from_what_a_manager_chose_to_send():
    new = {"role": "user", "content": "Can you look up my device?"}
    call = {"type": "function_call", "call_id": "c1", "name": "lookup_device",
            "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "x " * 600}
    older = {"role": "assistant", "content": "an older reply " * 40}

    def record(items, tokens):
        return TurnRecord(1, "q", "a", [ModelCallRecord("inst", items, {"instructions": 50},
                                                        input_tokens=tokens)])

    from ctxlab.core.tokens import get_token_counter

    floor = 50 + get_token_counter().count_items([new, call, output])
    [only] = over_budget([record([new, call, output], floor)], budget=300)
    assert only.floor_only and only.floor == floor and only.outputs[0][0] == "lookup_device"
    [more] = over_budget([record([older, new, call, output], floor + 200)], budget=300)
    assert not more.floor_only  # something besides the floor was sent
    assert over_budget([record([new], 40)], budget=300) == []
