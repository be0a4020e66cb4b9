"""Property tests: SummarizingSession's view is valid and faithful for any history."""

from __future__ import annotations

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import SummarizingSession, segment_turns, validate_items
from ctxlab.summarizers import ExtractiveSummarizer

from conftest import arun
from fakes import RecordingSummarizer
from strategies import batches, hard_history, history, messy_history

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def limits(draw):
    limit = draw(st.integers(1, 5))
    return draw(st.integers(0, limit)), limit


@SETTINGS
@given(st.data(), limits(), st.booleans())
def test_view_is_valid_and_keeps_recent_turns_verbatim(data, knobs, background):
    keep, limit = knobs
    items = data.draw(history())
    parts = batches(data.draw, items)

    async def go():
        summarizer = RecordingSummarizer()
        session = SummarizingSession(keep, limit, summarizer, "prop", background=background)
        for part in parts:
            await session.add_items(part)
            assert validate_items(await session.get_items()) == []
        await session.flush()
        view = await session.get_items()
        assert validate_items(view) == []
        assert await session.raw_items() == items
        seg = segment_turns(items)
        preamble = [items[i] for i in seg.preamble]
        assert view[: len(preamble)] == preamble
        summary = session.summary
        summary_end = summary.items[1] if summary else len(seg.preamble)
        unsummarized = [t for t in seg.turns if t.start >= summary_end]
        if summary:
            pair = view[len(preamble): len(preamble) + 2]
            assert pair[0]["role"] == "user" and pair[1]["role"] == "assistant"
            assert len(unsummarized) >= keep
        assert len(unsummarized) <= limit  # once folds succeed, the limit holds
        ledger = await session.ledger()
        raw_states = {e.index: e.state for e in ledger if e.index is not None}
        assert set(raw_states) == set(range(len(items)))
        # every raw item is shown, folded, or pending (a call awaiting its output): none lost
        assert set(raw_states.values()) <= {"kept", "summarized", "pending"}
        shown = [e.index for e in ledger.view() if e.index is not None]
        for index in range(summary_end, len(items)):
            assert raw_states[index] in ("kept", "pending")
        for index in shown:  # folded items come back only as the call of a late output
            if len(preamble) <= index < summary_end:
                assert items[index].get("type") in ("function_call", "custom_tool_call",
                                                     "reasoning")
        for index, state in raw_states.items():
            if summary and summary.items[0] <= index < summary.items[1] and state != "kept":
                assert state == "summarized"
        # incremental folds: each folded raw item reached the summarizer exactly once, in order
        folded_items = [it for c in summarizer.calls
                        for it in c["items"][2 if c["previous"] else 0:]]
        assert folded_items == (items[summary.items[0]: summary.items[1]] if summary else [])

    arun(go())


@SETTINGS
@given(messy_history(), limits())
def test_damaged_logs_still_give_valid_views(items, knobs):
    keep, limit = knobs

    async def go():
        session = SummarizingSession(keep, limit, ExtractiveSummarizer(), "messy")
        if items:
            await session.add_items(items)
        assert validate_items(await session.get_items()) == []
        for n in (1, 3, 7):
            assert validate_items(await session.get_items(limit=n)) == []
        assert await session.raw_items() == items

    arun(go())


@SETTINGS
@given(st.data(), limits(), st.integers(0, 6))
def test_pop_and_clear_follow_the_protocol(data, knobs, pops):
    keep, limit = knobs
    items = data.draw(history())

    async def go():
        session = SummarizingSession(keep, limit, RecordingSummarizer(), "pop")
        for part in batches(data.draw, items):
            await session.add_items(part)
        for k in range(pops):
            popped = await session.pop_item()
            assert popped == (items[len(items) - 1 - k] if k < len(items) else None)
            assert validate_items(await session.get_items()) == []
        assert await session.raw_items() == items[: max(0, len(items) - pops)]
        await session.clear_session()
        assert await session.get_items() == [] and session.summary is None

    arun(go())


@SETTINGS
@given(st.data(), limits(), st.booleans(), st.integers(0, 3))
def test_nothing_is_lost_with_pending_calls_late_outputs_and_pops(data, knobs, background, pops):
    keep, limit = knobs
    items = data.draw(hard_history())
    parts = batches(data.draw, items)

    async def go():
        session = SummarizingSession(keep, limit, RecordingSummarizer(), "hard",
                                     background=background)
        stored: list = []
        for part in parts:
            await session.add_items(part)
            stored.extend(part)
            await check(session, stored, keep, limit, settled=False)
        await session.flush()
        await check(session, stored, keep, limit, settled=True)
        for _ in range(pops):
            await session.pop_item()
            if stored:
                stored.pop()
            await session.flush()
            await check(session, stored, keep, limit, settled=False)

    arun(go())


async def check(session, items, keep, limit, *, settled):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = await session.get_items()
        ledger = await session.ledger()
    assert validate_items(view) == []
    states = {e.index: e.state for e in ledger if e.index is not None}
    assert set(states) == set(range(len(items)))
    # every raw item is shown, folded or pending: nothing is dropped
    assert set(states.values()) <= {"kept", "summarized", "pending"}, ledger.table()
    for index, state in states.items():
        if state == "pending":
            item = items[index]
            assert item.get("type") in ("function_call", "custom_tool_call", "reasoning")
    seg = segment_turns(items)
    summary = session.summary
    if summary is not None:  # the record states exactly what it folds
        last = summary.turns[1]
        end = summary.items[1]
        starts = [t.start for t in seg.turns]
        assert starts[last - 1] < end <= (starts[last] if last < len(starts) else len(items))
    if settled:  # once folds succeed, at most context_limit turns are unfolded
        end = summary.items[1] if summary else len(seg.preamble)
        unfolded = [t for t in seg.turns if t.start >= end]
        assert len(unfolded) <= limit
        if summary:
            assert len(unfolded) >= keep
