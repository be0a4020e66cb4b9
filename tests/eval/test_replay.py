from __future__ import annotations

from ctxlab import TrimmingSession, validate_items
from ctxlab.eval.replay import replay, runner_batches

from conftest import SEED_FLOW, arun, assistant, call, output, reasoning, user


def test_runner_batches_follow_the_runner():
    items = [{"role": "developer", "content": "d"}, user("q"), reasoning("r"), call("a"),
             call("b"), output("a"), output("b"), call("c"), output("c"), reasoning("r2"),
             assistant("x"), user("q2"), assistant("y")]
    batches = runner_batches(items)
    assert [len(b) for b in batches] == [1, 1, 5, 2, 2, 1, 1]
    assert [it for b in batches for it in b] == items


def test_replay_snapshots_what_each_model_call_saw():
    async def go():
        session = TrimmingSession("r", max_turns=2)
        shots = await replay(SEED_FLOW, session)
        assert [s.turn for s in shots] == [1, 2, 3, 4, 0]
        assert shots[0].history == [] and shots[0].new_input == [SEED_FLOW[0]]
        assert shots[3].model_input == SEED_FLOW[2:7]
        assert shots[-1].history == SEED_FLOW[4:]
        assert shots[3].ledger.dropped_indices() == [0, 1]
        for s in shots:
            assert validate_items(s.model_input) == []
        assert await session.raw_items() == SEED_FLOW

    arun(go())
