"""One session per user: the fix for the classic context leak.

A web handler that keeps one module-level session serves every user from the same
history: the second customer's agent sees the first customer's ticket, email and order.
:class:`SessionRegistry` hands out one session per conversation key (a user id, a chat
id), created on first use with your factory, and :class:`ChatService` is the small handler
that uses it: look up the caller's session, run the agent with it, return the reply.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from agents import Agent, RunConfig, Runner

from ..core.session_ids import check_session_id


class SessionRegistry:
    """Sessions by conversation key, created on first use by ``factory(session_id)``.

    The session id is ``prefix + key``, checked with :func:`ctxlab.check_session_id` (keys
    such as ``"user-42"``; never raw personal data such as an email address). With
    ``max_sessions`` the least recently used session is evicted from memory when the
    registry is full (a persistent store keeps its items; an in-memory one loses them).
    """

    def __init__(self, factory: Callable[[str], Any], *, prefix: str = "",
                 max_sessions: int | None = None):
        if not callable(factory):
            raise ValueError(f"factory must be callable, got {type(factory).__name__}")
        if max_sessions is not None and (isinstance(max_sessions, bool)
                                         or not isinstance(max_sessions, int)
                                         or max_sessions < 1):
            raise ValueError(f"max_sessions must be None or an integer >= 1, "
                             f"got {max_sessions!r}")
        self.factory = factory
        self.prefix = prefix
        self.max_sessions = max_sessions
        self._sessions: OrderedDict[str, Any] = OrderedDict()

    def session_for(self, key: str) -> Any:
        """The session of conversation ``key`` (created on first use).

        ``key`` must be a non-empty string: ``None`` (an anonymous caller) is refused, since
        every anonymous caller would otherwise share one conversation and read the previous
        caller's messages. Give each anonymous visitor its own id (``new_session_id()``).
        """
        if not isinstance(key, str) or not key:
            raise ValueError(
                f"a conversation key must be a non-empty string, got {key!r}: anonymous "
                "callers must not share one session (give each its own new_session_id())")
        session_id = check_session_id(f"{self.prefix}{key}", what="session id (prefix + key)")
        session = self._sessions.get(session_id)
        if session is None:
            session = self.factory(session_id)
            if getattr(session, "session_id", session_id) != session_id:
                raise ValueError(f"the factory made a session with id "
                                 f"{session.session_id!r} for {session_id!r}")
            self._sessions[session_id] = session
            if self.max_sessions is not None and len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session_id)
        return session

    def __contains__(self, key: object) -> bool:
        return f"{self.prefix}{key}" in self._sessions

    def __len__(self) -> int:
        return len(self._sessions)

    def __repr__(self) -> str:
        return f"SessionRegistry({len(self)} sessions, prefix={self.prefix!r})"


class ChatService:
    """A minimal chat handler: each call runs ``agent`` with the caller's own session."""

    def __init__(self, agent: Agent[Any], registry: SessionRegistry, *,
                 run_config: RunConfig | None = None):
        self.agent = agent
        self.registry = registry
        self.run_config = run_config

    def session_for(self, user_key: str) -> Any:
        return self.registry.session_for(user_key)

    async def reply(self, user_key: str, message: str) -> str:
        """Answer ``message`` from user ``user_key`` in that user's conversation."""
        result = await Runner.run(self.agent, message, session=self.session_for(user_key),
                                  run_config=self.run_config)
        return str(result.final_output)
