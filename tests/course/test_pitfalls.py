"""The deliberately wrong implementations really fail, and ctxlab's versions do not."""

from __future__ import annotations

import asyncio

from ctxlab import SummarizingSession, TrimmingSession, segment_turns, validate_items
from ctxlab.course.pitfalls import RecheckingSummarizer, flatten_tool_items, last_n_items

from conftest import arun, assistant, call, output, user
from fakes import RecordingSummarizer

TOOL_TURN = [user("is serial C02XK1ZJG8WP covered?"),
             call("c1", name="check_warranty", serial="C02XK1ZJG8WP"),
             output("c1", {"status": "covered"}), assistant("Yes, covered."),
             user("great, thanks")]


def test_last_n_items_orphans_a_tool_output_and_trimming_does_not():
    naive = last_n_items(TOOL_TURN, 3)
    codes = [p.code for p in validate_items(naive)]
    assert codes == ["orphan_output"]

    async def go():
        session = TrimmingSession("t", max_turns=1)
        await session.add_items(TOOL_TURN)
        return await session.get_items(limit=3)

    view = arun(go())
    assert validate_items(view) == [] and len(view) <= 3


def test_flattening_turns_tool_items_into_user_turns():
    flat = flatten_tool_items(TOOL_TURN)
    assert len(segment_turns(flat).turns) == 4  # 2 real turns + 2 invented by the tools
    assert len(segment_turns(TOOL_TURN).turns) == 2


def test_rechecking_after_the_await_loses_items_and_cas_does_not():
    first = [user("q0"), assistant("a0"), user("q1"), assistant("a1"), user("q2")]
    late = [assistant("a2"), user("q3"), assistant("a3"), user("q4")]

    async def racy():
        gate = asyncio.Event()

        async def slow(prefix):
            await gate.wait()
            return f"summary of {len(prefix)} items"

        session = RecheckingSummarizer(slow, keep=1, context_limit=2)
        tasks = [asyncio.create_task(session.add_items(first))]
        await asyncio.sleep(0.01)
        for item in late:  # each arrival triggers a fold of its own, all waiting on the gate
            tasks.append(asyncio.create_task(session.add_items([item])))
            await asyncio.sleep(0.01)
        gate.set()
        await asyncio.gather(*tasks)
        return session.lost_items(first + late)

    lost = arun(racy())
    assert lost, "the rechecking pattern should lose items that arrived during the await"

    async def ours():
        gate = asyncio.Event()
        summarizer = RecordingSummarizer(gate=gate)
        session = SummarizingSession(1, 2, summarizer, "cas", background=True)
        await session.add_items(first)
        await asyncio.sleep(0.01)
        for item in late:
            await session.add_items([item])
        gate.set()
        await session.flush()
        folded = [it for c in summarizer.calls for it in c["items"][2 if c["previous"] else 0:]]
        view = await session.get_items()
        return [it for it in first + late if it not in folded and it not in view]

    assert arun(ours()) == []


def test_race_during_summary_reports_losses_for_the_pitfall_only():
    from ctxlab import seed_router_flow
    from ctxlab.course.pitfalls import race_during_summary

    items = seed_router_flow().items
    outcome = arun(race_during_summary(items, first=5))
    assert outcome.lost_by_rechecking and all(i in items for i in outcome.lost_by_rechecking)
    assert outcome.lost_by_ctxlab == []
    assert arun(outcome.session.raw_items()) == items
