"""``RunConfig(session_input_callback=...)``: how the SDK merges a session's history with
the new input, and the one job long-term memory gives it.

Before the first model call of ``Runner.run(..., session=s)``, the Runner reads the
session's history and calls ``callback(history, new_input)`` with copies of both lists;
what the callback returns is the model input. Then the Runner decides what to *store*: it
compares the returned items with the two copies, and appends to the session every returned
item that is not history: the new input, and **anything the callback made up**. So:

* filtering or reordering history is safe (history is never stored again);
* dropping the new input stores nothing new (useful: :func:`retry_once`);
* an injected item (a recollection, a summary) is stored in the session, once per run, and
  read back as history by every later run. Long-term memory must not be injected here:
  :meth:`~ctxlab.longterm.LongTermMemory.input_filter` (a ``call_model_input_filter``)
  changes what the model is sent and never what the session stores.

:func:`retry_once` is the job that fits: a customer whose message failed (a timeout, a model
error: the Runner had already stored the message, with no reply) sends it again. Without a
callback the session holds the message twice and the model reads it twice, and long-term
memory consolidates a session with the question asked twice; with :func:`retry_once` the
stored copy is answered and the new one is not stored again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.items import is_user_message, item_text


def retry_once(history: list[Any], new_input: list[Any]) -> list[Any]:
    """The session input with a re-sent message kept once (see the module docstring): when
    the new input is exactly the customer's last message, still unanswered at the end of
    the history, the new copy is dropped (the stored one is answered)."""
    if (len(new_input) == 1 and history and is_user_message(new_input[0])
            and is_user_message(history[-1])
            and _words(item_text(history[-1])) == _words(item_text(new_input[0]))):
        return list(history)
    return [*history, *new_input]


def _words(text: str) -> str:
    return " ".join(text.split())


def stored_copies(items: Sequence[Any], text: str) -> int:
    """How many items of a session hold ``text`` (to count what a callback stored)."""
    return sum(1 for item in items if text in item_text(item))


__all__ = ["retry_once", "stored_copies"]
