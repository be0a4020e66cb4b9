"""Change listeners of a session: ``subscribe(callback)`` and the notification after every
change (used by :class:`ctxlab.SessionView` and the token monitor)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("ctxlab.sessions")


class ChangeListeners:
    """``subscribe`` and ``_notify`` for :class:`~ctxlab.sessions.base.MemorySession` (which
    creates ``_listeners`` and calls :meth:`_notify` after every change)."""

    session_id: str
    _listeners: list[Callable[[Any], Any]]

    def subscribe(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        """Call ``callback(session)`` after every change to the log or the view (items
        added, popped or cleared, another process's items read, a summary applied, a
        setting changed). Returns a function that unsubscribes.

        Callbacks run synchronously, possibly while the session holds its lock: they must
        not await the session, only schedule work (as :class:`ctxlab.SessionView` does).
        """
        if not callable(callback):
            raise ValueError(f"callback must be callable, got {type(callback).__name__}")
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def _notify(self) -> None:
        if not self._listeners:
            return
        for callback in list(self._listeners):
            try:
                callback(self)
            except Exception:  # a broken listener must not break the session
                logger.exception("session %r: a change listener failed", self.session_id)
