"""Side state for an SDK ``SQLAlchemySession``, in two tables of the same database.

The strategy state, leases and checkpoints go to ``ctxlab_state`` and
``ctxlab_checkpoints`` through the session's own ``engine``, so a summary persists exactly
where the conversation does (PostgreSQL, SQLite, MySQL, ...); the log itself is read and
written by :class:`ctxlab.stores.sqlalchemy_log.SQLAlchemyLog` in the SDK's own tables.

* every write is one transaction; compare-and-swap is an ``UPDATE ... WHERE version = ?``
  whose row count says whether it won;
* first use is race-free: the state row is created with ``INSERT ... ON CONFLICT DO
  NOTHING`` (``INSERT IGNORE`` on MySQL), and the tables under PostgreSQL's advisory lock,
  so several processes may start on one new session id at once;
* lease expiry is computed from the **database's** clock (``clock_timestamp()`` on
  PostgreSQL), never from each host's, so hosts whose clocks differ agree on who holds it;
* an engine per event loop (:class:`~ctxlab.stores.sql_dialects.LoopEngines`): async
  drivers' connections belong to the loop that opened them.

This module is also the template for a new SQL backend: see DEVELOPERS.md, "Adding a store".
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

from .base import Checkpoint, StateStore, StoredState, decode_data, encode_data
from .sql_dialects import LoopEngines, create_tables, db_now, ensure_row, supports_upsert, upsert


def ctxlab_tables() -> tuple[Any, Any, Any]:
    """(metadata, state table, checkpoints table)."""
    from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text

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
    return meta, state, checkpoints


class SQLAlchemyStateStore(StateStore):
    """Side state of one session in the database behind an ``AsyncEngine``."""

    kind: ClassVar[str] = "sqlalchemy"
    persistent: ClassVar[bool] = True

    def __init__(self, engine: Any, session_id: str, *, tables: Any = None,
                 extra_metadata: tuple[Any, ...] = ()):
        self.engines = LoopEngines.of(engine)
        self.session_id = session_id
        self._tables = tables if tables is not None else ctxlab_tables()
        self._meta, self._state, self._checkpoints = self._tables
        self._extra_metadata = extra_metadata  # created with ours (the SDK's tables)
        self._names = {t.name for meta in (*extra_metadata, self._meta)
                       for t in meta.sorted_tables}

    @property
    def engine(self) -> Any:
        """The engine of the running event loop."""
        return self.engines.current()

    @property
    def dialect(self) -> str:
        return self.engines.dialect

    async def ready(self) -> None:
        """Create the tables once per engine (race-free; see the module doc)."""
        if not self._names <= self.engines.created:
            await create_tables(self.engine, *self._extra_metadata, self._meta)
            self.engines.created |= self._names

    async def _begin(self) -> Any:
        await self.ready()
        return self.engine.begin()

    async def ensure_row(self, conn: Any) -> None:
        await ensure_row(conn, self.dialect, self._state, {
            "session_id": self.session_id, "version": 0, "epoch": 0, "data": None,
            "touched_at": time.time(), "lease_owner": None, "lease_until": 0.0,
        }, self._state.c.session_id)

    async def read(self, conn: Any, known: int | None = None) -> StoredState:
        """The state (its data only when its version is not ``known``)."""
        from sqlalchemy import select

        row = (await conn.execute(select(
            self._state.c.version, self._state.c.epoch, self._state.c.data,
        ).where(self._state.c.session_id == self.session_id))).first()
        if row is None:
            return StoredState()
        data = None if known is not None and int(row[0]) == known else decode_data(row[2])
        return StoredState(int(row[0]), int(row[1]), data)

    async def bump(self, conn: Any, *, data: Any = ..., expected: int | None = None) -> bool:
        """Bump version and epoch (and set ``data`` unless ``...``); with ``expected``, only
        if the version is still that. Returns whether the row changed."""
        from sqlalchemy import update

        c = self._state.c
        values: dict[str, Any] = {"version": c.version + 1, "epoch": c.epoch + 1,
                                  "touched_at": time.time()}
        if data is not ...:
            values["data"] = encode_data(data)
        where = [c.session_id == self.session_id]
        if expected is not None:
            where.append(c.version == expected)
        result = await conn.execute(update(self._state).where(*where).values(**values))
        return bool(result.rowcount == 1)

    async def load(self) -> StoredState:
        async with await self._begin() as conn:
            return await self.read(conn)

    async def compare_and_set(
        self, expected_version: int, data: Mapping[str, Any] | None
    ) -> StoredState | None:
        from sqlalchemy import update

        async with await self._begin() as conn:
            await self.ensure_row(conn)
            result = await conn.execute(update(self._state).where(
                self._state.c.session_id == self.session_id,
                self._state.c.version == expected_version,
            ).values(version=self._state.c.version + 1, data=encode_data(data),
                     touched_at=time.time()))
            if result.rowcount != 1:
                return None
            return await self.read(conn)

    async def bump_epoch(self) -> StoredState:
        async with await self._begin() as conn:
            await self.ensure_row(conn)
            await self.bump(conn)
            return await self.read(conn)

    async def reset(self) -> StoredState:
        async with await self._begin() as conn:
            await self.ensure_row(conn)
            await self.bump(conn, data=None)
            await self.drop_checkpoints(conn)
            return await self.read(conn)

    async def drop_checkpoints(self, conn: Any) -> None:
        from sqlalchemy import delete

        await conn.execute(delete(self._checkpoints).where(
            self._checkpoints.c.session_id == self.session_id))

    async def acquire_lease(self, owner: str, ttl: float, *, replacing: str | None = None
                            ) -> bool:
        from sqlalchemy import or_, update

        now = db_now(self.dialect)
        async with await self._begin() as conn:
            await self.ensure_row(conn)
            c = self._state.c
            free = [c.lease_owner.is_(None), c.lease_owner == owner, c.lease_until <= now]
            if replacing is not None:
                free.append(c.lease_owner == replacing)
            result = await conn.execute(update(self._state).where(
                c.session_id == self.session_id, or_(*free),
            ).values(lease_owner=owner, lease_until=now + float(ttl)))
            return bool(result.rowcount == 1)

    async def lease_holder(self) -> str | None:
        from sqlalchemy import select

        c = self._state.c
        async with await self._begin() as conn:
            row = (await conn.execute(select(c.lease_owner).where(
                c.session_id == self.session_id, c.lease_until > db_now(self.dialect),
            ))).first()
        return row[0] if row is not None and row[0] else None

    async def release_lease(self, owner: str) -> None:
        from sqlalchemy import update

        async with await self._begin() as conn:
            await conn.execute(update(self._state).where(
                self._state.c.session_id == self.session_id,
                self._state.c.lease_owner == owner,
            ).values(lease_owner=None, lease_until=0.0))

    async def put_checkpoint(self, checkpoint: Checkpoint) -> None:
        from sqlalchemy import delete, insert

        values = {"session_id": self.session_id, "name": checkpoint.name,
                  "created_at": checkpoint.created_at, "record": checkpoint.to_json()}
        async with await self._begin() as conn:
            await self.ensure_row(conn)
            if supports_upsert(self.dialect):
                await conn.execute(upsert(self.dialect, self._checkpoints, values,
                                          ["session_id", "name"],
                                          {"created_at": values["created_at"],
                                           "record": values["record"]}))
                return
            await conn.execute(delete(self._checkpoints).where(
                self._checkpoints.c.session_id == self.session_id,
                self._checkpoints.c.name == checkpoint.name))
            await conn.execute(insert(self._checkpoints).values(**values))

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
        return SQLAlchemyStateStore(self.engines, session_id, tables=self._tables,
                                    extra_metadata=self._extra_metadata)

    async def aclose(self) -> None:
        await self.engines.aclose_clones()
