"""Records in any database SQLAlchemy's asyncio extension reaches (SQLite through
``aiosqlite``, PostgreSQL through ``asyncpg``, MySQL, ...), in two tables.

The same layout as :mod:`ctxlab.records.sqlite`. A compare-and-swap write is one
transaction that first bumps the user's version counter (an ``UPDATE ... RETURNING``: on
PostgreSQL it locks that row until commit, on SQLite it takes the write lock), so writers of
one user are serialized by the database itself; the record is then checked and written, and
a lost race rolls everything back, the counter included.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..core.backend_errors import unique_violation
from .base import (
    RecordConflictError,
    RecordsRefusedError,
    RecordStore,
    Versioned,
    backend_failure,
    check_expected,
    decode,
    namespace_hash,
)

#: A write that failed because another writer took the same key first is retried (a lost
#: race for a user's first row); any other refusal is raised at once.
lost_race = unique_violation


class SQLAlchemyRecords(RecordStore):
    """Records in the database behind ``engine`` (an ``AsyncEngine``) or ``url``."""

    kind: ClassVar[str] = "sqlalchemy"
    persistent: ClassVar[bool] = True

    def __init__(self, url: str | None = None, *, engine: Any = None,
                 table_prefix: str = "ctxlab_record"):
        from sqlalchemy import Column, Integer, MetaData, String, Table, Text

        if (url is None) == (engine is None):
            raise ValueError("SQLAlchemyRecords needs exactly one of url= and engine=")
        if engine is None:
            from sqlalchemy.ext.asyncio import create_async_engine

            engine = create_async_engine(url)
            self._owns_engine = True
        else:
            self._owns_engine = False
        self.engine = engine
        meta = MetaData()
        self._meta_table = Table(
            f"{table_prefix}_meta", meta,
            Column("h", String(64), primary_key=True),
            Column("seq", Integer, nullable=False),
            Column("epoch", Integer, nullable=False),
        )
        self._records = Table(
            f"{table_prefix}s", meta,
            Column("h", String(64), primary_key=True),
            Column("key", String(128), primary_key=True),
            Column("namespace", String(128), nullable=False),
            Column("version", Integer, nullable=False),
            Column("data", Text, nullable=False),
        )
        self._schema = meta
        self._ready = False

    def describe(self) -> str:
        return f"sqlalchemy records on {self.engine.url.get_backend_name()}"

    async def _begin(self) -> Any:
        if not self._ready:
            from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

            for attempt in range(3):  # another task or process may create the tables first
                try:  # (PostgreSQL reports that race as a unique violation in its catalog)
                    async with self.engine.begin() as conn:
                        await conn.run_sync(self._schema.create_all)
                    break
                except (IntegrityError, OperationalError, ProgrammingError):
                    if attempt == 2:
                        raise
            self._ready = True
        return self.engine.begin()

    async def _call(self, what: str, fn: Any) -> Any:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            return await fn()
        except (RecordConflictError, ValueError):
            raise
        except (SQLAlchemyError, OSError) as exc:
            raise backend_failure(self, what, exc) from None

    async def _get(self, namespace: str, key: str) -> Versioned:
        from sqlalchemy import select

        h = namespace_hash(namespace)

        async def read() -> Versioned:
            async with await self._begin() as conn:
                meta = (await conn.execute(select(self._meta_table.c.epoch).where(
                    self._meta_table.c.h == h))).first()
                row = (await conn.execute(select(self._records.c.version, self._records.c.data)
                                          .where(self._records.c.h == h,
                                                 self._records.c.key == key))).first()
            epoch = meta[0] if meta else 0
            return Versioned(row[0], epoch, decode(row[1])) if row else Versioned(0, epoch)

        return await self._call(f"read record {key!r} of user {namespace!r}", read)

    async def _bump(self, conn: Any, h: str) -> tuple[int, int]:
        """Add one to the user's counter (creating its row); the new (seq, epoch)."""
        from sqlalchemy import insert, update

        meta = self._meta_table
        row = (await conn.execute(update(meta).where(meta.c.h == h).values(seq=meta.c.seq + 1)
                                  .returning(meta.c.seq, meta.c.epoch))).first()
        if row is not None:
            return int(row[0]), int(row[1])
        await conn.execute(insert(meta).values(h=h, seq=1, epoch=0))
        return 1, 0

    async def _put(self, namespace: str, key: str, text: str, expected_version: int,
                   expected_epoch: int | None) -> Versioned:
        from sqlalchemy import insert, select, update

        h = namespace_hash(namespace)
        records = self._records

        async def write() -> Versioned:
            async with await self._begin() as conn:
                seq, epoch = await self._bump(conn, h)
                row = (await conn.execute(select(records.c.version).where(
                    records.c.h == h, records.c.key == key))).first()
                current = row[0] if row else 0
                check_expected(self, namespace, key, expected_version, expected_epoch,
                               current, epoch)
                if row is None:
                    await conn.execute(insert(records).values(
                        h=h, key=key, namespace=namespace, version=seq, data=text))
                else:
                    await conn.execute(update(records).where(
                        records.c.h == h, records.c.key == key).values(version=seq, data=text))
            return Versioned(seq, epoch, decode(text))

        for _ in range(5):  # two first writers of one user can both try to create its row
            try:
                return await self._call(f"write record {key!r} of user {namespace!r}", write)
            except RecordsRefusedError as exc:  # a lost race, or a real refusal (raised now)
                if not lost_race(exc.backend_error):
                    raise
        return await self._call(f"write record {key!r} of user {namespace!r}", write)

    async def _delete_namespace(self, namespace: str) -> int:
        from sqlalchemy import delete, insert, update

        h = namespace_hash(namespace)
        meta = self._meta_table

        async def remove() -> int:
            async with await self._begin() as conn:
                count = (await conn.execute(delete(self._records).where(
                    self._records.c.h == h))).rowcount
                bumped = (await conn.execute(update(meta).where(meta.c.h == h).values(
                    epoch=meta.c.epoch + 1))).rowcount
                if not bumped:
                    await conn.execute(insert(meta).values(h=h, seq=0, epoch=1))
            return int(count or 0)

        try:
            return await self._call(f"delete the records of user {namespace!r}", remove)
        except RecordsRefusedError as exc:
            if not lost_race(exc.backend_error):
                raise
            return await self._call(f"delete the records of user {namespace!r}", remove)

    async def _keys(self, namespace: str) -> list[str]:
        from sqlalchemy import select

        h = namespace_hash(namespace)

        async def read() -> list[str]:
            async with await self._begin() as conn:
                rows = await conn.execute(select(self._records.c.key).where(
                    self._records.c.h == h))
                return [r[0] for r in rows]

        return await self._call(f"list the records of user {namespace!r}", read)

    async def _namespaces(self) -> list[str]:
        from sqlalchemy import select

        async def read() -> list[str]:
            async with await self._begin() as conn:
                rows = await conn.execute(select(self._records.c.namespace).distinct())
                return [r[0] for r in rows]

        return await self._call("list users", read)

    async def aclose(self) -> None:
        if self._owns_engine:
            await self.engine.dispose()
