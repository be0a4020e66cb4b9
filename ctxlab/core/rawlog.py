"""The untrimmed log of a session, with the indexes a view needs kept up to date.

Appending is O(items added); the questions a memory strategy asks on every model call
(where do the last N turns start? how many tokens from index i to the end?) are answered
in O(1) or O(log n) without rescanning the log.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from typing import Any

from .digest import EMPTY_DIGEST, extend_digest
from .items import is_call, is_output, item_kind, item_problem, pair_key
from .tokens import TokenCounter
from .turns import starts_turn


class RawLog:
    """Items in arrival order plus their kinds, token counts, turn starts and the pairing
    of tool calls with their outputs (each output is matched to the latest earlier call with
    the same call id still waiting for one, as :func:`ctxlab.core.validate.pair_calls` does)."""

    __slots__ = (
        "_chain", "_counter", "_invalid", "_items", "_keys", "_kinds", "_partner", "_prefix",
        "_starts", "_tokens", "_waiting", "version",
    )

    def __init__(self, counter: TokenCounter):
        self._counter = counter
        self._items: list[dict[str, Any]] = []
        self._kinds: list[str] = []
        self._tokens: list[int] = []
        self._prefix: list[int] = [0]  # _prefix[i] = tokens of items[:i]
        self._starts: list[int] = []  # indices of real user messages
        self._chain: list[str] = [EMPTY_DIGEST]  # _chain[i] = digest of items[:i], lazily
        self._keys: list[tuple[str, str] | None] = []  # pair key of each call / output
        self._partner: list[int | None] = []  # call <-> output index, None if unmatched
        self._waiting: dict[tuple[str, str], int] = {}  # calls still waiting for an output
        self._invalid: dict[int, str] = {}  # index -> why a stored entry is not an item
        self.version = 0  # bumped on every change

    # -- changes ---------------------------------------------------------------------
    def extend(self, items: Iterable[dict[str, Any]]) -> None:
        """Append items that were already checked and copied."""
        count = self._counter.count_item
        for item in items:
            index = len(self._items)
            problem = item_problem(item)
            if problem is not None:  # another writer's junk: kept in place, never shown
                self._invalid[index] = problem
                self._items.append(item)
                self._kinds.append("invalid")
                self._tokens.append(0)
                self._prefix.append(self._prefix[-1])
                self._keys.append(None)
                self._partner.append(None)
                continue
            tokens = count(item)
            self._items.append(item)
            self._kinds.append(item_kind(item))
            self._tokens.append(tokens)
            self._prefix.append(self._prefix[-1] + tokens)
            if starts_turn(item):
                self._starts.append(index)
            key = pair_key(item)
            self._keys.append(key)
            self._partner.append(None)
            if key is not None:
                if is_call(item):
                    self._waiting[key] = index
                elif is_output(item):
                    call = self._waiting.pop(key, None)
                    if call is not None:
                        self._partner[index], self._partner[call] = call, index
        self.version += 1

    def pop(self) -> dict[str, Any] | None:
        """Remove and return the newest item (None when empty)."""
        if not self._items:
            return None
        item = self._items[-1]
        self.truncate(len(self._items) - 1)
        return item

    def truncate(self, length: int) -> None:
        """Keep only the first ``length`` items (no-op when the log is not longer)."""
        if length < 0:
            raise ValueError(f"length must be >= 0, got {length}")
        if length >= len(self._items):
            return
        for index in range(len(self._items) - 1, length - 1, -1):  # undo the pairing
            key = self._keys[index]
            if key is None:
                continue
            partner = self._partner[index]
            if is_output(self._items[index]) and partner is not None:
                self._partner[partner] = None
                self._waiting[key] = partner  # the call waits again
            elif self._waiting.get(key) == index:
                del self._waiting[key]
        for index in [i for i in self._invalid if i >= length]:
            del self._invalid[index]
        del self._keys[length:]
        del self._partner[length:]
        del self._items[length:]
        del self._kinds[length:]
        del self._tokens[length:]
        del self._prefix[length + 1:]
        del self._starts[bisect_left(self._starts, length):]
        del self._chain[length + 1:]
        self.version += 1

    def clear(self) -> None:
        self._invalid.clear()
        self._keys.clear()
        self._partner.clear()
        self._waiting.clear()
        self._items.clear()
        self._kinds.clear()
        self._tokens.clear()
        self._prefix[:] = [0]
        self._starts.clear()
        self._chain[:] = [EMPTY_DIGEST]
        self.version += 1

    # -- questions -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items)

    def item(self, index: int) -> Mapping[str, Any]:
        return self._items[index]

    @property
    def items(self) -> list[dict[str, Any]]:
        """The stored items themselves (do not mutate; copy before handing out)."""
        return self._items

    def kind(self, index: int) -> str:
        return self._kinds[index]

    def tokens(self, index: int) -> int:
        return self._tokens[index]

    def problem(self, index: int) -> str | None:
        """Why the stored entry at ``index`` is not a valid item (None when it is)."""
        return self._invalid.get(index)

    def count_item(self, item: Mapping[str, Any]) -> int:
        """Tokens of an item that is not in the log (a summary), with the log's counter."""
        return self._counter.count_item(item)

    @property
    def counter(self) -> TokenCounter:
        return self._counter

    def call_of(self, index: int) -> int | None:
        """The index of the call that tool output ``index`` answers (None: no such call)."""
        return self._partner[index] if is_output(self._items[index]) else None

    def output_of(self, index: int) -> int | None:
        """The index of the output that answers tool call ``index`` (None: none yet)."""
        return self._partner[index] if is_call(self._items[index]) else None

    def digest(self, end: int | None = None) -> str:
        """Content digest of ``items[:end]`` (see :mod:`ctxlab.core.digest`); memoized, so asking
        again after appends only hashes the new items."""
        end = len(self._items) if end is None else end
        if not 0 <= end <= len(self._items):
            raise ValueError(f"end must be within 0..{len(self._items)}, got {end}")
        chain = self._chain
        while len(chain) <= end:
            chain.append(extend_digest(chain[-1], [self._items[len(chain) - 1]]))
        return chain[end]

    def tokens_between(self, start: int, end: int) -> int:
        """Tokens of ``items[start:end]`` in O(1)."""
        return self._prefix[end] - self._prefix[start]

    @property
    def turn_starts(self) -> list[int]:
        """Indices of the real user messages, ascending (do not mutate)."""
        return self._starts

    @property
    def turn_count(self) -> int:
        return len(self._starts)

    @property
    def preamble_end(self) -> int:
        """Index of the first real user message (the log's length if there is none)."""
        return self._starts[0] if self._starts else len(self._items)

    def turn_of(self, index: int) -> int | None:
        """1-based turn number of ``items[index]``; None for the preamble."""
        return bisect_right(self._starts, index) or None

    def turn_range(self, number: int) -> range:
        """Indices of turn ``number`` (1-based)."""
        start = self._starts[number - 1]
        end = self._starts[number] if number < len(self._starts) else len(self._items)
        return range(start, end)

    def first_turn_fitting(self, budget: int, lo_turn: int = 0) -> int:
        """The 0-based index (into :attr:`turn_starts`) of the earliest turn, not before
        ``lo_turn``, from which the rest of the log fits into ``budget`` tokens.

        Returns ``turn_count`` when not even the newest turn fits.
        """
        total = self._prefix[len(self._items)]
        threshold = total - budget  # need tokens_before(start) >= threshold
        prefix = self._prefix
        return bisect_left(self._starts, threshold, lo=lo_turn, key=lambda s: prefix[s])
