"""Prompt caching changes the economics of memory: cost per 100 turns with and without it.

A provider's prompt cache bills the repeated start of a prompt at a fraction of the input
price. Full history only ever appends, so nearly all of it stays cacheable; trimming one turn
at a time rewrites the start of every call and loses the cache; trimming in steps
(``trim:N/S``) or summarizing (a fold every ``L - K + 1`` turns) keeps the start stable
between changes. :func:`cache_costs` replays one conversation through several strategies
exactly as the Runner would (:class:`~ctxlab.eval.replay.StrategyReplay`), simulates the
cache over every model call (:class:`~ctxlab.observe.prompt_cache.PromptCacheSim`) and
prices both ways; :func:`cache_sweep` does it at several conversation lengths, to show where
trimming stops paying off.

A summarizing strategy's folds are model calls too: each one is counted (its request and
the summary it wrote, :class:`~ctxlab.summarizers.metered.MeteredSummarizer`) and billed at
the full input and output price with and without the cache (a fold's request starts with
the summary prompt and then the previous summary, which changes at every fold, so the
simulation gives it no cached prefix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.turns import segment_turns
from ..course.costs import PRICES, Price, cost_usd
from ..observe.prompt_cache import CacheRules, PromptCacheSim
from ..summarizers.metered import MeteredSummarizer
from .replay import StrategyReplay
from .strategies import Strategy, parse_strategy


@dataclass(frozen=True)
class CacheCost:
    """One strategy on one conversation: tokens sent (the agent's calls and the
    summarizer's), tokens the cache served, and the cost per 100 user turns without and
    with caching (USD); ``summary_calls`` folds read ``summary_input_tokens`` (part of
    ``input_tokens``) and wrote ``summary_output_tokens``."""

    strategy: str
    turns: int
    calls: int
    input_tokens: int
    cached_tokens: int
    cost_per_100_turns: float
    cached_cost_per_100_turns: float
    summary_calls: int = 0
    summary_input_tokens: int = 0
    summary_output_tokens: int = 0

    @property
    def cost_per_chat(self) -> float:
        """What the whole conversation cost without the cache (USD)."""
        return self.cost_per_100_turns * self.turns / 100

    @property
    def cached_cost_per_chat(self) -> float:
        """What the whole conversation cost with the cache (USD)."""
        return self.cached_cost_per_100_turns * self.turns / 100

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    @property
    def saving(self) -> float:
        """Share of the cost caching saves (0..1)."""
        if not self.cost_per_100_turns:
            return 0.0
        return 1 - self.cached_cost_per_100_turns / self.cost_per_100_turns


async def cache_cost(
    items: Sequence[Mapping[str, Any]],
    strategy: Strategy | str,
    *,
    instructions: str | None = None,
    tools: Sequence[Any] = (),
    model: str = "gpt-4.1-mini",
    prices: Mapping[str, Price] | None = None,
    rules: CacheRules | None = None,
    output_tokens_per_call: int = 0,
) -> CacheCost:
    """Replay ``items`` under ``strategy`` and price every model call with and without the
    prompt cache (input tokens only unless ``output_tokens_per_call`` is given)."""
    strategy = parse_strategy(strategy)
    sim = PromptCacheSim(rules or CacheRules())
    replay = StrategyReplay(items, strategy, instructions=instructions, tools=tools)
    plain = cached = 0.0
    count = 0
    async for call in replay.calls():
        if call.is_probe:
            continue
        result = sim.call(call.items, instructions=instructions, tools=tools)
        plain += cost_usd(result.input_tokens, output_tokens_per_call, model, prices)
        cached += cost_usd(result.input_tokens, output_tokens_per_call, model, prices,
                           cached_tokens=result.cached_tokens)
        count += 1
    meter = getattr(replay.session, "summarizer", None)
    folds = meter.calls if isinstance(meter, MeteredSummarizer) else []
    fold_in = sum(c.input_tokens for c in folds)
    fold_out = sum(c.output_tokens for c in folds)
    plain += cost_usd(fold_in, fold_out, model, prices)
    cached += cost_usd(fold_in, fold_out, model, prices)
    turns = max(1, len(segment_turns(list(items)).turns))
    return CacheCost(strategy.name, turns, count + len(folds), sim.input_tokens + fold_in,
                     sim.cached_tokens, 100 * plain / turns, 100 * cached / turns,
                     len(folds), fold_in, fold_out)


async def cache_costs(
    items: Sequence[Mapping[str, Any]],
    strategies: Sequence[Strategy | str],
    **options: Any,
) -> list[CacheCost]:
    """:func:`cache_cost` for each strategy, in order."""
    return [await cache_cost(items, s, **options) for s in strategies]


async def cache_sweep(
    items: Sequence[Mapping[str, Any]],
    strategies: Sequence[Strategy | str],
    lengths: Sequence[int],
    **options: Any,
) -> dict[int, list[CacheCost]]:
    """:func:`cache_costs` on the first ``n`` user turns of ``items``, for each ``n`` in
    ``lengths``: where the cheapest strategy changes as a conversation grows."""
    seg = segment_turns(list(items))
    out: dict[int, list[CacheCost]] = {}
    for n in lengths:
        if n < 1:
            raise ValueError(f"lengths must be >= 1, got {n}")
        end = seg.turns[n].start if n < len(seg.turns) else len(items)
        out[n] = await cache_costs(list(items[:end]), strategies, **options)
    return out


__all__ = ["PRICES", "CacheCost", "cache_cost", "cache_costs", "cache_sweep"]
