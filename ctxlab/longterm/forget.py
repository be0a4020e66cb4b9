"""Forget a user everywhere: long-term memory, the shared hub, and their session logs.

A support agent that is asked "delete everything you know about me" must not answer "I
can't do that here" when the service *can*: :func:`forget_user` deletes the user's records
in every record store it is given (each once, even when memory and hub share one), cancels
their pending background writes (and any that still run are refused: the deletion bumped
the records' epoch), and clears their sessions (every session of theirs that long-term
memory knows, opened with ``open_session``, plus the ones passed in; an SQLite file behind
a session is vacuumed afterwards, since a plain ``DELETE`` leaves the text readable in the
file's free pages). It returns a
:class:`DeletionReport`; for a user nothing is stored for, it raises
:class:`~ctxlab.records.UnknownUserError` and changes nothing.

:func:`forget_me_tool` makes that an Agents SDK function tool the agent calls. The user is
the run's (``UserContext``), never a tool argument: the model cannot be talked into
deleting someone else.

What a deletion cannot reach: backups and replicas you keep elsewhere, and a Redis server's
append-only file or snapshot, which hold old writes until Redis rewrites them
(``BGREWRITEAOF``, the next ``BGSAVE``); schedule those for erasure requests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..hub.hub import MemoryHub
from ..records import RecordError, RecordStore, UnknownUserError, check_user_id
from ..records.users import user_id_of
from .memory import LongTermMemory
from .record import MEMORY_KEY


@dataclass(frozen=True)
class DeletionReport:
    """What :func:`forget_user` deleted: records per store, sessions and their items."""

    user_id: str
    records: dict[str, int] = field(default_factory=dict)
    sessions: dict[str, int] = field(default_factory=dict)
    cancelled_writes: int = 0

    @property
    def total(self) -> int:
        return sum(self.records.values()) + sum(self.sessions.values())

    def as_dict(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "records": dict(self.records),
                "sessions": len(self.sessions), "session_items": sum(self.sessions.values()),
                "cancelled_writes": self.cancelled_writes}

    def __str__(self) -> str:
        stores = ", ".join(f"{n} record(s) in {where}" for where, n in self.records.items())
        return (f"forgot user {self.user_id!r}: {stores or 'no records'}; "
                f"{len(self.sessions)} session(s) with {sum(self.sessions.values())} item(s) "
                "cleared")


def _sqlite_file(session: Any) -> str | None:
    """The SQLite file behind a session, if any (an SDK ``SQLiteSession`` on a file, or a
    ctxlab session whose store is one)."""
    for candidate in (session, getattr(session, "_store", None),
                      getattr(getattr(session, "_store", None), "session", None)):
        path = getattr(candidate, "db_path", None)
        if path is not None and str(path) != ":memory:":
            return str(path)
    return None


def scrub_sqlite_file(path: str) -> None:
    """Rewrite an SQLite file so that deleted rows are gone from its bytes too.

    ``DELETE`` only marks pages free: the text stays readable in the file and in its
    write-ahead log until they are reused. ``VACUUM`` rebuilds the file from the live rows
    and a ``TRUNCATE`` checkpoint empties the log.
    """
    import sqlite3

    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


async def _session_items(session: Any) -> int:
    raw = getattr(session, "raw_items", None)
    items = await raw() if callable(raw) else await session.get_items()
    return len(items)


def _distinct(stores: Iterable[RecordStore | None]) -> list[RecordStore]:
    """The record stores to delete in, each once (memory and hub may share one)."""
    targets: list[RecordStore] = []
    for store in stores:
        if store is not None and all(store is not t for t in targets):
            targets.append(store)
    return targets


async def _known_sessions(user_id: str, memory: LongTermMemory | None,
                          open_session: Callable[[str], Any] | None) -> list[Any]:
    """The sessions long-term memory has written for the user, opened."""
    if memory is None or open_session is None:
        return []
    if MEMORY_KEY not in await memory.records.keys(user_id):
        return []
    return [open_session(sid) for sid in (await memory.get(user_id)).session_ids()]


async def _clear(sessions: list[Any], sizes: list[int]) -> dict[str, int]:
    """Clear the sessions, then scrub the SQLite files behind them."""
    cleared: dict[str, int] = {}
    files: set[str] = set()
    for session, size in zip(sessions, sizes, strict=True):
        await session.clear_session()
        cleared[str(getattr(session, "session_id", id(session)))] = size
        path = _sqlite_file(session)
        if path is not None:
            files.add(path)
    for path in sorted(files):
        await asyncio.to_thread(scrub_sqlite_file, path)
    return cleared


async def forget_user(
    user_id: str,
    *,
    memory: LongTermMemory | None = None,
    hub: MemoryHub | None = None,
    stores: Iterable[RecordStore] = (),
    sessions: Iterable[Any] = (),
    open_session: Callable[[str], Any] | None = None,
) -> DeletionReport:
    """Delete everything stored about ``user_id`` (see the module docstring)."""
    check_user_id(user_id)
    notes = memory.notes.records if memory is not None and memory.notes is not None else None
    targets = _distinct((memory.records if memory else None, notes,
                         hub.records if hub else None, *stores))
    found = [await t.keys(user_id) for t in targets]
    to_clear = [*sessions, *await _known_sessions(user_id, memory, open_session)]
    sizes = [await _session_items(s) for s in to_clear]
    pending = memory.pending_for(user_id) if memory else 0
    if not any(found) and not any(sizes) and not pending:
        where = ", ".join(t.describe() for t in targets) or "no stores given"
        raise UnknownUserError(f"nothing is stored for user {user_id!r} ({where}; "
                               f"{len(to_clear)} session(s) given, all empty): nothing was "
                               "deleted")
    cancelled = memory.cancel_pending(user_id) if memory else 0
    deleted = {t.describe(): await t.delete_namespace(user_id) for t in targets}
    return DeletionReport(user_id, deleted, await _clear(to_clear, sizes), cancelled)


#: The tool's description, which tells the model when to call it.
FORGET_TOOL_DESCRIPTION = (
    "Permanently delete everything this service stores about the customer you are talking "
    "to: long-term memory, shared customer state and conversation history. Call it only "
    "when the customer has clearly asked to delete their data (right to erasure). It cannot "
    "be undone."
)


#: What the model is told when a store refused the deletion, or was unavailable.
FORGET_REFUSED = ("a store refused the deletion, so it is not complete, and retrying will not "
                  "help: tell the customer and hand the request to a person")
FORGET_UNAVAILABLE = ("a store is unavailable right now, so the deletion is not complete: "
                      "tell the customer, and call this tool again later")


def forget_me_tool(*, memory: LongTermMemory | None = None, hub: MemoryHub | None = None,
                   stores: Iterable[RecordStore] = (),
                   sessions_of: Callable[[str], Iterable[Any]] | None = None,
                   open_session: Callable[[str], Any] | None = None,
                   name: str = "delete_my_data") -> Any:
    """A function tool that forgets the run's user (see the module docstring).

    ``sessions_of(user_id)`` returns the user's live sessions to clear (the current one
    included); ``open_session(session_id)`` opens a session long-term memory lists. The
    tool answers with JSON: ``{"deleted": true, ...}`` and what was removed, or
    ``{"deleted": false, "error": ...}`` when nothing was stored, or, with ``"retry"``, when
    a store refused the deletion (``false``: retrying will not help) or was unavailable.
    """
    from agents import FunctionTool, RunContextWrapper

    from .tools import store_failure

    extra = list(stores)

    async def invoke(context: RunContextWrapper[Any], arguments: str) -> str:
        user = user_id_of(context)
        live = list(sessions_of(user)) if sessions_of else []
        try:
            report = await forget_user(user, memory=memory, hub=hub, stores=extra,
                                       sessions=live, open_session=open_session)
        except UnknownUserError:
            return json.dumps({"deleted": False, "error": "nothing is stored about you"})
        except RecordError as exc:  # refused or unavailable: the deletion is not complete
            return json.dumps({"deleted": False, **store_failure(
                name, exc, refused_text=FORGET_REFUSED, unavailable_text=FORGET_UNAVAILABLE)})
        return json.dumps({"deleted": True, **report.as_dict(),
                           "what": ["long-term memory", "shared customer state",
                                    "conversation history"]})

    return FunctionTool(
        name=name, description=FORGET_TOOL_DESCRIPTION,
        params_json_schema={"type": "object", "properties": {}, "required": [],
                            "additionalProperties": False},
        on_invoke_tool=invoke, strict_json_schema=True)


__all__ = ["FORGET_REFUSED", "FORGET_UNAVAILABLE", "DeletionReport", "forget_me_tool",
           "forget_user"]
