"""How much of the invariant check runs, and where (issue 33, point 6).

The full check runs on every view in strict mode (the test suite) and, outside it, for every
policy that is not ctxlab's own (a new or replaced one); ctxlab's proven policies then get
the cheap check only (slot order and bounds, the newest turn kept). Each level is shown to
catch a broken variant: a trim policy broken from the inside splits a turn (caught by the
full check, in strict mode, and when registered as a new policy), and one that drops the
newest item (caught even by the cheap check).
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from ctxlab import TrimmingSession, validate_items
from ctxlab.core.chat_rules import message_form_problem
from ctxlab.core.items import is_flat_json, shape_problem
from ctxlab.policies import PolicyViolation, PolicyWarning, Window, is_proven, strict_mode
from ctxlab.policies import trim as trim_module
from ctxlab.policies.base import LogView, preamble
from ctxlab.policies.invariants import strict
from ctxlab.sessions import trimming as trimming_module
from ctxlab.sessions.batches import check_batch, runner_form
from ctxlab.sessions.policy import policy_session_class

from conftest import arun, assistant, call, output, user

TURNS = [user("q1"), call("c1"), output("c1"), assistant("a1"), user("q2"), assistant("a2"),
         user("q3"), assistant("a3"), user("q4"), assistant("a4")]


def half_first_turn_preamble(log: LogView, keep: bool) -> Window:
    """BROKEN: also shows the first user message of the oldest turn without the rest of it."""
    window = preamble(log, keep)
    if log.turn_starts:
        first = log.turn_starts[0]
        window.add(range(first, first + 1), "half of the first turn")
    return window


def test_the_test_suite_runs_in_strict_mode():
    assert strict(), "tests/conftest.py sets CTXLAB_STRICT=1: every view gets the full check"


def test_ctxlab_policies_are_proven_and_a_replaced_one_is_not():
    assert is_proven(TrimmingSession._window, TrimmingSession.strategy.policy)

    def other(log, params):
        return trim_module.trim_window(log, params)

    assert not is_proven(other)
    assert not is_proven(TrimmingSession._window, other)


def test_strict_mode_gives_a_proven_policy_the_full_check(monkeypatch):
    monkeypatch.setattr(trim_module, "preamble", half_first_turn_preamble)
    session = TrimmingSession("s", max_turns=2)
    arun(session.add_items(TURNS))
    with strict_mode(), pytest.raises(PolicyViolation, match=r"ends inside turn 1"):
        arun(session.get_items())


def test_outside_strict_mode_a_proven_policy_gets_the_cheap_check_only(monkeypatch):
    monkeypatch.setattr(trim_module, "preamble", half_first_turn_preamble)
    session = TrimmingSession("s", max_turns=2)
    arun(session.add_items(TURNS))
    with strict_mode(False), warnings.catch_warnings():
        warnings.simplefilter("error", PolicyWarning)  # the cheap check does not look at turns
        view = arun(session.get_items())
    assert view[0] == user("q1") and validate_items(view) == []


def test_outside_strict_mode_a_new_policy_still_gets_the_full_check(monkeypatch):
    monkeypatch.setattr(trim_module, "preamble", half_first_turn_preamble)

    def new_trim_window(log, params):  # a policy ctxlab did not prove: a new function
        return trim_module.trim_window(log, params)

    spec = dataclasses.replace(TrimmingSession.strategy, name="newtrim", policy=new_trim_window,
                               session_name="NewTrimSession", session=None)
    session = policy_session_class(spec)("s", max_turns=2)
    arun(session.add_items(TURNS))
    with strict_mode(False), pytest.warns(PolicyWarning, match="new_trim_window"):
        view = arun(session.get_items())
    assert validate_items(view) == []


def test_the_cheap_check_still_catches_a_dropped_newest_item(monkeypatch):
    original = trimming_module.trim_window

    def drops_newest(log, params, **kwargs):
        window = original(log, params, **kwargs)
        fixed = Window([], [], window.fate_of, runs=[], raw_runs=[])
        last = window.runs[-1]
        fixed.add(range(last.start, last.stop - 1), "all but the newest item")
        return fixed

    monkeypatch.setattr(trimming_module, "trim_window", drops_newest)
    session = TrimmingSession("s", max_turns=2)
    assert is_proven(type(session)._window, type(session).strategy.policy)
    arun(session.add_items(TURNS))
    with strict_mode(False), pytest.warns(PolicyWarning, match="drops raw item 9 of the newest"):
        arun(session.get_items())
    session._changed()
    with strict_mode(), pytest.raises(PolicyViolation, match="drops raw item 9"):
        arun(session.get_items())


FORMS = [
    user("plain"), user("typed", typed=True), assistant("plain"), assistant("with id", "msg_1"),
    call("c1"), output("c1"), output("c1", {"nested": [1, 2]}),
    {"role": "assistant", "content": "x", "id": "msg_2"},  # typed-less with an id: refused
    {"type": "message", "role": "assistant", "content": "x", "id": "m", "status": "x"},
    {"role": "user", "content": "x", "name": "bob"},  # private key: the careful way
    {"role": "user", "content": "naïve"},  # not ASCII: copied the careful way
    {"role": "user", "content": ["not", "parts"]},
    {"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"},
    {"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}},
    {"type": "function_call_output", "call_id": "c", "output": "ok", "status": None},
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"role": "robot", "content": "x"},
]


@pytest.mark.parametrize("item", FORMS, ids=range(len(FORMS)))
def test_the_write_fast_path_accepts_only_what_the_full_checks_accept_unchanged(item):
    if runner_form(item):
        assert shape_problem(item) is None
        assert message_form_problem(item) is None
        assert is_flat_json(item)
        assert check_batch([item]) == [item]


def test_the_write_fast_path_refuses_what_the_full_checks_refuse():
    refused = [FORMS[7], FORMS[8], FORMS[11], FORMS[12], FORMS[13], FORMS[16]]
    for item in refused:
        assert not runner_form(item)
        with pytest.raises(ValueError, match="item 0 of 1 is invalid"):
            check_batch([item])
    assert runner_form(FORMS[0]) and runner_form(FORMS[4]) and runner_form(FORMS[5])
    careful = [FORMS[9], FORMS[10]]  # accepted, but not on the fast path
    for item in careful:
        assert not runner_form(item) and len(check_batch([item])) == 1
