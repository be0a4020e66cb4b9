"""The SDK's AdvancedSQLiteSession (branches, usage) as a ctxlab store: open_store wraps it
with the generic adapter (stores/sdk.py), and the store contract runs on it. What fits and
what does not is asserted here and taught in lesson 11:

* it keeps the contract: ctxlab's side state (summary, lease, checkpoints) lives in its own
  SQLite table beside the SDK's; the log goes through the SDK's public methods, so the
  SDK's turn structure and usage tables stay right;
* an SDK branch switch changes the log under ctxlab (another branch's items): a ctxlab
  session sees the new branch's items on its next read, and a checkpoint taken on the other
  branch names a prefix that is no longer there, so it cannot be restored by mistake.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agents.extensions.memory import AdvancedSQLiteSession

from ctxlab import TrimmingSession, item_text
from ctxlab.stores import StoreConflictError, open_store

from conftest import arun, assistant, user
from store_contract import CHECKS


class AdvancedBackend:
    """A store_contract backend: every store an AdvancedSQLiteSession on one file."""

    shared = True  # stores on one file see each other's writes

    def __init__(self, folder: Path):
        self.path = folder / "advanced.db"

    def sdk(self, session_id: str) -> AdvancedSQLiteSession:
        return AdvancedSQLiteSession(session_id=session_id, db_path=self.path,
                                     create_tables=True)

    def open(self, session_id: str):
        return open_store(self.sdk(session_id))

    async def stored_items(self, session_id: str):
        return [dict(i) for i in await self.sdk(session_id).get_items()]


@pytest.mark.parametrize("check", list(CHECKS))
def test_advanced_sqlite_keeps_the_store_contract(check, tmp_path):
    arun(CHECKS[check](AdvancedBackend(tmp_path)))


def test_a_branch_switch_is_seen_and_an_old_checkpoint_is_refused(tmp_path):
    async def go():
        backend = AdvancedBackend(tmp_path)
        sdk = backend.sdk("chat")
        session = TrimmingSession("chat", max_turns=10, store=sdk)
        await session.add_items([user("Hi, my laptop overheats."), assistant("Is it on a desk?"),
                                 user("Yes, on a desk."), assistant("Try a stand.")])
        await session.checkpoint("two-turns")
        branch = await sdk.create_branch_from_turn(2, "other-answer")
        assert branch == "other-answer"
        await sdk.add_items([user("No, on my lap."), assistant("Use a desk.")])
        texts = [item_text(i) for i in await session.get_items()]
        assert texts[-2:] == ["No, on my lap.", "Use a desk."]  # the branch, read through
        with pytest.raises(StoreConflictError, match="no longer starts with the 4 items"):
            await session.rollback("two-turns")  # its prefix is not this branch's
        await sdk.switch_to_branch("main")
        assert item_text((await session.get_items())[-1]) == "Try a stand."
        assert {b["branch_id"] for b in await sdk.list_branches()} == {"main", "other-answer"}

    arun(go())
