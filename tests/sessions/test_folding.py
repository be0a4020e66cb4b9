"""The folding engine: leases are renewed while a slow summarizer works and taken over from
a dead owner at once; a fold never blocks on an unanswered call."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from agents.memory import SQLiteSession

from ctxlab import SummarizingSession
from ctxlab.sessions.folding import lease_owner, owner_is_dead

from conftest import arun, assistant, user
from fakes import RecordingSummarizer


def test_a_slow_fold_keeps_its_lease_alive_so_nobody_folds_twice(tmp_path):
    db = tmp_path / "chat.db"

    async def go():
        slow = RecordingSummarizer(delay=1.0)
        a = SummarizingSession(1, 1, slow, store=SQLiteSession("s", db), lease_ttl=0.3,
                               background=True)
        b = SummarizingSession(1, 1, RecordingSummarizer(), store=SQLiteSession("s", db),
                               lease_ttl=0.3)
        await a.add_items([user("q0"), assistant("a0"), user("q1")])  # a fold starts in `a`
        await asyncio.sleep(0.6)  # two TTLs: without a heartbeat the lease would be free
        await b.add_items([assistant("a1")])  # b wants the same fold
        assert b.summaries_applied == 0  # ... but the lease is still a's
        await a.flush()
        await b.flush()
        assert a.summaries_applied + b.summaries_applied == 1
        assert a.summaries_discarded == b.summaries_discarded == 0

    arun(go())


def test_dead_owners_are_recognised_and_live_or_foreign_ones_are_not():
    me = lease_owner()
    assert not owner_is_dead(me)  # this process
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    host = me.split(":")[0]
    assert owner_is_dead(f"{host}:{child.pid}:abcd1234")
    assert not owner_is_dead(f"{host}:{os.getppid()}:abcd1234")  # alive
    assert not owner_is_dead(f"some-other-host:{child.pid}:abcd1234")  # cannot tell: wait
    assert not owner_is_dead("garbage")
