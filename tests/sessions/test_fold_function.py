"""``ctxlab.fold``: a fold without a session, (items, running state, params) -> (view, new
state, summarizer requests), and the same pieces SummarizingSession runs."""

from __future__ import annotations

import copy

import pytest

import ctxlab
from ctxlab import ExtractiveSummarizer, SummarizingSession, SummaryRecord, validate_items
from ctxlab.policies import SummarizeParams

from conftest import arun, assistant, call, output, user


def history(turns: int) -> list[dict]:
    items: list[dict] = []
    for t in range(1, turns + 1):
        items += [user(f"Turn {t}: my router RT-{t}00 shows error E{t}; ticket TCK-{t}"),
                  call(f"c{t}", "lookup", ticket=f"TCK-{t}"), output(f"c{t}", f"status {t}"),
                  assistant(f"Step {t}: restart it and wait {t} minutes.")]
    return items


def run_fold(items, state, params, summarizer=None):
    """The documented loop: answer each request, pass every answer back."""
    summarizer = summarizer or ExtractiveSummarizer()
    step = ctxlab.fold(items, state, params)
    answers = []
    while step.requests:
        request = step.requests[0]
        assert request.number == len(answers)
        answers.append(summarizer.summarize(request.items, previous_summary=request.previous,
                                           previous_state=request.state))
        step = ctxlab.fold(items, state, params, answers=answers)
    return step, len(answers)


def test_no_fold_is_due_under_the_limit_and_the_view_is_the_history():
    items = history(3)
    step = ctxlab.fold(items, None, "summarize:2/4")
    assert step.requests == [] and step.state is None and step.due is None
    assert step.view == items and step.view[0] is not items[0]  # fresh copies


def test_the_loop_gives_the_same_summary_and_view_as_a_summarizing_session():
    items = history(7)
    step, calls = run_fold(items, None, "summarize:2/4")
    assert calls == 1 and step.requests == [] and step.due is None
    assert step.state.turns == (1, 5) and step.state.items == (0, 20)
    assert validate_items(step.view) == []

    session = SummarizingSession(2, 4, ExtractiveSummarizer(), session_id="same")
    arun(session.add_items(items))
    arun(session.flush())
    assert session.summary.text == step.state.text
    assert (session.summary.turns, session.summary.items) == (step.state.turns, step.state.items)
    assert arun(session.get_items()) == step.view


def test_folding_turn_by_turn_matches_a_session_fed_turn_by_turn():
    items = history(9)
    session = SummarizingSession(2, 4, ExtractiveSummarizer(), session_id="turns")
    state = None
    for end in range(4, len(items) + 1, 4):
        arun(session.add_items(items[end - 4:end]))
        step, _ = run_fold(items[:end], state, "summarize:2/4")
        state = step.state
    arun(session.flush())
    assert state.generation == session.summary.generation == 2
    assert session.summary.text == state.text and session.summary.items == state.items
    assert arun(session.get_items()) == step.view


def test_the_running_state_carries_over_incrementally_and_as_a_dict():
    items = history(7)
    first, _ = run_fold(items, None, "summarize:2/4")
    more = items + history(10)[28:]  # turns 8-10
    second, _ = run_fold(more, first.state.to_dict(), "summarize:2/4")
    assert second.state.incremental and second.state.generation == 2
    assert second.state.turns == (1, 8) and second.state.items[1] == 32
    assert second.view[0]["role"] == "user" and second.view[1]["content"] == second.state.text


def test_a_small_input_bound_asks_for_one_call_per_chunk_each_reading_the_summary_so_far():
    items = history(12)
    for item in items:
        if item.get("type") == "function_call_output":
            item["output"] = "log line with details " * 60
    params = SummarizeParams(2, 4, max_input_tokens=400)
    step, calls = run_fold(items, None, params)
    assert calls > 1 and step.state.calls == calls
    again = ctxlab.fold(items, None, params)
    first = again.requests[0]
    assert first.previous is None and first.chunk[0] == 0
    answer = ExtractiveSummarizer().summarize(first.items)
    second = ctxlab.fold(items, None, params, answers=[answer]).requests[0]
    assert second.chunk[0] == first.chunk[1] and second.previous == answer.text
    assert second.items[1] == {"role": "assistant", "content": answer.text}


def test_fold_is_pure():
    items = history(7)
    kept = copy.deepcopy(items)
    one, _ = run_fold(items, None, "summarize:2/4")
    two, _ = run_fold(items, None, "summarize:2/4")
    assert items == kept
    assert one.view == two.view and one.state.text == two.state.text


def test_answers_can_be_plain_strings_and_the_summarizer_is_named():
    items = history(7)
    step = ctxlab.fold(items, None, "summarize:2/4", answers=["TCK-1 to TCK-5 handled."],
                       summarizer="my-model", now=0.0)
    assert step.requests == [] and step.state.text == "TCK-1 to TCK-5 handled."
    assert step.state.summarizer == "my-model" and step.state.created_at == 0.0
    assert isinstance(step.state, SummaryRecord)


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (("not a list",), {}, "items must be a list of items, got str"),
    (([user("a"), "b"],), {}, "item 1 of 2 is not a dict"),
    ((history(2), {"text": "x"}), {}, "state is not a summary record"),
    ((history(2), 3), {}, "state must be a SummaryRecord"),
    ((history(3), None, 7), {}, "params must be a SummarizeParams or a spec string"),
    ((history(3), None, "trim:3"), {}, "is not one of strategy 'summarize'"),
    ((history(3), None, "summarize:5/4"), {}, "need 0 <= K <= L"),
    ((history(3), None, "summarize:2/4"), {"answers": ["x"]}, "no fold is due"),
])
def test_bad_input_names_what_is_wrong(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ctxlab.fold(*args, **kwargs)


def test_a_state_from_a_longer_history_is_refused():
    step, _ = run_fold(history(7), None, "summarize:2/4")
    with pytest.raises(ValueError, match="folds raw items up to 20, but only 8 items"):
        ctxlab.fold(history(2), step.state, "summarize:2/4")
