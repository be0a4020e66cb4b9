"""The ledger: for every stored item, whether the model sees it and why.

A memory strategy decides what the model sees; the ledger records that decision item by
item. It is the single source of truth that widgets, plots and evaluation read: one
:class:`LedgerEntry` per raw item (its index in the untrimmed log) and one per synthetic
item the strategy injects (index None), in timeline order.

States:

* ``kept``: the item is sent to the model as it is;
* ``dropped``: not sent (the reason says why: outside the window, over budget, ...);
* ``summarized``: not sent verbatim, but folded into a summary that is sent;
* ``summary``: a synthetic item holding (or asking for) that summary;
* ``pending``: not sent *yet*: a tool call still waiting for its output (the API rejects a
  call without one), and the reasoning item that precedes it. It is sent once the output
  arrives, or folded into a summary as a pending action.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, overload

from .items import preview

ItemState = Literal["kept", "dropped", "summarized", "summary", "pending"]
KEPT: ItemState = "kept"
DROPPED: ItemState = "dropped"
SUMMARIZED: ItemState = "summarized"
SUMMARY: ItemState = "summary"
PENDING: ItemState = "pending"
STATES: tuple[ItemState, ...] = (KEPT, SUMMARY, SUMMARIZED, PENDING, DROPPED)

#: Colour-blind-safe colours (Okabe-Ito) for the states, shared by tables, widgets and plots.
STATE_COLORS: dict[str, str] = {
    KEPT: "#009E73",
    SUMMARY: "#0072B2",
    SUMMARIZED: "#E69F00",
    PENDING: "#CC79A7",
    DROPPED: "#999999",
}


@dataclass(frozen=True)
class LedgerEntry:
    """What happened to one item.

    ``index`` is the item's position in the raw log (None for a synthetic item);
    ``position`` its position in the list sent to the model (None when not sent);
    ``turn`` the turn number (None for the preamble and for synthetic items);
    ``tokens`` its exact token count; ``text`` what it says.
    """

    index: int | None
    kind: str
    turn: int | None
    state: ItemState
    reason: str
    tokens: int
    position: int | None
    text: str

    @property
    def in_view(self) -> bool:
        return self.position is not None

    @property
    def synthetic(self) -> bool:
        return self.index is None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Ledger(Sequence[LedgerEntry]):
    """An immutable list of :class:`LedgerEntry` with summaries and renderings."""

    def __init__(self, entries: Sequence[LedgerEntry]):
        self._entries = tuple(entries)

    @overload
    def __getitem__(self, i: int) -> LedgerEntry: ...
    @overload
    def __getitem__(self, i: slice) -> Ledger: ...
    def __getitem__(self, i: int | slice) -> LedgerEntry | Ledger:
        if isinstance(i, slice):
            return Ledger(self._entries[i])
        return self._entries[i]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(self._entries)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ledger) and self._entries == other._entries

    def __hash__(self) -> int:
        return hash(self._entries)

    # -- questions -------------------------------------------------------------------
    def raw(self) -> Ledger:
        """Entries for stored items only (no synthetic ones)."""
        return Ledger([e for e in self._entries if e.index is not None])

    def in_state(self, *states: str) -> Ledger:
        return Ledger([e for e in self._entries if e.state in states])

    def view(self) -> Ledger:
        """Entries sent to the model, in the order they are sent."""
        shown = [e for e in self._entries if e.position is not None]
        return Ledger(sorted(shown, key=lambda e: e.position or 0))

    def counts(self) -> dict[str, int]:
        """How many entries are in each state."""
        counter = Counter(e.state for e in self._entries)
        return {state: counter.get(state, 0) for state in STATES}

    @property
    def view_tokens(self) -> int:
        """Tokens of everything sent to the model from the session."""
        return sum(e.tokens for e in self._entries if e.position is not None)

    @property
    def raw_tokens(self) -> int:
        """Tokens of the whole stored log (what full history would send)."""
        return sum(e.tokens for e in self._entries if e.index is not None)

    def kept_indices(self) -> list[int]:
        return [e.index for e in self._entries if e.state == KEPT and e.index is not None]

    def dropped_indices(self) -> list[int]:
        return [e.index for e in self._entries if e.state == DROPPED and e.index is not None]

    def to_records(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self._entries]

    # -- renderings ------------------------------------------------------------------
    def table(self, width: int = 48) -> str:
        """A fixed-width text table (stable output for notebooks and logs)."""
        header = f"{'idx':>4} {'turn':>4} {'kind':<14} {'state':<10} {'tok':>5}  text / reason"
        lines = [header, "-" * len(header)]
        for e in self._entries:
            idx = "-" if e.index is None else str(e.index)
            turn = "-" if e.turn is None else str(e.turn)
            lines.append(
                f"{idx:>4} {turn:>4} {e.kind:<14} {e.state:<10} {e.tokens:>5}  "
                f"{preview(e.text, width)}"
            )
            lines.append(f"{'':>41}  ↳ {e.reason}")
        counts = ", ".join(f"{n} {s}" for s, n in self.counts().items() if n)
        lines.append(f"{len(self)} entries: {counts}; the model is sent {self.view_tokens} "
                     f"tokens ({self.raw_tokens} stored)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        counts = ", ".join(f"{s}={n}" for s, n in self.counts().items() if n)
        return f"Ledger({len(self)} entries: {counts})"

    def _repr_html_(self) -> str:
        rows = []
        for e in self._entries:
            color = STATE_COLORS.get(e.state, "#999999")
            rows.append(
                "<tr>"
                f"<td>{'' if e.index is None else e.index}</td>"
                f"<td>{'' if e.turn is None else e.turn}</td>"
                f"<td>{html.escape(e.kind)}</td>"
                f"<td><span style='background:{color};color:white;padding:1px 6px;"
                f"border-radius:8px'>{e.state}</span></td>"
                f"<td style='text-align:right'>{e.tokens}</td>"
                f"<td title='{html.escape(e.text, quote=True)}'>"
                f"{html.escape(preview(e.text, 60))}</td>"
                f"<td>{html.escape(e.reason)}</td>"
                "</tr>"
            )
        head = "".join(
            f"<th>{h}</th>" for h in ("idx", "turn", "kind", "state", "tokens", "text", "reason")
        )
        return (
            "<table class='ctxlab-ledger'>"
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p>{html.escape(repr(self))}; view {self.view_tokens} of "
            f"{self.raw_tokens} stored tokens</p>"
        )
