"""Persistent stores behind ctxlab's sessions: SQLite files, Redis (a server and a cluster),
PostgreSQL, encrypted sessions (every kind of ``store_backends.KINDS``).

Every test runs on every backend. "A new process" is simulated here by a fresh session
object over a fresh SDK session (nothing shared in memory); test_multiprocess.py uses real
OS processes, test_store_contract.py checks each store's promises one by one.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ctxlab import SummarizingSession, TrimmingSession, item_text, validate_items
from ctxlab.stores import StoreConflictError

from conftest import arun, assistant, summary_reply, user
from fakes import RecordingSummarizer
from store_backends import KINDS, Backend, conversation, feed, make_backend, turn

pytestmark = pytest.mark.redis


@pytest.fixture(params=KINDS)
def backend(request, tmp_path) -> Backend:
    return make_backend(request.param, request, tmp_path)


def run(backend: Backend, test: Callable[[], Awaitable[None]]) -> None:
    async def go() -> None:
        try:
            await test()
        finally:
            await backend.aclose()

    arun(go())


def summarizing(backend: Backend, sid: str, summarizer: Any = None, **kw: Any):
    return SummarizingSession(2, 3, summarizer or RecordingSummarizer(), store=backend.sdk(sid),
                              **kw)


def test_a_fresh_session_resumes_the_identical_view_without_resummarizing(backend):
    async def test():
        first = summarizing(backend, "resume")
        await feed(first, 6)
        assert first.summary is not None and first.summaries_applied == 2
        view, ledger = await first.view_with_ledger()

        summarizer = RecordingSummarizer()
        again = summarizing(backend, "resume", summarizer)
        assert await again.get_items() == view
        assert await again.ledger() == ledger
        assert again.summary == first.summary
        assert summarizer.calls == [] and again.summaries_applied == 0
        # the raw log is the SDK's own: a plain SDK session reads the same items
        assert await backend.sdk("resume").get_items() == conversation(6)
        assert await again.raw_items() == conversation(6)
        # and the fresh session carries on from the stored summary (incrementally)
        await feed(again, 2, start=6)
        assert again.summary.generation == 3 and again.summary.incremental
        assert summarizer.calls[0]["previous"] == first.summary.text

    run(backend, test)


def test_items_other_writers_append_are_seen_before_the_view(backend):
    async def test():
        session = TrimmingSession(max_turns=2, store=backend.sdk("shared"))
        await feed(session, 2)
        other = backend.sdk("shared")  # an app writing with the plain SDK session
        for batch in turn(2, "other"):
            await other.add_items(batch)
        view = await session.get_items()
        assert [item_text(i) for i in view if i.get("role") == "user"] == [
            "w question 1: ticket TCK-40001", "other question 2: ticket TCK-40002"]
        ledger = await session.ledger()
        assert len(ledger.raw()) == 12 and validate_items(view) == []
        # and our next write lands after theirs, in the store's order
        await session.add_items([user("mine")])
        assert (await other.get_items())[-1] == user("mine")
        assert await session.raw_items() == await other.get_items()

    run(backend, test)


def test_two_sessions_in_one_store_never_see_each_other(backend):
    async def test():
        alice = summarizing(backend, "alice")
        alice_b = summarizing(backend, "alice-b")  # a prefix of another id is not a problem
        for t in range(5):
            for a_batch, b_batch in zip(turn(t, "A"), turn(t, "B"), strict=True):
                await alice.add_items(a_batch)
                await alice_b.add_items(b_batch)
        assert await alice.raw_items() == conversation(5, "A")
        assert await alice_b.raw_items() == conversation(5, "B")
        assert "A question" in alice.summary.text and "B question" not in alice.summary.text
        assert "B question" in alice_b.summary.text and "A question" not in alice_b.summary.text
        await alice.clear_session()
        assert await summarizing(backend, "alice").raw_items() == []
        fresh_b = summarizing(backend, "alice-b")
        assert await fresh_b.raw_items() == conversation(5, "B")
        assert fresh_b.summary == alice_b.summary

    run(backend, test)


def test_checkpoint_rollback_and_branch(backend):
    async def test():
        session = summarizing(backend, "debug")
        await feed(session, 4)
        cp = await session.checkpoint("before-bad-turn", note="turn 5 went wrong")
        assert cp.length == 16 and cp.state["summary"]["turns"] == [1, 2]
        summary_then = session.summary
        await feed(session, 2, tag="bad", start=4)
        assert session.summary.turns == (1, 4)

        removed = await session.rollback("before-bad-turn")
        assert [item_text(i) for i in removed if i.get("role") == "user"] == [
            "bad question 4: ticket TCK-40004", "bad question 5: ticket TCK-40005"]
        assert await session.raw_items() == conversation(4)
        assert session.summary == summary_then
        fresh = summarizing(backend, "debug")  # the rollback is in the store, not in memory
        assert await fresh.raw_items() == conversation(4)
        assert fresh.summary == summary_then
        assert [c.name for c in await fresh.checkpoints()] == ["before-bad-turn"]
        assert (await fresh.checkpoints())[0].note == "turn 5 went wrong"

        # ctxlab opens the new session itself, except where it cannot know the secret
        target = backend.sdk("debug-branch") if backend.kind == "encrypted" else None
        branch = await session.branch("before-bad-turn", "debug-branch", store=target)
        assert isinstance(branch, SummarizingSession) and branch.session_id == "debug-branch"
        assert branch.keep_last_n_turns == 2 and branch.context_limit == 3
        assert await branch.raw_items() == conversation(4)
        assert branch.summary == summary_then
        await feed(branch, 1, tag="fix", start=4)
        assert await session.raw_items() == conversation(4)  # the original is untouched
        with pytest.raises(ValueError, match="already holds 20 items"):
            again = backend.sdk("debug-branch") if backend.kind == "encrypted" else None
            await session.branch("before-bad-turn", "debug-branch", store=again)

        with pytest.raises(ValueError, match="no checkpoint named 'nope'; it has: "
                                             r"\['before-bad-turn'\]"):
            await session.rollback("nope")
        # rewrite the checkpointed prefix behind ctxlab's back: rollback refuses
        sdk = backend.sdk("debug")
        for _ in range(16):
            await sdk.pop_item()
        await sdk.add_items(conversation(4, "rewritten"))
        with pytest.raises(StoreConflictError, match="no longer starts with the 16 items"):
            await session.rollback("before-bad-turn")
        assert await session.raw_items() == conversation(4, "rewritten")

    run(backend, test)


def test_pop_and_clear_reach_the_store_and_every_reader(backend):
    async def test():
        session = SummarizingSession(1, 1, RecordingSummarizer(), store=backend.sdk("pop"))
        await session.add_items([user("q0"), assistant("a0"), user("q1")])
        other = SummarizingSession(1, 1, RecordingSummarizer(), store=backend.sdk("pop"))
        assert other.summary is None  # nothing read yet
        assert (await other.get_items())[1:] == [summary_reply("SUMMARY[1]: q0 | a0"), user("q1")]
        assert other.summary == session.summary
        assert item_text(await session.pop_item()) == "q1"
        assert item_text(await session.pop_item()) == "a0"  # into the folded prefix
        assert session.summary is None
        assert await other.get_items() == [user("q0")] and other.summary is None
        await session.checkpoint("c1")
        await session.clear_session()
        assert await other.raw_items() == [] and await other.checkpoints() == []
        assert await backend.sdk("pop").get_items() == []

    run(backend, test)


def test_a_summary_is_dropped_when_its_prefix_is_rewritten_outside_ctxlab(backend):
    async def test():
        session = SummarizingSession(1, 1, RecordingSummarizer(), store=backend.sdk("drift"))
        await session.add_items([user("q0"), assistant("a0"), user("q1")])
        assert session.summary.items == (0, 2)
        sdk = backend.sdk("drift")  # pop two and append two *different* items
        await sdk.pop_item()
        await sdk.pop_item()
        await sdk.add_items([assistant("a0 changed"), user("q1")])
        fresh = SummarizingSession(1, 1, RecordingSummarizer(), store=backend.sdk("drift"))
        view = await fresh.get_items()
        assert fresh.summary is None  # the digest no longer matches
        assert validate_items(view) == [] and user("q1") in view
        await session.get_items()
        assert session.summary is None

    run(backend, test)


def test_a_bad_batch_stores_nothing(backend):
    async def test():
        session = TrimmingSession(store=backend.sdk("bad"))
        await session.add_items([user("ok")])
        with pytest.raises(ValueError, match=r"item 1 of 2 is invalid.*Nothing from this batch"):
            await session.add_items([user("fine"), {"content": "no role"}])
        assert await backend.sdk("bad").get_items() == [user("ok")]

    run(backend, test)


def test_state_is_kept_in_a_side_table_or_key_of_the_same_backend(backend):
    async def test():
        session = summarizing(backend, "side")
        await feed(session, 4)
        raw = await backend.stored_state_text("side")  # read with the backend's own client
        assert raw is not None, f"no ctxlab state for the session in the {backend.kind} store"
        if backend.kind == "encrypted":  # the summary is as secret as the items it folds
            assert "TCK-40000" not in raw and session.summary.text not in raw
            return
        data = json.loads(raw)
        assert data["generation"] == 1 and data["summary"]["turns"] == [1, 2]
        assert data["summary"]["digest"] and data["summary"]["text"] == session.summary.text
        if backend.kind == "redis":  # the SDK's layout: the side keys beside the SDK's keys
            base = f"{backend.prefix}:side"
            keys = await backend.keys("side")
            assert {k for k in keys if ":ctxlab:writer:" not in k} == {
                base, f"{base}:messages", f"{base}:ctxlab:state"}

    run(backend, test)


def test_an_index_out_of_step_with_the_store_is_rebuilt_from_it(backend):
    async def test():
        session = summarizing(backend, "step")
        await feed(session, 5)
        view = await session.get_items()
        session._log.truncate(3)  # as if an earlier update of the index failed half-way
        assert await session.get_items() == view
        assert await session.raw_items() == conversation(5)

    run(backend, test)


def test_an_append_after_another_writer_removed_rows_this_session_knew(backend):
    """The store reports where an append lands even when rows the session had read are
    gone (another writer popped them and appended others): the session's index then holds
    exactly what the store holds, its own batch once, without a further read."""
    async def test():
        session = TrimmingSession(max_turns=8, store=backend.sdk("gone"))
        await session.add_items([user("q0"), assistant("a0"), user("q1")])
        other = backend.sdk("gone")
        await other.pop_item()
        await other.pop_item()
        await other.add_items([assistant("a0 by another")])
        await session.add_items([user("q2")])
        stored = [user("q0"), assistant("a0 by another"), user("q2")]
        assert [dict(item) for item in session._log.items] == stored  # no sync in between
        assert await backend.sdk("gone").get_items() == stored
        assert await session.raw_items() == stored

    run(backend, test)
