"""TrimmingSession: the model sees the last N user turns, whole."""

from __future__ import annotations

from typing import Any

from agents.memory import SessionSettings

from ..core.ledger import DROPPED, ItemState
from ..core.tokens import TokenCounter
from .base import MemorySession, StoreArg, Window, check_positive_int


class TrimmingSession(MemorySession):
    """Keep the last ``max_turns`` user turns; drop older ones from the model's view.

    A *turn* is a real user message plus everything up to the next one (assistant replies,
    reasoning, tool calls and their outputs). Turns are kept or dropped whole, so a tool
    call is never separated from its output.

    Nothing is deleted: :meth:`raw_items` returns the whole log and :meth:`ledger` says,
    for every item, whether the model sees it and why. Trimming happens when the view is
    read, so changing ``max_turns`` (or ``max_tokens``) takes effect on the next read and
    can be undone.

    Args:
        session_id: the conversation's id (a non-empty string); may be omitted when
            ``store`` is given (the store's id is used).
        max_turns: how many of the newest user turns the model sees (>= 1).
        max_tokens: optional token budget for the view. Whole turns are kept from the newest
            back while they fit; the newest turn is always kept, with a
            :class:`~ctxlab.sessions.base.TokenBudgetWarning` if it alone is larger.
        keep_preamble: keep items stored before the first user message (for example a
            developer message) in the view; they belong to no turn. If False they are
            dropped, and the ledger says so.
        store: where the raw log lives (see :class:`~ctxlab.sessions.base.MemorySession`):
            None for memory, or an SDK session such as ``SQLiteSession(id, "chat.db")``.
        redactor: applied to every batch before it is stored (see :class:`ctxlab.Redactor`).
        session_settings: the SDK's ``SessionSettings`` (``limit`` caps the item count).
        token_counter: defaults to exact ``o200k_base`` counts.
    """

    def __init__(
        self,
        session_id: str | None = None,
        max_turns: int = 8,
        *,
        max_tokens: int | None = None,
        keep_preamble: bool = True,
        store: StoreArg = None,
        redactor: Any = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
    ):
        super().__init__(
            session_id, store=store, session_settings=session_settings,
            token_counter=token_counter, redactor=redactor,
        )
        self._max_turns = check_positive_int("max_turns", max_turns)
        self._max_tokens = (
            None if max_tokens is None else check_positive_int("max_tokens", max_tokens)
        )
        self._keep_preamble = bool(keep_preamble)

    # -- settings --------------------------------------------------------------------
    @property
    def max_turns(self) -> int:
        return self._max_turns

    @max_turns.setter
    def max_turns(self, value: int) -> None:
        self.set_max_turns(value)

    def set_max_turns(self, max_turns: int) -> None:
        """Show the last ``max_turns`` user turns from the next read on (nothing is lost)."""
        self._max_turns = check_positive_int("max_turns", max_turns)
        self._changed()

    @property
    def max_tokens(self) -> int | None:
        return self._max_tokens

    @max_tokens.setter
    def max_tokens(self, value: int | None) -> None:
        self._max_tokens = None if value is None else check_positive_int("max_tokens", value)
        self._changed()

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "max_turns": self._max_turns,
                "max_tokens": self._max_tokens, "keep_preamble": self._keep_preamble}

    def __repr__(self) -> str:
        budget = "" if self._max_tokens is None else f", max_tokens={self._max_tokens}"
        return (
            f"TrimmingSession(session_id={self.session_id!r}, max_turns={self._max_turns}"
            f"{budget}, items={len(self._log)}, turns={self._log.turn_count}"
            f"{self._store_note()})"
        )

    # -- the window ------------------------------------------------------------------
    def _window(self) -> Window:
        log = self._log
        n = len(log)
        starts = log.turn_starts
        first = log.preamble_end
        keep_turns = self._max_turns
        notes: list[str] = []

        # 0-based position in `starts` of the oldest turn inside the turn window.
        by_turns = max(0, len(starts) - keep_turns)
        oldest = by_turns
        over_budget_kept = False
        budget = self._max_tokens
        if budget is not None and starts:
            preamble_tokens = log.tokens_between(0, first) if self._keep_preamble else 0
            oldest = log.first_turn_fitting(budget - preamble_tokens, lo_turn=by_turns)
            if oldest >= len(starts):
                oldest = len(starts) - 1
                over_budget_kept = True
                newest = log.tokens_between(starts[-1], n)
                notes.append(
                    f"session {self.session_id!r}: the newest turn alone has {newest} tokens "
                    f"(plus {preamble_tokens} in the preamble), over the max_tokens budget of "
                    f"{budget}; it is kept anyway"
                )
        window_start = starts[oldest] if starts else n
        budget_start = window_start
        turns_start = starts[by_turns] if starts else n

        slots: list[int | Any] = []
        reasons: list[str] = []
        if self._keep_preamble:
            slots.extend(range(first))
            reasons.extend(["preamble (before the first user message): always kept"] * first)
        if over_budget_kept:
            turn_reason = (
                f"newest turn: kept although it alone exceeds the {budget}-token budget"
            )
        elif budget is not None:
            turn_reason = f"in the last {keep_turns} turns and within the {budget}-token budget"
        else:
            turn_reason = f"in the last {keep_turns} turns"
        slots.extend(range(window_start, n))
        reasons.extend([turn_reason] * (n - window_start))

        def excluded(index: int) -> tuple[ItemState, str]:
            if index < first:
                return DROPPED, "preamble (before the first user message): keep_preamble=False"
            if index < turns_start:
                return DROPPED, f"older than the last {keep_turns} turns"
            if index < budget_start:
                return DROPPED, f"over the {budget}-token budget (older turns go first)"
            return DROPPED, "not in the view"  # pragma: no cover - every case is named above

        return Window(slots, reasons, excluded, notes)
