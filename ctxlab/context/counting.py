"""Token counts for a model request, cached by text so that re-assembly stays cheap.

The Runner copies the history before every model call, so items cannot be cached by
identity; their text repeats, though. :class:`RequestCounter` memoizes counts by text and
adds them up exactly as :func:`ctxlab.core.tokens.count_request_tokens` does, so a total it
reports equals that function's ``total`` (and the usage :class:`ctxlab.OfflineSupportModel`
reports for the same request).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from ..core.items import item_text
from ..core.tokens import (
    DEFAULT_ENCODING,
    ITEM_OVERHEAD_TOKENS,
    TokenCounter,
    get_token_counter,
    tool_schema_text,
)


class RequestCounter:
    """Exact token counts of instructions, tool schemas and items, memoized by text.

    Args:
        counter: the :class:`~ctxlab.core.tokens.TokenCounter` to use (o200k_base by default).
        cache_size: how many distinct texts to remember (least recently used go first).
    """

    def __init__(self, counter: TokenCounter | None = None, *, cache_size: int = 65_536):
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be an integer >= 0, got {cache_size!r}")
        self.counter = counter or get_token_counter(DEFAULT_ENCODING)
        self._text = lru_cache(maxsize=cache_size)(self.counter.count)
        self._cache_size = cache_size
        #: Results of derived computations keyed by their inputs (shortened texts, ...).
        self.memo: dict[Any, Any] = {}

    def remember(self, key: Any, value: Any) -> None:
        """Keep ``value`` in :attr:`memo` (cleared when it grows past the cache size)."""
        if len(self.memo) >= max(1, self._cache_size // 8):
            self.memo.clear()
        self.memo[key] = value

    def text(self, text: str) -> int:
        """Tokens in ``text``."""
        return self._text(text) if text else 0

    def item(self, item: Mapping[str, Any]) -> int:
        """Tokens of one item: its text plus the per-item overhead (as ``count_item``)."""
        return self.text(item_text(item)) + ITEM_OVERHEAD_TOKENS

    def items(self, items: Iterable[Mapping[str, Any]]) -> int:
        return sum(self.item(item) for item in items)

    def instructions(self, instructions: str | None) -> int:
        """Tokens of the system instructions (counted as one item, as the SDK sends them)."""
        return self.text(instructions) + ITEM_OVERHEAD_TOKENS if instructions else 0

    def tools(self, tools: Iterable[Any]) -> int:
        """Tokens of the tool schemas offered with the request."""
        return sum(self.text(tool_schema_text(tool)) for tool in tools)

    def __repr__(self) -> str:
        return f"RequestCounter({self.counter!r})"
