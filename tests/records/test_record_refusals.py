"""A refused write is not an outage: on real backends, a write the database refuses (a
constraint added behind the store's back, a read-only role, a role without INSERT rights, a
read-only SQLite file) is :class:`RecordsRefusedError` (retrying will not help), and a lost
connection or a locked file is :class:`RecordsUnavailableError` (retrying is right). After a
refusal nothing stored is lost or changed, and the message names the store, the operation
and the cause, never the record. The first edition's classifier ("every backend failure is
unavailable") is kept below as a broken variant, and the suite catches it."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import ctxlab
from ctxlab.core.backend_errors import classify_backend_error
from ctxlab.records import (
    RecordError,
    RecordsRefusedError,
    RecordStore,
    RecordsUnavailableError,
    SQLiteRecords,
)
from ctxlab.records import base as records_base

from conftest import arun

SECRET = "card 4111 1111 1111 1111 of customer alice@example.com"
POSTGRES = os.environ.get("CTXLAB_POSTGRES_URL")
needs_postgres = pytest.mark.skipif(not POSTGRES, reason="CTXLAB_POSTGRES_URL is not set")

Tamper = Callable[[], Awaitable[None]]


def everything_unavailable(exc: BaseException) -> str:
    """The first edition's classifier: every backend failure is "retry later" (broken)."""
    return "unavailable"


async def refused_write(store: RecordStore, tamper: Tamper) -> RecordError:
    """Store a record, tamper with the backend, try a longer write; the error it raised,
    after checking that the stored record is exactly what it was."""
    first = await store.put("u1", "memory", {"note": "short"}, expected_version=0)
    await tamper()
    try:
        await store.put("u1", "memory", {"note": SECRET}, expected_version=first.version)
    except RecordError as exc:
        error = exc
    else:
        raise AssertionError("the tampered backend accepted the write")
    again = await store.get("u1", "memory")
    assert (again.version, again.data) == (first.version, first.data), "a refusal changed data"
    return error


def check_refusal(error: RecordError, store: RecordStore, cause: str) -> None:
    text = str(error)
    assert isinstance(error, RecordsRefusedError), f"{type(error).__name__}: {text}"
    assert not isinstance(error, RecordsUnavailableError)
    assert store.describe() in text and "write record 'memory' of user 'u1'" in text, text
    assert cause in text and "Retrying will not help" in text, text
    for secret in ("4111", "alice@", "card"):
        assert secret not in text, text
    assert error.backend_error is not None and error.__cause__ is None


# -- SQLite files ---------------------------------------------------------------------------

REFUSE_LONG = "\n".join(
    f"CREATE TRIGGER refuse_long_{event} BEFORE {event} ON ctxlab_records "
    "WHEN length(NEW.data) > 40 BEGIN SELECT RAISE(ABORT, 'record too long'); END;"
    for event in ("INSERT", "UPDATE"))


def sqlite_tamper(path: Path, script: str) -> Tamper:
    async def tamper() -> None:
        with sqlite3.connect(path) as conn:
            conn.executescript(script)

    return tamper


def sqlite_refusal(tmp_path: Path) -> RecordError:
    store = SQLiteRecords(tmp_path / "records.db")
    error = arun(refused_write(store, sqlite_tamper(tmp_path / "records.db", REFUSE_LONG)))
    check_refusal(error, store, "IntegrityError")
    return error


def test_a_trigger_refusing_the_row_is_a_refusal_on_an_sqlite_file(tmp_path):
    sqlite_refusal(tmp_path)


def test_the_suite_catches_a_store_that_calls_every_failure_unavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(records_base, "classify_backend_error", everything_unavailable)
    with pytest.raises(AssertionError, match="RecordsUnavailableError"):
        sqlite_refusal(tmp_path)


def test_a_trigger_refusing_the_row_is_a_refusal_through_sqlalchemy_on_sqlite(tmp_path):
    from ctxlab.records.sqlalchemy import SQLAlchemyRecords

    path = tmp_path / "records-sa.db"
    store = SQLAlchemyRecords(f"sqlite+aiosqlite:///{path}")

    async def go() -> RecordError:
        try:
            return await refused_write(store, sqlite_tamper(path, REFUSE_LONG))
        finally:
            await store.aclose()

    check_refusal(arun(go()), store, "IntegrityError")


def test_a_read_only_sqlite_file_is_a_refusal_and_a_locked_one_is_unavailable(tmp_path):
    path = tmp_path / "records.db"
    store = SQLiteRecords(path, busy_timeout=0.2)
    arun(store.put("u1", "memory", {"note": "short"}, expected_version=0))
    # SQLite's own read-only refusal (the tests run as root, so a chmod would not stop a
    # write): a connection opened read-only, as a file on a read-only mount is
    readonly = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as caught:
        readonly.execute("DELETE FROM ctxlab_records")
    readonly.close()
    assert caught.value.sqlite_errorname.startswith("SQLITE_READONLY")
    error = records_base.backend_failure(store, "write record 'memory' of user 'u1'",
                                         caught.value)
    check_refusal(error, store, "OperationalError")
    # another process holds the write lock past the busy timeout: retry later is right
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(RecordsUnavailableError, match=r"locked.*Retry when the backend"):
            arun(store.put("u1", "memory", {"note": SECRET}, expected_version=1))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert arun(store.get("u1", "memory")).data == {"note": "short"}
    assert arun(store.put("u1", "memory", {"note": "x"}, expected_version=1)).version == 2


# -- PostgreSQL -----------------------------------------------------------------------------


async def pg_admin(sql: str) -> list[Any]:
    import asyncpg

    conn = await asyncpg.connect(str(POSTGRES).replace("+asyncpg", ""))
    try:
        if ";" in sql:  # several statements: no rows
            await conn.execute(sql)
            return []
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


def pg_store(prefix: str, url: str | None = None) -> RecordStore:
    from ctxlab.records.sqlalchemy import SQLAlchemyRecords

    return SQLAlchemyRecords(url or str(POSTGRES), table_prefix=prefix)


@needs_postgres
def test_a_check_constraint_added_behind_the_store_is_a_refusal_on_postgres():
    prefix = f"t{uuid.uuid4().hex[:10]}"
    store = pg_store(prefix)

    async def go() -> RecordError:
        try:
            return await refused_write(store, lambda: pg_admin(
                f"ALTER TABLE {prefix}s ADD CONSTRAINT short_data CHECK (length(data) <= 40)"))
        finally:
            await store.aclose()
            await pg_admin(f"DROP TABLE IF EXISTS {prefix}s, {prefix}_meta")

    error = arun(go())
    check_refusal(error, store, "violates check constraint")
    assert classify_backend_error(error.backend_error) == "refused"


@needs_postgres
def test_a_read_only_role_and_a_role_without_insert_rights_are_refusals_on_postgres():
    from sqlalchemy.engine import make_url

    prefix = f"t{uuid.uuid4().hex[:10]}"
    role, password = f"hrec_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    owner = pg_store(prefix)
    url = make_url(str(POSTGRES)).set(username=role, password=password)
    limited = pg_store(prefix, url.render_as_string(hide_password=False))

    async def go() -> tuple[RecordError, RecordError]:
        await owner.put("u1", "memory", {"note": "short"}, expected_version=0)
        await pg_admin(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'; "
                       f"GRANT SELECT, INSERT, UPDATE, DELETE ON {prefix}s, {prefix}_meta "
                       f"TO {role}; ALTER ROLE {role} SET default_transaction_read_only = on")
        try:
            read_only = await limited.put("u1", "memory", {"note": SECRET}, expected_version=1)
        except RecordError as exc:
            read_only = exc
        await limited.aclose()
        await pg_admin(f"ALTER ROLE {role} RESET default_transaction_read_only; "
                       f"REVOKE INSERT, UPDATE ON {prefix}s, {prefix}_meta FROM {role}")
        try:
            denied = await limited.put("u1", "memory", {"note": SECRET}, expected_version=1)
        except RecordError as exc:
            denied = exc
        assert (await owner.get("u1", "memory")).data == {"note": "short"}
        return read_only, denied  # type: ignore[return-value]

    try:
        read_only, denied = arun(go())
    finally:
        arun(limited.aclose())
        arun(owner.aclose())
        arun(pg_admin(f"DROP TABLE IF EXISTS {prefix}s, {prefix}_meta; "
                      f"DROP ROLE IF EXISTS {role}"))
    check_refusal(read_only, limited, "read-only transaction")
    check_refusal(denied, limited, "permission denied")


@needs_postgres
def test_a_terminated_backend_is_unavailable_and_the_retry_succeeds_on_postgres():
    from sqlalchemy.ext.asyncio import create_async_engine

    from ctxlab.records.sqlalchemy import SQLAlchemyRecords

    prefix = f"t{uuid.uuid4().hex[:10]}"
    # the store's connections carry the prefix as their name: only they are terminated
    asyncpg = "asyncpg" in str(POSTGRES).split("://", 1)[0]
    engine = create_async_engine(str(POSTGRES), connect_args=(
        {"server_settings": {"application_name": prefix}} if asyncpg
        else {"application_name": prefix}))
    store = SQLAlchemyRecords(engine=engine, table_prefix=prefix)

    async def go() -> tuple[RecordError, int]:
        await store.put("u1", "memory", {"note": "short"}, expected_version=0)
        rows = await pg_admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                              f"application_name = '{prefix}'")
        assert any(r[0] for r in rows), "the store's connection was not found"
        await asyncio.sleep(0.2)
        with pytest.raises(RecordsUnavailableError) as caught:
            await store.put("u1", "memory", {"note": SECRET}, expected_version=1)
        retried = await store.put("u1", "memory", {"note": "after"}, expected_version=1)
        return caught.value, retried.version

    try:
        error, version = arun(go())
    finally:
        arun(engine.dispose())
        arun(pg_admin(f"DROP TABLE IF EXISTS {prefix}s, {prefix}_meta"))
    assert not isinstance(error, RecordsRefusedError)
    assert "Retry when the backend is back" in str(error) and "4111" not in str(error)
    assert version == 2


def test_the_refusal_class_is_a_public_record_error_and_not_an_outage():
    assert ctxlab.RecordsRefusedError is RecordsRefusedError
    assert ctxlab.RecordsUnavailableError is RecordsUnavailableError
    assert issubclass(RecordsRefusedError, ctxlab.RecordError)
    assert not issubclass(RecordsRefusedError, RecordsUnavailableError)


def real_sqlite_errors(path: Path) -> dict[str, sqlite3.Error]:
    """One real error of each kind from SQLite itself, by its result code."""
    found: dict[str, sqlite3.Error] = {}

    def catch(name: str, conn: sqlite3.Connection, sql: str) -> None:
        try:
            conn.execute(sql)
        except sqlite3.Error as exc:
            found[name] = exc

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE t (x TEXT NOT NULL UNIQUE)")
    conn.execute("INSERT INTO t VALUES ('a')")
    catch("constraint", conn, "INSERT INTO t VALUES ('a')")
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
    catch("full", conn, "INSERT INTO t SELECT hex(randomblob(5000))")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    catch("busy", sqlite3.connect(path, timeout=0.05), "INSERT INTO t VALUES ('b')")
    holder.execute("ROLLBACK")
    catch("readonly", sqlite3.connect(f"file:{path}?mode=ro", uri=True), "DELETE FROM t")
    damaged = path.with_name("damaged.db")
    damaged.write_bytes(b"not a database" * 100)
    catch("damaged", sqlite3.connect(damaged), "SELECT * FROM t")
    return found


def test_real_sqlite_errors_are_classified_as_the_session_stores_classify_them(tmp_path):
    from ctxlab.stores import StoreUnavailableError
    from ctxlab.stores.sqlite import translate_sqlite_error

    errors = real_sqlite_errors(tmp_path / "codes.db")
    assert sorted(errors) == ["busy", "constraint", "damaged", "full", "readonly"], errors
    kinds = {name: classify_backend_error(exc) for name, exc in errors.items()}
    assert kinds == {"busy": "unavailable", "constraint": "refused", "full": "refused",
                     "readonly": "refused", "damaged": "refused"}, kinds
    for name, exc in errors.items():  # the session stores answer the same
        retry = isinstance(translate_sqlite_error(exc), StoreUnavailableError)
        assert retry == (kinds[name] == "unavailable"), name
    everything = {name: everything_unavailable(exc) for name, exc in errors.items()}
    assert everything != kinds  # the old classifier gets four of five wrong


# -- Redis ----------------------------------------------------------------------------------
# A server of the test's own (its settings are changed: memory cap, permissions, replica).


def everything_refused(exc: BaseException) -> str:
    """A classifier that calls every backend failure a refusal (broken the other way)."""
    return "refused"


def redis_refusals(tmp_path: Path) -> dict[str, tuple[RecordError, RecordStore]]:
    """A write refused for memory (maxmemory reached), for a permission (ACL without
    writes), and by a replica (READONLY); after each, the record is unchanged (checked by
    :func:`refused_write`) and the server is put back. The replica's refusal is retried
    once the server is a primary again: it must succeed."""
    from ctxlab.records.redis import RedisRecords

    from redis_helpers import own_server, refusing_commands, run_commands

    server = own_server(tmp_path / "redis", "this test caps, locks and demotes its server")

    async def go() -> dict[str, tuple[RecordError, RecordStore]]:
        errors: dict[str, tuple[RecordError, RecordStore]] = {}
        for reason, (commands, undo) in refusing_commands().items():
            store = RedisRecords(server.url, prefix=reason)
            error = await refused_write(store, lambda c=commands: run_commands(server.url, *c))
            errors[reason] = error, store
            await run_commands(server.url, undo)
            retried = await store.put("u1", "memory", {"note": "after"}, expected_version=1)
            assert retried.version == 2, "the write failed again once the server was put back"
            await store.aclose()
        return errors

    try:
        return arun(go())
    finally:
        server.stop()


def test_out_of_memory_and_a_missing_permission_are_refusals_and_a_replica_is_not_on_redis(
        tmp_path):
    errors = redis_refusals(tmp_path)
    for reason, cause in (("memory", "OutOfMemoryError"),
                          ("permission", "can't run this command")):  # ACL inside the script
        check_refusal(*errors[reason], cause)
    replica, _store = errors["replica"]
    assert isinstance(replica, RecordsUnavailableError), f"{type(replica).__name__}: {replica}"
    assert "Retry when the backend is back" in str(replica) and "4111" not in str(replica)


@pytest.mark.parametrize("classifier", [everything_unavailable, everything_refused])
def test_the_redis_checks_catch_a_classifier_broken_either_way(tmp_path, monkeypatch,
                                                                classifier):
    monkeypatch.setattr(records_base, "classify_backend_error", classifier)
    with pytest.raises(AssertionError):
        test_out_of_memory_and_a_missing_permission_are_refusals_and_a_replica_is_not_on_redis(
            tmp_path)
