"""Errors and logs beyond the session stores leak nothing stored.

``tests/stores/test_store_privacy.py`` checks the session stores. This file plants the same
personal data (a card number, an e-mail address, a name) in what the packages around them
keep (a user's record, the hub's shared state, long-term memory, a state extractor's model
reply, a preloaded tool's arguments) and drives their error and warning paths: a backend
that refuses the write (a trigger on SQLite, a check constraint on PostgreSQL, a key of the
wrong type on Redis), an extractor or a tool that fails quoting what it was given, a model
reply that is not a valid state update. The error raised (``str``, ``repr``, the whole
traceback) and every log record must name the operation and the cause and hold none of the
planted values. Before: the record stores put the driver's whole text in the message (with
SQLAlchemy, the SQL parameters: the record's JSON verbatim) and chained it into the
traceback; long-term memory, the reflector and the preloader logged whole tracebacks; the
state memory logged and kept the extractor's text; the LLM extractor quoted pydantic's
error, which repeats the reply.

The broken variants at the end put the old behaviour back and show the checks catch it.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from agents import function_tool

import ctxlab.longterm.memory as longterm_memory
import ctxlab.records.sqlalchemy as sqlalchemy_records
from ctxlab import LongTermMemory, MemoryHub, Reflector, StateMemory, SupportState
from ctxlab.memory import LLMStateExtractor
from ctxlab.preload import Planned, Preloader, PreloadRule
from ctxlab.records import RecordError, RecordsRefusedError, RecordStore, RecordsUnavailableError
from ctxlab.records.base import UNAVAILABLE

from conftest import arun, assistant, user
from privacy_checks import CARD, EMAIL, NAME, error_texts, leaks, record_texts
from record_backends import make_records

PLANTED_RECORD = {"name": NAME, "card": CARD, "email": EMAIL}
#: The kinds whose backend can be made to refuse a write (memory cannot).
REFUSING = ["sqlite", "sqlalchemy", "redis",
            *(["postgres"] if os.environ.get("CTXLAB_POSTGRES_URL") else [])]


def said() -> list[dict[str, Any]]:
    return [user(f"I am {NAME}, card {CARD}, write to {EMAIL}."),
            assistant(f"Noted, {NAME}: card {CARD}, mail {EMAIL}.")]


async def refuse_writes(store: RecordStore, kind: str) -> None:
    """Make the backend refuse every later write of a record (with its own tools)."""
    if kind in ("sqlite", "sqlalchemy"):
        path = store.path if kind == "sqlite" else store.engine.url.database  # type: ignore
        with sqlite3.connect(path) as conn:
            for event in ("INSERT", "UPDATE"):
                conn.execute(f"CREATE TRIGGER refuse_{event.lower()} BEFORE {event} ON "
                             "ctxlab_records BEGIN SELECT RAISE(ABORT, 'refused by the test'); "
                             "END")
    elif kind == "postgres":
        from sqlalchemy import text

        async with store.engine.begin() as conn:  # type: ignore[attr-defined]
            table = store._records.name  # type: ignore[attr-defined]
            await conn.execute(text(f'ALTER TABLE "{table}" ADD CONSTRAINT refuse '
                                    "CHECK (false) NOT VALID"))
    elif kind == "redis":
        rec, _ = store.keys_of("anna")  # type: ignore[attr-defined]
        client = await store._redis()  # type: ignore[attr-defined]
        await client.delete(rec)
        await client.set(rec, "not a hash")
    else:
        raise ValueError(kind)


async def cleanup(store: RecordStore, kind: str) -> None:
    """Remove what this test made on a shared server (its own tables or keys only)."""
    if kind == "postgres":
        from sqlalchemy import text

        async with store.engine.begin() as conn:  # type: ignore[attr-defined]
            for table in (store._records.name, store._meta_table.name):  # type: ignore
                await conn.execute(text(f'DROP TABLE IF EXISTS "{table}"'))
    elif kind == "redis":
        client = await store._redis()  # type: ignore[attr-defined]
        async for key in client.scan_iter(match=f"{store.prefix}:*"):  # type: ignore
            await client.delete(key)
    await store.aclose()


def refused_put(kind: str, folder: Path, redis_url: str | None) -> RecordError:
    """Plant a record, make the backend refuse writes, write again: the error."""
    store = make_records(kind, folder, redis_url)

    async def go() -> RecordError:
        try:
            await store.put("anna", "profile", PLANTED_RECORD, expected_version=0)
            await refuse_writes(store, kind)
            with pytest.raises(RecordError) as caught:
                await store.put("anna", "profile", {**PLANTED_RECORD, "note": f"{CARD}!"},
                                expected_version=1)
            return caught.value
        finally:
            await cleanup(store, kind)

    return arun(go())


@pytest.fixture
def redis_for(request):
    """The Redis URL for the redis kind (None for the others)."""
    def url(kind: str) -> str | None:
        return request.getfixturevalue("redis_url") if kind == "redis" else None
    return url


@pytest.mark.parametrize("kind", REFUSING)
def test_a_refused_record_write_names_the_cause_and_leaks_nothing(kind, tmp_path, caplog,
                                                                  redis_for):
    with caplog.at_level(logging.DEBUG):
        error = refused_put(kind, tmp_path, redis_for(kind))
    text = error_texts(error)
    assert not leaks(text), f"{kind}: the error carries {leaks(text)}: {error}"
    assert not leaks(record_texts(caplog.records)), f"{kind}: a log record carries stored data"
    message = str(error)
    store = message.split(" refused to ", 1)[0]
    assert any(word in store for word in ("sqlite", "sqlalchemy", "redis")), (
        f"{kind}: the error does not name the store first: {message}")
    assert "refused to write record 'profile' of user 'anna': " in message, message
    assert isinstance(error, RecordsRefusedError), f"{kind}: a refusal called {type(error)}"
    assert "Error" in message.split("anna': ", 1)[1], f"{kind}: no cause named: {message}"
    assert error.backend_error is not None, f"{kind}: the backend exception was not kept"
    assert error.__cause__ is None and error.__suppress_context__, (
        f"{kind}: the backend exception is chained into the traceback")


#: The SQL kinds: a first writer that loses the race for a user's row is retried.
SQL_REFUSING = [kind for kind in REFUSING if kind in ("sqlalchemy", "postgres")]


def refused_attempts(kind: str, folder: Path) -> tuple[int, RecordError, bool]:
    """How many times a refused write was tried, its error, and what ``lost_race`` says of a
    real unique-key violation provoked on the same backend."""
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    store = make_records(kind, folder)
    attempts: list[str] = []
    call = store._call  # type: ignore[attr-defined]

    async def counted(what: str, fn: Any) -> Any:
        attempts.append(what)
        return await call(what, fn)

    async def go() -> tuple[int, RecordError, bool]:
        try:
            await store.put("anna", "profile", PLANTED_RECORD, expected_version=0)
            async with store.engine.begin() as conn:  # type: ignore[attr-defined]
                meta = store._meta_table  # type: ignore[attr-defined]
                row = (await conn.execute(meta.select())).first()
                with pytest.raises(IntegrityError) as taken:
                    await conn.execute(insert(meta).values(h=row.h, seq=1, epoch=0))
            await refuse_writes(store, kind)
            store._call = counted  # type: ignore[attr-defined]
            with pytest.raises(RecordError) as caught:
                await store.put("anna", "profile", {"x": 1}, expected_version=1)
            return len(attempts), caught.value, sqlalchemy_records.lost_race(taken.value)
        finally:
            await cleanup(store, kind)

    return arun(go())


@pytest.mark.parametrize("kind", SQL_REFUSING)
def test_a_refused_write_is_tried_once_and_only_a_taken_key_is_a_lost_race(kind, tmp_path):
    attempts, error, taken_is_a_race = refused_attempts(kind, tmp_path)
    assert isinstance(error, RecordsRefusedError)
    assert attempts == 1, f"{kind}: a write the backend refuses was tried {attempts} times"
    assert not sqlalchemy_records.lost_race(error.backend_error)
    assert taken_is_a_race, f"{kind}: a unique-key violation is not seen as a lost race"


@pytest.mark.parametrize("kind", SQL_REFUSING)
def test_the_retry_check_catches_retrying_every_integrity_error(kind, tmp_path, monkeypatch):
    from sqlalchemy.exc import IntegrityError

    # the broken variant: any IntegrityError taken for a lost race (the first edition)
    monkeypatch.setattr(sqlalchemy_records, "lost_race",
                        lambda error: isinstance(error, IntegrityError))
    attempts, _error, _race = refused_attempts(kind, tmp_path)
    assert attempts == 6


async def failing_records(tmp_path: Path) -> RecordStore:
    """SQLAlchemy records whose writes are refused (the leakiest driver text: parameters)."""
    store = make_records("sqlalchemy", tmp_path)
    await store.put("seed", "k", {"x": 1}, expected_version=0)
    await refuse_writes(store, "sqlalchemy")
    return store


def test_the_hub_and_long_term_memory_on_a_refusing_store_leak_nothing(tmp_path, caplog):
    state = SupportState.model_validate({
        "user": {"name": NAME, "email": EMAIL},
        "constraints": [{"topic": "payment", "text": f"pay with card {CARD}"}]})

    async def go() -> tuple[BaseException, LongTermMemory]:
        store = await failing_records(tmp_path)
        memory = LongTermMemory(store)
        try:
            with pytest.raises(RecordsRefusedError) as caught:
                await MemoryHub(store).write("anna", state, expected_version=0, agent="desk")
            task = await memory.end_session("anna", said(), session_id="s1")
            assert await task is None  # logged and kept: a background write never raises
            return caught.value, memory
        finally:
            await store.aclose()

    with caplog.at_level(logging.DEBUG):
        error, memory = arun(go())
    assert not leaks(error_texts(error)), f"the hub's error carries stored data: {error}"
    logged = record_texts(caplog.records)
    assert not leaks(logged), f"a log record carries {leaks(logged)}"
    failed = [r.getMessage() for r in caplog.records if "long-term write" in r.getMessage()]
    assert failed and "'s1'" not in failed[0] and "s1" in failed[0], failed
    assert "RecordsRefusedError" in failed[0], f"the cause is not named: {failed}"
    assert memory.errors and memory.errors[0][2].backend_error is not None


class QuotingExtractor:
    """Fails the way a model-backed extractor does, quoting the turn it was given."""

    async def extract(self, items, *, state=None, turn=None):
        raise ValueError(f"could not read the turn: {json.dumps(items)}")


class StoredChat:
    """An SDK-style session holding the planted chat."""

    session_id = "s2"

    async def get_items(self, limit=None):
        return said()


def background_failures(memory: LongTermMemory) -> None:
    """End a session through long-term memory and through a reflector (no delay)."""
    async def go() -> None:
        assert await (await memory.end_session("anna", said(), session_id="s1")) is None
        await Reflector(memory, delay=0).session_ended("anna", said(), session_id="s3")
        await memory.drain()

    arun(go())


def test_failing_extractors_and_tools_log_the_cause_without_what_they_quote(caplog):
    state_memory = StateMemory(QuotingExtractor(), session=StoredChat(), include_unstored=True)
    memory = LongTermMemory("memory", extractor=QuotingExtractor())

    @function_tool(failure_error_function=None)
    def lookup_customer(email: str) -> str:
        """Looks a customer up by e-mail."""
        raise LookupError(f"no customer with e-mail {email!r} (card {CARD})")

    rule = PreloadRule("who", lambda text: True,
                       lambda items, text: [Planned("lookup_customer", {"email": EMAIL})])
    preloader = Preloader([lookup_customer], [rule])

    async def go() -> None:
        assert await state_memory.sync() == []
        await state_memory.message_for([user(f"And my card is {CARD}.")])
        assert await preloader.preload([user(f"I am {EMAIL}")]) == []

    with caplog.at_level(logging.DEBUG):
        arun(go())
        background_failures(memory)
    assert not leaks(state_memory.last_error or ""), state_memory.last_error
    assert (state_memory.last_error or "").startswith("ValueError: could not read the turn")
    logged = record_texts(caplog.records)
    assert not leaks(logged), f"a log record carries {leaks(logged)}"
    for expected in ("state extraction failed (will retry): ValueError",
                     "state extraction of the current turn failed: ValueError",
                     "preloading lookup_customer failed: ",
                     "long-term write of session s1 of user anna failed: ValueError",
                     "debounced reflection of user anna failed: ValueError"):
        assert expected in logged, f"not logged: {expected!r} in\n{logged}"
    assert preloader.stats.failed == 1 and len(memory.errors) == 2


def test_a_model_reply_that_is_no_state_update_is_refused_without_quoting_it():
    reply = json.dumps({"user": {"name": NAME, "email": EMAIL}, "devices": CARD})
    extractor = LLMStateExtractor(object(), "test-model")  # parse() calls no model
    with pytest.raises(ValueError) as caught:
        extractor.parse(reply)
    text = error_texts(caught.value)
    assert not leaks(text), f"the extractor's error carries {leaks(text)}: {caught.value}"
    assert "not a valid state update" in str(caught.value)
    assert "ValidationError" in str(caught.value), f"no cause named: {caught.value}"


# ------------------------------------------------------------------ broken variants


def leaky_unavailable(store: RecordStore, what: str, exc: BaseException
                      ) -> RecordsUnavailableError:
    """The records stores as they were: the driver's whole text in the message."""
    return RecordsUnavailableError(f"{store.describe()} could not {what}: "
                                   f"{type(exc).__name__}: {exc}. {UNAVAILABLE}")


def test_the_check_catches_a_store_that_puts_the_driver_text_in_its_error(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr(sqlalchemy_records, "backend_failure", leaky_unavailable)
    error = refused_put("sqlalchemy", tmp_path, None)
    assert CARD in str(error) and EMAIL in str(error), (
        "the broken store should have leaked the SQL parameters")
    assert leaks(error_texts(error))


def test_the_check_catches_a_log_that_quotes_the_exception(caplog, monkeypatch):
    """Long-term memory logging the exception's whole text again (as logger.exception did)."""
    monkeypatch.setattr(longterm_memory, "cause_text",
                        lambda exc: f"{type(exc).__name__}: {exc}")
    memory = LongTermMemory("memory", extractor=QuotingExtractor())
    with caplog.at_level(logging.DEBUG):
        background_failures(memory)
    assert leaks(record_texts(caplog.records)), "the broken log should have leaked"
