"""A first read costs what the window needs (ctxlab.sessions.first_read).

A new session object over a long stored conversation reads the log's two ends only, for a
strategy whose window needs only them (``StrategySpec.tail_read``). Checked two ways:

* the read fetches a bounded number of stored items (counted at the store, not timed), on
  every store kind that can read ends; a session that loads the whole log (the broken
  variant: the same strategy without ``tail_read``) is caught by the same check;
* the view (items and reasons) from a first read equals the view from the whole log, for
  every registered strategy, on histories with late outputs, pending calls, orphans and
  preambles, also after more items are appended (property-based).
"""

from __future__ import annotations

import dataclasses
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from agents.memory import SQLiteSession
from first_read_spy import assert_bounded, count_fetched, small_first_reads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import FirstLastSession, TokenTailSession, TrimmingSession
from ctxlab.core.partial_log import PartialLog
from ctxlab.sessions import strategies

from conftest import arun
from store_backends import KINDS, Backend, conversation, make_backend
from strategies import hard_history, history, messy_history

#: Kinds whose adapter reads a log by its ends (the encrypted one decrypts through the SDK's
#: session, which can only read everything or the newest items).
ENDS_KINDS = tuple(k for k in KINDS if k != "encrypted")
STORED_TURNS = 600  # 2,400 items (every turn: question, call, output, answer)


class FullLoadTrimming(TrimmingSession):
    """The broken variant: trimming whose spec does not allow an ends-only read, so its
    first read loads the whole log (what every session did before)."""

    strategy = dataclasses.replace(TrimmingSession.strategy, tail_read=None)


@pytest.fixture(params=ENDS_KINDS)
def backend(request, tmp_path) -> Backend:
    return make_backend(request.param, request, tmp_path)


def _first_reads(backend: Backend, cls: type, kwargs: dict[str, Any], limit: int | None
                 ) -> tuple[list[Any], list[Any], list[int]]:
    async def go() -> tuple[list[Any], list[Any], list[int]]:
        sid = f"long-{uuid.uuid4().hex[:8]}"
        try:
            await backend.sdk(sid).add_items(conversation(STORED_TURNS))
            fresh = cls(store=backend.sdk(sid), **kwargs)
            fetched = count_fetched(fresh)
            view = await fresh.get_items(limit=limit)
            whole = cls(store=backend.sdk(sid), **kwargs)
            await whole.raw_items()  # the whole log first
            return view, await whole.get_items(limit=limit), fetched
        finally:
            await backend.aclose()

    return arun(go())


@pytest.mark.parametrize("cls,kwargs,limit", [
    (TrimmingSession, {"max_turns": 3}, 10), (FirstLastSession, {"last_turns": 2}, None),
    (TokenTailSession, {"max_tokens": 300}, None)])
def test_a_first_read_fetches_what_the_window_needs(backend, cls, kwargs, limit):
    view, whole, fetched = _first_reads(backend, cls, kwargs, limit)
    assert view == whole and view
    assert_bounded(fetched, STORED_TURNS * 4)


def test_the_check_catches_a_first_read_that_loads_everything(backend):
    view, whole, fetched = _first_reads(backend, FullLoadTrimming, {"max_turns": 3}, 10)
    assert view == whole
    with pytest.raises(AssertionError, match="fetched 2400 of 2400"):
        assert_bounded(fetched, STORED_TURNS * 4)


# ------------------------------------------------------------ the view equals the whole log's

TAIL_SPECS = [s for s in strategies() if s.tail_read is not None]


@pytest.fixture(scope="module")
def db() -> Path:
    return Path(tempfile.mkdtemp(prefix="ctxlab-first-read-")) / "chat.db"


def _served(session: Any) -> tuple[Any, ...]:
    """Why each item is shown (the slots' indices differ: the middle is one item)."""
    return tuple(session._served.reasons)


async def _compare(spec: Any, params: dict[str, Any], items: list[dict[str, Any]],
                   more: list[dict[str, Any]], limit: int | None, db: Path) -> bool:
    sid = f"p-{uuid.uuid4().hex}"
    await SQLiteSession(sid, db).add_items(items)
    ends = spec.session(store=SQLiteSession(sid, db), **params)
    whole = spec.session(store=SQLiteSession(sid, db), **params)
    await whole.raw_items()
    partial = False
    for batch in (None, more):
        if batch:
            await SQLiteSession(sid, db).add_items(batch)
        assert await ends.get_items(limit=limit) == await whole.get_items(limit=limit)
        assert _served(ends) == _served(whole)
        partial = partial or isinstance(ends._log, PartialLog)
    return partial


@st.composite
def long_history(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A drawn start (preambles, pending calls, orphans, late outputs), a middle of 0-40
    plain turns (so the unloaded middle holds any number of turns) and a drawn end; maybe a
    call near the start whose output arrives near the end (a pair across the middle)."""
    start = draw(st.one_of(history(max_turns=4), hard_history(), messy_history()))
    end = draw(st.one_of(history(max_turns=6), hard_history()))
    middle = conversation(draw(st.integers(0, 40)), tag=uuid.uuid4().hex[:6])
    if end and draw(st.booleans()):
        cid = f"across-{uuid.uuid4().hex[:8]}"
        put = draw(st.integers(0, len(start)))
        start = [*start[:put], {"type": "function_call", "call_id": cid, "name": "lookup",
                                "arguments": "{}"}, *start[put:]]
        at = draw(st.integers(1, len(end)))
        end = [*end[:at], {"type": "function_call_output", "call_id": cid, "output": "late"},
               *end[at:]]
    return [*start, *middle, *end]


@pytest.mark.parametrize("spec", TAIL_SPECS, ids=lambda s: s.name)
@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_first_read_shows_what_the_whole_log_shows(db, spec, data):
    params = {name: data.draw(st.one_of(st.none(), st.sampled_from(values))
                              if name in spec.hints.optional else st.sampled_from(values),
                              label=name)
              for name, values in spec.hints.ranges.items()}
    items = data.draw(long_history(), label="items")
    more = data.draw(st.one_of(st.just([]), history(max_turns=2)), label="appended")
    limit = data.draw(st.one_of(st.none(), st.integers(0, 12)), label="limit")
    with small_first_reads():
        arun(_compare(spec, params, items, more, limit, db))


def test_the_comparison_sees_partial_reads(db):
    """The property above really runs on partial logs (not only on whole ones)."""
    with small_first_reads():
        assert arun(_compare(strategies()[0], {"max_turns": 2}, conversation(30), [], None,
                             db))


def _grid(spec: Any) -> list[dict[str, Any]]:
    """Each parameter at its smallest, middle and largest hinted value (and None when it
    is optional), in every combination."""
    import itertools

    names, choices = [], []
    for name, values in spec.hints.ranges.items():
        seq = list(values)
        picks = list(dict.fromkeys([seq[0], seq[len(seq) // 2], seq[-1]]))
        names.append(name)
        choices.append([*picks, None] if name in spec.hints.optional else picks)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]


def _grid_histories() -> list[list[dict[str, Any]]]:
    """Middles of 0-9 turns between a start and an end that stress the two cuts: a
    preamble, a call of the first turn answered only in the last one."""
    pending = {"type": "function_call", "call_id": "across", "name": "lookup",
               "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "across", "output": "late"}
    found = []
    for middle in range(10):
        body = conversation(middle, tag=f"m{middle}")
        found.append([{"role": "developer", "content": "Be brief."}, *body,
                      *conversation(2, tag="end")])
        first, last = conversation(1, tag="first"), conversation(1, tag="last")
        found.append([first[0], pending, *first[1:], *body, *last[:2], answer, *last[2:]])
    return found


@pytest.mark.parametrize("spec", TAIL_SPECS, ids=lambda s: s.name)
def test_first_reads_match_the_whole_log_on_a_grid(db, spec):
    """Every combination of hinted parameters, on middles of every length up to 9 turns
    (so the turn count's parity and the pair across the middle are always covered)."""
    async def go() -> int:
        partial = 0
        for items in _grid_histories():
            sid = f"g-{uuid.uuid4().hex}"
            await SQLiteSession(sid, db).add_items(items)
            for params in _grid(spec):
                ends = spec.session(store=SQLiteSession(sid, db), **params)
                whole = spec.session(store=SQLiteSession(sid, db), **params)
                await whole.raw_items()
                for limit in (None, 3):
                    assert await ends.get_items(limit=limit) == \
                        await whole.get_items(limit=limit), (params, len(items), limit)
                    assert _served(ends) == _served(whole)
                partial += isinstance(ends._log, PartialLog)
        return partial

    with small_first_reads():
        assert arun(go()) > 0


def test_a_partial_session_stays_right_when_its_settings_or_reads_change(db):
    """After a first read by the ends: a parameter whose window needs the turn count
    (trim step 2) loads the whole log; the layout served before a whole load still names
    the items that were served; pops and appends from elsewhere are seen."""
    async def go() -> None:
        sid = f"s-{uuid.uuid4().hex}"
        await SQLiteSession(sid, db).add_items(conversation(41))

        def whole() -> TrimmingSession:
            return TrimmingSession(store=SQLiteSession(sid, db), max_turns=2, step=2)

        session = TrimmingSession(store=SQLiteSession(sid, db), max_turns=2)
        served = await session.get_items()
        assert isinstance(session._log, PartialLog)
        await session.raw_items()  # the whole log replaces the partial one
        assert session.served_layout()[0] == served
        partial = TrimmingSession(store=SQLiteSession(sid, db), max_turns=2)
        await partial.get_items()
        partial.set_params(step=2)
        reference = whole()
        await reference.raw_items()
        assert await partial.get_items() == await reference.get_items()
        assert not isinstance(partial._log, PartialLog)
        again = TrimmingSession(store=SQLiteSession(sid, db), max_turns=2)
        await again.get_items()
        await SQLiteSession(sid, db).pop_item()
        await SQLiteSession(sid, db).add_items(conversation(1, tag="new"))
        other = TrimmingSession(store=SQLiteSession(sid, db), max_turns=2)
        await other.raw_items()
        assert await again.get_items() == await other.get_items()

    with small_first_reads():
        arun(go())


def test_a_short_log_read_by_its_ends_is_whole(backend):
    """Ends that meet (a log shorter than both reads) give the whole log, however the store
    splits it between head and tail (Redis returned 16 + 8 of 24 items: the view lost 8)."""
    async def go() -> tuple[list[Any], list[Any]]:
        sid = f"short-{uuid.uuid4().hex[:8]}"
        try:
            await backend.sdk(sid).add_items(conversation(6))
            fresh = TrimmingSession(store=backend.sdk(sid), max_turns=5)
            view = await fresh.get_items()
            whole = TrimmingSession(store=backend.sdk(sid), max_turns=5)
            await whole.raw_items()
            return view, await whole.get_items()
        finally:
            await backend.aclose()

    view, whole = arun(go())
    assert view == whole and len(view) == 20
