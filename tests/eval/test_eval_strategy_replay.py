"""Replaying a conversation through a strategy, model call by model call."""

from __future__ import annotations

import pytest

from ctxlab import (
    SUPPORT_INSTRUCTIONS,
    SUPPORT_TOOLS,
    TrimmingSession,
    count_request_tokens,
    replay,
    seed_support_conversation,
    segment_turns,
)
from ctxlab.eval import RecallProbe, Strategy, StrategyReplay, TransformResult

from conftest import arun

ITEMS = seed_support_conversation().items
TURNS = segment_turns(ITEMS).turns


def _calls(strategy, **options):
    async def run():
        r = StrategyReplay(ITEMS, strategy, instructions=SUPPORT_INSTRUCTIONS,
                           tools=SUPPORT_TOOLS, **options)
        calls = [c async for c in r.calls()]
        return r, calls

    return arun(run())


def test_full_history_sends_exactly_what_the_runner_would_at_every_model_call():
    replayer, calls = _calls("full")
    rounds = sum(1 for it in ITEMS if it.get("type") == "function_call_output")
    assert len(calls) == len(TURNS) + rounds
    for call in calls:
        assert call.items == ITEMS[: call.full_count]
        expected = count_request_tokens(SUPPORT_INSTRUCTIONS, call.items, SUPPORT_TOOLS)
        assert call.tokens == call.full_tokens == call.session_tokens == expected["total"]
    firsts = [c for c in calls if c.step == 0]
    assert [c.full_count for c in firsts] == [t.start + 1 for t in TURNS]
    tool_loop = [c for c in calls if c.step]
    assert all(c.items[-1].get("type") == "function_call_output" for c in tool_loop)
    assert set(replayer.timings.samples) >= {"get_items", "add_items"}
    assert len(replayer.timings.samples["get_items"]) == len(TURNS)


def test_trimmed_views_match_the_course_replay_snapshots():
    async def snapshots():
        return await replay(ITEMS, TrimmingSession("ref", max_turns=2), final_snapshot=False)

    reference = {s.turn: s.model_input for s in arun(snapshots())}
    _, calls = _calls("trim:2")
    for call in calls:
        if call.step == 0:
            assert call.items == reference[call.turn]
            assert call.tokens < call.full_tokens or call.turn <= 3  # 2 turns + the new one


def test_probes_are_asked_before_their_turn_and_never_stored():
    probes = [RecallProbe(5, "ticket_id", "TCK-48213", "ticket", "What was my ticket number?"),
              RecallProbe(len(TURNS) + 1, "serial", "SN-4Q7K-22981", "serial", "Serial?")]
    replayer, calls = _calls("trim:3", probes=probes)
    asked = [c for c in calls if c.is_probe]
    assert [c.turn for c in asked] == [5, len(TURNS) + 1]
    first = calls.index(asked[0])
    assert calls[first + 1].turn == 5 and calls[first + 1].step == 0
    assert asked[0].items[-1] == {"role": "user", "content": "What was my ticket number?"}
    assert asked[1] is calls[-1]
    assert arun(replayer.session.raw_items()) == ITEMS
    assert asked[0].full_tokens == count_request_tokens(
        SUPPORT_INSTRUCTIONS, [*ITEMS[: TURNS[4].start], asked[0].items[-1]],
        SUPPORT_TOOLS)["total"]


def test_a_transform_sees_every_call_and_its_output_is_what_is_measured():
    seen = []

    def make(session, tools):
        async def transform(instructions, items):
            seen.append(len(items))
            return TransformResult(items[-1:], ("everything but the new input",))

        return transform

    strategy = Strategy("last-item", lambda sid: TrimmingSession(sid, max_turns=50), make)
    _, calls = _calls(strategy)
    assert len(seen) == len(calls)
    for call in calls:
        assert call.items == call.session_items[-1:]
        assert call.dropped == ("everything but the new input",)
        assert call.tokens < call.session_tokens or len(call.session_items) == 1


def test_a_budget_keeps_calls_within_it_and_says_what_it_dropped():
    replayer, calls = _calls("budget:1500")
    assert max(c.tokens for c in calls) <= 1500 or any(c.warning for c in calls)
    assert any(c.dropped for c in calls)
    late = [c for c in calls if c.turn > 10]
    assert all(c.tokens <= 1500 for c in late if not c.warning)
    assert "transform" in replayer.timings.samples


def test_ledgers_are_read_only_when_asked():
    _, calls = _calls("trim:3")
    assert all(c.ledger is not None for c in calls)
    _, quiet = _calls("trim:3", ledgers=False)
    assert all(c.ledger is None for c in quiet)
    _, full = _calls("full")
    assert all(c.ledger is None for c in full)


def test_a_bad_strategy_spec_fails_before_anything_runs():
    with pytest.raises(ValueError, match="unknown part"):
        StrategyReplay(ITEMS, "bogus")
