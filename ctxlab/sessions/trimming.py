"""TrimmingSession: the model sees the last N user turns, whole (policy:
:mod:`ctxlab.policies.trim`)."""

from __future__ import annotations

from typing import Any, ClassVar

from agents.memory import SessionSettings

from ..core.tokens import TokenCounter
from ..policies import trim
from ..policies.base import Window
from ..policies.spec import StrategySpec
from ..policies.trim import TrimParams, trim_window
from .base import StoreArg
from .policy import PolicySession


class TrimmingSession(PolicySession):
    """Keep the last ``max_turns`` user turns; drop older ones from the model's view.

    A *turn* is a real user message plus everything up to the next one (assistant replies,
    reasoning, tool calls and their outputs). Turns are kept or dropped whole, so a tool
    call is never separated from its output.

    Nothing is deleted: :meth:`raw_items` returns the whole log and :meth:`ledger` says,
    for every item, whether the model sees it and why. Trimming happens when the view is
    read, so changing ``max_turns`` (or ``max_tokens``) takes effect on the next read and
    can be undone.

    Args:
        session_id: the conversation's id; may be omitted (the ``store``'s id, or a fresh
            :func:`ctxlab.new_session_id`).
        max_turns: how many of the newest user turns the model sees (>= 1).
        max_tokens: optional token budget for the view. Whole turns are kept from the newest
            back while they fit; the newest turn is always kept, with a
            :class:`~ctxlab.sessions.base.TokenBudgetWarning` if it alone is larger.
        keep_preamble: keep items stored before the first user message (for example a
            developer message) in the view; they belong to no turn. If False they are
            dropped, and the ledger says so.
        step: drop old turns in steps of this many (>= 1), so the start of the model input
            stays the same for ``step`` turns and a provider's prompt cache keeps matching
            it; between ``max_turns`` and ``max_turns + step - 1`` turns are then shown.
        store: where the raw log lives (see :class:`~ctxlab.sessions.base.MemorySession`):
            None for memory, or an SDK session such as ``SQLiteSession(id, "chat.db")``.
        redactor: applied to every batch before it is stored (see :class:`ctxlab.Redactor`).
        session_settings: the SDK's ``SessionSettings`` (``limit`` caps the item count).
        token_counter: defaults to exact ``o200k_base`` counts.
        params: a ready :class:`~ctxlab.policies.trim.TrimParams` instead of the four
            settings above (how :meth:`branch` passes them on).
    """

    strategy: ClassVar[StrategySpec] = trim.SPEC

    def __init__(
        self,
        session_id: str | None = None,
        max_turns: int = 8,
        *,
        max_tokens: int | None = None,
        keep_preamble: bool = True,
        step: int = 1,
        store: StoreArg = None,
        redactor: Any = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
        params: TrimParams | None = None,
    ):
        if params is None:
            params = TrimParams(max_turns, max_tokens, bool(keep_preamble), step)
        elif (max_turns, max_tokens, keep_preamble, step) != (8, None, True, 1):
            raise TypeError("TrimmingSession: pass params=... or its settings (max_turns, "
                            "max_tokens, keep_preamble, step), not both")
        super().__init__(session_id, params=params, store=store,
                         session_settings=session_settings, token_counter=token_counter,
                         redactor=redactor)

    # -- settings --------------------------------------------------------------------
    @property
    def max_turns(self) -> int:
        return self.params.max_turns

    @max_turns.setter
    def max_turns(self, value: int) -> None:
        self.set_max_turns(value)

    def set_max_turns(self, max_turns: int) -> None:
        """Show the last ``max_turns`` user turns from the next read on (nothing is lost)."""
        self.set_params(max_turns=max_turns)

    @property
    def max_tokens(self) -> int | None:
        return self.params.max_tokens

    @max_tokens.setter
    def max_tokens(self, value: int | None) -> None:
        self.set_params(max_tokens=value)

    def __repr__(self) -> str:
        budget = "" if self.max_tokens is None else f", max_tokens={self.max_tokens}"
        if self.params.step > 1:
            budget += f", step={self.params.step}"
        return (
            f"TrimmingSession(session_id={self.session_id!r}, max_turns={self.max_turns}"
            f"{budget}, items={len(self._log)}, turns={self._log.turn_count}"
            f"{self._store_note()})"
        )

    def _window(self) -> Window:
        return trim_window(self._log, self.params, session_id=self.session_id)
