"""One call to let ctxlab open a store that already is an Agents SDK session.

A library's session class that satisfies the SDK's :class:`agents.memory.Session` protocol
(``session_id``, ``session_settings`` and the four async methods) needs no adapter code:
:func:`register_native_store` registers a :class:`~ctxlab.stores.registry.StoreAdapter`
that reads and writes its log through those public methods
(:class:`~ctxlab.stores.sdk.SessionLog`) and keeps the side state (summaries, leases,
checkpoints) where ``state_for`` says: a persistent :class:`~ctxlab.stores.base.StateStore`
in the same backend when the library offers one, else in memory with a warning::

    register_native_store(MongoSession, state_for=lambda s, sid: MyMongoState(s.db, sid))
    session = TrimmingSession(store=MongoSession("chat-1", db=db))

A dedicated :class:`~ctxlab.stores.base.LogStore` (one transaction per operation, reads of
only what is new) is faster; see DEVELOPERS.md, "Adding a store".
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .base import StateStore
from .registry import StoreAdapter, register_store

#: What the SDK's ``Session`` protocol asks of a class (its coroutine methods).
SESSION_METHODS = ("get_items", "add_items", "pop_item", "clear_session")


def session_protocol_gaps(session_type: type) -> list[str]:
    """What ``session_type`` lacks of the SDK's ``Session`` protocol (empty: nothing)."""
    return [f"async def {name}(...)" for name in SESSION_METHODS
            if not inspect.iscoroutinefunction(getattr(session_type, name, None))]


def register_native_store(
    session_type: type,
    *,
    state_for: Callable[[Any, str], StateStore | None] | None = None,
    spawn: Callable[[Any, str], Any] | None = None,
    name: str | None = None,
    priority: int = 5,
    replace: bool = False,
) -> StoreAdapter:
    """Make every ``session_type`` instance a ``store=`` ctxlab opens, in one call.

    ``state_for(store, session_id)`` returns the side-state store for a session (None or
    omitted: in memory, with a warning that summaries do not outlive the process);
    ``spawn(store, session_id)`` a session of the same backend for another id (for
    branches). Raises ValueError when ``session_type`` does not satisfy the SDK's
    ``Session`` protocol. Returns the registered adapter (``unregister_store(adapter.name)``
    removes it)."""
    if not isinstance(session_type, type):
        raise ValueError(f"register_native_store needs a class, got {session_type!r}")
    gaps = session_protocol_gaps(session_type)
    if gaps:
        raise ValueError(
            f"{session_type.__name__} does not satisfy the Agents SDK's Session protocol "
            f"(agents.memory.Session): it lacks {', '.join(gaps)}")
    adapter = StoreAdapter(
        name or f"native:{session_type.__module__}.{session_type.__qualname__}",
        lambda store: isinstance(store, session_type),
        open_log=None, state_for=state_for, priority=priority, spawn=spawn)
    register_store(adapter, replace=replace)
    return adapter
