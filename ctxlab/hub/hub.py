"""MemoryHub: one structured state per user, shared by several agents.

A support agent, a sales agent and an after-sales agent that serve the same customer should
not each keep their own picture of them: the hub holds one :class:`~ctxlab.SupportState`
per user (profile, issue, constraints, commitments, milestones) that every agent reads
before it answers and updates after its turn.

Two agents may update the same user at the same moment (two processes, two machines). Every
write is a compare-and-swap on the state's version (:mod:`ctxlab.records`), so an update
computed from a state someone else has changed since is refused instead of overwriting it:

* :meth:`MemoryHub.write` is the raw operation: it raises :class:`HubConflictError` ("lost
  the race", naming the user, the version it expected and the one it found) and writes
  nothing;
* :meth:`MemoryHub.update` is what agents use: read, apply a change, write; on a lost race
  read the newer state and apply the same change to it again, so both agents' changes are
  kept.

What an agent records quotes customers and tools. A write marks the state's entries that read
like an instruction to the assistant (:mod:`ctxlab.facts.instructions`): the stored record
carries them under ``"flagged"`` (:attr:`HubSnapshot.flagged`), so a reader sees the flag in
the store itself and :func:`~ctxlab.hub.agents.hub_message` shows them flagged whatever the
detector says later.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..facts.instructions import looks_like_instruction
from ..memory.state import StatePatch, SupportState
from ..records import (
    RecordConflictError,
    RecordStore,
    UnknownUserError,
    check_user_id,
    open_records,
)

#: The record key the hub keeps a user's state under.
HUB_KEY = "hub-state"
#: How many recent writers the hub remembers per user (who changed what, for debugging).
LOG_LENGTH = 20

Change = Callable[[SupportState], "SupportState | Awaitable[SupportState | None] | None"]


class HubConflictError(RecordConflictError):
    """A hub write lost the race: the user's state changed since it was read. Nothing was
    written; read the state again and re-apply the change (``MemoryHub.update`` does)."""


@dataclass(frozen=True)
class HubSnapshot:
    """A user's shared state as read: the state, its version (the CAS token, 0 while
    nothing is stored), the namespace epoch, the last writers (agent, version), and the
    state's entries flagged when they were written (they read like instructions)."""

    user_id: str
    version: int
    state: SupportState
    epoch: int = 0
    writers: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    flagged: tuple[str, ...] = ()

    @property
    def updated_by(self) -> str | None:
        return self.writers[-1][0] if self.writers else None


class MemoryHub:
    """The shared state of every user, on a :class:`~ctxlab.records.RecordStore`.

    Args:
        records: where states live: a record store, or what
            :func:`~ctxlab.records.open_records` accepts ("memory", an SQLite path, a Redis
            or SQLAlchemy URL).
        max_attempts: how many times :meth:`update` tries before it gives up with a
            :class:`HubConflictError` (under extreme contention).
    """

    def __init__(self, records: RecordStore | str = "memory", *, max_attempts: int = 50):
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"max_attempts must be an integer >= 1, got {max_attempts!r}")
        self.records = open_records(records)
        self.max_attempts = max_attempts
        #: How many writes of :meth:`update` lost a race and were retried (a figure to watch).
        self.lost_races = 0

    def __repr__(self) -> str:
        return f"MemoryHub({self.records.describe()})"

    async def read(self, user_id: str) -> HubSnapshot:
        """The user's state (an empty state at version 0 for a user nobody wrote yet)."""
        found = await self.records.get(check_user_id(user_id), HUB_KEY)
        if found.data is None:
            return HubSnapshot(user_id, 0, SupportState(), found.epoch)
        return HubSnapshot(user_id, found.version, SupportState.model_validate(
            found.data["state"]), found.epoch, _writers(found.data),
            tuple(str(line) for line in found.data.get("flagged", [])))

    async def write(self, user_id: str, state: SupportState, *, expected_version: int,
                    agent: str) -> HubSnapshot:
        """Store ``state`` if the user's state is still at ``expected_version``.

        Raises :class:`HubConflictError` (nothing written) when another agent wrote first.
        """
        if not isinstance(state, SupportState):
            raise TypeError(f"state must be a SupportState, got {type(state).__name__}")
        agent = _check_agent(agent)
        current = await self.records.get(check_user_id(user_id), HUB_KEY)
        writers = [*_writers(current.data or {}), (agent, current.version + 1)][-LOG_LENGTH:]
        flagged = instruction_lines(state)
        data = {"state": state.model_dump(mode="json"), "writers": [list(w) for w in writers],
                "flagged": list(flagged)}
        try:
            stored = await self.records.put(user_id, HUB_KEY, data,
                                            expected_version=expected_version)
        except RecordConflictError as exc:
            raise HubConflictError(
                f"agent {agent!r} lost the race for user {user_id!r}: it read the shared "
                f"state at version {exc.expected}, but it is at version {exc.actual} now "
                "(another agent wrote first). Nothing was written; read the state again and "
                "re-apply the change (MemoryHub.update does this).",
                namespace=user_id, key=HUB_KEY, expected=exc.expected, actual=exc.actual,
            ) from None
        writers[-1] = (agent, stored.version)
        return HubSnapshot(user_id, stored.version, state, stored.epoch, tuple(writers),
                           flagged)

    async def update(self, user_id: str, change: Change, *, agent: str) -> HubSnapshot:
        """Read the user's state, apply ``change`` to a copy, write it with compare-and-swap;
        on a lost race, start over from the newer state (so no agent's update is lost).

        ``change`` gets the state and changes it in place or returns a new one (sync or
        async). It may run more than once, so it must not have other side effects.

        Only a lost race is retried. A backend failure propagates as it is:
        :class:`~ctxlab.records.RecordsUnavailableError` (retry later) or
        :class:`~ctxlab.records.RecordsRefusedError` (the backend refused the write; nothing
        was written and retrying will not help).
        """
        if not callable(change):
            raise TypeError(f"change must be callable, got {type(change).__name__}")
        last: HubConflictError | None = None
        for attempt in range(self.max_attempts):
            snapshot = await self.read(user_id)
            state = snapshot.state.clone()
            result = change(state)
            if inspect.isawaitable(result):
                result = await result
            if result is not None and not isinstance(result, SupportState):
                raise TypeError(
                    f"change returned a {type(result).__name__}: change the state in place and "
                    "return None, or return a SupportState (state.apply(...) returns the list "
                    "of changes, not the state)")
            new = state if result is None else result
            try:
                return await self.write(user_id, new, expected_version=snapshot.version,
                                        agent=agent)
            except HubConflictError as exc:
                last = exc
                self.lost_races += 1
                await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise HubConflictError(
            f"agent {agent!r} gave up updating user {user_id!r} after {self.max_attempts} "
            f"lost races; nothing was written. Last: {last}",
            namespace=user_id, key=HUB_KEY, expected=last.expected if last else 0,
            actual=last.actual if last else 0)

    async def apply(self, user_id: str, patch: StatePatch, *, agent: str,
                    turn: int | None = None) -> HubSnapshot:
        """Merge a :class:`~ctxlab.StatePatch` into the user's state (with :meth:`update`);
        its milestones are marked with the agent's name."""
        if not isinstance(patch, StatePatch):
            raise TypeError(f"patch must be a StatePatch, got {type(patch).__name__}")
        agent = _check_agent(agent)
        marked = patch.model_copy(update={"milestones": [f"[{agent}] {m}"
                                                         for m in patch.milestones]})

        def merge(state: SupportState) -> None:
            state.apply(marked, turn if turn is not None else state.turn + 1)

        return await self.update(user_id, merge, agent=agent)

    async def forget(self, user_id: str) -> int:
        """Delete the user's shared state; raises :class:`UnknownUserError` when there is
        none (nothing is changed then)."""
        check_user_id(user_id)
        if not (await self.records.get(user_id, HUB_KEY)).exists:
            raise UnknownUserError(f"the hub holds no state for user {user_id!r} "
                                   f"({self.records.describe()}); nothing was deleted")
        return await self.records.delete_namespace(user_id)

    async def aclose(self) -> None:
        await self.records.aclose()


def instruction_lines(state: SupportState) -> tuple[str, ...]:
    """The entries of ``state`` (each text it holds: a milestone, a constraint, a value)
    that read like an instruction to the assistant, in the order the state holds them."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if value not in found and looks_like_instruction(value):
                found.append(value)
        elif isinstance(value, Mapping):
            for item in value.values():
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)

    walk(state.model_dump(mode="json"))
    return tuple(found)


def _check_agent(agent: Any) -> str:
    if not isinstance(agent, str) or not agent.strip():
        raise ValueError(f"agent must be a non-empty name, got {agent!r}")
    return agent


def _writers(data: Mapping[str, Any]) -> tuple[tuple[str, int], ...]:
    return tuple((str(a), int(v)) for a, v in data.get("writers", []))
