"""Deliberately broken long-term memory parts: each one breaks one promise, and the tests
show that the suite that guards the promise fails on it.

* :class:`PartialConsolidation` (in :mod:`ctxlab.course.pitfalls`, lesson 11 shows it):
  checks a proposal note by note and writes each accepted note as it goes, so a proposal
  that goes wrong half-way leaves half of it stored (the promise: consolidation fails
  closed, both sets untouched);
* :class:`BlindWriteNotes`: saves with "last writer wins" (it re-reads the version just
  before writing instead of keeping the one it read), so concurrent saves are lost
  (the promise: writes go through compare-and-swap, nothing lost);
* :class:`EagerReflector`: starts a reflection per ending without cancelling the one
  waiting (the promise: a burst of endings is written once);
* :func:`user_id_tools`: memory tools that take the customer's id from the model, so a
  prompt reaches another customer's notes (the promise: the user comes from the run
  context only).
"""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool, RunContextWrapper, function_tool

from ctxlab.course.pitfalls import PartialConsolidation
from ctxlab.longterm import MemoryNotes, Reflector
from ctxlab.longterm.notebook import NOTEBOOK_KEY, NoteBook
from ctxlab.longterm.notes import note_line

__all__ = ["BlindWriteNotes", "EagerReflector", "PartialConsolidation", "user_id_tools"]


class BlindWriteNotes(MemoryNotes):
    """Compare-and-swap defeated: the version is re-read right before the write."""

    async def _update(self, user_id, change, *, what):
        found = await self.records.get(user_id, NOTEBOOK_KEY)
        book = NoteBook.model_validate(found.data) if found.data else NoteBook(user_id=user_id)
        new = change(book)
        if new is None:
            return book
        latest = await self.records.get(user_id, NOTEBOOK_KEY)
        await self.records.put(user_id, NOTEBOOK_KEY, new.model_dump(mode="json"),
                               expected_version=latest.version)
        return new


def user_id_tools(notes: MemoryNotes) -> list[FunctionTool]:
    """search_memory with a user_id argument the model fills in."""

    @function_tool(name_override="search_memory")
    async def search_memory(context: RunContextWrapper[Any], user_id: str, query: str) -> str:
        hits = await notes.search(user_id, query)
        return json.dumps({"found": [note_line(n) for n, _ in hits]})

    return [search_memory]


class EagerReflector(Reflector):
    """Never cancels: each ending gets a reflection of its own."""

    async def session_ended(self, user_id, source, *, session_id=None, at=None):
        burst = self._bursts.get(user_id)
        if burst is not None:
            burst.task = None  # forgets the waiting reflection instead of cancelling it
        return await super().session_ended(user_id, source, session_id=session_id, at=at)
