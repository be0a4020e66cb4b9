"""A structured-memory hub shared by agents: one state per user, compare-and-swap writes.

:class:`MemoryHub` stores each user's :class:`~ctxlab.SupportState` on a record store
(:mod:`ctxlab.records`); :func:`hub_input_filter` shows it to an agent (as quoted data,
never in its instructions: :func:`hub_instructions` carries the memory notice) and
:func:`record_run` merges what a run established into it.
"""

from .agents import (
    hub_input_filter,
    hub_instructions,
    hub_message,
    record_items,
    record_run,
    run_items,
)
from .hub import (
    HUB_KEY,
    HubConflictError,
    HubSnapshot,
    MemoryHub,
    UnknownUserError,
    instruction_lines,
)

__all__ = [
    "HUB_KEY",
    "HubConflictError",
    "HubSnapshot",
    "MemoryHub",
    "UnknownUserError",
    "hub_input_filter",
    "hub_instructions",
    "hub_message",
    "instruction_lines",
    "record_items",
    "record_run",
    "run_items",
]
