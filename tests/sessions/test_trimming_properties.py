"""Property tests: for any history, the trimmed view is valid and faithful."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import TrimmingSession, repair, segment_turns, validate_items

from conftest import arun
from strategies import batches, history, messy_history

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


async def load(items, batch_list, **kwargs) -> TrimmingSession:
    session = TrimmingSession("prop", **kwargs)
    for batch in batch_list:
        await session.add_items(batch)
    return session


@SETTINGS
@given(st.data(), st.integers(1, 6))
def test_view_validates_and_keeps_last_turns_verbatim(data, max_turns):
    items = data.draw(history())
    parts = batches(data.draw, items)

    async def go():
        session = await load(items, parts, max_turns=max_turns)
        view = await session.get_items()
        assert validate_items(view) == []
        seg = segment_turns(items)
        expected = [items[i] for i in seg.preamble]
        kept_turns = seg.turns[-max_turns:]
        if kept_turns:
            expected += items[kept_turns[0].start:]
        assert view == expected
        ledger = await session.ledger()
        assert [e.index for e in ledger] == list(range(len(items)))
        assert [e.index for e in ledger.view()] == [
            i for i in range(len(items)) if ledger[i].state == "kept"]
        assert ledger.view_tokens == session.token_counter.count_items(view)

    arun(go())


@SETTINGS
@given(st.data(), st.integers(1, 6), st.integers(0, 30))
def test_limit_keeps_a_valid_suffix(data, max_turns, limit):
    items = data.draw(history())

    async def go():
        session = await load(items, [items] if items else [], max_turns=max_turns)
        full = await session.get_items()
        view = await session.get_items(limit=limit)
        assert validate_items(view) == []
        assert len(view) <= limit
        assert view == full[len(full) - len(view):] if view else True

    arun(go())


@SETTINGS
@given(messy_history(), st.integers(1, 5), st.one_of(st.none(), st.integers(0, 12)))
def test_damaged_logs_still_give_valid_views(items, max_turns, limit):
    async def go():
        session = await load(items, [items] if items else [], max_turns=max_turns)
        view = await session.get_items(limit=limit)
        assert validate_items(view) == []
        assert await session.raw_items() == items

    arun(go())


@SETTINGS
@given(st.data(), st.integers(1, 4), st.integers(20, 400))
def test_budget_is_respected_unless_the_newest_turn_alone_exceeds_it(data, max_turns, budget):
    items = data.draw(history())

    async def go():
        import warnings

        session = await load(items, [items] if items else [], max_turns=max_turns,
                             max_tokens=budget)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            view = await session.get_items()
        assert validate_items(view) == []
        tokens = session.token_counter.count_items(view)
        seg = segment_turns(items)
        if tokens > budget:
            newest = seg.turns[-1]
            assert view[-len(newest):] == items[newest.start:]
            assert any("newest turn alone" in str(w.message) for w in caught)
            preamble = len(seg.preamble)
            assert len(view) == preamble + len(newest)

    arun(go())


@SETTINGS
@given(st.data(), st.integers(1, 5))
def test_raw_log_never_loses_or_reorders_and_pop_clear_follow_the_protocol(data, max_turns):
    items = data.draw(history())
    parts = batches(data.draw, items)
    pops = data.draw(st.integers(0, 5))

    async def go():
        session = await load(items, parts, max_turns=max_turns)
        assert await session.raw_items() == items
        popped = [await session.pop_item() for _ in range(pops)]
        expected_popped = list(reversed(items))[:pops]
        assert popped[: len(expected_popped)] == expected_popped
        assert all(p is None for p in popped[len(expected_popped):])
        remaining = items[: max(0, len(items) - pops)]
        assert await session.raw_items() == remaining
        view = await session.get_items()
        assert validate_items(view) == []
        seg = segment_turns(remaining)
        window = [remaining[i] for i in seg.preamble]
        if seg.turns:
            window += remaining[seg.turns[-max_turns:][0].start:]
        broken = repair(window)  # popping can cut a tool round in half
        assert view == [it for i, it in enumerate(window) if i not in broken]
        await session.clear_session()
        assert await session.get_items() == [] and await session.raw_items() == []
        assert await session.pop_item() is None

    arun(go())
