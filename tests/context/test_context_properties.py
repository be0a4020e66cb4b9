"""Property tests: under any budget the assembled call is valid and within budget, unless
the part that is never dropped alone exceeds it (then a ContextBudgetWarning, and nothing
but that part is sent)."""

from __future__ import annotations

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import count_request_tokens, item_text, validate_items
from ctxlab.context import ContextBudgetWarning, ContextManager, RetrievedBlock
from ctxlab.context.compaction import ToolOutputCompactor

from conftest import arun
from strategies import history, messy_history

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

blocks = st.lists(
    st.builds(RetrievedBlock, st.text(min_size=1, max_size=60), st.floats(0, 1), st.just("b")),
    max_size=3,
)


def check(result, budget: int, caught: list[warnings.WarningMessage], new_text: str) -> None:
    assert validate_items(result.items) == []
    assert result.total == count_request_tokens(result.instructions, result.items)["total"]
    budget_warnings = [w for w in caught if issubclass(w.category, ContextBudgetWarning)]
    if result.total > budget:
        assert result.floor > budget and budget_warnings
        assert set(result.item_sections) <= {"instructions", "new_input", "recent_turns",
                                             "tool_outputs"}
    else:
        assert not budget_warnings
    assert item_text(result.items[-1]) == new_text  # the new input is never dropped, and last


@SETTINGS
@given(items=history(), budget=st.integers(1, 1_500), role_aware=st.booleans(),
       state=st.one_of(st.none(), st.text(min_size=1, max_size=80)), retrieved=blocks,
       summary=st.one_of(st.none(), st.text(min_size=1, max_size=80)))
def test_any_budget_any_history(items, budget, role_aware, state, retrieved, summary):
    manager = ContextManager(budget, role_aware=role_aware)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = manager.assemble("the new question", history=items, instructions="Be kind.",
                                  state=state, retrieved=retrieved, summary=summary)
    check(result, budget, caught, "the new question")


@SETTINGS
@given(items=messy_history(), budget=st.integers(1, 800))
def test_damaged_histories_are_repaired_in_filter_mode(items, budget):
    manager = ContextManager(budget, compactor=ToolOutputCompactor(min_tokens=1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = arun(manager.assemble_input([*items, {"role": "user", "content": "now?"}]))
    check(result, budget, caught, "now?")


def test_shrinking_a_turn_never_strips_a_required_id():
    from ctxlab.context import shrink_turn
    from ctxlab.context.counting import RequestCounter

    turn = [{"role": "user", "content": "search"},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}",
             "id": "fc_1"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "x"}},
            {"role": "assistant", "content": "found it"}]
    shrunk = shrink_turn(turn, RequestCounter())
    assert validate_items(shrunk) == []
    assert "id" not in shrunk[1]  # the call's id pointed at the removed reasoning
    assert [i.get("type", "message") for i in shrunk] == [
        "message", "function_call", "function_call_output", "message"]
