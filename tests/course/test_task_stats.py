"""Choosing max_turns by tasks per conversation (the source tutorial's second way)."""

from __future__ import annotations

import pytest

from ctxlab import load_tau_bench
from ctxlab.course.analysis import task_stats, tasks_in
from ctxlab.course.corpora import Conversation


def conversation(turns: int, actions: list[str]) -> Conversation:
    items = []
    for n in range(turns):
        items += [{"role": "user", "content": f"q{n}"}, {"role": "assistant", "content": "a"}]
    return Conversation("c", "seed", items, meta={"actions": [{"name": a} for a in actions]})


def test_tasks_are_the_actions_that_carry_out_a_request():
    assert tasks_in(conversation(6, ["get_user_details", "book_reservation",
                                     "cancel_reservation"])) == 2
    assert tasks_in(conversation(6, ["get_user_details"])) == 1  # at least one
    assert tasks_in(conversation(6, [])) == 1


def test_max_turns_holds_one_task_of_the_90th_percentile():
    chats = [conversation(10, ["book_reservation", "cancel_reservation"])] * 9 + [
        conversation(12, ["book_reservation"])]
    stats = task_stats(chats)
    assert stats.turns_per_task_median == 5 and stats.turns_per_task_p90 == 5
    assert stats.max_turns == 5
    with pytest.raises(ValueError):
        task_stats([])


def test_on_tau_bench():
    stats = task_stats(load_tau_bench())
    assert stats.conversations == 200 and stats.tasks_median >= 1
    assert 1 <= stats.max_turns <= 30
