"""ContextManager's budget steps, each alone (ctxlab.context.budget), and the last resort: a
current turn whose tool output alone is over the budget is compacted, not sent over it."""

from __future__ import annotations

import dataclasses
import json
import warnings

import pytest

from ctxlab import count_request_tokens, validate_items
from ctxlab.context import ContextBudgetWarning, ContextManager, RequestCounter, RetrievedBlock
from ctxlab.context.budget import (
    STEPS,
    Draft,
    Rules,
    compact_current,
    draft_call,
    drop_retrieved,
    drop_state,
    drop_summary,
    fit_turns,
)
from ctxlab.context.compaction import COMPACTED_MARK
from ctxlab.context.split import ModelInputParts
from ctxlab.course.offline import catalog

from conftest import assistant, call, output, user

COUNT = RequestCounter()
BULKY = json.dumps(catalog.device_record("C02XK1ZJG8WP"))


def turn(n: int, words: int = 60) -> list[dict]:
    return [user(f"question {n}"), assistant(f"answer {n} " + "detail " * words)]


def parts(n_turns: int = 4, *, current: list[dict] | None = None,
          summary: bool = False) -> ModelInputParts:
    pair = [user("Please summarize"), {"role": "assistant", "content": "summary " * 40}]
    return ModelInputParts([], pair if summary else [],
                           [turn(n) for n in range(1, n_turns + 1)],
                           current or [user("the new question")])


def draft(budget: int, **kw) -> tuple[Draft, Rules]:
    """The first step's draft for ``budget`` (the later steps work on a draft counted for
    the same rules)."""
    rules = Rules(budget, COUNT, role_aware=kw.pop("role_aware", False))
    state = kw.pop("state", None)
    blocks = kw.pop("blocks", ())
    return draft_call(parts(**kw), "Be brief.", [], state, blocks, None, rules), rules


def test_the_steps_run_in_the_documented_order():
    assert [s.__name__ for s in STEPS] == ["drop_retrieved", "fit_turns", "drop_summary",
                                          "drop_state"]


def test_drop_retrieved_drops_the_least_relevant_block_first():
    blocks = (RetrievedBlock("note A " * 30, 0.9, "a"), RetrievedBlock("note B " * 30, 0.2, "b"))
    roomy, rules = draft(10_000, blocks=blocks)
    assert drop_retrieved(roomy, rules) == roomy  # fits: nothing changes
    tight = dataclasses.replace(rules, max_tokens=roomy.total - 20)
    after = drop_retrieved(roomy, tight)
    assert [b.label for b in after.blocks] == ["a"] and after.dropped == (
        "retrieved b (score 0.20)",)
    assert roomy.blocks == blocks  # the input draft is not changed


def test_drop_retrieved_drops_all_of_it_when_turns_overflow():
    blocks = (RetrievedBlock("x " * 10, 0.9, "a"),)
    over, rules = draft(200, blocks=blocks)
    assert over.first > 0
    assert drop_retrieved(over, rules).blocks == ()


def test_fit_turns_drops_the_oldest_whole_or_shortens_them_first():
    plain, rules = draft(260)
    after = fit_turns(plain, rules)
    assert after.first == plain.first > 0
    assert after.dropped[-1].startswith("earlier turn") and after.dropped[-1].endswith(
        "(oldest first)")
    aware, rules = draft(260, role_aware=True)
    after = fit_turns(aware, rules)
    assert after.first <= aware.first and after.shortened
    assert "after shortening" in after.dropped[-1]
    assert after.total <= rules.max_tokens


def test_summary_then_state_go_only_while_the_call_is_over():
    state = {"role": "developer", "content": "state " * 60}
    roomy, rules = draft(10_000, summary=True, state=state)
    assert drop_summary(roomy, rules) == roomy and drop_state(roomy, rules) == roomy
    budget = roomy.floor + roomy.state_tokens + 5
    tight, rules = draft(budget, summary=True, state=state)
    fitted = fit_turns(drop_retrieved(tight, rules), rules)
    no_summary = drop_summary(fitted, rules)
    assert no_summary.summary == () and no_summary.dropped[-1].startswith("summary (")
    assert drop_state(no_summary, rules) == no_summary  # the state fits now: it stays
    tighter = dataclasses.replace(rules, max_tokens=roomy.floor)
    assert drop_state(no_summary, tighter).state is None


CURRENT = [user("check my laptop"), call("c1", name="lookup_device", serial="C02XK1ZJG8WP"),
           output("c1", BULKY)]


def test_the_current_turns_bulky_output_is_compacted_only_as_a_last_resort():
    big = COUNT.items(CURRENT)
    fits = Rules(big + 500, COUNT)
    untouched = draft_call(parts(current=CURRENT), None, [], None, (), None, fits)
    assert untouched.current == tuple(CURRENT) and not untouched.current_compacted
    over = Rules(big - 200, COUNT)
    fitted = draft_call(parts(current=CURRENT), None, [], None, (), None, over)
    assert fitted.current_compacted and fitted.floor <= over.max_tokens
    assert item_of(fitted.current, "function_call_output")["output"].startswith(COMPACTED_MARK)
    assert "the current turn's lookup_device output compacted" in fitted.dropped[0]
    assert compact_current(fitted, over) == fitted  # idempotent


def item_of(items, kind):
    return next(it for it in items if it.get("type") == kind)


def test_a_manager_under_a_hard_budget_no_longer_sends_a_bulky_current_turn_over_it():
    """Lesson 04's case: a 1,954-token lookup in the current turn against 1,800 tokens."""
    manager = ContextManager(max_tokens=1800)
    history = [*turn(1), *turn(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ContextBudgetWarning)
        result = manager.assemble(CURRENT, history=history, instructions="Be brief.")
    assert result.total <= 1800
    assert count_request_tokens("Be brief.", result.items)["total"] == result.total
    assert validate_items(result.items) == []
    assert any("output compacted" in line for line in result.dropped)
    assert CURRENT[2]["output"] == BULKY  # the caller's items are not changed
    assert result.sections["recent_turns"] > 0  # room came back for the earlier turns


def test_when_even_the_compacted_floor_is_over_the_warning_says_why():
    manager = ContextManager(max_tokens=150)
    with pytest.warns(ContextBudgetWarning, match=r"its tool outputs compacted already\), "
                                                  r"over the max_tokens budget of 150"):
        result = manager.assemble(CURRENT, instructions="Be brief. " * 20)
    assert result.over_budget and "compacted already" in (result.warning or "")
