"""A fold can never hang (issue 26, item 1).

On a real Redis server, a plain (sync) summarizer slower than ``lease_ttl / 3`` made
``add_items`` hang for ever in about one trial of four: the lease heartbeat was cancelled
while it was renewing the lease, redis-py swallowed the ``CancelledError``, the heartbeat kept
looping and the fold waited on it without a deadline. Now the heartbeat stops on a flag it
checks before every renewal, every wait on it has a deadline, and a sync summarizer runs in
a worker thread. Today's logic is kept below (``SwallowedCancelLease``, summarizer on the
loop) and shown to hang, in a subprocess so that its stuck threads die with it.

    python tests/sessions/test_fold_deadlines.py REDIS_URL broken|fixed N   # the harness
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

if __name__ == "__main__":  # run as the subprocess harness
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ctxlab import SummarizingSession
from ctxlab.sessions.deadlines import DeadlineExceeded, within
from ctxlab.sessions.lease import FoldLease

from conftest import arun, assistant, user

TTL = 0.3
TRIALS = 20


class SlowSyncSummarizer:
    """A plain (sync) summarizer slower than a third of the lease TTL."""

    def __init__(self, delay: float):
        self.delay = delay

    def summarize(self, items: list[dict[str, Any]]) -> str:
        time.sleep(self.delay)
        return f"summary of {len(items)} items"


class SwallowedCancelLease(FoldLease):
    """BROKEN (the heartbeat before the fix): cancelled, then awaited with no deadline; its
    loop has no stop flag, so a swallowed cancellation keeps it renewing for ever."""

    @contextlib.asynccontextmanager
    async def held(self):  # type: ignore[override]
        heartbeat = asyncio.get_running_loop().create_task(self._renew_for_ever())
        try:
            yield
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            await self.release()

    async def _renew_for_ever(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            with contextlib.suppress(Exception):
                await self.store.state.acquire_lease(self.owner, self.ttl)


def make_session(url: str, *, broken: bool) -> tuple[SummarizingSession, Any]:
    import redis.asyncio as aioredis
    from agents.extensions.memory import RedisSession

    client = aioredis.from_url(url)
    sid = f"hang-{uuid.uuid4().hex[:8]}"
    store = RedisSession(sid, redis_client=client, key_prefix=f"ctxlab-test-{sid}")
    session = SummarizingSession(keep_last_n_turns=1, context_limit=1, store=store,
                                 summarizer=SlowSyncSummarizer(TTL / 3 + 0.05), lease_ttl=TTL)
    if broken:
        engine = session._engine
        engine.lease = SwallowedCancelLease(session.store, engine.lease.owner, TTL,
                                            session.session_id)
        engine.sync_in_thread = False
    return session, client


def trial(url: str, broken: bool) -> int:
    """Two folds on a fresh Redis session; returns how many were applied."""
    async def go() -> int:
        session, client = make_session(url, broken=broken)
        try:
            await session.add_items([user("q1"), assistant("a1"), user("q2")])
            await session.add_items([assistant("a2"), user("q3")])
            return session.summaries_applied
        finally:
            await client.aclose()

    return asyncio.run(go())


def run_trials(url: str, broken: bool, n: int, *, patience: float = 8.0,
               stop_at_first_hang: bool = False) -> dict[str, Any]:
    """``n`` trials, each in a thread with its own loop; a trial still running after
    ``patience`` seconds hangs (its daemon thread is left behind)."""
    hung, applied = 0, []
    for _ in range(n):
        out: dict[str, Any] = {}

        def target(out: dict[str, Any] = out) -> None:
            try:
                out["applied"] = trial(url, broken)
            except Exception as exc:
                out["error"] = f"{type(exc).__name__}: {exc}"

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        thread.join(patience)
        if thread.is_alive():
            hung += 1
            if stop_at_first_hang:
                break
        else:
            applied.append(out.get("applied", out.get("error")))
    return {"trials": n, "hung": hung, "applied": applied}


def test_a_slow_sync_summarizer_on_redis_never_hangs_a_fold(redis_url):
    result = run_trials(redis_url, broken=False, n=TRIALS)
    assert result["hung"] == 0, result
    assert result["applied"] == [2] * TRIALS, result  # both folds landed, every time


def test_todays_heartbeat_hangs_on_the_same_case(redis_url):
    """The broken variant, in a subprocess (its stuck threads spin until it is killed)."""
    done = subprocess.run(
        [sys.executable, __file__, redis_url, "broken", "60"],
        capture_output=True, text=True, timeout=600, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["hung"] >= 1, result


class SwallowingState:
    """A state store whose renewal swallows a cancellation, as redis-py 8.1 does."""

    def __init__(self) -> None:
        self.renewing = asyncio.Event()
        self.calls = 0
        self.released = False
        self.swallow = True

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None):
        self.calls += 1
        self.renewing.set()
        try:
            await asyncio.sleep(0.2)
        except asyncio.CancelledError:
            if not self.swallow:
                raise
        return True

    async def release_lease(self, owner: str) -> None:
        self.released = True


class FakeStore:
    def __init__(self) -> None:
        self.state = SwallowingState()


async def leave_mid_renewal(lease: FoldLease) -> None:
    async with lease.held():
        await lease.store.state.renewing.wait()  # the heartbeat is inside a renewal now


def test_leaving_a_lease_mid_renewal_ends_even_if_the_cancel_is_swallowed():
    async def go():
        fixed = FoldLease(FakeStore(), "me", 0.3, "s")
        began = time.perf_counter()
        await within(leave_mid_renewal(fixed), 2.0, "leaving the fixed lease")
        assert time.perf_counter() - began < 1.0 and fixed.store.state.released
        calls = fixed.store.state.calls
        await asyncio.sleep(0.4)  # no renewal after the block: the heartbeat has stopped
        assert fixed.store.state.calls == calls

        broken = SwallowedCancelLease(FakeStore(), "me", 0.3, "s")
        with pytest.raises(DeadlineExceeded):
            await within(leave_mid_renewal(broken), 2.0, "leaving the broken lease")
        broken.store.state.swallow = False  # let its stuck heartbeat end with the test
        while len(asyncio.all_tasks()) > 1:
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()
            await asyncio.sleep(0.05)

    arun(go())


def test_a_deadline_holds_where_wait_for_does_not():
    """``asyncio.wait_for`` waits for a timed-out task that swallows the cancellation;
    ``within`` returns at its deadline."""
    async def stubborn(release: asyncio.Event) -> str:
        while not release.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.05)
        return "done"

    async def go():
        release = asyncio.Event()
        waiting = asyncio.ensure_future(asyncio.wait_for(stubborn(release), 0.05))
        done, _ = await asyncio.wait({waiting}, timeout=0.5)
        assert not done  # wait_for is still waiting, long after its timeout
        began = time.perf_counter()
        with pytest.raises(DeadlineExceeded, match=r"stubborn work took longer than 0\.05s"):
            await within(stubborn(release), 0.05, "stubborn work")
        assert time.perf_counter() - began < 0.3
        release.set()
        await waiting

    arun(go())


def test_a_sync_summarizer_runs_in_a_thread_and_never_blocks_the_loop():
    async def go(in_thread: bool) -> int:
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1,
                                     summarizer=SlowSyncSummarizer(0.4))
        session._engine.sync_in_thread = in_thread
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.ensure_future(ticker())
        await session.add_items([user("q1"), assistant("a1"), user("q2")])
        task.cancel()
        assert session.summaries_applied == 1
        return ticks

    assert arun(go(True)) >= 15  # the loop ran on while the summarizer slept 0.4 s
    assert arun(go(False)) <= 3  # on the loop, the summarizer froze it

if __name__ == "__main__":
    url, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print(json.dumps(run_trials(url, mode == "broken", count, patience=4.0,
                                stop_at_first_hang=True)), flush=True)
    import os

    os._exit(0)  # stuck daemon threads must not keep the process alive
