"""Memory the agent can use: function tools to save and search the customer's notes.

:func:`memory_tools` returns two Agents SDK function tools over a
:class:`~ctxlab.longterm.notes.MemoryNotes`:

* ``save_memory(note, scope)``: keeps one fact the customer stated, in the current session;
  ``scope`` "auto" reads "this time only" / "from now on" from the words;
* ``search_memory(query)``: the notes in force for this customer that match, newest
  precedence first (each hit counts as a use: reinforcement).

Whose memory? The customer's the application named in the run context
(``context=UserContext("user-42", session_id="s-7")``), read through the tool's
``RunContextWrapper``: neither tool has a user argument, so no prompt can make the model
read or write another customer's notes (a ``user_id`` the model adds anyway is dropped by
the SDK when it parses the arguments: the tool has no such parameter). Writes go through
the record store's compare-and-swap, so two runs of one customer saving at once both land.
"""

import json
import logging
from typing import Any, Literal

from agents import FunctionTool, RunContextWrapper, function_tool

from ..core.error_text import cause_text
from ..records import RecordError, RecordsRefusedError
from ..records.users import MissingUserError, session_id_of, user_id_of
from .notes import MemoryNotes, note_line

#: What the model is told about each tool.
SAVE_DESCRIPTION = (
    "Save one fact or preference the customer stated, in their words, so that it is "
    "remembered. Use scope 'session' when they said it is for this conversation only "
    "(\"this time only\", \"只是这次\"), 'durable' when they said it should last (\"from now "
    "on\", \"以后都\"), 'auto' to decide from the words. One fact per call.")
SEARCH_DESCRIPTION = (
    "Search what this customer asked us to remember (this conversation's notes first, then "
    "their standing notes). Returns the matching notes with when they were said.")


logger = logging.getLogger(__name__)

#: What the model is told when the record store refused the operation, or was unavailable.
REFUSED_TEXT = ("the memory store refused this; nothing was saved and retrying will not "
                "help: tell the customer it could not be remembered")
UNAVAILABLE_TEXT = ("the memory store is unavailable right now; nothing was saved: tell the "
                    "customer, and try again later in the conversation")


def store_failure(what: str, exc: RecordError, *, refused_text: str = REFUSED_TEXT,
                  unavailable_text: str = UNAVAILABLE_TEXT) -> dict[str, Any]:
    """The tool's answer when the record store failed (refused: ``retry`` False; unavailable:
    ``retry`` True), logged with the store's message (no stored content in either)."""
    refused = isinstance(exc, RecordsRefusedError)
    logger.error("memory tool %s failed: %s", what, cause_text(exc))
    return {"error": refused_text if refused else unavailable_text, "retry": not refused}


def memory_tools(notes: MemoryNotes, *, k: int = 3) -> list[FunctionTool]:
    """``[save_memory, search_memory]`` over ``notes`` (see the module docstring)."""
    if not isinstance(notes, MemoryNotes):
        raise TypeError(f"notes must be a MemoryNotes, got {type(notes).__name__}")

    @function_tool(name_override="save_memory", description_override=SAVE_DESCRIPTION)
    async def save_memory(context: RunContextWrapper[Any], note: str,
                          scope: Literal["auto", "session", "durable"]) -> str:
        try:
            user, session = user_id_of(context), session_id_of(context)
        except MissingUserError:
            return json.dumps({"saved": False, "error": "this conversation has no customer"})
        if session is None:
            return json.dumps({"saved": False, "error": "this conversation has no session id"})
        try:
            saved = await notes.save(user, session, note,
                                     scope=None if scope == "auto" else scope)
        except ValueError as exc:  # empty or too long: the model can fix that
            return json.dumps({"saved": False, "error": str(exc)})
        except RecordError as exc:  # refused or unavailable: say which, never "try again"
            return json.dumps({"saved": False, **store_failure("save_memory", exc)})
        return json.dumps({"saved": True, **note_line(saved)}, ensure_ascii=False)

    @function_tool(name_override="search_memory", description_override=SEARCH_DESCRIPTION)
    async def search_memory(context: RunContextWrapper[Any], query: str) -> str:
        try:
            user = user_id_of(context)
        except MissingUserError:
            return json.dumps({"found": [], "error": "this conversation has no customer"})
        try:
            hits = await notes.search(user, query, session_id=session_id_of(context), k=k,
                                      reinforce=True)
        except RecordError as exc:
            return json.dumps({"found": [], **store_failure("search_memory", exc)})
        return json.dumps({"found": [note_line(n) for n, _ in hits]}, ensure_ascii=False)

    return [save_memory, search_memory]


__all__ = ["REFUSED_TEXT", "SAVE_DESCRIPTION", "SEARCH_DESCRIPTION", "UNAVAILABLE_TEXT",
           "memory_tools", "store_failure"]
