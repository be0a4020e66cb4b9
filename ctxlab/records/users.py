"""Who a run is for: the user id that per-user memory reads from the run context.

Long-term memory, the shared hub and the forget-me tool need the *user* behind a run, and
must never take it from the model (a tool argument "user_id" would let a prompt delete or
read someone else's data). The application passes it in the run context::

    await Runner.run(agent, text, session=session, context=UserContext("user-42"))

and :func:`user_id_of` reads it back in hooks, filters and tools (from a
``RunContextWrapper``, the context object itself, or a mapping with ``"user_id"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .base import check_user_id


@dataclass(frozen=True)
class UserContext:
    """The run context of a per-user agent: the user's id, and optionally the session's."""

    user_id: str
    session_id: str | None = None

    def __post_init__(self) -> None:
        check_user_id(self.user_id)


class MissingUserError(LookupError):
    """The run context does not say which user the run is for."""


def user_id_of(context: Any) -> str:
    """The user id in ``context`` (a ``RunContextWrapper``, a :class:`UserContext`, any
    object with a ``user_id`` attribute, or a mapping with a ``"user_id"`` key).

    Raises :class:`MissingUserError` when there is none, and
    :class:`~ctxlab.records.InvalidUserIdError` when it is not a safe id.
    """
    inner = getattr(context, "context", context)  # a RunContextWrapper holds it in .context
    value = inner.get("user_id") if isinstance(inner, Mapping) else getattr(inner, "user_id", None)
    if value is None:
        raise MissingUserError(
            "the run context names no user: pass context=UserContext('user-42') (or any "
            f"object with a user_id) to Runner.run; got {type(inner).__name__}")
    return check_user_id(value)


def session_id_of(context: Any) -> str | None:
    """The session id in ``context`` (as :func:`user_id_of` reads the user), or None."""
    inner = getattr(context, "context", context)
    value = (inner.get("session_id") if isinstance(inner, Mapping)
             else getattr(inner, "session_id", None))
    return check_user_id(value, what="session_id") if value is not None else None
