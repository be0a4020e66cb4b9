"""Token-usage monitoring: record the input tokens of every model call per session and
raise an alert when one call's input exceeds a limit.

Context grows turn by turn; an alert on the input of a single call catches a memory
strategy that stopped trimming, a tool that started returning megabytes, or a summary that
keeps growing, before the bill does. Use it alone as a ``RunConfig(call_model_input_filter=
monitor.input_filter(session))`` or pass it to :class:`~ctxlab.observe.ContextDebugLog`.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.checks import check_int
from ..core.tokens import ITEM_OVERHEAD_TOKENS, TokenCounter, get_token_counter, tool_schema_text

logger = logging.getLogger("ctxlab.monitor")


@dataclass(frozen=True)
class TokenAlert:
    """One model call whose input was over the limit."""

    session_id: str
    call: int  # 1-based number of the call in this session (as seen by this monitor)
    input_tokens: int
    limit: int
    agent: str | None
    at: float
    reason: str = ""  # set when the memory strategy itself reported a problem

    def __str__(self) -> str:
        who = f" (agent {self.agent!r})" if self.agent else ""
        if self.reason:
            return (f"session {self.session_id!r}{who}: model call {self.call} "
                    f"({self.input_tokens} input tokens): {self.reason}")
        return (f"session {self.session_id!r}{who}: model call {self.call} sends "
                f"{self.input_tokens} input tokens, over the limit of {self.limit}")


def _log_alert(alert: TokenAlert) -> None:
    logger.warning("%s", alert)


class TokenMonitor:
    """Per-session input tokens of each model call, with a threshold hook.

    Args:
        limit: input tokens per model call above which ``on_alert`` is called (>= 1).
        on_alert: called with a :class:`TokenAlert` (may be async); logs a warning on the
            ``ctxlab.monitor`` logger by default.
        token_counter: defaults to exact ``o200k_base`` counts.
    """

    def __init__(
        self,
        limit: int,
        on_alert: Callable[[TokenAlert], Any] | None = None,
        *,
        token_counter: TokenCounter | None = None,
    ):
        self.limit = check_int("limit", limit)
        if on_alert is not None and not callable(on_alert):
            raise ValueError(f"on_alert must be callable, got {type(on_alert).__name__}")
        self.on_alert = on_alert or _log_alert
        self.counter = token_counter or get_token_counter()
        self.usage: dict[str, list[int]] = {}
        self.alerts: list[TokenAlert] = []

    async def record(self, session_id: str, input_tokens: int, *,
                     agent: str | None = None, notes: list[str] | None = None
                     ) -> TokenAlert | None:
        """Record one call's input tokens; alert (and return the alert) if over the limit
        or if the session reported a problem with its view (``notes``: a failing or
        blocked fold keeps more turns than ``context_limit``)."""
        calls = self.usage.setdefault(session_id, [])
        calls.append(int(input_tokens))
        reason = "; ".join(notes or [])
        if input_tokens <= self.limit and not reason:
            return None
        alert = TokenAlert(session_id, len(calls), int(input_tokens), self.limit, agent,
                           time.time(), reason)
        self.alerts.append(alert)
        result = self.on_alert(alert)
        if inspect.isawaitable(result):
            await result
        return alert

    def count_input(self, items: list[Any], instructions: str | None = None,
                    tools: Any = ()) -> int:
        """Input tokens of a model call: instructions, tool schemas and items."""
        total = self.counter.count_items(items)
        if instructions:
            total += self.counter.count(instructions) + ITEM_OVERHEAD_TOKENS
        return total + sum(self.counter.count(tool_schema_text(t)) for t in tools)

    def input_filter(self, session: Any) -> Callable[[Any], Any]:
        """A ``call_model_input_filter`` that records every call of ``session`` (a session
        object or a session id) and returns the input unchanged."""
        session_id = session if isinstance(session, str) else session.session_id

        async def observe(data: Any) -> Any:
            try:
                tools = getattr(data.agent, "tools", ()) or ()
                tokens = self.count_input(list(data.model_data.input),
                                          data.model_data.instructions, tools)
                notes = session.view_notes() if hasattr(session, "view_notes") else []
                await self.record(session_id, tokens, agent=getattr(data.agent, "name", None),
                                  notes=notes)
            except Exception as exc:  # monitoring must never break a run
                logger.warning("token monitor failed for session %r: %s", session_id, exc)
            return data.model_data

        return observe

    def __repr__(self) -> str:
        calls = sum(len(v) for v in self.usage.values())
        return (f"TokenMonitor(limit={self.limit}, sessions={len(self.usage)}, calls={calls}, "
                f"alerts={len(self.alerts)})")
