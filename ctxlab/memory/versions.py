"""Has a session changed since we last read it? (so memory sources can skip re-reading)."""

from __future__ import annotations

from typing import Any


def session_version(session: Any) -> object | None:
    """A value that changes whenever ``session``'s stored log or view changes, or None when
    the session offers no way to tell (then callers re-read every time).

    ctxlab's sessions expose :attr:`ctxlab.MemorySession.version`; any session with a
    ``version`` attribute or method works the same way.
    """
    version = getattr(session, "version", None)
    if version is None:
        return None
    return version() if callable(version) else version
