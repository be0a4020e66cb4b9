"""The shared property suite: every registered strategy (ctxlab.sessions.strategies), with
random parameters, on random histories fed in random batches, with pops.

A new strategy registered in ctxlab is tested here without writing a test: its view must
always be a valid Responses sequence, the ledger must explain every stored item, an item
limit must give a valid suffix, and the newest turn must never be lost.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctxlab import TrimmingSession, model_safe, segment_turns, validate_items
from ctxlab.sessions import strategies
from ctxlab.sessions.view import build_view

from conftest import arun, assistant, call, output, user
from fakes import RecordingSummarizer
from strategies import batches, hard_history, history, messy_history

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SPECS = {spec.name: spec for spec in strategies()}


def draw_session(draw: st.DrawFn, name: str):
    spec = SPECS[name]
    kwargs = {}
    for param, values in spec.params.items():
        if param == "max_tokens":
            kwargs[param] = draw(st.one_of(st.none(), st.sampled_from(values)))
        else:
            kwargs[param] = draw(st.sampled_from(values))
    if name == "summarize":
        kwargs["summarizer"] = RecordingSummarizer()
        kwargs["background"] = draw(st.booleans())
    try:
        return spec.make("prop", **kwargs)
    except ValueError:
        assume(False)  # parameters that contradict each other (K > L) are rejected


def test_every_builtin_strategy_is_registered():
    assert {"trim", "summarize", "firstlast"} <= set(SPECS)


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


@pytest.mark.parametrize("name", sorted(SPECS))
@SETTINGS
@given(data=st.data())
def test_views_are_valid_explained_and_limits_cut_safely(name, data):
    session = draw_session(data.draw, name)
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


@pytest.mark.parametrize("name", sorted(SPECS))
@SETTINGS
@given(data=st.data())
def test_damaged_logs_still_give_valid_views(name, data):
    session = draw_session(data.draw, name)
    items = data.draw(messy_history())

    async def go():
        if items:
            await session.add_items(items)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert validate_items(await session.get_items()) == []
            for n in (1, 3, 7):
                assert validate_items(await session.get_items(limit=n)) == []
        assert await session.raw_items() == items

    arun(go())


@pytest.mark.parametrize("name", sorted(SPECS))
@SETTINGS
@given(data=st.data())
def test_the_plain_window_shortcut_gives_the_same_view_as_the_slot_by_slot_path(name, data):
    """Windows made of whole runs of raw items take a shortcut (Window.runs): the view, its
    reasons and removals and the items handed out must equal the slot-by-slot path's."""
    session = draw_session(data.draw, name)
    items = data.draw(st.one_of(history(), hard_history(), messy_history()))
    parts = batches(data.draw, items)

    async def go():
        for part in parts:
            await session.add_items(part)
            log, window = session._log, session._window()
            slow = dataclasses.replace(window, runs=None)
            for limit in (None, 1, 4):
                fast_view = build_view(log, window, limit)
                slow_view = build_view(log, slow, limit)
                assert fast_view.slots == slow_view.slots
                assert fast_view.reasons == slow_view.reasons
                assert fast_view.removed == slow_view.removed
                assert fast_view.model_items(log) == slow_view.model_items(log)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arun(go())


def test_trimming_windows_take_the_shortcut_and_a_changed_window_does_not():
    session = TrimmingSession("runs", max_turns=2)
    items = [user("a"), assistant("b"), user("c"), call("c1", "f"), output("c1", "x"),
             user("d"), assistant("e")]
    arun(session.add_items(items))
    window = session._window()
    assert window.plain_runs() == [range(2, 7)]
    view = build_view(session._log, window, None)
    assert view.runs == [range(2, 7)]
    assert build_view(session._log, window, 1).runs is None  # the limit cut it
    window.slots.append(0)  # changed behind add(): the runs no longer describe it
    assert window.plain_runs() is None
