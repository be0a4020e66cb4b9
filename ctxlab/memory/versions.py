"""Has a session changed since we last read it? (so memory sources can skip re-reading)."""

from __future__ import annotations

from typing import Any


def session_version(session: Any) -> object | None:
    """A value that changes whenever ``session``'s stored log or view changes, or None when
    the session offers no way to tell (then callers re-read every time).

    A session may expose a public ``version`` (attribute or method). ctxlab's memory
    sessions keep one privately (their log version and settings version); it is read here
    until they expose it.
    """
    version = getattr(session, "version", None)
    if version is not None:
        return version() if callable(version) else version
    log = getattr(session, "_log", None)
    if log is not None and isinstance(getattr(log, "version", None), int):
        return (id(log), log.version, getattr(session, "_config_version", None))
    return None
