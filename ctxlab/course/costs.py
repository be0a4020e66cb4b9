"""What tokens cost: an editable price table and the arithmetic.

Prices are US dollars per million tokens, as OpenAI listed them in 2025 for standard
(non-batch) use, with the price of *cached* input tokens (served from the provider's prompt
cache, see :mod:`ctxlab.observe.prompt_cache`). They change: edit :data:`PRICES` (or pass
your own table) to match your account before trusting any dollar figure. The offline model
is free; the lessons price its token counts as if a real model had processed them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    """Dollars per million input, output and cached input tokens (``cached_input`` None:
    the same as ``input``, no caching discount)."""

    input: float
    output: float
    cached_input: float | None = None

    @property
    def cached(self) -> float:
        return self.input if self.cached_input is None else self.cached_input


#: Editable: model name -> price per million tokens (USD): input, output, cached input.
PRICES: dict[str, Price] = {
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
}


def price_for(model: str, prices: Mapping[str, Price] | None = None) -> Price:
    """The price of ``model``; a clear KeyError listing the known models otherwise."""
    table = PRICES if prices is None else prices
    if model not in table:
        known = ", ".join(sorted(table))
        raise KeyError(f"no price for model {model!r}; add it to ctxlab.course.costs.PRICES "
                       f"(known: {known})")
    return table[model]


def cost_usd(
    input_tokens: int,
    output_tokens: int = 0,
    model: str = "gpt-4.1-mini",
    prices: Mapping[str, Price] | None = None,
    *,
    cached_tokens: int = 0,
) -> float:
    """Dollars for the given token counts at ``model``'s price; ``cached_tokens`` of the
    input tokens are billed at the cached-input price."""
    if input_tokens < 0 or output_tokens < 0 or cached_tokens < 0:
        raise ValueError("token counts must be >= 0")
    if cached_tokens > input_tokens:
        raise ValueError(f"cached_tokens ({cached_tokens}) cannot exceed input_tokens "
                         f"({input_tokens})")
    price = price_for(model, prices)
    return ((input_tokens - cached_tokens) * price.input + cached_tokens * price.cached
            + output_tokens * price.output) / 1_000_000
