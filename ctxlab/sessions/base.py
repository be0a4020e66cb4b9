"""What every ctxlab memory strategy shares.

A memory session keeps the full, untrimmed log of what the Agents SDK Runner stored and
computes, on each read, the *view*: the items the model is shown. Strategies differ only
in :meth:`MemorySession._window`, which picks the candidate slots; the base class then

1. removes items the Responses API would reject (orphan tool outputs, calls whose output is
   not in the view, reasoning items without their follower),
2. applies the caller's item ``limit`` at a position that splits no such pair,
3. strips keys that are not part of the Responses schema (private metadata),

and records the fate of every item in the :class:`~ctxlab.ledger.Ledger`. ``get_items`` and
``ledger`` read the same computation, so the ledger always says what the model sees.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.memory import SessionSettings

from ..items import clone, item_kind, item_text, model_safe, shape_problem
from ..ledger import DROPPED, KEPT, ItemState, Ledger, LedgerEntry
from ..rawlog import RawLog
from ..tokens import TokenCounter, get_token_counter
from ..validate import repair, safe_cut


class TokenBudgetWarning(UserWarning):
    """The newest turn alone is larger than the session's token budget."""


@dataclass(frozen=True)
class Synthetic:
    """An item a strategy injects into the view (such as a summary)."""

    item: dict[str, Any]
    kind: str
    reason: str
    tokens: int
    text: str
    meta: dict[str, Any] = field(default_factory=dict)


Slot = int | Synthetic


@dataclass
class Window:
    """A strategy's choice: the candidate slots in order and why each raw item is out."""

    slots: list[Slot]
    reasons: list[str]  # why each slot is in the view
    excluded: Callable[[int], tuple[ItemState, str]]  # fate of a raw index not in slots
    notes: list[str] = field(default_factory=list)  # warnings to surface to the caller


@dataclass
class View:
    """The final view: what ``get_items`` returns, and what the ledger needs."""

    slots: list[Slot]
    reasons: list[str]
    removed: dict[int, str]  # raw index -> reason, for items the repair/limit took out
    removed_synthetic: list[tuple[Synthetic, str]]
    window: Window


def _check_session_id(session_id: Any) -> str:
    if not isinstance(session_id, str) or not session_id.strip():
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    return session_id


def check_positive_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum``, or a ValueError that names ``name``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def check_batch(items: Any) -> list[dict[str, Any]]:
    """Validate a batch for ``add_items`` and return deep copies; raise on the first bad item.

    The error names the index and the problem, and because nothing is stored before the
    whole batch passed, a failed call leaves the session exactly as it was.
    """
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        if isinstance(items, dict):
            raise ValueError(
                "add_items expects a list of items, got a single dict; wrap it in a list"
            )
        raise ValueError(f"add_items expects a list of items, got {type(items).__name__}")
    for index, item in enumerate(items):
        problem = shape_problem(item)
        if problem is not None:
            hint = ""
            if hasattr(item, "model_dump"):
                hint = " (convert it with .model_dump(exclude_unset=True) first)"
            raise ValueError(
                f"add_items: item {index} of {len(items)} is invalid: {problem}{hint}. "
                "Nothing from this batch was stored."
            )
    return [clone(item) for item in items]


class MemorySession:
    """Base class of ctxlab's sessions (implements the Agents SDK ``Session`` protocol).

    Subclasses implement :meth:`_window`. Do not instantiate this class directly.
    """

    session_id: str
    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str,
        *,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
    ):
        self.session_id = _check_session_id(session_id)
        self.session_settings = session_settings or SessionSettings()
        self._counter = token_counter or get_token_counter()
        self._log = RawLog(self._counter)
        self._lock = asyncio.Lock()
        self._config_version = 0
        self._cache: tuple[tuple[int, int, int | None], View] | None = None

    # -- Session protocol ------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The items the model sees, oldest first, as fresh copies.

        ``limit`` keeps at most that many of the newest items, never splitting a tool call
        from its output or a reasoning item from the item it precedes (so it may return
        fewer). The result always passes :func:`ctxlab.validate.validate_items`.
        """
        limit = self._check_limit(limit)
        async with self._lock:
            view = self._view(limit)
            return [model_safe(self._slot_item(slot)) for slot in view.slots]

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        """Append ``items`` to the log, all or nothing (see :func:`check_batch`)."""
        batch = check_batch(items)
        if not batch:
            return
        async with self._lock:
            self._log.extend(batch)
        await self._after_add()

    async def pop_item(self) -> dict[str, Any] | None:
        """Remove and return the newest stored item, or None when the session is empty."""
        async with self._lock:
            item = self._log.pop()
            if item is not None:
                await self._after_pop()
            return item

    async def clear_session(self) -> None:
        """Remove every stored item and everything derived from them."""
        async with self._lock:
            self._log.clear()
            await self._after_clear()

    # -- ctxlab extras ---------------------------------------------------------------
    async def raw_items(self) -> list[dict[str, Any]]:
        """Copies of every stored item, untrimmed, in arrival order."""
        async with self._lock:
            return [clone(item) for item in self._log.items]

    async def ledger(self, limit: int | None = None) -> Ledger:
        """The fate of every item: kept, dropped, summarized or summary (see :mod:`ctxlab.ledger`).

        ``limit`` defaults to ``session_settings.limit``, the value the Runner passes to
        ``get_items`` (unless a ``RunConfig`` overrides it).
        """
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        limit = self._check_limit(limit)
        async with self._lock:
            return self._build_ledger(self._view(limit))

    @property
    def token_counter(self) -> TokenCounter:
        return self._counter

    def __repr__(self) -> str:
        return f"{type(self).__name__}(session_id={self.session_id!r}, items={len(self._log)})"

    # -- hooks for subclasses ----------------------------------------------------------
    def _window(self) -> Window:  # pragma: no cover - abstract
        raise NotImplementedError

    async def _after_add(self) -> None:
        """Called after items were appended, outside the lock (it may take it or await)."""

    async def _after_pop(self) -> None:
        """Called under the lock after the newest item was removed."""

    async def _after_clear(self) -> None:
        """Called under the lock after the log was cleared."""

    def _changed(self) -> None:
        """Call when a setting that shapes the view changes."""
        self._config_version += 1

    # -- the view --------------------------------------------------------------------
    @staticmethod
    def _check_limit(limit: Any) -> int | None:
        if limit is None:
            return None
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
        return limit

    def _slot_item(self, slot: Slot) -> dict[str, Any]:
        return slot.item if isinstance(slot, Synthetic) else self._log.items[slot]

    def _view(self, limit: int | None) -> View:
        key = (self._log.version, self._config_version, limit)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        window = self._window()
        for note in window.notes:
            warnings.warn(note, TokenBudgetWarning, stacklevel=4)
        slots, reasons = list(window.slots), list(window.reasons)
        removed: dict[int, str] = {}
        removed_synthetic: list[tuple[Synthetic, str]] = []

        def take_out(positions: dict[int, str]) -> None:
            nonlocal slots, reasons
            for pos, why in positions.items():
                slot = slots[pos]
                if isinstance(slot, Synthetic):
                    removed_synthetic.append((slot, why))
                else:
                    removed[slot] = why
            slots = [s for p, s in enumerate(slots) if p not in positions]
            reasons = [r for p, r in enumerate(reasons) if p not in positions]

        take_out(repair([self._slot_item(s) for s in slots]))
        if limit is not None and limit < len(slots):
            cut = safe_cut([self._slot_item(s) for s in slots], len(slots) - limit)
            take_out({p: f"beyond the item limit of {limit}" for p in range(cut)})
        view = View(slots, reasons, removed, removed_synthetic, window)
        self._cache = (key, view)
        return view

    def _build_ledger(self, view: View) -> Ledger:
        log = self._log
        positions: dict[int, int] = {}
        synthetic_positions: dict[int, int] = {}
        for pos, slot in enumerate(view.slots):
            if isinstance(slot, Synthetic):
                synthetic_positions[id(slot)] = pos
            else:
                positions[slot] = pos
        reason_of = {
            slot: why
            for slot, why in zip(view.slots, view.reasons, strict=True)
            if not isinstance(slot, Synthetic)
        }
        entries: list[LedgerEntry] = []
        for index, item in enumerate(log.items):
            if index in positions:
                state, reason = KEPT, reason_of[index]
            elif index in view.removed:
                state, reason = DROPPED, view.removed[index]
            else:
                state, reason = view.window.excluded(index)
            entries.append(
                LedgerEntry(
                    index=index,
                    kind=log.kind(index),
                    turn=log.turn_of(index),
                    state=state,
                    reason=reason,
                    tokens=log.tokens(index),
                    position=positions.get(index),
                    text=item_text(item),
                )
            )
        synthetic = [s for s in view.window.slots if isinstance(s, Synthetic)]
        if synthetic:
            entries = self._place_synthetic(entries, view, synthetic, synthetic_positions)
        return Ledger(entries)

    def _place_synthetic(
        self,
        entries: list[LedgerEntry],
        view: View,
        synthetic: list[Synthetic],
        positions: dict[int, int],
    ) -> list[LedgerEntry]:
        """Insert entries for synthetic slots after the raw items they stand for."""
        removed = {id(s): why for s, why in view.removed_synthetic}
        reason_of = {id(s): r for s, r in zip(view.window.slots, view.window.reasons, strict=True)}
        extra: list[tuple[int, LedgerEntry]] = []
        for slot in synthetic:
            covers = slot.meta.get("covers")
            anchor = covers[1] if covers else 0
            in_view = id(slot) in positions
            extra.append(
                (
                    anchor,
                    LedgerEntry(
                        index=None,
                        kind=slot.kind,
                        turn=None,
                        state="summary" if in_view else DROPPED,
                        reason=reason_of.get(id(slot), slot.reason) if in_view
                        else removed.get(id(slot), slot.reason),
                        tokens=slot.tokens,
                        position=positions.get(id(slot)),
                        text=slot.text,
                    ),
                )
            )
        merged: list[LedgerEntry] = []
        pending = sorted(extra, key=lambda pair: pair[0])
        k = 0
        for i, entry in enumerate(entries):
            while k < len(pending) and pending[k][0] <= i:
                merged.append(pending[k][1])
                k += 1
            merged.append(entry)
        merged.extend(e for _, e in pending[k:])
        return merged

    def _synthetic(
        self, item: dict[str, Any], kind: str, reason: str, meta: dict[str, Any] | None = None
    ) -> Synthetic:
        """Build a synthetic slot, counting its tokens with the session's counter."""
        return Synthetic(
            item=item,
            kind=kind or item_kind(item),
            reason=reason,
            tokens=self._counter.count_item(item),
            text=item_text(item),
            meta=dict(meta or {}),
        )
