"""FirstLastSession: pin the first F turns, keep the last N (policy:
:mod:`ctxlab.policies.first_last`). The whole strategy is that policy plus these lines."""

from __future__ import annotations

from typing import Any

from ..policies.base import Window
from ..policies.first_last import FirstLastParams, first_last_window
from .base import MemorySession


class FirstLastSession(MemorySession):
    """Show the first ``first_turns`` and the last ``last_turns`` user turns, whole.

    Other keyword arguments (``store``, ``redactor``, ``session_settings``,
    ``token_counter``) are those of :class:`~ctxlab.sessions.base.MemorySession`.
    """

    def __init__(self, session_id: str | None = None, first_turns: int = 1,
                 last_turns: int = 4, *, keep_preamble: bool = True, **common: Any):
        self.params = FirstLastParams(first_turns, last_turns, bool(keep_preamble))
        super().__init__(session_id, **common)

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "first_turns": self.params.first_turns,
                "last_turns": self.params.last_turns,
                "keep_preamble": self.params.keep_preamble}

    def _window(self) -> Window:
        return first_last_window(self._log, self.params)
