"""The prompt-cache model: prefixes, the provider's minimum and increments, and prices."""

from __future__ import annotations

import asyncio

import pytest

from ctxlab.course.costs import Price, cost_usd
from ctxlab.eval.caching import cache_costs, cache_sweep
from ctxlab.observe.prompt_cache import CacheRules, PromptCacheSim

from conftest import assistant, user

LONG = "word " * 600  # ~600 tokens


def test_rules_apply_the_minimum_and_the_increment():
    rules = CacheRules(min_prefix=1024, increment=128)
    assert rules.cached(1023) == 0
    assert rules.cached(1024) == 1024
    assert rules.cached(1024 + 127) == 1024
    assert rules.cached(1024 + 300) == 1024 + 256
    with pytest.raises(ValueError, match="increment must be an integer >= 1"):
        CacheRules(increment=0)


def test_an_appending_history_is_cached_and_a_sliding_one_is_not():
    growing = [user(LONG), assistant(LONG)]
    sim = PromptCacheSim(CacheRules(min_prefix=256, increment=64))
    first = sim.call(growing, instructions="Help.")
    assert first.cached_tokens == 0  # nothing cached before the first call
    second = sim.call([*growing, user("and now?")], instructions="Help.")
    assert 0 < second.cached_tokens <= second.input_tokens - 5
    slid = sim.call([growing[1], user("and now?")], instructions="Help.")  # start changed
    assert slid.cached_tokens == 0
    other = sim.call([growing[1], user("and now?")], instructions="Be terse.")
    assert other.cached_tokens == 0  # instructions are part of the prefix
    assert sim.cached_tokens == second.cached_tokens and 0 < sim.hit_rate < 1


def test_cached_tokens_are_billed_at_the_cached_price():
    prices = {"m": Price(input=2.0, output=8.0, cached_input=0.5)}
    assert cost_usd(1_000_000, 0, "m", prices) == pytest.approx(2.0)
    assert cost_usd(1_000_000, 0, "m", prices, cached_tokens=600_000) == pytest.approx(1.1)
    assert cost_usd(10, 0, "m", {"m": Price(1.0, 1.0)}, cached_tokens=10) == pytest.approx(
        10 / 1e6)  # no cached price: no discount
    with pytest.raises(ValueError, match="cannot exceed input_tokens"):
        cost_usd(10, 0, "m", prices, cached_tokens=11)


def test_stepwise_trimming_keeps_the_cache_that_turn_by_turn_trimming_loses():
    items = []
    for t in range(30):
        items += [user(f"question {t}: " + LONG), assistant(f"answer {t}: " + LONG)]

    async def go():
        return await cache_costs(items, ["full", "trim:4", "trim:4/6"], instructions="Help.")

    full, trim, stepped = asyncio.run(go())
    assert trim.hit_rate < 0.1  # once the window fills, its start moves every turn
    assert stepped.hit_rate > 3 * trim.hit_rate and full.hit_rate > 0.8
    assert stepped.cached_cost_per_100_turns < stepped.cost_per_100_turns
    assert full.saving > stepped.saving > trim.saving
    sweep = asyncio.run(cache_sweep(items, ["full", "trim:4"], [5, 30], instructions="Help."))
    assert set(sweep) == {5, 30} and sweep[5][0].turns == 5
