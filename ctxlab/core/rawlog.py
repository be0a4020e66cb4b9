"""The untrimmed log of a session, with the indexes a view needs kept up to date.

Appending is O(items added); the questions a memory strategy asks on every model call
(where do the last N turns start? how many tokens from index i to the end? which call does
this output answer?) are answered in O(1) or O(log n) without rescanning the log.

Token counts are computed on first use and then kept (a trimming window that never asks
about tokens never pays for exact counting), and so are the model-safe copies of items
(the key-filtered form sent to the model), so serving a view copies each item once.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Container, Iterable, Mapping
from typing import Any

from .digest import EMPTY_DIGEST, extend_digest
from .items import (
    allowed_keys,
    clone,
    is_call,
    is_model_emitted,
    item_kind,
    item_problem,
    item_type,
    pair_key,
)
from .log_turns import TurnQuestions
from .tokens import TokenCounter
from .turns import starts_turn

_UNCOUNTED = -1
_NONE = -1  # no partner
_BLOCK = 64
_UNCOUNTED_BLOCK = array("i", [_UNCOUNTED]) * _BLOCK  # (_NONE is the same -1)
_NOT_EMITTED = frozenset({"reasoning", "tool_output", "invalid", "other"})
_NESTED = (dict, list, tuple)
_MESSAGE_KINDS = frozenset({"user", "assistant", "system", "developer"})


class RawLog(TurnQuestions):
    """Items in arrival order plus their kinds, token counts, turn starts and the pairing
    of tool calls with their outputs (each output is matched to the latest earlier call with
    the same call id still waiting for one, as :func:`ctxlab.core.validate.pair_calls` does)."""

    __slots__ = (
        "_chain", "_counted", "_counter", "_flat", "_invalid", "_items", "_keys", "_kinds",
        "_partner", "_prefix", "_reasoning_run", "_safe", "_starts", "_suspect", "_tokens",
        "_waiting", "version",
    )

    def __init__(self, counter: TokenCounter):
        self._counter = counter
        self._items: list[dict[str, Any]] = []
        self._kinds: list[str] = []
        self._tokens = array("i")  # _UNCOUNTED until first asked (4 bytes per item)
        self._prefix: list[int] = [0]  # _prefix[i] = tokens of items[:i], for i <= _counted
        self._counted = 0  # how far _prefix is filled
        self._safe: list[dict[str, Any] | None] = []  # model-safe items, computed lazily
        self._flat = bytearray()  # 1 where that safe item is flat (valid once computed)
        self._starts: list[int] = []  # indices of real user messages
        self._chain: list[str] = [EMPTY_DIGEST]  # _chain[i] = digest of items[:i], lazily
        self._keys: list[tuple[str, str] | None] = []  # pair key of each call / output
        self._partner = array("i")  # call <-> output index, _NONE if unmatched
        self._waiting: dict[tuple[str, str], int] = {}  # calls still waiting for an output
        self._invalid: dict[int, str] = {}  # index -> why a stored entry is not an item
        # Indices a view must look at before sending (everything else is known to be fine
        # wherever whole turns are shown): junk, calls without an output yet, outputs
        # without a call, a call and its output in different turns, reasoning whose
        # follower is missing, not model-emitted or itself suspect.
        self._suspect: set[int] = set()
        self._reasoning_run: list[int] = []  # reasoning items waiting for their follower
        self.version = 0  # bumped on every change

    # -- changes ---------------------------------------------------------------------
    def extend(self, items: Iterable[dict[str, Any]], *, checked: Container[int] = ()) -> None:
        """Append items (already copied). Items whose ``id()`` is in ``checked`` were
        validated by the caller; every other one (another writer's) is checked here, and
        junk is kept in place but marked invalid."""
        items = items if type(items) is list else list(items)
        self._grow(len(items))
        for item in items:
            self._append(item, None if id(item) in checked else item_problem(item))
        self.version += 1

    def _grow(self, n: int) -> None:
        """Make room in the per-item arrays for ``n`` more items (before :meth:`_append`)."""
        self._tokens.extend(_UNCOUNTED_BLOCK[:n] if n <= _BLOCK else array("i", [_UNCOUNTED]) * n)
        self._partner.extend(_UNCOUNTED_BLOCK[:n] if n <= _BLOCK else array("i", [_NONE]) * n)
        self._safe.extend([None] * n)
        self._flat.extend(bytes(n))

    def _append(self, item: dict[str, Any], problem: str | None) -> None:
        index = len(self._items)
        self._items.append(item)
        suspect = self._suspect
        if problem is not None:  # another writer's junk: kept in place, never shown
            self._invalid[index] = problem
            self._kinds.append("invalid")
            self._keys.append(None)
            suspect.add(index)
            return
        kind = item_kind(item)
        if kind in _MESSAGE_KINDS:  # the common case: no pairing, one lookup each
            emitted, key = kind == "assistant", None
            if kind == "user" and starts_turn(item):  # the one definition of a turn
                self._starts.append(index)
        else:
            emitted = is_model_emitted(item)
            key = pair_key(item)
        self._kinds.append(kind)
        self._keys.append(key)
        if kind == "reasoning":
            suspect.add(index)
            self._reasoning_run.append(index)
            return
        run, self._reasoning_run = self._reasoning_run, []
        calls = key is not None and kind == "tool_call"
        if calls:
            self._waiting[key] = index  # type: ignore[index]
            suspect.add(index)  # until its output arrives; reasoning before it follows it
        elif key is not None and kind == "tool_output":
            call = self._waiting.pop(key, None)
            if call is None:
                suspect.add(index)  # an output without its call
            else:
                self._partner[index], self._partner[call] = call, index
                if bisect_right(self._starts, call) == bisect_right(self._starts, index):
                    suspect.discard(call)  # paired inside one turn: fine
                    self._clear_reasoning_before(call)
                else:
                    suspect.add(index)  # a late output: the call's turn may be cut off
        if run and emitted and not calls:
            suspect.difference_update(run)  # reasoning followed by what it precedes

    def _clear_reasoning_before(self, call: int) -> None:
        k = call - 1
        while k >= 0 and self._kinds[k] == "reasoning":
            self._suspect.discard(k)
            k -= 1
    def pop(self) -> dict[str, Any] | None:
        """Remove and return the newest item (None when empty)."""
        if not self._items:
            return None
        item = self._items[-1]
        self.truncate(len(self._items) - 1)
        return item

    def truncate(self, length: int) -> None:
        """Keep only the first ``length`` items (no-op when the log is not longer). The
        indexes are rebuilt from the kept items (truncation is rare: pops, rollbacks)."""
        if length < 0:
            raise ValueError(f"length must be >= 0, got {length}")
        if length >= len(self._items):
            return
        items = self._items[:length]
        invalid = {i: why for i, why in self._invalid.items() if i < length}
        tokens, safe, flat = self._tokens[:length], self._safe[:length], self._flat[:length]
        chain = self._chain[: length + 1]
        version = self.version
        self.__init__(self._counter)  # type: ignore[misc]
        self._grow(length)
        for index, item in enumerate(items):
            self._append(item, invalid.get(index))
        self._tokens, self._safe, self._flat, self._chain = tokens, safe, flat, chain
        self.version = version + 1

    def clear(self) -> None:
        self.truncate(0)

    # -- questions -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._items)

    def item(self, index: int) -> Mapping[str, Any]:
        return self._items[index]

    @property
    def items(self) -> list[dict[str, Any]]:
        """The stored items themselves (do not mutate; copy before handing out)."""
        return self._items

    def recent(self, count: int) -> list[dict[str, Any]]:
        """The newest ``count`` stored items (do not mutate)."""
        return self._items[-count:] if count > 0 else []

    def kind(self, index: int) -> str:
        return self._kinds[index]

    def emitted(self, index: int) -> bool:
        """True for an item the model emits (one a reasoning item may precede)."""
        kind = self._kinds[index]
        if kind in _MESSAGE_KINDS:
            return kind == "assistant"
        return kind not in _NOT_EMITTED and is_model_emitted(self._items[index])

    def safe_entry(self, index: int) -> tuple[dict[str, Any], bool]:
        """``(model-safe item, flat)``: see :meth:`safe` and :meth:`safe_copy`."""
        safe = self._safe[index]
        if safe is None:
            item = self._items[index]
            allowed = allowed_keys(item_type(item))
            safe = item if allowed.issuperset(item) else {
                k: v for k, v in item.items() if k in allowed}  # shares values: never handed out
            flat = 1
            for value in safe.values():
                if type(value) in _NESTED:
                    flat = 0
                    break
            self._safe[index], self._flat[index] = safe, flat
        return safe, self._flat[index] == 1

    def safe_run(self, start: int, stop: int) -> tuple[list[dict[str, Any]], bool]:
        """:meth:`safe_entry` for the items ``start:stop`` at once: the model-safe items
        (never hand them out without copying) and whether every one of them is flat."""
        items = self._safe[start:stop]
        if None in items:  # items not handed out before (the newest, usually)
            for offset in range(items.index(None), len(items)):
                if items[offset] is None:
                    items[offset] = self.safe_entry(start + offset)[0]
        return items, self._flat.find(0, start, stop) == -1  # type: ignore[return-value]

    def safe(self, index: int) -> dict[str, Any]:
        """The item with only the keys the Responses schema allows (computed once; it may be
        the stored item itself: never hand it out without copying, see :meth:`safe_copy`)."""
        return self.safe_entry(index)[0]

    def safe_copy(self, index: int) -> dict[str, Any]:
        """A fresh copy of :meth:`safe`: one C-level ``dict()`` for flat items (every value a
        string, number, bool or None: what the Runner stores for calls, outputs and plain
        messages), a deep copy otherwise."""
        safe, flat = self.safe_entry(index)
        return dict(safe) if flat else clone(safe)  # type: ignore[no-any-return]

    def tokens(self, index: int) -> int:
        value = self._tokens[index]
        if value == _UNCOUNTED:
            value = 0 if index in self._invalid else self._counter.count_item(self._items[index])
            self._tokens[index] = value
        return value

    def problem(self, index: int) -> str | None:
        """Why the stored entry at ``index`` is not a valid item (None when it is)."""
        return self._invalid.get(index)

    def count_item(self, item: Mapping[str, Any]) -> int:
        """Tokens of an item that is not in the log (a summary), with the log's counter."""
        return self._counter.count_item(item)

    @property
    def counter(self) -> TokenCounter:
        return self._counter

    def output_of(self, index: int) -> int | None:
        """The index of the output that answers tool call ``index`` (None: none yet)."""
        partner = self._partner[index]
        return partner if partner != _NONE and is_call(self._items[index]) else None

    def suspects(self) -> set[int]:
        """Indices a view must check before sending them (see ``__init__``); do not mutate."""
        return self._suspect

    def key(self, index: int) -> tuple[str, str] | None:
        """The pair key of a call or output (None for other items and anonymous calls)."""
        return self._keys[index]

    def partner(self, index: int) -> int | None:
        """The matching call of an output, or output of a call (None: unmatched)."""
        partner = self._partner[index]
        return None if partner == _NONE else partner

    def digest(self, end: int | None = None) -> str:
        """Content digest of ``items[:end]`` (see :mod:`ctxlab.core.digest`); memoized, so
        asking again after appends only hashes the new items."""
        end = len(self._items) if end is None else end
        if not 0 <= end <= len(self._items):
            raise ValueError(f"end must be within 0..{len(self._items)}, got {end}")
        chain = self._chain
        while len(chain) <= end:
            chain.append(extend_digest(chain[-1], [self._items[len(chain) - 1]]))
        return chain[end]

    def _prefix_to(self, end: int) -> list[int]:
        """The prefix sums, filled at least up to ``end``."""
        prefix = self._prefix
        while self._counted < end:
            prefix.append(prefix[-1] + self.tokens(self._counted))
            self._counted += 1
        return prefix

    def tokens_between(self, start: int, end: int) -> int:
        """Tokens of ``items[start:end]`` (O(1) once counted)."""
        prefix = self._prefix_to(end)
        return prefix[end] - prefix[start]
