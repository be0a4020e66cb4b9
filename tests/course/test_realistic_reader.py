"""The realistic reader: "lost in the middle" as measured, seeded, and off by default."""

from __future__ import annotations

import math

import pytest

from ctxlab import make_support_agent
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.offline import reader as reader_module
from ctxlab.course.offline.reader import (
    L0,
    ORACLE,
    ORACLE_16K,
    THIRTY_PASSAGES,
    THIRTY_TOKENS,
    TWENTY_PASSAGES,
    TWENTY_TOKENS,
    Layout,
    RealisticReader,
    chance,
    chance_of,
)

FILLER = ("Thanks. Let's keep going: please restart the laptop and tell me what you see. "
          * 6).strip()


def conversation(fact_at: int, turns: int, value: str = "TCK-48213") -> list[dict]:
    """``turns`` user turns of filler; turn ``fact_at`` gives the ticket number; the last
    user message asks for it."""
    items: list[dict] = []
    for turn in range(1, turns + 1):
        said = f"My ticket is {value}." if turn == fact_at else "It still does not start."
        items += [{"role": "user", "content": said}, {"role": "assistant", "content": FILLER}]
    items.append({"role": "user", "content": "What was my ticket number again?"})
    return items


def u_shaped(curve) -> bool:
    """The middle of a window is worse than both of its ends, at 4,000 tokens."""
    middle = min(curve(x / 10, 4000) for x in range(3, 8))
    return middle < curve(0.0, 4000) - 0.1 and middle < curve(1.0, 4000) - 0.05


def test_the_chance_reproduces_the_published_20_passage_curve():
    for position, accuracy in TWENTY_PASSAGES:
        x = (position - 1) / 19
        assert chance(x, TWENTY_TOKENS) == pytest.approx(accuracy / ORACLE, abs=1e-9)


def test_the_length_fit_matches_the_published_30_passage_points():
    for position, accuracy in THIRTY_PASSAGES:
        x = (position - 1) / 29
        assert chance(x, THIRTY_TOKENS) == pytest.approx(accuracy / ORACLE_16K, abs=0.04)
    assert 50 < L0 < 300  # about one passage: where the oracle setting sits


def test_the_middle_is_worst_and_longer_windows_are_worse():
    assert u_shaped(chance)
    for x in (0.0, 0.3, 0.5, 0.8, 1.0):
        values = [chance(x, n) for n in (200, 700, 2000, 4000, 8000, 32000)]
        assert values == sorted(values, reverse=True)
        assert values[0] > values[-1]
    assert chance(0.5, int(L0)) == 1.0
    assert chance(0.5, 10**9) == reader_module.FLOOR


def test_a_reader_that_ignores_position_is_caught():
    assert not u_shaped(lambda x, n: chance(0.5, n))  # the broken variant: flat in position


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="position"):
        chance(1.5, 1000)
    with pytest.raises(TypeError, match="seed"):
        RealisticReader("1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="reader"):
        OfflineSupportModel(reader="realistic")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="reader"):
        make_support_agent(reader=0.5)  # type: ignore[arg-type]


def test_the_share_of_facts_found_follows_the_chance():
    reader = RealisticReader(seed=7)
    for x, n in ((0.0, 4000), (0.5, 4000), (0.5, 700), (1.0, 8000)):
        found = sum(reader.finds(f"SN-{k:05d}", x, n) for k in range(3000)) / 3000
        assert found == pytest.approx(chance(x, n), abs=0.03)


def test_draws_are_seeded_and_deterministic():
    values = [f"TCK-{k}" for k in range(200)]
    a = [RealisticReader(3).finds(v, 0.5, 4000) for v in values]
    assert a == [RealisticReader(3).finds(v, 0.5, 4000) for v in values]
    assert a != [RealisticReader(4).finds(v, 0.5, 4000) for v in values]


def test_a_fact_found_in_a_long_window_is_found_where_it_has_a_better_place():
    reader = RealisticReader(seed=11)
    for k in range(500):
        value = f"RMA-{k}"
        if reader.finds(value, 0.5, 6000):
            assert reader.finds(value, 0.5, 1500)
            assert reader.finds(value, 0.0, 6000)


def test_layout_places_items_after_the_instructions_in_order():
    items = conversation(2, 5)
    layout = Layout.of("You help.", items)
    assert layout.starts[0] > 0
    assert all(a < b for a, b in zip(layout.starts, layout.starts[1:], strict=False))
    assert layout.ends[-1] == layout.total
    assert 0 < layout.position(0) < layout.position(len(items) - 1) <= 1


def reply(model: OfflineSupportModel, items: list[dict]) -> str:
    return model.respond("You are a support agent.", items).text


def test_off_by_default_every_fact_in_view_is_found():
    model = OfflineSupportModel()
    assert model.reader is None
    for fact_at in (1, 20, 39):
        assert "TCK-48213" in reply(model, conversation(fact_at, 40))


def hard_value(short: int, long: int) -> tuple[str, int]:
    """A value and a seed whose draw lies between the chances of the middle of a long and
    a short window (found in the short one, missed in the long one)."""
    for seed in range(200):
        reader = RealisticReader(seed)
        value = "TCK-48213"
        u = reader.draw(value)
        if chance(0.5, long) + 0.03 < u < chance(0.5, short) - 0.03:
            return value, seed
    raise AssertionError("no seed puts the value between the two chances")


def test_the_realistic_reader_misses_a_middle_fact_that_a_short_window_keeps():
    long_chat = conversation(20, 40)
    short_chat = conversation(2, 3)
    long_tokens = Layout.of("You are a support agent.", long_chat).total
    short_tokens = Layout.of("You are a support agent.", short_chat).total
    assert long_tokens > 3 * short_tokens
    value, seed = hard_value(short_tokens, long_tokens)
    model = OfflineSupportModel(reader=RealisticReader(seed))
    assert value not in reply(model, long_chat)
    assert "don't see" in reply(model, long_chat)
    assert value in reply(model, short_chat)
    assert value in reply(OfflineSupportModel(), long_chat)  # the perfect reader finds it


def test_chance_of_takes_the_best_placed_mention():
    items = conversation(15, 30)
    layout = Layout.of(None, items)
    assert chance_of("TCK-48213", items, layout) == pytest.approx(
        chance(layout.position(28, 13 / 23), layout.total), abs=1e-9)
    assert chance_of("TCK-00000", items, layout) == 0.0
    again = [*items[:-1], {"role": "user", "content": "It is TCK-48213."}, items[-1]]
    assert chance_of("TCK-48213", again, Layout.of(None, again)) > chance_of(
        "TCK-48213", items, layout)


def test_make_support_agent_gives_the_offline_model_the_reader():
    reader = RealisticReader(seed=5)
    agent = make_support_agent(reader=reader)
    assert agent.model.reader == reader
    assert "realistic reader" in agent.model.reader_label
    assert "perfect" in make_support_agent().model.reader_label
    assert math.isclose(chance(1.0, 4000), 63.2 / 88.3)
