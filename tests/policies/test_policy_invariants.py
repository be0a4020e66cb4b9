"""Invariants are enforced, not repaired: three deliberately broken policies, each caught.

``build_view`` makes any window valid for the API, so before strict invariants these broken
policies passed the shared property suite: a policy that pins only the user message of a
turn (half a turn), one that ignores its token budget, one whose tail is one turn over it.
Each is kept here; each must fail the suite (and a direct check) with the policy's name,
and in non-strict mode each still gives a valid view with a PolicyWarning naming it.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ctxlab import validate_items
from ctxlab.policies import PolicyViolation, PolicyWarning, Window, strict_mode
from ctxlab.policies.base import PREAMBLE_DROPPED, LogView, preamble
from ctxlab.policies.first_last import SPEC as FIRST_LAST
from ctxlab.policies.first_last import FirstLastParams, first_last_window
from ctxlab.policies.invariants import window_violations
from ctxlab.policies.token_tail import SPEC as TOKEN_TAIL
from ctxlab.policies.token_tail import TokenTailParams, token_tail_window
from ctxlab.sessions import get_strategy
from ctxlab.sessions.policy import policy_session_class

from conftest import arun, assistant, call, output, user
from strategy_suite import views_are_valid_explained_and_limits_cut_safely


def half_turn_window(log: LogView, params: FirstLastParams) -> Window:
    """BROKEN: first + last, but of the first turn only its user message is pinned."""
    window = first_last_window(log, params)
    starts = log.turn_starts
    if len(starts) > params.first_turns + params.last_turns:
        first_end = starts[params.first_turns]
        cut = [s for s in window.slots if not (starts[0] < s < first_end)]  # type: ignore[operator]
        window.reasons = window.reasons[:len(cut)]
        window.slots, window.runs = cut, None
        fate = window.fate_of
        window.fate_of = lambda i: (("dropped", "rest of the first turn")
                                    if starts[0] < i < first_end else fate(i))
    return window


def budget_ignored_window(log: LogView, params: TokenTailParams) -> Window:
    """BROKEN: a token tail that shows every turn whatever its budget."""
    window = preamble(log, params.keep_preamble)
    if log.turn_starts:
        window.add(range(log.turn_starts[0], len(log)), "every turn")
    window.fate_of = lambda index: ("dropped", PREAMBLE_DROPPED)
    return window


def tail_one_turn_over_window(log: LogView, params: TokenTailParams) -> Window:
    """BROKEN: a token tail whose tail takes one turn more than fits."""
    window = token_tail_window(log, params)
    starts = log.turn_starts
    if window.notes or len(starts) < 3:
        return window
    tail_start = window.runs[-1].start if window.runs else len(log)
    k = starts.index(tail_start) if tail_start in starts else len(starts)
    if k <= 1:
        return window
    fixed = token_tail_window(log, params)
    fixed.slots, fixed.reasons, fixed.runs = [], [], []
    fixed.add(range(0 if params.keep_preamble else starts[0], starts[1]), "first turn")
    fixed.add(range(starts[k - 1], len(log)), "tail, one turn over")
    return fixed


def mutant(spec, name, policy):
    broken = dataclasses.replace(spec, name=name, policy=policy, session_name=f"{name}Session")
    return dataclasses.replace(broken, session=policy_session_class(broken))


MUTANTS = {
    "half_turn": mutant(FIRST_LAST, "half_turn", half_turn_window),
    "budget_ignored": mutant(TOKEN_TAIL, "budget_ignored", budget_ignored_window),
    "tail_one_turn_over": mutant(TOKEN_TAIL, "tail_one_turn_over", tail_one_turn_over_window),
}

LONG = [user("q1 " + "first " * 30), assistant("a1 " + "reply " * 40), user("q2"),
        call("c2", "lookup"), output("c2", "result " * 60), assistant("a2"),
        user("q3 " + "more " * 30), assistant("a3 " + "words " * 40),
        user("q4"), assistant("a4 " + "end " * 20), user("q5"), assistant("a5")]
SESSIONS = {
    "half_turn": lambda spec: spec.make("m", first_turns=1, last_turns=2),
    "budget_ignored": lambda spec: spec.make("m", max_tokens=120),
    "tail_one_turn_over": lambda spec: spec.make("m", max_tokens=200),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_broken_policy_fails_in_strict_mode_with_its_name(name):
    session = SESSIONS[name](MUTANTS[name])
    with strict_mode():
        arun(session.add_items(LONG))
        with pytest.raises(PolicyViolation, match=f"policy '{MUTANTS[name].policy.__name__}'"):
            arun(session.get_items())


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_outside_strict_mode_a_broken_policy_is_repaired_and_named(name):
    session = SESSIONS[name](MUTANTS[name])
    with strict_mode(False):
        arun(session.add_items(LONG))
        with pytest.warns(PolicyWarning, match=MUTANTS[name].policy.__name__):
            view = arun(session.get_items())
    assert validate_items(view) == []


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_shared_property_suite_fails_on_each_broken_policy(name):
    spec = MUTANTS[name]

    @settings(max_examples=300, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
    @given(data=st.data())
    def suite(data):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            views_are_valid_explained_and_limits_cut_safely(spec, data)

    with strict_mode(), pytest.raises(BaseException) as failed:
        suite()
    assert spec.policy.__name__ in _messages(failed.value), _messages(failed.value)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_without_the_invariants_the_suite_would_not_notice(name):
    """The blind spot this file closes: with violations only warned about (and the view
    repaired, as before), every broken policy passes the suite's other checks."""
    spec = MUTANTS[name]

    @settings(max_examples=60, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def suite(data):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            views_are_valid_explained_and_limits_cut_safely(spec, data)

    with strict_mode(False):
        suite()


def _messages(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", ())
    return " | ".join([str(exc), *(_messages(e) for e in inner)])


def test_the_sound_policies_pass_the_same_direct_check():
    for name, kwargs in (("firstlast", {"first_turns": 1, "last_turns": 2}),
                         ("tokentail", {"max_tokens": 120}), ("tokentail", {"max_tokens": 200})):
        spec = get_strategy(name)
        session = spec.make("ok", **kwargs)
        arun(session.add_items(LONG))
        with strict_mode():
            assert validate_items(arun(session.get_items())) == []
        window = session._window()
        assert window_violations(session._log, window, spec.invariants, session.params) == []


def test_windows_out_of_order_or_outside_the_log_are_refused_on_every_path():
    from ctxlab.policies.base import Synthetic, synthetic
    from ctxlab.policies.spec import Invariants

    session = get_strategy("firstlast").make("order", first_turns=1, last_turns=1)
    arun(session.add_items(LONG))
    log = session._log

    def window(*adds):
        w = preamble(log, True)
        for slots in adds:
            w.add(slots, "test")
        return w

    pair: Synthetic = synthetic(log, {"role": "assistant", "content": "s"}, "summary", "s")
    lenient = Invariants(whole_turns=False, synthetic=True)
    backwards = [window(range(8, 12), range(2, 6)),                  # runs (plain path)
                 window([pair], range(8, 12), range(2, 6)),          # runs + synthetic
                 window([9, 8]), window([8, 8])]                     # loose slots
    for w in backwards:
        assert window_violations(log, w, lenient)[0].startswith(
            "its raw slots are not in ascending order"), w.slots
    outside = window(range(8, 40))
    assert window_violations(log, outside, lenient) == [
        f"it names raw items outside the log (0..{len(log) - 1})"]
    assert "synthetic item(s), which its strategy does not declare" in window_violations(
        log, window([pair], range(8, 12)), Invariants())[0]
