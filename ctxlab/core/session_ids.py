"""Session ids: fresh random ones, and checks for ids that become storage keys.

A session id ends up in a Redis key (``agents:session:<id>:messages``), in SQLite rows and
in a log file name (``logs/<id>.jsonl``). An id that contains a ``:`` could collide with
another session's keys, one with a ``/`` could escape the logs folder, and one built from a
user name or phone number leaks personal data into every key. Use :func:`new_session_id`
(a random UUID4) and keep the mapping from your users to their session ids elsewhere.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

#: The longest id accepted as a storage key.
MAX_SESSION_ID_LENGTH = 128

_ALLOWED = re.compile(r"[A-Za-z0-9_.\-{}]")
_ALLOWED_TEXT = "letters A-Z/a-z, digits, '_', '.', '-', '{' and '}'"


class InvalidSessionIdError(ValueError):
    """A session id cannot be used as a storage key or file name (the message says why)."""


def new_session_id() -> str:
    """A fresh random session id (a UUID4 such as ``'1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b'``)."""
    return str(uuid.uuid4())


def check_session_id(value: Any, *, what: str = "session_id") -> str:
    """Return ``value`` if it is safe as a storage key and file name, else raise.

    Safe means: a string of 1 to :data:`MAX_SESSION_ID_LENGTH` characters drawn from
    letters, digits, ``_``, ``.``, ``-``, ``{`` and ``}``, not starting with ``.`` or ``-``
    (hidden files, command-line options). Braces are safe in file names, and in Redis keys
    :class:`ctxlab.stores.RedisStore` encodes them inside its hash tag (a brace in the SDK's
    own Redis keys only picks which cluster slot a key lands on; the SDK's RedisSession does
    not run on a cluster anyway). Raises :class:`InvalidSessionIdError` naming the problem.
    """
    if not isinstance(value, str):
        raise InvalidSessionIdError(f"{what} must be a string, got {type(value).__name__}")
    if not value:
        raise InvalidSessionIdError(f"{what} must not be empty; use new_session_id()")
    if len(value) > MAX_SESSION_ID_LENGTH:
        raise InvalidSessionIdError(
            f"{what} is {len(value)} characters long; at most {MAX_SESSION_ID_LENGTH} are "
            "allowed"
        )
    bad = sorted({ch for ch in value if not _ALLOWED.fullmatch(ch)})
    if bad:
        shown = ", ".join(repr(ch) for ch in bad)
        raise InvalidSessionIdError(
            f"{what} {value[:40]!r} contains characters unsafe in storage keys and file names: "
            f"{shown} (allowed: {_ALLOWED_TEXT})"
        )
    if value[0] in ".-":
        raise InvalidSessionIdError(f"{what} {value!r} must not start with {value[0]!r}")
    return value
