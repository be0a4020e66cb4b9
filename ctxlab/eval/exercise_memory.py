"""What lesson 05's exercise accepts as a memory setup: the library's own parts.

The exercise asks for a session and a ContextManager that answer five probes cheaply. A
stand-in that hands the model the answers (a duck-typed session whose ``get_items`` returns
the facts, a state memory filled in advance, a recall index loaded before the chat, a
subclass that replaces the library's methods, an ``on_assemble`` callback) would be cheap
and answer everything without remembering anything; :func:`check_parts` refuses each with a
message that names the part. (Lesson 05b's check makes the same checks, in Chinese; both are
:mod:`ctxlab.eval.exercise_parts`.)
"""

from __future__ import annotations

from typing import Any

from .exercise_parts import SetupRejected, check_manager, check_session

__all__ = ["SetupRejected", "check_parts"]


def check_parts(session: Any, manager: Any) -> None:
    """Raise :class:`SetupRejected` unless ``session`` and ``manager`` (None: no manager)
    are library parts (see the module doc)."""
    check_session(session)
    if manager is not None:
        check_manager(manager, session)
