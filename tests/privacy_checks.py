"""Planted personal data and the checks that errors and logs never carry it (shared by
``tests/stores/test_store_privacy.py`` and ``tests/records/test_record_privacy.py``)."""

from __future__ import annotations

import logging
import traceback

CARD = "4111 1111 1111 1111"
EMAIL = "anna.schmidt@example.com"
NAME = "Anna Schmidt"
#: Every form a planted value may take in a message (JSON escapes none of these).
PLANTED = (CARD, CARD.replace(" ", ""), EMAIL, NAME)


def leaks(text: str) -> list[str]:
    return [value for value in PLANTED if value in text]


def error_texts(error: BaseException) -> str:
    return "\n".join([str(error), repr(error),
                      "".join(traceback.format_exception(type(error), error,
                                                         error.__traceback__))])


def record_texts(records: list[logging.LogRecord]) -> str:
    """ctxlab's records at any level, and every library's warnings and errors (a driver's
    own DEBUG log of its statements is the application's choice to switch on), tracebacks
    included."""
    handler = logging.Handler()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    return "\n".join(handler.format(r) for r in records
                     if r.name.startswith("ctxlab") or r.levelno >= logging.WARNING)
