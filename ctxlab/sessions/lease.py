"""The fold lease: at most one fold per session in flight, across processes.

A fold takes the session's lease in the store (:meth:`FoldLease.acquire`), holds it while
the summarizer works (:meth:`FoldLease.held`: a heartbeat renews it every third of the TTL)
and gives it back. A lease held by a process of this host that no longer exists is taken
over at once; any other lease expires ``ttl`` seconds after its last renewal.

No wait here can last for ever: every store call has a deadline
(:func:`~ctxlab.sessions.deadlines.within`), and the heartbeat stops when told to even if a
cancellation is swallowed by the store's client (redis-py does, mid-command): it checks its
stop flag before every renewal, and :meth:`held` waits for it at most one renewal deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any

from ..stores.base import StoreUnavailableError
from .deadlines import DeadlineExceeded, abandon, within

logger = logging.getLogger("ctxlab.summarizing")


class FoldLease:
    """The lease of one session, in its store's state (``store.state``).

    ``shared=False`` (a store the session made for itself, which nobody else can see) makes
    the lease a formality: always taken, nothing to renew or give back.
    """

    def __init__(self, store: Any, owner: str, ttl: float, session_id: str, *,
                 shared: bool = True):
        self.store = store
        self.owner = owner
        self.ttl = ttl
        self.session_id = session_id
        self.shared = shared
        self.renewals = 0

    @property
    def deadline(self) -> float:
        """Seconds any one lease call may take: a third of the TTL (the renewal period), so
        a slow call cannot outlive the lease it is renewing."""
        return max(self.ttl / 3, 0.05)

    async def acquire(self) -> bool:
        """Take the lease (or take it over from a dead owner of this host); False when a
        live owner holds it. Store errors propagate as :class:`ctxlab.StoreError`."""
        if not self.shared:
            return True
        state, ttl = self.store.state, self.ttl
        if await self._call("take the fold lease",
                            lambda: state.acquire_lease(self.owner, ttl)):
            return True
        holder = await self._call("read the fold lease", state.lease_holder)
        if holder is None or not owner_is_dead(holder):
            return False
        logger.warning("session %r: the fold lease is held by %s, a process that no longer "
                       "exists; taking it over", self.session_id, holder)
        return bool(await self._call(
            "take over the fold lease",
            lambda: state.acquire_lease(self.owner, ttl, replacing=holder)))

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Keep the lease renewed inside the block; give it back after (always)."""
        if not self.shared:
            yield
            return
        stop = _Stop()
        heartbeat = asyncio.get_running_loop().create_task(self._heartbeat(stop))
        try:
            yield
        finally:
            stop.set = True  # the loop checks it before every renewal: it ends even if the
            heartbeat.cancel()  # cancellation below is swallowed mid-renewal
            done, _ = await asyncio.wait({heartbeat}, timeout=self.deadline * 2)
            if not done:
                logger.warning("session %r: the lease heartbeat did not stop within %.2fs; "
                               "left to end on its own", self.session_id, self.deadline * 2)
                abandon(heartbeat, "the lease heartbeat")
            await self.release()

    async def release(self) -> None:
        """Give the lease back (if this owner holds it); failures only mean it expires."""
        if not self.shared:
            return
        try:
            await within(self.store.state.release_lease(self.owner), self.deadline,
                         "releasing the fold lease")
        except Exception as exc:
            logger.info("session %r: could not release the fold lease: %s", self.session_id,
                        exc)

    async def _heartbeat(self, stop: _Stop) -> None:
        period = self.ttl / 3
        while not stop.set:
            await asyncio.sleep(period)  # (a sleep never swallows its cancellation)
            if stop.set:
                return
            try:
                await within(self.store.state.acquire_lease(self.owner, self.ttl),
                             self.deadline, "renewing the fold lease")
                self.renewals += 1
            except Exception as exc:  # a lost lease is safe: the CAS still guards the result
                logger.info("session %r: could not renew the fold lease: %s",
                            self.session_id, exc)

    async def _call(self, what: str, fn: Any) -> Any:
        try:
            return await within(self.store.call_state(what, fn), self.ttl, what)
        except DeadlineExceeded as exc:
            raise StoreUnavailableError(f"session {self.session_id!r}: {exc}") from exc


class _Stop:
    """A flag the heartbeat reads before every renewal."""

    set = False


def lease_owner() -> str:
    """This process's lease owner name: ``host:pid:random`` (see :func:`owner_is_dead`)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_is_dead(owner: str) -> bool:
    """True when ``owner`` names a process on this host that no longer exists. Owners on
    other hosts, or that cannot be read, are presumed alive (their lease must expire)."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed child that its parent has not reaped yet still answers kill(pid, 0)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False
