"""TopicMemory: values per topic (:class:`~ctxlab.facts.topic_book.TopicBook`), kept up to
date from a session and shown to the model as quoted data.

As a state source for :class:`~ctxlab.context.ContextManager` it reads the session's whole
log (``raw_items()``) before each call and returns one message: :func:`memory_message`, the
one place that decides how remembered data is injected (a user-role message marked as quoted
data, never a system or developer message).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.memory_frame import MEMORY_HEADINGS, memory_block
from ..facts.instructions import flag_text
from ..facts.language import language_of
from ..facts.topic_book import Topic, TopicBook
from ..facts.topics import SchemaTopics

__all__ = ["MEMORY_HEADER", "Topic", "TopicMemory", "memory_message"]

#: The first line of the injected memory (English): it is quoted data, not instructions.
MEMORY_HEADER = MEMORY_HEADINGS["en"]


def memory_message(text: str) -> dict[str, Any]:
    """How remembered values reach the model: one user-role message, marked as quoted data
    (the single place to change when the project's injection form changes)."""
    language = language_of(text)
    return memory_block(flag_text(text, language), language=language)


class TopicMemory(TopicBook):
    """A :class:`~ctxlab.facts.topic_book.TopicBook` read from a session.

    Args:
        session: the session to read before each call (its ``raw_items()`` when it has one).
        ask, topics, known: as for :class:`~ctxlab.facts.topic_book.TopicBook`.
    """

    def __init__(self, *, session: Any = None, ask: bool = False,
                 topics: SchemaTopics | None = None, known: Iterable[str] = ()):
        self.session = session
        self._read = 0
        super().__init__(ask=ask, topics=topics, known=known, skip=tuple(MEMORY_HEADINGS.values()))

    def reset(self) -> None:
        super().reset()
        self._read = 0

    async def sync(self, session: Any = None) -> None:
        """Read what ``session`` (default: the bound one) stored since the last sync."""
        session = session if session is not None else self.session
        if session is None:
            raise ValueError("TopicMemory.sync needs a session: pass one or bind one")
        reader = getattr(session, "raw_items", None) or session.get_items
        stored = list(await reader())
        if len(stored) < self._read:  # cleared or popped: start over
            self.reset()
        self.feed(stored[self._read:])
        self._read = len(stored)

    def message(self) -> dict[str, Any] | None:
        text = self.render()
        return memory_message(text) if text else None

    async def __call__(self) -> dict[str, Any] | None:
        """State source for a ContextManager: sync, then the message."""
        if self.session is not None:
            await self.sync()
        return self.message()
