"""Memory across sessions for one user: what is written after a session (profile,
preferences, open commitments, cases, notes), recalled in the next one (structured first,
retrieval for the long tail), and forgotten on request in every store.

* :class:`LongTermMemory`: the user-scoped store, background writes, recall, injection;
* :func:`consolidate`: one session into a :class:`UserMemory` (a pure function);
* :func:`forget_user` / :func:`forget_me_tool`: deletion everywhere, and the tool an agent
  calls for it.
"""

from .consolidate import consolidate, informative, notes_of, session_state
from .forget import FORGET_TOOL_DESCRIPTION, DeletionReport, forget_me_tool, forget_user
from .memory import LongTermMemory, Recollection
from .record import MEMORY_KEY, Case, Note, Remembered, SessionEntry, UserMemory
from .render import render_notes, render_structured

__all__ = [
    "FORGET_TOOL_DESCRIPTION",
    "MEMORY_KEY",
    "Case",
    "DeletionReport",
    "LongTermMemory",
    "Note",
    "Recollection",
    "Remembered",
    "SessionEntry",
    "UserMemory",
    "consolidate",
    "forget_me_tool",
    "forget_user",
    "informative",
    "notes_of",
    "render_notes",
    "render_structured",
    "session_state",
]
