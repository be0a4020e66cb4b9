"""Side state for an SDK ``SQLAlchemySession``, in two tables of the same database.

The log stays in the SDK's tables and is read through the session's public methods
(:class:`~ctxlab.stores.sdk.SessionLog`); the strategy state, leases and checkpoints go to
``ctxlab_state`` and ``ctxlab_checkpoints`` through the session's own ``engine``, so a
summary persists exactly where the conversation does (SQLite, Postgres, MySQL, ...).

Every write is one transaction; compare-and-swap is an ``UPDATE ... WHERE version = ?``
whose row count says whether it won. This module is also the template for a new SQL
backend: see DEVELOPERS.md, "Adding a store".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .base import Checkpoint, StateStore, StoredState, decode_data, encode_data


class SQLAlchemyStateStore(StateStore):
    """Side state of one session in the database behind an ``AsyncEngine``."""

    kind: ClassVar[str] = "sqlalchemy"
    persistent: ClassVar[bool] = True

    def __init__(self, engine: Any, session_id: str, *, tables: Any = None):
        from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text

        self.engine = engine
        self.session_id = session_id
        if tables is None:
            meta = MetaData()
            state = Table(
                "ctxlab_state", meta,
                Column("session_id", String(255), primary_key=True),
                Column("version", Integer, nullable=False, default=0),
                Column("epoch", Integer, nullable=False, default=0),
                Column("data", Text, nullable=True),
                Column("touched_at", Float, nullable=False, default=0.0),
                Column("lease_owner", String(255), nullable=True),
                Column("lease_until", Float, nullable=False, default=0.0),
            )
            checkpoints = Table(
                "ctxlab_checkpoints", meta,
                Column("session_id", String(255), primary_key=True),
                Column("name", String(255), primary_key=True),
                Column("created_at", Float, nullable=False),
                Column("record", Text, nullable=False),
            )
            tables = (meta, state, checkpoints)
        self._tables = tables
        self._meta, self._state, self._checkpoints = tables
        self._ready = False

    async def _begin(self) -> Any:
        if not self._ready:
            async with self.engine.begin() as conn:
                await conn.run_sync(self._meta.create_all)
            self._ready = True
        return self.engine.begin()

    async def _ensure_row(self, conn: Any) -> None:
        from sqlalchemy import insert, select

        found = await conn.execute(select(self._state.c.version).where(
            self._state.c.session_id == self.session_id))
        if found.first() is None:
            await conn.execute(insert(self._state).values(
                session_id=self.session_id, version=0, epoch=0, data=None,
                touched_at=time.time(), lease_owner=None, lease_until=0.0))

    async def _read(self, conn: Any) -> StoredState:
        from sqlalchemy import select

        row = (await conn.execute(select(
            self._state.c.version, self._state.c.epoch, self._state.c.data,
        ).where(self._state.c.session_id == self.session_id))).first()
        if row is None:
            return StoredState()
        return StoredState(int(row[0]), int(row[1]), decode_data(row[2]))

    async def load(self) -> StoredState:
        async with await self._begin() as conn:
            return await self._read(conn)

    async def _bump(self, conn: Any, *, epoch: int, data: Any = ...) -> None:
        from sqlalchemy import update

        values: dict[str, Any] = {"version": self._state.c.version + 1,
                                  "epoch": self._state.c.epoch + epoch,
                                  "touched_at": time.time()}
        if data is not ...:
            values["data"] = encode_data(data)
        await conn.execute(update(self._state).where(
            self._state.c.session_id == self.session_id).values(**values))

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        from sqlalchemy import update

        async with await self._begin() as conn:
            await self._ensure_row(conn)
            result = await conn.execute(update(self._state).where(
                self._state.c.session_id == self.session_id,
                self._state.c.version == expected_version,
            ).values(version=self._state.c.version + 1, data=encode_data(data),
                     touched_at=time.time()))
            if result.rowcount != 1:
                return None
            return await self._read(conn)

    async def bump_epoch(self) -> StoredState:
        async with await self._begin() as conn:
            await self._ensure_row(conn)
            await self._bump(conn, epoch=1)
            return await self._read(conn)

    async def reset(self) -> StoredState:
        from sqlalchemy import delete

        async with await self._begin() as conn:
            await self._ensure_row(conn)
            await self._bump(conn, epoch=1, data=None)
            await conn.execute(delete(self._checkpoints).where(
                self._checkpoints.c.session_id == self.session_id))
            return await self._read(conn)

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        from sqlalchemy import or_, update

        now = time.time()
        async with await self._begin() as conn:
            await self._ensure_row(conn)
            c = self._state.c
            free = [c.lease_owner.is_(None), c.lease_owner == owner, c.lease_until <= now]
            if replacing is not None:
                free.append(c.lease_owner == replacing)
            result = await conn.execute(update(self._state).where(
                c.session_id == self.session_id, or_(*free),
            ).values(lease_owner=owner, lease_until=now + ttl))
            return bool(result.rowcount == 1)

    async def lease_holder(self) -> str | None:
        from sqlalchemy import select

        async with await self._begin() as conn:
            row = (await conn.execute(select(
                self._state.c.lease_owner, self._state.c.lease_until,
            ).where(self._state.c.session_id == self.session_id))).first()
        return row[0] if row is not None and row[0] and row[1] > time.time() else None

    async def release_lease(self, owner: str) -> None:
        from sqlalchemy import update

        async with await self._begin() as conn:
            await conn.execute(update(self._state).where(
                self._state.c.session_id == self.session_id,
                self._state.c.lease_owner == owner,
            ).values(lease_owner=None, lease_until=0.0))

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        from sqlalchemy import delete, insert

        async with await self._begin() as conn:
            await self._ensure_row(conn)
            await conn.execute(delete(self._checkpoints).where(
                self._checkpoints.c.session_id == self.session_id,
                self._checkpoints.c.name == checkpoint.name))
            await conn.execute(insert(self._checkpoints).values(
                session_id=self.session_id, name=checkpoint.name,
                created_at=checkpoint.created_at, record=checkpoint.to_json()))

    async def get_checkpoint(self, name: str) -> Checkpoint | None:
        from sqlalchemy import select

        async with await self._begin() as conn:
            row = (await conn.execute(select(self._checkpoints.c.record).where(
                self._checkpoints.c.session_id == self.session_id,
                self._checkpoints.c.name == name))).first()
        return None if row is None else Checkpoint.from_json(row[0])

    async def list_checkpoints(self) -> list[Checkpoint]:
        from sqlalchemy import select

        async with await self._begin() as conn:
            rows = (await conn.execute(select(self._checkpoints.c.record).where(
                self._checkpoints.c.session_id == self.session_id,
            ).order_by(self._checkpoints.c.created_at, self._checkpoints.c.name))).all()
        return [Checkpoint.from_json(r[0]) for r in rows]

    def for_session(self, session_id: str) -> SQLAlchemyStateStore:
        store = SQLAlchemyStateStore(self.engine, session_id, tables=self._tables)
        store._ready = self._ready
        return store
