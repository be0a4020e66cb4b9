"""What a :class:`~ctxlab.context.ContextManager`'s settings say about fitting one call
(read by the budget steps in :mod:`ctxlab.context.budget` and :mod:`ctxlab.context.shorten`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .compaction import ToolOutputCompactor
from .counting import RequestCounter

Item = Any


@dataclass(frozen=True)
class Rules:
    """The budget, the counter and the options of one manager (see ContextManager's args)."""

    max_tokens: int
    counter: RequestCounter
    compactor: ToolOutputCompactor | None = None
    role_aware: bool = False
    protect_recent_turns: int = 1
    assistant_max_tokens: int = 60
    last_resort: ToolOutputCompactor | None = None  # compacts the current turn if need be

    def compact(self, items: list[Item]) -> list[Item]:
        """Older bulky tool outputs as previews (the manager's compactor; none: as is)."""
        if self.compactor is None or not items:
            return items
        return self.compactor.compact(items, keep_recent_turns=0).items  # type: ignore[return-value]
