"""What differs between SQL databases for ctxlab's SQLAlchemy store, in one place.

* **engines per event loop**: an async driver's connections (asyncpg, psycopg, aiosqlite)
  belong to the loop that opened them, so a store used from several threads or
  ``asyncio.run`` calls keeps one engine per loop (:class:`LoopEngines`): the caller's on
  the first loop, and on every other loop an engine whose pool is a copy of the caller's
  (same URL, same connect arguments, same event listeners);
* **first use without a race**: "insert this row unless it exists" is one statement
  (``ON CONFLICT DO NOTHING`` / ``INSERT IGNORE``), never a read followed by an insert;
  tables are created under a database-wide lock where the database has one (PostgreSQL's
  advisory locks), and creation is retried when another process won;
* **the database's clock** (:func:`db_now`), so a lease means the same on every host;
* **upserts** that lock the row they touch (the session row serializes writers of a log).
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any, ClassVar

#: PostgreSQL advisory lock key held while ctxlab creates its tables ("ctxl" in ASCII).
CREATE_LOCK = 0x6374786C

#: How often table creation is retried when another process creates them meanwhile.
CREATE_ATTEMPTS = 5


class LoopEngines:
    """The ``AsyncEngine`` to use on the running event loop (see the module doc). One per
    engine (:meth:`of`), shared by every store on it, so the caller's engine serves one
    loop only."""

    _shared: ClassVar[weakref.WeakKeyDictionary[Any, LoopEngines]] = (
        weakref.WeakKeyDictionary())
    _shared_guard: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def of(cls, engine: Any) -> LoopEngines:
        if isinstance(engine, LoopEngines):
            return engine
        with cls._shared_guard:
            found = cls._shared.get(engine)
            if found is None:
                found = cls._shared[engine] = cls(engine)
            return found

    def __init__(self, engine: Any):
        self.original = engine
        self._guard = threading.Lock()
        self._per_loop: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self._original_taken = False
        self.created: set[str] = set()  # tables known to exist (created once per engine)

    @property
    def dialect(self) -> str:
        return str(self.original.dialect.name)

    def current(self) -> Any:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self.original
        with self._guard:
            engine = self._per_loop.get(loop)
            if engine is None:
                if not self._original_taken:
                    engine, self._original_taken = self.original, True
                else:
                    engine = _clone(self.original)
                self._per_loop[loop] = engine
            return engine

    async def aclose_clones(self) -> None:
        """Dispose of the engine made for this loop (never the caller's)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            engine = self._per_loop.pop(loop, None)
        if engine is not None and engine is not self.original:
            await engine.dispose()


def _clone(engine: Any) -> Any:
    from sqlalchemy.ext.asyncio import create_async_engine

    return create_async_engine(engine.url, pool=engine.sync_engine.pool.recreate())


def db_now(dialect: str) -> Any:
    """The database server's clock in Unix seconds, as an SQL expression (the client's
    clock only for a database this module does not know)."""
    from sqlalchemy import Float, cast, func, literal

    if dialect == "postgresql":
        return cast(func.extract("epoch", func.clock_timestamp()), Float)
    if dialect == "sqlite":
        return (func.julianday("now") - 2440587.5) * 86400.0
    if dialect in ("mysql", "mariadb"):
        return cast(func.unix_timestamp(func.now(6)), Float)
    return literal(time.time(), Float)


def db_timestamp(dialect: str) -> Any:
    """The database's current time for a ``TIMESTAMP`` column, read when the statement runs
    (PostgreSQL's ``CURRENT_TIMESTAMP`` is the transaction's start, which can precede a row
    committed by a writer that got the session's lock first)."""
    from sqlalchemy import TIMESTAMP, cast, func

    if dialect == "postgresql":
        return cast(func.clock_timestamp(), TIMESTAMP(timezone=False))
    return func.current_timestamp()


def insert_ignore(dialect: str, table: Any, values: Mapping[str, Any]) -> Any:
    """``INSERT`` that does nothing when the primary key exists (one statement: no race)."""
    if dialect in ("postgresql", "sqlite"):
        from sqlalchemy.dialects import postgresql, sqlite

        module = postgresql if dialect == "postgresql" else sqlite
        return module.insert(table).values(**values).on_conflict_do_nothing()
    from sqlalchemy import insert

    if dialect in ("mysql", "mariadb"):
        return insert(table).values(**values).prefix_with("IGNORE")
    raise NotImplementedError(dialect)


def upsert(dialect: str, table: Any, values: Mapping[str, Any], keys: list[str],
           update: Mapping[str, Any]) -> Any:
    """``INSERT``, or ``UPDATE`` the columns in ``update`` if the row exists; either way the
    row is locked until the transaction ends."""
    if dialect in ("postgresql", "sqlite"):
        from sqlalchemy.dialects import postgresql, sqlite

        module = postgresql if dialect == "postgresql" else sqlite
        return module.insert(table).values(**values).on_conflict_do_update(
            index_elements=keys, set_=dict(update))
    if dialect in ("mysql", "mariadb"):
        from sqlalchemy.dialects import mysql

        return mysql.insert(table).values(**values).on_duplicate_key_update(**update)
    raise NotImplementedError(dialect)


def supports_upsert(dialect: str) -> bool:
    return dialect in ("postgresql", "sqlite", "mysql", "mariadb")


async def ensure_row(conn: Any, dialect: str, table: Any, values: Mapping[str, Any],
                     key: Any) -> None:
    """Create a row unless it exists, without racing other processes."""
    if supports_upsert(dialect):
        await conn.execute(insert_ignore(dialect, table, values))
        return
    from sqlalchemy import insert, select
    from sqlalchemy.exc import IntegrityError

    if (await conn.execute(select(key).where(key == values[key.name]))).first() is None:
        try:
            async with conn.begin_nested():
                await conn.execute(insert(table).values(**values))
        except IntegrityError:  # another process created it first
            pass


async def create_tables(engine: Any, *metadata: Any) -> None:
    """``create_all`` for each metadata, safe when several processes start at once."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    for attempt in range(CREATE_ATTEMPTS):
        try:
            async with engine.begin() as conn:
                if engine.dialect.name == "postgresql":
                    await conn.execute(text(f"SELECT pg_advisory_xact_lock({CREATE_LOCK})"))
                for meta in metadata:
                    await conn.run_sync(meta.create_all)
            return
        except DBAPIError:  # another process created a table between check and create
            if attempt == CREATE_ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.05 * (attempt + 1))
