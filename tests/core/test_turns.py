from __future__ import annotations

from ctxlab import segment_turns, turn_starts

from conftest import assistant, call, output, user


def test_turns_start_at_real_user_messages():
    items = [{"role": "developer", "content": "rules"}, assistant("hello"), user("q1"),
             call("c"), output("c"), assistant("a1"), user("q2", typed=True), assistant("a2")]
    seg = segment_turns(items)
    assert seg.preamble == range(0, 2)
    assert [(t.number, t.start, t.end) for t in seg.turns] == [(1, 2, 6), (2, 6, 8)]
    assert seg.turn_of(0) is None and seg.turn_of(4) == 1 and seg.turn_of(7) == 2


def test_synthetic_user_messages_never_start_a_turn():
    items = [user("Summarize the conversation so far."), assistant("summary"), user("q")]
    assert turn_starts(items, synthetic={0}) == [2]
    seg = segment_turns(items, synthetic={0})
    assert seg.preamble == range(0, 2) and len(seg.turns) == 1


def test_no_user_message_means_all_preamble():
    seg = segment_turns([assistant("hi")])
    assert seg.turns == () and seg.preamble == range(0, 1)
