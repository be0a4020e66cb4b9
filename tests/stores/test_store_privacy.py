"""Errors and logs leak nothing stored, on every store.

A customer's card number, e-mail address and name are planted in the conversation; then
each backend is made to refuse the append (a check constraint on PostgreSQL, a trigger on
SQLite, a key of the wrong type on Redis), and a summarizer fails with an exception that
quotes the summary it was given. The error raised (its ``str``, ``repr`` and the whole
traceback text) and every log record must name the operation, the store, the session id and
the cause, and hold none of the planted values. Before, PostgreSQL's refusal carried the
SQL parameters (the card number and e-mail verbatim) and the failed fold's warning carried
the summary.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any

import pytest

from ctxlab import SummarizingSession, TrimmingSession
from ctxlab.core.error_text import cause_text
from ctxlab.stores import StoreError, StoreUnavailableError

from conftest import arun, user
from privacy_checks import CARD, EMAIL, NAME, error_texts, leaks, record_texts
from store_backends import CONTRACT_KINDS, make_backend
from store_kinds import STORE_KINDS, StoreKind

pytestmark = pytest.mark.redis

def planted_turn(k: int) -> list[dict[str, Any]]:
    return [user(f"Turn {k}: I am {NAME}, card {CARD}, write to {EMAIL}."),
            {"role": "assistant", "content": f"Noted, {NAME}: card {CARD}, mail {EMAIL}."}]


#: The kinds that can be made to refuse an append (memory and the dict adapter cannot).
REFUSING = [k for k in CONTRACT_KINDS
            if type(STORE_KINDS[k]).refuse_appends is not StoreKind.refuse_appends]


@pytest.mark.parametrize("kind", REFUSING)
def test_a_refused_append_names_the_cause_and_leaks_nothing(kind, request, tmp_path,
                                                            caplog, dict_adapter):
    backend = make_backend(kind, request, tmp_path)
    sid = f"privacy-{kind}"

    async def go() -> StoreError:
        try:
            session = TrimmingSession(store=backend.store_arg(sid))
            await session.add_items(planted_turn(0))
            assert await backend.refuse_appends(sid), f"{kind} did not refuse appends"
            with pytest.raises(StoreError) as caught:
                await session.add_items(planted_turn(1))
            return caught.value
        finally:
            await backend.aclose()

    with caplog.at_level(logging.DEBUG):
        error = arun(go())
    text = error_texts(error)
    assert not leaks(text), f"{kind}: the error carries {leaks(text)}: {error}"
    assert not leaks(record_texts(caplog.records)), f"{kind}: a log record carries stored data"
    assert not isinstance(error, StoreUnavailableError), (
        f"{kind}: a refusal is not unavailability: {error}")
    message = str(error)
    assert "append items" in message and repr(sid) in message, (
        f"{kind}: the error does not name the operation and the session: {message}")
    store = message.split(" could not ", 1)[0]
    assert any(word in store for word in ("sqlite", "postgresql", "redis")), (
        f"{kind}: the error does not name the store first: {message}")
    assert "Error" in message.split(repr(sid), 1)[1], (
        f"{kind}: the error does not name the cause: {message}")
    assert error.backend_error is not None, f"{kind}: the backend exception was not kept"
    assert error.__cause__ is None and error.__suppress_context__, (
        f"{kind}: the backend exception is chained into the traceback")


class QuotingSummarizer:
    """Fails the way real ones do, quoting what it was given in the exception text."""

    name = "quoting"

    def __init__(self, how: str):
        self.how = how

    async def summarize(self, items: list[dict[str, Any]], *,
                        previous_summary: str | None = None) -> str:
        summary = json.dumps({"customer": NAME, "card": CARD, "email": EMAIL,
                              "turns": [str(i.get("content")) for i in items]})
        if self.how == "value":
            raise ValueError(f"the model's summary is not a HandoverRecord: {summary}")
        if self.how == "quoted":
            raise RuntimeError(f"refused summary {summary[:60]!r} ... {summary[-40:]!r}")
        from pydantic import BaseModel

        class Record(BaseModel):
            turns: int

        Record.model_validate({"turns": summary})
        raise AssertionError("unreachable")


@pytest.mark.parametrize("how", ["value", "quoted", "pydantic"])
@pytest.mark.parametrize("kind", CONTRACT_KINDS)
def test_a_failed_fold_warns_without_the_summary(kind, how, request, tmp_path, caplog,
                                                 dict_adapter):
    backend = make_backend(kind, request, tmp_path)
    sid = f"fold-{kind}-{how}"

    async def go() -> None:
        try:
            session = SummarizingSession(2, 3, QuotingSummarizer(how),
                                         store=backend.store_arg(sid))
            for k in range(4):
                await session.add_items(planted_turn(k))
            await session.get_items()
        finally:
            await backend.aclose()

    with caplog.at_level(logging.DEBUG, logger="ctxlab"), \
            warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        arun(go())
    failed = [r for r in caplog.records if "failed" in r.getMessage()]
    assert failed, f"{kind}/{how}: no warning of the failed fold was logged"
    text = record_texts(caplog.records) + "\n".join(str(w.message) for w in warned)
    assert not leaks(text), f"{kind}/{how}: a log record carries {leaks(text)}"
    assert all(repr(sid) in r.getMessage() for r in failed), (
        f"{kind}/{how}: the fold warning does not name the session")
    cause = {"value": "ValueError", "quoted": "RuntimeError", "pydantic": "ValidationError"}
    assert any(cause[how] in r.getMessage() for r in failed), (
        f"{kind}/{how}: the fold warning does not name the cause")


def test_the_cause_text_of_driver_errors_keeps_the_cause_and_drops_the_data():
    """What SQLAlchemy, PostgreSQL and pydantic put in their messages, reduced."""
    sqlalchemy = (
        "(sqlalchemy.dialects.postgresql.asyncpg.IntegrityError) <class "
        "'asyncpg.exceptions.CheckViolationError'>: new row for relation \"agent_messages\" "
        "violates check constraint \"refuse\"\nDETAIL:  Failing row contains (7, s, "
        f"{{\"content\": \"card {CARD}\"}}).\n[SQL: INSERT INTO agent_messages ...]\n"
        f"[parameters: ('s', '{{\"content\": \"{NAME}, {EMAIL}\"}}')]")

    class IntegrityError(Exception):
        pass

    text = cause_text(IntegrityError(sqlalchemy))
    assert not leaks(text), text
    assert text.startswith("IntegrityError: CheckViolationError: new row for relation"), text
    assert cause_text(json.JSONDecodeError("Expecting value", f"{{{CARD}", 1)) == (
        "JSONDecodeError: Expecting value at line 1 column 2")
    plain = cause_text(ValueError(f"card {CARD.replace(' ', '')} of {EMAIL}"))
    assert not leaks(plain) and plain.startswith("ValueError: card"), plain
    assert cause_text(ConnectionError("Error 111 connecting to 127.0.0.1:6390.")) == (
        "ConnectionError: Error 111 connecting to 127.0.0.1:6390"), "a plain cause was changed"
