"""Memory across sessions for one user: what is written after a session (profile,
preferences, open commitments, cases, notes), recalled in the next one (structured first,
retrieval for the long tail), and forgotten on request in every store.

* :class:`LongTermMemory`: the user-scoped store, background writes, recall, injection;
* :func:`consolidate`: one session into a :class:`UserMemory` (a pure function);
* :func:`forget_user` / :func:`forget_me_tool`: deletion everywhere, and the tool an agent
  calls for it;
* :class:`MemoryNotes`: session notes and durable notes with precedence, consolidated at
  session end fail closed (:mod:`.consolidation`), fading with age (:mod:`.decay`);
  :func:`memory_tools`: the agent's save/search tools; :class:`Reflector`: debounced
  background reflection.
"""

from .consolidate import consolidate, informative, notes_of, session_state
from .consolidation import (
    ConsolidationCut,
    ConsolidationRejected,
    LLMConsolidator,
    RuleConsolidator,
    ScriptedConsolidator,
    check_proposal,
    proposal_for,
)
from .decay import DecayPolicy, prune, simulate, steady_scenario, strength
from .forget import FORGET_TOOL_DESCRIPTION, DeletionReport, forget_me_tool, forget_user
from .memory import LongTermMemory, Recollection
from .notebook import InForce, MemoryNote, NoteBook, in_force, make_note, note_scope
from .notes import Consolidated, MemoryNotes
from .notes_render import render_in_force
from .record import MEMORY_KEY, Case, Note, Remembered, SessionEntry, UserMemory
from .reflect import ReflectionStats, Reflector, burst_endings
from .render import render_notes, render_structured
from .tools import memory_tools

__all__ = [
    "FORGET_TOOL_DESCRIPTION",
    "MEMORY_KEY",
    "Case",
    "Consolidated",
    "ConsolidationCut",
    "ConsolidationRejected",
    "DecayPolicy",
    "DeletionReport",
    "InForce",
    "LLMConsolidator",
    "LongTermMemory",
    "MemoryNote",
    "MemoryNotes",
    "Note",
    "NoteBook",
    "Recollection",
    "ReflectionStats",
    "Reflector",
    "Remembered",
    "RuleConsolidator",
    "ScriptedConsolidator",
    "SessionEntry",
    "UserMemory",
    "burst_endings",
    "check_proposal",
    "consolidate",
    "forget_me_tool",
    "forget_user",
    "in_force",
    "informative",
    "make_note",
    "memory_tools",
    "note_scope",
    "notes_of",
    "proposal_for",
    "prune",
    "render_in_force",
    "render_notes",
    "render_structured",
    "session_state",
    "simulate",
    "steady_scenario",
    "strength",
]
