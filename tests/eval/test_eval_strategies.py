"""Strategy specs, the registry, the full-history baseline session."""

from __future__ import annotations

import re

import pytest
from agents.memory import Session

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.eval import (
    Component,
    FullHistorySession,
    Strategy,
    parse_strategies,
    parse_strategy,
    register_component,
    strategy_help,
)
from ctxlab.eval.strategies import Base, components

from conftest import arun, assistant, user


@pytest.mark.parametrize(("spec", "name"), [
    ("full", "full"),
    ("trim:8", "trim:8"),
    (" trim:8 @ 4000 ".replace(" ", ""), "trim:8@4000"),
    ("summarize: 2 / 4", "summarize:2/4"),
    ("budget:3000", "full+budget:3000"),
    ("trim:4+budget:900+state", "trim:4+state+budget:900"),
    ("trim:4+recall", "trim:4+recall"),
    ("trim:4+recall:2+compact", "trim:4+compact+recall:2"),
])
def test_specs_have_canonical_names(spec, name):
    assert parse_strategy(spec).name == name


def test_parsed_strategies_make_the_sessions_they_name():
    trim = parse_strategy("trim:8@4000").make_session("s1")
    assert isinstance(trim, TrimmingSession) and trim.max_turns == 8 and trim.max_tokens == 4000
    summary = parse_strategy("summarize:2/4").make_session("s2")
    assert isinstance(summary, SummarizingSession)
    assert (summary.keep_last_n_turns, summary.context_limit) == (2, 4)
    assert isinstance(parse_strategy("full").make_session("s3"), FullHistorySession)
    assert parse_strategy("trim:8").make_transform is None
    assert parse_strategy("trim:4+state").make_transform is not None
    assert parse_strategy("trim:4+state+budget:900").params == {
        "base": "trim:4", "max_turns": 4, "max_tokens": None, "state": True,
        "budget": {"max_tokens": 900}}
    assert parse_strategy("summarize:2/4").label == "summarize 2/4"


@pytest.mark.parametrize(("spec", "message"), [
    ("nope:3", "unknown part 'nope:3'"),
    ("trim", "needs a turn count"),
    ("trim:0", "must be >= 1"),
    ("trim:x", "N (turns) must be a whole number"),
    ("trim:4@", "TOKENS must be a whole number"),
    ("summarize:4/2", "0 <= K <= L"),
    ("summarize:3", "expected summarize:K/L"),
    ("state+trim:4", "must come first"),
    ("trim:4+state+state", "state appears twice"),
    ("trim:4++state", "empty part"),
    ("full:2", "full takes no argument"),
    ("recall", "use a trim:N or summarize:K/L base"),
    ("budget:-5", "must be a whole number"),
    ("", "non-empty string"),
])
def test_bad_specs_name_the_part_that_is_wrong(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_strategy(spec)


def test_strategies_must_differ_and_be_given():
    with pytest.raises(ValueError, match="listed twice"):
        parse_strategies(["budget:100", "full+budget:100"])
    with pytest.raises(ValueError, match="no strategies"):
        parse_strategies([])
    made = Strategy("mine", lambda sid: FullHistorySession(sid))
    assert parse_strategy(made) is made and made.title == "mine"
    with pytest.raises(ValueError, match="non-empty"):
        Strategy(" ", lambda sid: None)
    with pytest.raises(ValueError, match="make_session must be callable"):
        Strategy("x", None)  # type: ignore[arg-type]


def test_components_can_be_registered_by_name():
    def parse(arg, summarizer):
        return Base(f"window:{arg}", f"window {arg}",
                    lambda sid: TrimmingSession(sid, max_turns=int(arg)))

    register_component(Component("window", "base", "window:N", "test window", parse),
                       replace=True)
    try:
        strategy = parse_strategy("window:3+state")
        assert strategy.name == "window:3+state"
        assert strategy.make_session("w").max_turns == 3
        assert "window:N" in strategy_help()
        with pytest.raises(ValueError, match="already registered"):
            register_component(Component("window", "base", "w", "again", parse))
    finally:
        from ctxlab.eval import strategies

        strategies._COMPONENTS.pop("window", None)
    with pytest.raises(ValueError, match="lowercase word"):
        register_component(Component("Bad Name", "base", "x", "x", parse))
    assert [c.role for c in components()][:3] == ["base"] * 3


def test_the_full_history_session_keeps_everything_and_returns_copies():
    session = FullHistorySession("full")
    assert isinstance(session, Session)
    items = [user("hi"), assistant("hello"), user("again")]

    async def run():
        await session.add_items(items)
        view = await session.get_items()
        view[0]["content"] = "changed"
        again = await session.get_items()
        last = await session.get_items(limit=1)
        none = await session.get_items(limit=0)
        popped = await session.pop_item()
        await session.clear_session()
        return again, last, none, popped, await session.get_items()

    again, last, none, popped, cleared = arun(run())
    assert again == items and last == items[-1:] and none == []
    assert popped == items[-1] and cleared == []
    with pytest.raises(ValueError, match="session_id"):
        FullHistorySession("")
