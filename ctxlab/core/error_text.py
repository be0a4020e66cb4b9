"""The cause of a failure, as text that carries nothing stored.

A backend's or a summarizer's exception text often quotes what it was given: SQLAlchemy
appends the statement and its parameters (``[parameters: ('{"content": "card 4111 ..."}',
...)]``), PostgreSQL's ``DETAIL: Failing row contains (...)`` repeats the row, pydantic
shows the start and end of the input it refused, ``json`` errors carry the document. ctxlab's
errors and logs name the operation, the store, the session id and the cause, never stored
content, so the cause is reduced to :func:`cause_text`: the exception's class and the first
line of its message with quoted values, e-mail addresses and long digit runs replaced by
``…``, and nothing after the first line. The exception itself stays reachable for code (a
:class:`~ctxlab.stores.StoreError` keeps it as ``backend_error``), never in the text.
"""

from __future__ import annotations

import json
import re

from .model_errors import ModelCallError

#: Longest cause text (characters), after scrubbing.
MAX_CAUSE = 200
#: Longest advice kept from a :class:`~ctxlab.core.model_errors.ModelCallError` (ctxlab's
#: own words, after "What to do: ").
MAX_ADVICE = 500

_CLASS = re.compile(r"<class '(?:[\w.]+\.)?(\w+)'>")
_WRAPPER = re.compile(r"^\((?:[\w.]+\.)?(\w+)\)\s*")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|«[^»]*»|“[^”]*”")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DIGITS = re.compile(r"\d(?:[\d\s-]{4,}\d)")
_BRACED = re.compile(r"[{\[][^\n]*")


def scrub(text: str) -> str:
    """The first line of ``text`` without quoted values, e-mail addresses, digit runs of six
    or more, or JSON-like tails (``{...``, ``[...``), at most :data:`MAX_CAUSE` characters."""
    line = text.strip().split("\n", 1)[0].strip()
    line = _CLASS.sub(r"\1", line)
    line = _WRAPPER.sub("", line)
    for pattern in (_QUOTED, _EMAIL, _DIGITS):
        line = pattern.sub("…", line)
    line = _BRACED.sub("…", line).rstrip(" :,.")
    if len(line) > MAX_CAUSE:
        line = line[: MAX_CAUSE - 1].rstrip() + "…"
    return line


def _pydantic_cause(exc: BaseException) -> str | None:
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ != "ValidationError" or not callable(errors):
        return None
    try:
        found = errors(include_input=False, include_url=False)
    except TypeError:  # not pydantic's
        return None
    parts = [f"{'.'.join(str(p) for p in e.get('loc', ())) or '(root)'}: {e.get('type')}"
             for e in found[:5]]
    return f"{len(found)} validation error(s): {'; '.join(parts)}"


def cause_text(exc: BaseException) -> str:
    """``Class: scrubbed message`` for ``exc`` (see the module doc); for an SQLAlchemy
    error, the driver's exception class it wraps."""
    name = type(exc).__name__
    if isinstance(exc, json.JSONDecodeError):
        return f"{name}: {exc.msg} at line {exc.lineno} column {exc.colno}"
    pydantic = _pydantic_cause(exc)
    if pydantic is not None:
        return f"{name}: {pydantic}"
    detail = scrub(str(exc))
    text = f"{name}: {detail}" if detail else name
    if isinstance(exc, ModelCallError) and "What to do: " in str(exc):
        # ctxlab's own advice (model_errors, server_limits): no stored content in it
        advice = " ".join(str(exc).split("What to do: ", 1)[1].split())
        text += f". What to do: {advice[:MAX_ADVICE]}"
    return text
