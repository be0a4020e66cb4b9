"""A summarizing session's first read costs what its window needs (ctxlab.sessions.
fold_checkpoint): the fold checkpoint in the store and the tail after it.

Checked two ways:

* a fresh object over a long stored history fetches a bounded number of items (counted at
  the store), on every store that reads its ends (each says where its tail starts: SQLite,
  SQLAlchemy, Redis on both key layouts and on a cluster); the broken variant (the same
  session with no bounded first read: it loads the whole log) is caught by the same check;
* the view (items and reasons) equals the view from the whole log, for drawn settings and
  histories, after other writers appended, after a pop (the epoch moved), with a state
  of an older format (no anchor) and after another writer rewrote the folded items: each
  of the last three must fall back to the whole log (property-based).
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from agents.memory import SQLiteSession
from first_read_spy import assert_bounded, count_fetched, small_first_reads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import SummarizingSession
from ctxlab.core.partial_log import PartialLog
from ctxlab.sessions.fold_checkpoint import checkpoint

from conftest import arun
from store_backends import KINDS, Backend, conversation, make_backend, turn
from strategies import hard_history, history

ENDS_KINDS = tuple(k for k in KINDS if k != "encrypted")
STORED_TURNS = 600  # 2,400 items
SETTINGS = {"keep_last_n_turns": 2, "context_limit": 4}


class FullLoadSummarizing(SummarizingSession):
    """The broken variant: no bounded first read (every first read loads the whole log)."""

    first_read = None


@pytest.fixture(params=ENDS_KINDS)
def backend(request, tmp_path) -> Backend:
    return make_backend(request.param, request, tmp_path)


async def _summarized(backend: Backend, sid: str) -> None:
    """A long history another program stored, then folded by a summarizing session (all
    but the last 2 turns), then one more turn."""
    await backend.sdk(sid).add_items(conversation(STORED_TURNS))
    writer = SummarizingSession(store=backend.sdk(sid), **SETTINGS)
    for t in (STORED_TURNS, STORED_TURNS + 1):
        for batch in turn(t):
            await writer.add_items(batch)
    assert writer.summary is not None and writer.summary.turns[1] >= STORED_TURNS - 1


def _first_read(backend: Backend, cls: type) -> tuple[list[Any], list[Any], list[int], bool]:
    async def go() -> tuple[list[Any], list[Any], list[int], bool]:
        sid = f"fold-{uuid.uuid4().hex[:8]}"
        try:
            await _summarized(backend, sid)
            fresh = cls(store=backend.sdk(sid), **SETTINGS)
            fetched = count_fetched(fresh)
            view = await fresh.get_items(limit=10)
            whole = cls(store=backend.sdk(sid), **SETTINGS)
            await whole.raw_items()
            return view, await whole.get_items(limit=10), fetched, fresh.store.locates_tail
        finally:
            await backend.aclose()

    return arun(go())


def test_a_first_read_fetches_what_the_window_needs(backend):
    view, whole, fetched, locates = _first_read(backend, SummarizingSession)
    assert view == whole and view
    assert locates, f"{backend.kind} reads its ends but cannot say where a tail starts"
    assert_bounded(fetched, STORED_TURNS * 4)


def test_the_check_catches_a_first_read_that_loads_everything(backend):
    view, whole, fetched, locates = _first_read(backend, FullLoadSummarizing)
    assert view == whole and locates
    with pytest.raises(AssertionError, match=r"fetched 24\d\d of 2400"):
        assert_bounded(fetched, STORED_TURNS * 4)


def test_the_stores_that_read_ends_locate_their_tail():
    """Which adapters read by the checkpoint (the others fall back to the whole log)."""
    from ctxlab.stores.redis import RedisLog
    from ctxlab.stores.sqlalchemy_log import SQLAlchemyLog
    from ctxlab.stores.sqlite import SQLiteLog

    assert SQLiteLog.locates_tail and SQLAlchemyLog.locates_tail and RedisLog.locates_tail


# ------------------------------------------------------------ the view equals the whole log's


@pytest.fixture(scope="module")
def db() -> Path:
    return Path(tempfile.mkdtemp(prefix="ctxlab-fold-checkpoint-")) / "chat.db"


async def _compare(params: dict[str, Any], items: list[dict[str, Any]], more: list[Any],
                   change: str, limit: int | None, db: Path) -> bool:
    """Fold ``items`` with a writer, apply ``change``, then compare a fresh object's
    first read (and a read after ``more`` is appended) with the whole log's view. True
    when the fresh object read a partial log."""
    sid = f"p-{uuid.uuid4().hex}"
    writer = SummarizingSession(store=SQLiteSession(sid, db), **params)
    for item in items:
        await writer.add_items([item])
    if change == "pop":
        await writer.pop_item()
    elif change == "old-format" and writer.summary is not None:
        state = await writer.store.state.load()
        data = {k: v for k, v in (state.data or {}).items() if k != "anchor"}
        assert await writer.store.save_state(state.version, data) is not None
    elif change == "rewritten" and writer.summary is not None:
        sdk = SQLiteSession(sid, db)  # (another program: pops into the folded items)
        for _ in range(len(items) - writer.summary.items[1] + 1):
            await sdk.pop_item()
        await sdk.add_items([{"role": "user", "content": f"rewritten {uuid.uuid4().hex}"}])
    fresh = SummarizingSession(store=SQLiteSession(sid, db), **params)
    whole = SummarizingSession(store=SQLiteSession(sid, db), **params)
    await whole.raw_items()
    partial = False
    for batch in (None, more):
        if batch:
            await SQLiteSession(sid, db).add_items(batch)
        assert await fresh.get_items(limit=limit) == await whole.get_items(limit=limit)
        assert tuple(fresh._served.reasons) == tuple(whole._served.reasons)
        assert fresh.view_notes() == whole.view_notes()  # (a fold due: counted turns)
        partial = partial or isinstance(fresh._log, PartialLog)
    if change != "none":
        assert not partial, f"a first read used the checkpoint after {change!r}"
    return partial


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_first_read_shows_what_the_whole_log_shows(db, data):
    keep = data.draw(st.integers(0, 3), label="keep")
    params = {"keep_last_n_turns": keep,
              "context_limit": data.draw(st.integers(max(1, keep), 5), label="limit")}
    items = data.draw(st.one_of(history(max_turns=14), hard_history()), label="items")
    middle = conversation(data.draw(st.integers(0, 12)), tag=uuid.uuid4().hex[:6])
    items = [*items[:2], *middle, *items[2:]]
    more = data.draw(st.one_of(st.just([]), history(max_turns=5)), label="appended")
    change = data.draw(st.sampled_from(["none", "none", "pop", "old-format", "rewritten"]))
    limit = data.draw(st.one_of(st.none(), st.integers(0, 12)), label="limit")
    with small_first_reads():
        arun(_compare(params, items, more, change, limit, db))


def test_the_comparison_sees_partial_reads(db):
    """The property above really runs on partial logs (not only on whole ones)."""
    with small_first_reads():
        assert arun(_compare(SETTINGS, conversation(30), [], "none", None, db))


def test_a_fold_due_is_seen_on_a_partial_read(db):
    """Another program appended past ``context_limit`` without folding: the fresh object
    counts the unfolded turns (the middle's turn count comes from the checkpoint) and says
    a fold is due, as the whole log does."""
    more = conversation(3, tag="later")
    with small_first_reads():
        assert arun(_compare({"keep_last_n_turns": 2, "context_limit": 3}, conversation(30),
                             more, "none", None, db))


def test_a_checkpoint_after_a_destructive_change_is_not_used():
    """The epoch moved since the fold was planned: the checkpoint no longer proves the
    folded prefix."""
    from ctxlab.stores.base import StoredState

    data = {"strategy": "summarizing", "format": 1, "generation": 1,
            "summary": {"text": "t", "shadow": "s", "turns": [1, 2], "items": [0, 8],
                        "generation": 1, "created_at": 0.0, "summarizer": "x",
                        "input_tokens": None, "output_tokens": None, "digest": "d",
                        "epoch": 3},
            "anchor": {"end": 8, "item": "a"}}
    assert checkpoint(StoredState(5, 3, data)) is not None
    assert checkpoint(StoredState(5, 4, data)) is None
    assert checkpoint(StoredState(5, 3, {**data, "format": 0})) is None
    assert checkpoint(StoredState(5, 3, {**data, "anchor": {"end": 7, "item": "a"}})) is None
