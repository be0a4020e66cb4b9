"""FirstLastSession: the first F turns pinned, the last N kept, the middle dropped whole."""

from __future__ import annotations

import pytest

from ctxlab import FirstLastSession, item_text, validate_items
from ctxlab.eval.strategies import parse_strategy

from conftest import arun, assistant, call, output, user


def chat(turns: int) -> list[dict]:
    items = [{"role": "developer", "content": "Be brief."}]
    for t in range(turns):
        items += [user(f"q{t}"), call(f"c{t}"), output(f"c{t}", f"o{t}"), assistant(f"a{t}")]
    return items


def test_first_and_last_turns_are_shown_and_the_middle_is_dropped_whole():
    async def go():
        session = FirstLastSession("fl", first_turns=1, last_turns=2)
        await session.add_items(chat(6))
        view = await session.get_items()
        assert validate_items(view) == []
        texts = [item_text(i) for i in view]
        assert texts[0] == "Be brief."
        assert [t for t in texts if t.startswith("q")] == ["q0", "q4", "q5"]
        ledger = await session.ledger()
        middle = [e for e in ledger if e.turn in (2, 3, 4)]
        assert middle and all(e.state == "dropped" for e in middle)
        assert "between the first 1 and the last 2 turns" in middle[0].reason
        assert all(e.state == "kept" for e in ledger if e.turn in (1, 5, 6))

    arun(go())


def test_short_chats_are_shown_whole():
    async def go():
        session = FirstLastSession(first_turns=2, last_turns=2)
        await session.add_items(chat(4))
        assert await session.get_items() == chat(4)

    arun(go())


def test_bad_parameters_name_themselves():
    with pytest.raises(ValueError, match="first_turns must be an integer >= 1"):
        FirstLastSession(first_turns=0)
    with pytest.raises(ValueError, match="last_turns must be an integer >= 1"):
        FirstLastSession(last_turns="3")  # type: ignore[arg-type]


def test_the_spec_syntax_knows_it():
    strategy = parse_strategy("firstlast:1/3+state")
    assert strategy.name == "firstlast:1/3+state"
    session = strategy.make_session("x")
    assert isinstance(session, FirstLastSession) and session.params.last_turns == 3
    three = parse_strategy("firstlast:3").make_session("y")  # N keeps its default (4)
    assert (three.params.first_turns, three.params.last_turns) == (3, 4)
    with pytest.raises(ValueError, match="expected firstlast:F/N"):
        parse_strategy("firstlast:")
    with pytest.raises(ValueError, match="firstlast takes at most 2 value"):
        parse_strategy("firstlast:1/2/3")
