"""What tokens cost: an editable price table and the arithmetic.

Prices are US dollars per million tokens, as OpenAI listed them in 2025 for standard
(non-batch, uncached) use. They change: edit :data:`PRICES` (or pass your own table) to
match your account before trusting any dollar figure. The offline model is free; the
lessons price its token counts as if a real model had processed them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    """Dollars per million input and output tokens."""

    input: float
    output: float


#: Editable: model name -> price per million tokens (USD).
PRICES: dict[str, Price] = {
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-5": Price(1.25, 10.00),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5-nano": Price(0.05, 0.40),
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
) -> float:
    """Dollars for the given token counts at ``model``'s price."""
    if input_tokens < 0 or output_tokens < 0:
        raise ValueError("token counts must be >= 0")
    price = price_for(model, prices)
    return (input_tokens * price.input + output_tokens * price.output) / 1_000_000
