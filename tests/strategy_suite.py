"""The shared strategy suite's building blocks (tests/policies/test_every_strategy.py runs
them on every registered strategy; tests/policies/test_policy_invariants.py on broken ones).

What to draw for a strategy comes from its spec (``StrategySpec.hints``), never its name.
"""

from __future__ import annotations

import warnings

from hypothesis import assume
from hypothesis import strategies as st

from ctxlab import model_safe, segment_turns, validate_items
from ctxlab.sessions import StrategySpec, strategies

from conftest import arun
from fakes import RecordingSummarizer
from strategies import batches, hard_history, history

SPECS = {spec.name: spec for spec in strategies()}


def draw_session(draw: st.DrawFn, spec: StrategySpec | str):
    """A session of ``spec`` with parameters and options drawn as its hints say."""
    spec = SPECS[spec] if isinstance(spec, str) else spec
    hints = spec.hints
    kwargs = {}
    for param, values in hints.ranges.items():
        pick = st.sampled_from(values)
        kwargs[param] = draw(st.one_of(st.none(), pick) if param in hints.optional else pick)
    for option, values in hints.options.items():
        kwargs[option] = draw(st.sampled_from(values))
    if hints.summarizer:
        kwargs["summarizer"] = RecordingSummarizer()
    try:
        return spec.make("prop", **kwargs)
    except ValueError:
        assume(False)  # parameters that contradict each other (K > L) are rejected


async def check_view(session, items):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = await session.get_items()
        ledger = await session.ledger()
    assert validate_items(view) == []
    assert await session.raw_items() == items
    raw = [e for e in ledger if e.index is not None]
    assert [e.index for e in raw] == list(range(len(items)))
    shown = ledger.view()
    assert [e.position for e in shown] == list(range(len(view)))
    for entry, item in zip(shown, view, strict=True):
        if entry.index is not None:
            assert item == model_safe(items[entry.index])
    turns = segment_turns(items).turns
    if turns:  # the newest turn is never dropped (its pending calls wait, they are not lost)
        for index in turns[-1].indices:
            state = ledger[[e.index for e in ledger].index(index)].state
            assert state != "dropped" or items[index].get("type") == "reasoning"
    return view


def views_are_valid_explained_and_limits_cut_safely(spec: StrategySpec, data: st.DataObject):
    """The suite's main property, for any spec (also the broken ones kept in
    test_policy_invariants.py, on which it must fail)."""
    session = draw_session(data.draw, spec)
    items = data.draw(st.one_of(history(), hard_history()))  # with pending calls, late outputs
    parts = batches(data.draw, items)
    limits = data.draw(st.lists(st.integers(0, 12), max_size=3))
    pops = data.draw(st.integers(0, 3))

    async def go():
        stored = []
        for part in parts:
            await session.add_items(part)
            stored.extend(part)
            await check_view(session, stored)
        if hasattr(session, "flush"):
            await session.flush()
        full = await check_view(session, stored)
        for limit in limits:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cut = await session.get_items(limit=limit)
            assert validate_items(cut) == [] and len(cut) <= limit
            assert cut == full[len(full) - len(cut):] if cut else True
        for _ in range(pops):
            popped = await session.pop_item()
            assert popped == (stored.pop() if stored else None)
            await check_view(session, stored)

    arun(go())
