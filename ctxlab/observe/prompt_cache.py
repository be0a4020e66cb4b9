"""Prompt caching: how much of each model call a provider can serve from its cache.

Providers cache the *start* of a prompt. OpenAI, for example, caches automatically once a
prompt has at least 1,024 tokens, in steps of 128 tokens, for a prefix that is byte for byte
the same as an earlier request's (tools, instructions, then the input items in order), and
bills cached input tokens at a fraction of the input price. So a full history, which only
ever appends, keeps its whole past cacheable; a window that slides every turn changes the
start of the input and loses the cache; a window that moves in steps keeps it between steps.

:class:`PromptCacheSim` replays a sequence of model calls and reports the cached tokens of
each, given :class:`CacheRules` (the provider's minimum prefix and increment, documented
parameters rather than facts about every provider). The prefix is compared item by item
with the previous call (the cache a sequential conversation hits); items count as in
:func:`ctxlab.count_request_tokens`. It is a model of the mechanism, not a bill: providers
also evict idle caches (minutes), which this does not model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_int
from ..core.digest import canonical_json
from ..core.items import item_text
from ..core.tokens import ITEM_OVERHEAD_TOKENS, TokenCounter, get_token_counter, tool_schema_text


@dataclass(frozen=True)
class CacheRules:
    """A provider's caching rules: prompts shorter than ``min_prefix`` tokens are not cached;
    longer matches are cached in multiples of ``increment`` tokens beyond it (OpenAI's
    published values are the defaults)."""

    min_prefix: int = 1024
    increment: int = 128

    def __post_init__(self) -> None:
        check_int("min_prefix", self.min_prefix, minimum=0)
        check_int("increment", self.increment)

    def cached(self, matching: int) -> int:
        """Cached tokens for a request whose first ``matching`` tokens match a cached one."""
        if matching < self.min_prefix:
            return 0
        return self.min_prefix + (matching - self.min_prefix) // self.increment * self.increment


@dataclass(frozen=True)
class CachedCall:
    """One model call: its input tokens and how many of them the cache served."""

    input_tokens: int
    cached_tokens: int

    @property
    def uncached_tokens(self) -> int:
        return self.input_tokens - self.cached_tokens


@dataclass
class PromptCacheSim:
    """Feed it the model calls of one conversation, in order (:meth:`call`)."""

    rules: CacheRules = field(default_factory=CacheRules)
    counter: TokenCounter = field(default_factory=get_token_counter)
    calls: list[CachedCall] = field(default_factory=list)
    _previous: list[tuple[str, int]] = field(default_factory=list, repr=False)

    def call(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        instructions: str | None = None,
        tools: Iterable[Any] = (),
    ) -> CachedCall:
        """Record a model call; returns its :class:`CachedCall`."""
        count = self.counter.count
        parts: list[tuple[str, int]] = []
        head = "".join(tool_schema_text(t) for t in tools) + "\x00" + (instructions or "")
        head_tokens = sum(count(tool_schema_text(t)) for t in tools)
        if instructions:
            head_tokens += count(instructions) + ITEM_OVERHEAD_TOKENS
        parts.append((head, head_tokens))
        for item in items:
            parts.append((canonical_json(item), count(item_text(item)) + ITEM_OVERHEAD_TOKENS))
        total = sum(tokens for _, tokens in parts)
        matching = 0
        for (mine, tokens), (theirs, _) in zip(parts, self._previous, strict=False):
            if mine != theirs:
                break
            matching += tokens
        result = CachedCall(total, self.rules.cached(matching))
        self.calls.append(result)
        self._previous = parts
        return result

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def cached_tokens(self) -> int:
        return sum(c.cached_tokens for c in self.calls)

    @property
    def hit_rate(self) -> float:
        """Share of all input tokens served from the cache."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0
