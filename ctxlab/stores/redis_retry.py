"""Riding out a Redis Cluster slot migration: bounded retries of a script that did not run.

While a slot moves between masters (``CLUSTER SETSLOT ... MIGRATING`` / ``IMPORTING`` and
``MIGRATE`` key by key, as ``redis-cli --cluster reshard`` does), a session's keys are split
between two nodes. A command on one key is redirected (``ASK``, ``MOVED``) and redis-py
follows that itself; a Lua script over several of a session's keys, which every ctxlab
operation is, gets ``TRYAGAIN`` on both nodes until the last key has moved (redis-py retries
it a few times within ~0.4 s, then raises ``TryAgainError`` or ``ClusterError("TTL
exhausted")``). Each of these replies means the script did **not** run, so running it again
is safe (and appends carry their batch token anyway: a repeat never stores twice).

:func:`retry_redirects` repeats such a call with a growing pause until it runs or
``patience`` seconds have passed; then the last error propagates (and becomes a
:class:`ctxlab.StoreUnavailableError`). Other errors propagate at once: a connection lost
mid-call may or may not have run the script, and failover has its own handling.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: Seconds a call waits through a slot migration before it reports the store unavailable.
DEFAULT_PATIENCE = 10.0


def _not_run_errors() -> tuple[type[BaseException], ...]:
    from redis.exceptions import AskError, MovedError, TryAgainError

    return (TryAgainError, AskError, MovedError)


def did_not_run(exc: BaseException) -> bool:
    """True for a cluster reply that means the command was not executed: ``TRYAGAIN``,
    ``ASK`` / ``MOVED`` left over, or redis-py giving up on redirections ("TTL exhausted")."""
    from redis.exceptions import ClusterError

    if isinstance(exc, _not_run_errors()):
        return True
    return type(exc) is ClusterError and "TTL exhausted" in str(exc)


async def retry_redirects(call: Callable[[], Awaitable[T]], *, patience: float,
                          sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> T:
    """``await call()``, repeated while it fails with a reply that means it did not run
    (:func:`did_not_run`), for at most ``patience`` seconds (pauses 25 ms, doubling up to
    200 ms)."""
    deadline = time.monotonic() + patience
    pause = 0.025
    while True:
        try:
            return await call()
        except Exception as exc:
            if not did_not_run(exc) or time.monotonic() + pause > deadline:
                raise
        await sleep(pause)
        pause = min(pause * 2, 0.2)
