"""Checkpoints, rollback and branches in memory and through the generic SDK-session adapter
(the persistent stores are covered in test_stores.py)."""

from __future__ import annotations

import asyncio

import pytest
from agents import SQLiteSession
from agents.memory import SessionSettings

from ctxlab import SummarizingSession, TrimmingSession, item_text
from ctxlab.core.session_ids import InvalidSessionIdError
from ctxlab.stores import StoreConflictError, StoreError

from conftest import SEED_FLOW, arun, assistant, user
from fakes import RecordingSummarizer


def test_in_memory_checkpoint_rollback_and_branch():
    async def go():
        session = TrimmingSession("mem", max_turns=2, max_tokens=500)
        await session.add_items(SEED_FLOW[:4])
        first = await session.checkpoint("two-turns", note="before the reset advice")
        assert first.length == 4 and first.state is None
        await session.add_items(SEED_FLOW[4:])
        await session.checkpoint("four-turns")
        assert [c.name for c in await session.checkpoints()] == ["two-turns", "four-turns"]

        branch = await session.branch("two-turns")
        assert isinstance(branch, TrimmingSession) and branch.session_id != "mem"
        assert (branch.max_turns, branch.max_tokens) == (2, 500)
        assert await branch.raw_items() == SEED_FLOW[:4]
        await branch.add_items([user("a different third turn")])
        assert await session.raw_items() == SEED_FLOW

        removed = await session.rollback("two-turns")
        assert removed == SEED_FLOW[4:] and await session.raw_items() == SEED_FLOW[:4]
        assert await session.get_items() == SEED_FLOW[:4]
        # the later checkpoint now points past the end of the log: it cannot be restored
        with pytest.raises(StoreConflictError, match="no longer starts with the 8 items"):
            await session.rollback("four-turns")

    arun(go())


def test_rollback_restores_the_summary_and_discards_a_fold_in_flight():
    async def go():
        gate = asyncio.Event()
        summarizer = RecordingSummarizer()
        session = SummarizingSession(1, 2, summarizer, "sum", background=True)
        await session.add_items([user("q0"), assistant("a0"), user("q1"), assistant("a1"),
                                 user("q2")])
        await session.flush()
        folded = session.summary
        assert folded is not None and folded.turns == (1, 2)
        await session.checkpoint("folded")
        summarizer.gate = gate  # the next fold hangs until the gate opens
        await session.add_items([assistant("a2"), user("q3"), assistant("a3"), user("q4")])
        while len(summarizer.calls) < 2:  # the second fold is computing
            await asyncio.sleep(0.001)
        await session.rollback("folded")
        gate.set()
        await session.flush()
        assert session.summaries_discarded == 1  # computed for a log that no longer exists
        assert session.summary == folded
        assert [item_text(i) for i in await session.raw_items()] == [
            "q0", "a0", "q1", "a1", "q2"]

    arun(go())


def test_checkpoint_names_and_notes_are_checked():
    async def go():
        session = TrimmingSession("names")
        with pytest.raises(InvalidSessionIdError, match="checkpoint name 'a b'"):
            await session.checkpoint("a b")
        with pytest.raises(ValueError, match="note must be a string"):
            await session.checkpoint("ok", note=3)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="no checkpoint named 'x'; it has: none"):
            await session.rollback("x")
        generated = await session.checkpoint()
        assert generated.name.startswith("cp-")

    arun(go())


def test_any_sdk_session_works_through_the_generic_adapter():
    async def go():
        sdk = SQLiteSession("generic")  # in-memory SQLite: read through its public methods
        session = SummarizingSession(1, 1, RecordingSummarizer(), store=sdk)
        assert session.store.kind == "session" and not session.store.persistent
        await session.add_items([user("q0"), assistant("a0"), user("q1")])
        assert session.summary is not None and await sdk.get_items() == [
            user("q0"), assistant("a0"), user("q1")]
        await sdk.add_items([assistant("a1")])  # written behind ctxlab's back
        assert (await session.get_items())[-2:] == [user("q1"), assistant("a1")]
        assert await session.pop_item() == assistant("a1")
        await session.checkpoint("c")
        await session.add_items([assistant("late")])
        assert await session.rollback("c") == [assistant("late")]
        with pytest.raises(StoreError, match="pass store=<an SDK session for the new id>"):
            await session.branch("c")
        branch = await session.branch("c", store=SQLiteSession("generic-2"))
        assert await branch.raw_items() == await session.raw_items()
        assert branch.summary == session.summary

        limited = SQLiteSession("limited", session_settings=SessionSettings(limit=2))
        with pytest.raises(StoreError, match=r"the store.s session_settings\.limit is 2"):
            await TrimmingSession(store=limited).get_items()

    arun(go())


def test_advanced_sqlite_session_works_as_a_store_with_persistent_state(tmp_path):
    from agents.extensions.memory import AdvancedSQLiteSession

    db = tmp_path / "adv.db"

    async def go():
        session = SummarizingSession(
            1, 1, RecordingSummarizer(),
            store=AdvancedSQLiteSession(session_id="adv", db_path=db, create_tables=True))
        assert session.store.kind == "session" and session.store.persistent
        await session.add_items([user("q0"), assistant("a0"), user("q1")])
        assert session.summary is not None
        summarizer = RecordingSummarizer()
        again = SummarizingSession(
            1, 1, summarizer,
            store=AdvancedSQLiteSession(session_id="adv", db_path=db, create_tables=True))
        assert await again.get_items() == await session.get_items()
        assert again.summary == session.summary and summarizer.calls == []

    arun(go())
