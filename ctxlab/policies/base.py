"""What a memory policy is: a pure function from the stored log to the model's window.

A policy never stores, locks, awaits or mutates anything. It reads the raw log through a
:class:`LogView` (the session's index: items, kinds, tokens, turn starts) plus whatever
state it was given (a summary record) and its parameters, and returns a :class:`Window`:

* ``slots``: what the model should see, in order: raw indices into the log, or
  :class:`Synthetic` items the policy injects (a summary pair);
* ``reasons``: why each slot is in the window (the ledger shows them);
* ``fate_of(index)``: for a raw index not in ``slots``, its state (dropped, summarized)
  and the reason;
* ``notes``: warnings for the caller (a turn over the token budget).

The session checks the window against the strategy's invariants
(:mod:`ctxlab.policies.invariants`: whole turns, a declared budget), then makes it valid for
the API (:func:`ctxlab.sessions.view.build_view`: late outputs and pending calls, the item
limit applied at a safe cut) and explains every item in the ledger. Adding a strategy
therefore means writing one policy file that ends with its
:class:`~ctxlab.policies.spec.StrategySpec` (see :mod:`ctxlab.policies.token_tail`) and
registering it (:mod:`ctxlab.sessions.strategies`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.items import item_kind, item_text
from ..core.ledger import ItemState

PREAMBLE_REASON = "preamble (before the first user message): always kept"
PREAMBLE_DROPPED = "preamble (before the first user message): keep_preamble=False"


class LogView(Protocol):
    """The read-only questions a policy may ask about the raw log (answered in O(1) or
    O(log n) by :class:`ctxlab.core.rawlog.RawLog`)."""

    def __len__(self) -> int: ...

    def item(self, index: int) -> Mapping[str, Any]: ...

    def kind(self, index: int) -> str: ...

    def tokens(self, index: int) -> int: ...

    def tokens_between(self, start: int, end: int) -> int: ...

    def count_item(self, item: Mapping[str, Any]) -> int: ...

    @property
    def turn_starts(self) -> Sequence[int]: ...

    @property
    def turn_count(self) -> int: ...

    @property
    def preamble_end(self) -> int: ...

    def turn_of(self, index: int) -> int | None: ...

    def turn_bounds(self, turn: int) -> tuple[int, int]: ...  # [start, end) of a turn (1-based)

    def turn_tokens(self, turn: int) -> int: ...  # tokens of a turn

    def output_of(self, index: int) -> int | None: ...

    def first_turn_fitting(self, budget: int, lo_turn: int = 0) -> int: ...


@dataclass(frozen=True)
class Synthetic:
    """An item a policy injects into the view (such as one half of a summary pair).

    ``covers`` is the half-open range of raw indices it stands for (the ledger places it
    after them); ``meta`` holds what :meth:`SummarizingSession.get_full_history` reports.
    """

    item: dict[str, Any]
    kind: str
    reason: str
    tokens: int
    text: str
    covers: tuple[int, int] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def synthetic(
    log: LogView,
    item: dict[str, Any],
    kind: str,
    reason: str,
    *,
    covers: tuple[int, int] | None = None,
    meta: Mapping[str, Any] | None = None,
) -> Synthetic:
    """A :class:`Synthetic` slot, its tokens counted with the log's counter."""
    return Synthetic(item=item, kind=kind or item_kind(item), reason=reason,
                     tokens=log.count_item(item), text=item_text(item), covers=covers,
                     meta=dict(meta or {}))


Slot = int | Synthetic
Excluded = Callable[[int], tuple[ItemState, str]]


@dataclass
class Window:
    """A policy's choice: the candidate slots in order and the fate of every other item."""

    slots: list[Slot]
    reasons: list[str]  # why each slot is in the view
    fate_of: Excluded  # fate of a raw index not in slots: (state, reason)
    notes: list[str] = field(default_factory=list)  # warnings to surface to the caller
    # The slots as runs of consecutive raw indices, when every slot was added as a range
    # (None: unknown, or a synthetic or loose slot among them). Views use it to skip
    # per-item work for plain windows; it is only ever a shortcut.
    runs: list[range] | None = None
    # The raw slots as runs, and the synthetic slots, while raw slots are only added as
    # ranges (None: a loose raw slot among them, or not tracked). The invariant checks
    # (ctxlab.policies.invariants) read them; also only ever a shortcut.
    raw_runs: list[range] | None = None
    synthetic: list[Synthetic] = field(default_factory=list)

    @property
    def excluded(self) -> Excluded:
        """The former name of :attr:`fate_of` (kept for existing policies)."""
        return self.fate_of

    @excluded.setter
    def excluded(self, fate_of: Excluded) -> None:
        self.fate_of = fate_of

    def add(self, slots: Sequence[Slot] | range, reason: str) -> None:
        """Append ``slots``, all for the same ``reason``."""
        if not slots:
            return
        self.slots.extend(slots)
        self.reasons.extend([reason] * len(slots))
        if type(slots) is range and slots.step == 1:
            if self.runs is not None:
                _extend(self.runs, slots)
            if self.raw_runs is not None:
                _extend(self.raw_runs, slots)
            return
        self.runs = None
        if self.raw_runs is not None:
            if all(isinstance(s, Synthetic) for s in slots):
                self.synthetic.extend(slots)  # type: ignore[arg-type]
            else:
                self.raw_runs = None

    def plain_runs(self) -> list[range] | None:
        """:attr:`runs`, if they still describe :attr:`slots` (else None)."""
        runs = self.runs
        if runs is None:
            return None
        slots = self.slots
        if not runs:
            return runs if not slots else None
        if (sum(map(len, runs)) != len(slots) or slots[0] != runs[0].start
                or slots[-1] != runs[-1].stop - 1):
            return None
        return runs

    def split_runs(self) -> tuple[list[range], list[Synthetic]] | None:
        """:attr:`raw_runs` and :attr:`synthetic`, if they still describe :attr:`slots`."""
        raw = self.raw_runs
        if raw is None or sum(map(len, raw)) + len(self.synthetic) != len(self.slots):
            return None
        return raw, self.synthetic


def _extend(runs: list[range], more: range) -> None:
    if runs and runs[-1].stop == more.start:
        runs[-1] = range(runs[-1].start, more.stop)
    else:
        runs.append(more)


def preamble(log: LogView, keep: bool) -> Window:
    """A window that starts with the preamble (items before the first real user message)
    when ``keep``; the caller appends the rest and sets ``fate_of``."""
    window = Window([], [], _nothing_excluded, runs=[], raw_runs=[])
    if keep:
        window.add(range(log.preamble_end), PREAMBLE_REASON)
    return window


def _nothing_excluded(index: int) -> tuple[ItemState, str]:  # pragma: no cover - replaced
    raise AssertionError(f"raw item {index} has no recorded fate")
