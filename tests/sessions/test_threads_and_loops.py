"""One session object used from several threads, each with its own event loops, as a web
app that calls ``Runner.run_sync`` per request does (the SDK's own SQLiteSession passes
this; see test_sqlite_session_concurrent_access in openai-agents-python)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest

from ctxlab import SummarizingSession, TrimmingSession, validate_items

from conftest import user
from fakes import RecordingSummarizer
from store_backends import CONTRACT_KINDS, make_backend

THREADS, LOOPS, PER_LOOP = 5, 5, 2
TIMEOUT_S = 60


def hammer(session: Any) -> list[BaseException]:
    """THREADS threads x LOOPS sequential asyncio.run() each, with PER_LOOP concurrent
    add_items + get_items calls inside every loop."""
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        for loop in range(LOOPS):
            async def go(loop: int) -> None:
                async def one(k: int) -> None:
                    await session.add_items([user(f"t{t} l{loop} k{k}")])
                    assert validate_items(await session.get_items()) == []

                await asyncio.gather(*(one(k) for k in range(PER_LOOP)))

            try:
                asyncio.run(go(loop))
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_S)
    hung = [t for t in threads if t.is_alive()]
    assert not hung, f"{len(hung)} threads still running after {TIMEOUT_S}s: the session hangs"
    return errors


def expected_texts() -> list[str]:
    return sorted(f"t{t} l{loop} k{k}" for t in range(THREADS) for loop in range(LOOPS)
                  for k in range(PER_LOOP))


#: Every store kind (the dict adapter needs its registration: it has its own tests).
STORE_KINDS = [k for k in CONTRACT_KINDS if k != "dict"]


def make(kind: str, tmp_path, request, cls: Any = TrimmingSession, **kw: Any):
    if kind == "memory":
        return cls(session_id="shared", **kw), None
    backend = make_backend(kind, request, tmp_path)
    return cls(session_id="shared", store=backend.sdk("shared"), **kw), backend


@pytest.mark.redis
@pytest.mark.parametrize("store_kind", STORE_KINDS)
@pytest.mark.parametrize("cls", ["trim", "summarize"])
def test_threads_and_loops_share_one_session(store_kind, cls, tmp_path, request):
    if cls == "trim":
        session, backend = make(store_kind, tmp_path, request, TrimmingSession, max_turns=4)
    else:
        session, backend = make(store_kind, tmp_path, request, SummarizingSession,
                                keep_last_n_turns=2, context_limit=4,
                                summarizer=RecordingSummarizer())
    errors = hammer(session)
    assert errors == []

    async def check() -> None:
        raw = await session.raw_items()
        assert sorted(i["content"] for i in raw) == expected_texts()  # each stored once
        assert validate_items(await session.get_items()) == []
        if backend is not None:
            await session.aclose()  # the client ctxlab made for this loop
            with contextlib.suppress(RuntimeError):  # the test's client: its loop is gone
                await backend.aclose()

    asyncio.run(check())
