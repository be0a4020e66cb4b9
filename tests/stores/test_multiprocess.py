"""Real OS processes on one session: concurrent appends while folds trigger, kill -9 in the
middle of a summarization, and the first use of a new session id by several processes at
once. On every store several processes can share (``store_backends.MULTIPROCESS``: SQLite
files, Redis, RedisStore on a server and on a cluster, PostgreSQL, ...): each worker process
writes to all of them at once, which saves interpreter start-ups."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxlab import item_text, segment_turns, validate_items
from ctxlab.core.digest import prefix_digest

from conftest import arun
from store_backends import MULTIPROCESS, Backend, conversation, make_backend
from store_worker import make_session, open_store

pytestmark = pytest.mark.redis

WORKER = Path(__file__).resolve().parent.parent / "store_worker.py"


@pytest.fixture
def backends(request, tmp_path) -> list[Backend]:
    """Every store kind several processes can share whose server is available (all of
    them under CI=true, where a missing server fails the test)."""
    found = []
    for kind in MULTIPROCESS:
        try:
            found.append(make_backend(kind, request, tmp_path / kind))
        except pytest.skip.Exception as skipped:
            print(f"{kind} part not run: {skipped}")
    return found


def spawn(spec: dict[str, Any]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), json.dumps(spec)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(paths: list[Path], procs: list[subprocess.Popen[str]], timeout: float = 90.0
             ) -> None:
    deadline = time.monotonic() + timeout
    while not all(p.exists() for p in paths):
        for proc in procs:
            if proc.poll() is not None:
                _, err = proc.communicate()
                pytest.fail(f"worker exited early ({proc.returncode}):\n{err[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {[p.name for p in paths if not p.exists()]}")
        time.sleep(0.01)


async def reopen(backend: Backend, session_id: str, **spec: Any):
    """A fresh session in this process (the 'restarted' process), plus its backend."""
    store, other = open_store(backend.spec(), session_id)
    return make_session({"keep": 2, "limit": 4, **spec}, store), other


async def closing(other: Backend) -> None:
    await other.aclose()


def test_processes_append_while_folds_trigger(backends, tmp_path):
    writers, turns = ["p0", "p1"], 10
    spec = {"jobs": [{"store": b.spec(), "session_id": "shared"} for b in backends],
            "turns": turns, "keep": 2, "limit": 4, "delay": 0.02, "lease_ttl": 30,
            "go_file": str(tmp_path / "go")}
    procs = [spawn({**spec, "writer": w, "ready_file": str(tmp_path / f"ready-{w}")})
             for w in writers]
    try:
        wait_for([tmp_path / f"ready-{w}" for w in writers], procs)
        (tmp_path / "go").write_text("go")
        results = []
        for proc in procs:
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-3000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()

    async def check(backend: Backend, job: int) -> None:
        session, client = await reopen(backend, "shared")
        try:
            await session.flush()  # a last fold may be due after the final writes
            raw = await session.raw_items()
            # no item lost, none duplicated, each writer's batches intact and in order
            assert len(raw) == len(writers) * turns * 4
            for w in writers:
                mine = [it for it in raw if f"{w} " in item_text(it)
                        or f"-{w}-" in str(it.get("call_id", ""))]
                assert mine == conversation(turns, w)
            assert validate_items(raw) == []
            # exactly one summary applied per fold, across all processes
            reports = [r["jobs"][job] for r in results]
            applied = [a for r in reports for a in r["applied"]] + session.applied
            summary = session.summary
            assert summary is not None
            assert sorted(a[0] for a in applied) == list(range(1, summary.generation + 1))
            ends = [a[2] for a in sorted(applied)]
            assert ends == sorted(set(ends)) and ends[-1] == summary.items[1]
            # the lease let one process fold at a time: nobody summarized in vain
            assert sum(r["discarded"] for r in reports) == 0, reports
            starts = [t.start for t in segment_turns(raw).turns]
            assert summary.items[1] == starts[summary.turns[1]]
            assert summary.digest == prefix_digest(raw[: summary.items[1]])
            view = await session.get_items()
            assert validate_items(view) == [] and view[2:] == raw[summary.items[1]:]
            unsummarized = len(starts) - summary.turns[1]
            assert session.keep_last_n_turns <= unsummarized <= session.context_limit
        finally:
            await closing(client)
            await backend.aclose()

    for job, backend in enumerate(backends):
        arun(check(backend, job))


def test_kill_9_in_the_middle_of_a_summarization(backends, tmp_path):
    markers = [tmp_path / f"summarizing-{b.kind}" for b in backends]
    spec = {"jobs": [{"store": b.spec(), "session_id": "crash", "marker": str(m)}
                     for b, m in zip(backends, markers, strict=True)],
            "writer": "k", "turns": 3, "keep": 1, "limit": 2, "mode": "hang",
            "lease_ttl": 30}
    proc = spawn(spec)
    try:
        wait_for(markers, [proc])  # the third question made a fold due: it is running
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    expected = conversation(2, "k") + conversation(3, "k")[8:9]  # 2 turns + the 3rd question

    async def check(backend: Backend) -> None:
        session, client = await reopen(backend, "crash", keep=1, limit=2)
        try:
            assert await session.raw_items() == expected  # the raw log is intact
            view = await session.get_items()
            assert session.summary is None  # the killed fold was never applied
            assert validate_items(view) == [] and view == expected  # nothing dropped meanwhile
            began = time.monotonic()
            await session.flush()  # the dead process's lease is taken over, then it folds
            assert session.summary is not None and session.summary.turns == (1, 2)
            assert time.monotonic() - began < 10  # well inside the 30 s lease
            assert await session.raw_items() == expected
            view = await session.get_items()
            assert validate_items(view) == [] and view[2:] == expected[8:]
        finally:
            await closing(client)
            await backend.aclose()

    for backend in backends:
        arun(check(backend))


def test_processes_start_a_new_session_together(backends, tmp_path):
    """Four processes take a session id nobody used (on PostgreSQL, in a schema whose tables
    do not exist yet) at the same instant: first use is race-free (before: one process died
    with UniqueViolationError on ctxlab_state_pkey in 2 of 3 runs) and no turn is lost."""
    writers, turns = ["n0", "n1", "n2", "n3"], 3
    spec = {"jobs": [{"store": b.spec(), "session_id": "brand-new"} for b in backends],
            "turns": turns, "keep": 2, "limit": 4, "lease_ttl": 30,
            "go_file": str(tmp_path / "go-new")}
    procs = [spawn({**spec, "writer": w, "ready_file": str(tmp_path / f"ready-new-{w}")})
             for w in writers]
    try:
        wait_for([tmp_path / f"ready-new-{w}" for w in writers], procs)
        (tmp_path / "go-new").write_text("go")
        for proc in procs:
            _, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-3000:]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()

    async def check(backend: Backend) -> None:
        session, other = await reopen(backend, "brand-new")
        try:
            raw = await session.raw_items()
            assert len(raw) == len(writers) * turns * 4, backend.kind
            for w in writers:
                assert [it for it in raw if f"{w} " in item_text(it)
                        or f"-{w}-" in str(it.get("call_id", ""))] == conversation(turns, w)
        finally:
            await closing(other)
            await backend.aclose()

    for backend in backends:
        arun(check(backend))
