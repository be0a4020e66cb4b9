"""The warning a context budget raises when it cannot be met."""

from __future__ import annotations

from ..sessions.base import TokenBudgetWarning


class ContextBudgetWarning(TokenBudgetWarning):
    """The part of a model call that is never dropped is larger than the token budget.

    That part is the instructions, the tool schemas, the preamble and the current turn (the
    new user input plus the tool calls and outputs the run has added since). The call is
    sent anyway, with nothing else, so the user's message is never lost; the model may then
    reject it or truncate. A subclass of :class:`~ctxlab.sessions.TokenBudgetWarning`, so one
    ``warnings`` filter covers session and context budgets alike.
    """
