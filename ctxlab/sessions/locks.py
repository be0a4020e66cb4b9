"""A lock for a session object that is used from several threads and event loops.

An ``asyncio.Lock`` belongs to one event loop: a web app that calls ``Runner.run_sync`` per
request (a new loop each time), or runs several threads each with its own loop, hangs or
raises "bound to a different event loop" with it. A plain ``threading.Lock`` held across an
``await`` freezes the loop of any coroutine that waits for it.

:class:`ThreadSafeAsyncLock` is neither: waiting never blocks a loop (the waiter parks on a
future of its own loop), ownership is handed straight to the next waiter on release (first
come, first served, across loops and threads), and a waiter that is cancelled leaves nothing
behind. Holding it across awaits is fine; holding it across a summarizer call is not done
(a fold computes outside the lock).
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from types import TracebackType


class ThreadSafeAsyncLock:
    """A FIFO async lock that works from any event loop in any thread."""

    __slots__ = ("_guard", "_locked", "_waiters")

    def __init__(self) -> None:
        self._guard = threading.Lock()  # held only for a few instructions, never across await
        self._locked = False
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    def locked(self) -> bool:
        return self._locked

    async def acquire(self) -> None:
        with self._guard:
            if not self._locked:  # (the common case: no loop lookup, no future)
                self._locked = True
                return
            loop = asyncio.get_running_loop()
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, future))
        try:
            await future
        except asyncio.CancelledError:
            with self._guard:
                try:
                    self._waiters.remove((loop, future))
                    handed = False
                except ValueError:  # ownership was handed to us meanwhile: pass it on
                    handed = True
            if handed:
                self.release()
            raise

    def release(self) -> None:
        with self._guard:
            if not self._locked:
                raise RuntimeError("release() of an unlocked ThreadSafeAsyncLock")
            while self._waiters:
                loop, future = self._waiters.popleft()
                if loop.is_closed():
                    continue  # its loop is gone: nobody will ever take the lock there
                # Still locked: ownership passes to this waiter.
                loop.call_soon_threadsafe(_wake, future)
                return
            self._locked = False

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
