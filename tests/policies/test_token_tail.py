"""The token tail (pin the first turn, then the newest whole turns within T tokens): the
strategy added as one policy file plus its registration, and everything that follows from
the registration alone (session class, exports, spec syntax, plots, evaluation)."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import ctxlab
from ctxlab import TokenBudgetWarning, TokenTailSession, count_items_tokens, validate_items
from ctxlab.eval import parse_strategy
from ctxlab.policies import first_last
from ctxlab.policies.token_tail import TokenTailParams
from ctxlab.sessions import get_strategy, register_strategy, strategies, unregister_strategy
from ctxlab.viz.palette import strategy_key

from conftest import arun, assistant, call, output, user


def turns(n: int, words: int = 30) -> list[dict]:
    items = []
    for t in range(1, n + 1):
        items += [user(f"q{t} " + "word " * words), assistant(f"a{t} " + "reply " * words)]
    return items


def test_the_first_turn_is_pinned_and_the_newest_turns_fill_the_budget():
    items = turns(6)
    per_turn = count_items_tokens(items[:2])
    session = TokenTailSession("tail", max_tokens=per_turn * 3 + 5)
    arun(session.add_items(items))
    view = arun(session.get_items())
    texts = [it["content"] if isinstance(it["content"], str) else it["content"][0]["text"]
             for it in view]
    assert [t.split()[0] for t in texts] == ["q1", "a1", "q5", "a5", "q6", "a6"]
    assert count_items_tokens(view) <= session.params.max_tokens
    ledger = arun(session.ledger())
    assert {e.reason for e in ledger if e.state == "dropped"} == {
        f"between the first turn and the newest turns within {per_turn * 3 + 5} tokens"}


def test_whole_turns_only_and_a_note_when_the_pinned_part_is_over():
    items = [user("q1 " + "big " * 200), call("c1"), output("c1", "x " * 100),
             assistant("a1"), user("q2"), assistant("a2")]
    session = TokenTailSession(max_tokens=50)
    arun(session.add_items(items))
    with pytest.warns(TokenBudgetWarning, match="over the max_tokens budget of 50"):
        view = arun(session.get_items())
    assert validate_items(view) == [] and len(view) == len(items)  # both kept, whole


def test_bad_parameters_name_what_is_wrong():
    with pytest.raises(ValueError, match="max_tokens must be an integer >= 1, got 0"):
        TokenTailSession(max_tokens=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_turns'"):
        TokenTailSession(max_turns=3)
    with pytest.raises(ValueError, match=r"strategy part 'tokentail:x': T \(tokens\)"):
        get_strategy("tokentail").parse("x")


def test_everything_follows_from_the_registration():
    spec = get_strategy("tokentail")
    assert ctxlab.TokenTailSession is spec.session is ctxlab.sessions.TokenTailSession
    assert "TokenTailSession" in ctxlab.__all__
    assert spec.canonical({"max_tokens": 900}) == "tokentail:900"
    assert strategy_key("tokentail:900").family == "firstlast"
    strategy = parse_strategy("tokentail:900+state")
    assert isinstance(strategy.make_session("s"), TokenTailSession)
    session = TokenTailSession("p", max_tokens=300)
    assert repr(session) == "TokenTailSession(session_id='p', max_tokens=300, items=0, turns=0)"


def test_a_strategy_registered_by_your_own_package_works_everywhere():
    """What DEVELOPERS.md promises, done from outside the package: a spec, registered."""
    spec = dataclasses.replace(
        first_last.SPEC, name="pinnedtail", session_name="PinnedTailSession",
        syntax="pinnedtail:F/N", read_label=None, label=None,
        parse=lambda arg: first_last.SPEC.parse(arg))
    registered = register_strategy(spec)
    try:
        cls = registered.session
        assert cls.__name__ == "PinnedTailSession" and ctxlab.PinnedTailSession is cls
        session = cls("mine", 1, 2)  # positional parameters: the params' fields in order
        assert session.params == first_last.FirstLastParams(1, 2)
        arun(session.add_items(turns(5)))
        assert len(arun(session.get_items())) == 6
        assert parse_strategy("pinnedtail:1/2").name == "pinnedtail:1/2"
        assert strategy_key("pinnedtail:1/2").family == "firstlast"
        assert strategy_key("pinnedtail 1/2").family == "firstlast"  # its default label
    finally:
        unregister_strategy("pinnedtail")
    assert "pinnedtail" not in {s.name for s in strategies()}


def test_params_are_one_object_changed_as_a_whole():
    session = TokenTailSession("t", max_tokens=400)
    session.set_params(max_tokens=200)
    assert session.params == TokenTailParams(200)
    with pytest.raises(ValueError, match="max_tokens must be an integer >= 1"):
        session.set_params(max_tokens=-5)
    assert session.params == TokenTailParams(200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert arun(session.get_items()) == []
