"""A PostgreSQL connection that goes away is unavailability, and every failed call says so.

An application retries :class:`StoreUnavailableError` and reports :class:`StoreError`; a
dropped connection reported as the latter loses the turn. On a PostgreSQL server of our own
(``local_servers.LocalPostgres``; the shared one is never disturbed), one coroutine keeps
appending and reading while the server terminates every client backend every 0.3 s
(``pg_terminate_backend``), or restarts (``pg_ctl stop -m fast``): every failed call must
raise ``StoreUnavailableError``, and every acknowledged append must be stored. Before,
the terminations came back as ``StoreError`` "The database rejected the operation" (asyncpg's
``AdminShutdownError`` is a plain ``DBAPIError`` to SQLAlchemy), as did asyncpg's
``InternalClientError`` ("another operation is in progress").
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from typing import Any

import pytest

from ctxlab.stores import StoreError, StoreUnavailableError, open_store
from ctxlab.stores.local_servers import LocalPostgres, ServerError, postgres_bin

from conftest import arun, server_unavailable, user
from store_backends import postgres_driver_url

pytestmark = pytest.mark.redis

#: How often the backends are terminated (seconds), and how long each run lasts.
KILL_EVERY = 0.3
RUN_FOR = 4.0


@pytest.fixture(scope="module")
def own_postgres():
    try:  # (in a folder of its own under /tmp: pytest's is closed to the postgres user)
        server = LocalPostgres().start()
    except (ServerError, OSError) as exc:
        server_unavailable("PostgreSQL", f"cannot start a PostgreSQL of our own ({exc})")
        return
    try:
        yield server
    finally:
        server.stop()


def terminate_backends(url: str) -> int:
    """Terminate every other client backend of the server (what an operator or a
    failover does); the number terminated."""
    import asyncpg

    async def go() -> int:
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
            return sum(1 for r in rows if r[0])
        finally:
            await conn.close()

    return asyncio.run(go())


class Disturber(threading.Thread):
    """Runs ``action`` every ``every`` seconds until stopped (in a thread: the store's
    loop must not wait for it)."""

    def __init__(self, action: Any, every: float):
        super().__init__(daemon=True)
        self.action, self.every = action, every
        self.done = threading.Event()
        self.runs = 0

    def run(self) -> None:
        while not self.done.wait(self.every):
            try:
                self.action()
                self.runs += 1
            except Exception:  # the server is restarting: try again next time
                pass

    def stop(self) -> None:
        self.done.set()
        self.join(timeout=30)


async def hammer(url: str, driver: str, seconds: float) -> tuple[Counter[str], list[str],
                                                                  list[str]]:
    """Append and read on one session for ``seconds``; (failures by class, acknowledged
    appends, stored items). Each failure is counted by its class."""
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(postgres_driver_url(url, driver))
    failures: Counter[str] = Counter()
    acked: list[str] = []
    try:
        sid = f"loss-{driver}-{time.monotonic_ns()}"
        log = open_store(SQLAlchemySession(sid, engine=engine, create_tables=True))
        until, k = time.monotonic() + seconds, 0
        while time.monotonic() < until:
            k += 1
            text = f"turn {k}"
            for op in ("append", "sync", "state"):
                try:
                    if op == "append":
                        await log.append([user(text)])
                        acked.append(text)
                    elif op == "sync":
                        await log.sync()
                    else:
                        await log.call_state("read the state", log.state.load)
                except StoreError as exc:
                    failures[type(exc).__name__] += 1
                    assert str(exc), "a store error without a message"
                    await asyncio.sleep(0.02)
        for _ in range(100):  # the server is back: read what is stored
            try:
                reader = open_store(SQLAlchemySession(sid, engine=engine))
                stored = [i["content"] for i in (await reader.sync()).items]
                break
            except StoreUnavailableError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the store did not come back after the disturbance")
    finally:
        await engine.dispose()
    return failures, acked, stored


def check_run(failures: Counter[str], acked: list[str], stored: list[str], what: str) -> None:
    failed = sum(failures.values())
    print(f"{what}: {failed} failed calls {dict(failures)}, {len(acked)} acknowledged")
    assert failed > 0, f"{what}: no call failed, so the test proved nothing"
    assert failures["StoreUnavailableError"] == failed, (
        f"{what}: {failures['StoreUnavailableError']} of {failed} failed calls raised "
        f"StoreUnavailableError ({dict(failures)}); a lost connection is unavailability")
    missing = [t for t in acked if t not in stored]
    assert not missing, f"{what}: {len(missing)} acknowledged appends are not stored"


@pytest.mark.parametrize("driver", ["asyncpg", "psycopg"])
def test_terminated_backends_raise_store_unavailable_every_time(own_postgres, driver):
    killer = Disturber(lambda: terminate_backends(own_postgres.url), KILL_EVERY)
    killer.start()
    try:
        failures, acked, stored = arun(hammer(own_postgres.url, driver, RUN_FOR))
    finally:
        killer.stop()
    assert killer.runs > 3, "the backends were hardly terminated"
    check_run(failures, acked, stored, f"pg_terminate_backend every {KILL_EVERY}s ({driver})")


def restart_fast(server: LocalPostgres) -> None:
    """``pg_ctl restart -m fast``: the server ends every session and comes back."""
    server._run([postgres_bin("pg_ctl"), "-D", str(server.data), "-m", "fast", "-w",
                 "restart"])


@pytest.mark.parametrize("driver", ["asyncpg", "psycopg"])
def test_a_fast_restart_raises_store_unavailable_every_time(own_postgres, driver):
    restarter = Disturber(lambda: restart_fast(own_postgres), 1.2)
    restarter.start()
    try:
        failures, acked, stored = arun(hammer(own_postgres.url, driver, RUN_FOR))
    finally:
        restarter.stop()
    check_run(failures, acked, stored, f"pg_ctl stop -m fast, restarted ({driver})")


def test_asyncpgs_another_operation_in_progress_is_unavailability(tmp_path, monkeypatch):
    """asyncpg's ``InternalClientError`` (a connection left mid-operation), as SQLAlchemy
    hands it on, is unavailability (before: StoreError "The database rejected ...")."""
    import asyncpg
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_dbapi
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.ext.asyncio import create_async_engine

    from ctxlab.stores.sqlalchemy_log import SQLAlchemyLog

    dbapi = AsyncAdapt_asyncpg_dbapi(asyncpg)
    raw = asyncpg.exceptions.InternalClientError(
        "cannot perform operation: another operation is in progress")
    adapted = dbapi.InternalClientError(f"{type(raw)}: {raw}", raw)
    error = DBAPIError.instance("INSERT INTO agent_messages ...", ("card 4111",), adapted,
                               dbapi.Error)

    async def broken(self: Any, items: Any) -> Any:
        raise error

    monkeypatch.setattr(SQLAlchemyLog, "_append", broken)

    async def go() -> StoreError:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
        try:
            log = open_store(SQLAlchemySession("busy", engine=engine, create_tables=True))
            with pytest.raises(StoreError) as caught:
                await log.append([user("hello")])
            return caught.value
        finally:
            await engine.dispose()

    raised = arun(go())
    assert isinstance(raised, StoreUnavailableError), (
        f"InternalClientError raised {type(raised).__name__}: {raised}")
    assert "another operation is in progress" in str(raised), str(raised)
    assert raised.backend_error is error


def test_a_refused_row_is_still_a_store_error_not_unavailability(own_postgres):
    """The other side: a constraint that refuses the row is not retried forever."""
    from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def go() -> None:
        engine = create_async_engine(postgres_driver_url(own_postgres.url, "asyncpg"))
        try:
            log = open_store(SQLAlchemySession("refused", engine=engine, create_tables=True))
            await log.append([user("fine")])
            async with engine.begin() as conn:
                await conn.execute(text(
                    "ALTER TABLE agent_messages ADD CONSTRAINT short_rows "
                    "CHECK (length(message_data) < 60) NOT VALID"))
            try:
                with pytest.raises(StoreError) as caught:
                    await log.append([user("x" * 100)])
                assert not isinstance(caught.value, StoreUnavailableError), str(caught.value)
            finally:
                async with engine.begin() as conn:
                    await conn.execute(text(
                        "ALTER TABLE agent_messages DROP CONSTRAINT short_rows"))
        finally:
            await engine.dispose()

    arun(go())
