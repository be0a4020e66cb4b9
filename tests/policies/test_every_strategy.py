"""The shared property suite: every registered strategy (ctxlab.sessions.strategies), with
random parameters, on random histories fed in random batches, with pops.

A new strategy registered in ctxlab is tested here without writing a test: what to draw
comes from its spec (``StrategySpec.hints``), never from its name. Its view must always be a
valid Responses sequence, the ledger must explain every stored item, an item limit must give
a valid suffix, the newest turn must never be lost, and (strict mode, on in the tests) no
window may break the spec's invariants (whole turns, a declared budget): the suite fails on
broken policies (test_policy_invariants.py keeps three).
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ctxlab import TrimmingSession, validate_items
from ctxlab.sessions import read_strategy
from ctxlab.sessions.view import build_view
from ctxlab.viz.palette import strategy_key, strategy_style

from conftest import arun, assistant, call, output, user
from strategies import batches, hard_history, history, messy_history
from strategy_suite import SPECS, draw_session, views_are_valid_explained_and_limits_cut_safely

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def test_every_builtin_strategy_is_registered():
    assert {"trim", "summarize", "firstlast", "tokentail"} <= set(SPECS)
    for spec in SPECS.values():
        assert spec.session is not None and spec.session.strategy is spec


@pytest.mark.parametrize("name", sorted(SPECS))
@SETTINGS
@given(data=st.data())
def test_views_are_valid_explained_and_limits_cut_safely(name, data):
    views_are_valid_explained_and_limits_cut_safely(SPECS[name], data)


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


@pytest.mark.parametrize("name", sorted(SPECS))
@SETTINGS
@given(data=st.data())
def test_a_spec_and_its_label_read_back_and_plot_in_the_strategys_family(name, data):
    """Evaluation names results by the canonical spec, plots by the label: both must read
    back (through the registry) as the same strategy and parameters, and the palette must
    draw them in the family the spec declares, never in the fallback colour."""
    spec = SPECS[name]
    hints = spec.hints
    kwargs = {}
    for param, values in hints.ranges.items():
        pick = st.sampled_from(values)
        value = data.draw(st.one_of(st.none(), pick) if param in hints.optional else pick)
        if value is not None:
            kwargs[param] = value
    try:
        params = spec.make_params(kwargs)
    except ValueError:
        assume(False)
    for text in (spec.canonical(kwargs), spec.title(kwargs)):
        found = read_strategy(" ".join(text.lower().split()))
        assert found is not None, text
        assert found[0].name == name and spec.make_params(found[1]) == params, text
        key = strategy_key(text)
        assert key.family == spec.plot.family != "other", text
        assert strategy_style(text) == strategy_style(spec.canonical(kwargs)), text
