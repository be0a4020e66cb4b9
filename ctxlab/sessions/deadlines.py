"""Waits that end: every wait the fold engine owns has a deadline, whatever the awaited code
does with a cancellation.

``asyncio.wait_for`` cancels the awaited task on timeout and then *waits for it to finish*;
a client library that catches the ``CancelledError`` (redis-py 8.1 does, mid-command) turns
that into a wait without end. :func:`within` runs the work as its own task and waits with
``asyncio.wait(timeout=...)``, which returns at the deadline whatever the task does; the task
is cancelled and left to finish on its own (its outcome is retrieved and logged).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

logger = logging.getLogger("ctxlab.sessions")

T = TypeVar("T")


class DeadlineExceeded(TimeoutError):
    """A wait passed its deadline (the message names what and how long)."""


async def within(work: Awaitable[T], timeout: float | None, what: str) -> T:
    """Await ``work``, for at most ``timeout`` seconds (None: no deadline).

    Raises :class:`DeadlineExceeded` at the deadline, even if ``work`` ignores being
    cancelled; cancelling the caller cancels ``work`` too.
    """
    if timeout is None:
        return await work
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        abandon(task, what)
        raise
    if not done:
        abandon(task, what)
        raise DeadlineExceeded(f"{what} took longer than {timeout:g}s")
    return task.result()


def abandon(task: asyncio.Future[Any], what: str) -> None:
    """Cancel ``task`` without waiting for it; log what it ends with."""
    task.cancel()
    task.add_done_callback(lambda t: _outcome(t, what))


def _outcome(task: asyncio.Future[Any], what: str) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        logger.info("%s, abandoned at its deadline, ended with %s: %s", what,
                    type(exc).__name__, exc)
