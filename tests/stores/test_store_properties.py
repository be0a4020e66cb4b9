"""Property tests: a session on an SQLite file behaves exactly like one in memory, and a
second reader of the same file always sees the same view and ledger."""

from __future__ import annotations

import itertools

import pytest
from agents import SQLiteSession
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import SummarizingSession, TrimmingSession, validate_items

from conftest import arun
from fakes import RecordingSummarizer
from strategies import batches, history, messy_history

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
_ids = itertools.count()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return tmp_path_factory.mktemp("props") / "props.db"


def make(kind: str, store=None, **kw):
    if kind == "trimming":
        return TrimmingSession("mem", store=store, max_turns=kw["limit"]) if store is None \
            else TrimmingSession(store=store, max_turns=kw["limit"])
    return SummarizingSession(kw["keep"], kw["limit"], RecordingSummarizer(),
                              None if store else "mem", store=store)


@SETTINGS
@given(st.data(), st.sampled_from(["trimming", "summarizing"]), st.integers(1, 4),
       st.integers(0, 4), st.integers(0, 3))
def test_a_stored_session_matches_an_in_memory_one(db, data, kind, limit, keep, pops):
    keep = min(keep, limit)
    items = data.draw(st.one_of(history(max_turns=8), messy_history()))
    parts = batches(data.draw, items)
    sid = f"p{next(_ids)}"

    async def go():
        memory = make(kind, limit=limit, keep=keep)
        stored = make(kind, SQLiteSession(sid, db), limit=limit, keep=keep)
        for part in parts:
            await memory.add_items(part)
            await stored.add_items(part)
            assert await stored.get_items() == await memory.get_items()
        for _ in range(pops):
            assert await stored.pop_item() == await memory.pop_item()
        view = await stored.get_items()
        assert view == await memory.get_items() and validate_items(view) == []
        assert await stored.ledger() == await memory.ledger()
        reader = make(kind, SQLiteSession(sid, db), limit=limit, keep=keep)
        assert await reader.get_items() == view
        assert await reader.ledger() == await stored.ledger()
        assert await reader.raw_items() == await memory.raw_items()
        await stored.aclose()
        await reader.aclose()

    arun(go())
