"""The raw log of an SDK ``SQLAlchemySession`` (PostgreSQL, SQLite, MySQL, ...), read and
written by ctxlab directly in the SDK's own tables, with the side state beside it.

* Items stay in the SDK's messages table, written the way ``SQLAlchemySession`` writes them
  (same JSON), so a plain ``SQLAlchemySession`` with the same id reads the same
  conversation, and writers of both kinds take the same lock: the session's row in the
  SDK's sessions table.
* Every operation is one transaction, and destructive ones (pop, clear, truncate) bump the
  state's version and epoch in that same transaction, so a fold planned before them can
  never land after them. The common ones are short: a read is a single statement (the
  state and the new rows, from one snapshot, so on PostgreSQL and MySQL it needs no
  transaction around it: one round trip); on PostgreSQL an append is the lock, then one
  statement that inserts the batch and reads the state and what others appended before
  it (four round trips with ``BEGIN`` and ``COMMIT``). Statements are built once
  (:mod:`.sqlalchemy_queries`).
* The index catches up cheaply: message ids only grow (writers hold the session's row
  lock), rows only ever leave from the tail, so if the newest row the index knows still
  exists, only rows with a larger id are new.

The SDK reads rows in ``(created_at, id)`` order; ctxlab stamps each row with the
database's clock *after* taking the session lock, so the two orders agree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from .base import (
    Delta,
    Ends,
    LogStore,
    StoreConflictError,
    StoredState,
    StoreError,
    decode_data,
    decode_entry,
)
from .row_cursor import RowIdCursor
from .sql_dialects import LoopEngines
from .sql_errors import translate_sql_error
from .sqlalchemy import SQLAlchemyStateStore
from .sqlalchemy_queries import AUTOCOMMIT_READS, LogQueries

Row = tuple[int, str]


def sdk_tables(session: Any) -> tuple[Any, Any, Any]:
    """(metadata, sessions table, messages table) of an SDK ``SQLAlchemySession``.

    The SDK keeps them in private attributes; this is the one place ctxlab reads them, and
    ``tests/stores`` checks that the pinned SDK still has them."""
    found = (getattr(session, "_metadata", None), getattr(session, "_sessions", None),
             getattr(session, "_messages", None))
    if any(t is None for t in found):
        raise TypeError("this SQLAlchemySession does not expose its tables the way "
                        "openai-agents 0.24 does; pass it through ctxlab's generic adapter")
    return found  # type: ignore[return-value]


class SQLAlchemyLog(RowIdCursor, LogStore):
    """The log of an SDK ``SQLAlchemySession`` (see the module doc)."""

    kind: ClassVar[str] = "sqlalchemy"
    persistent: ClassVar[bool] = True

    def __init__(self, session: Any, state: SQLAlchemyStateStore | None = None):
        super().__init__()
        meta, self._sessions, self._messages = sdk_tables(session)
        self.sdk_session = session
        self.session_id: str = session.session_id
        self._ensure_ascii = bool(getattr(session, "_ensure_ascii", True))
        create = bool(getattr(session, "_create_tables", False))
        self.state: SQLAlchemyStateStore = state or SQLAlchemyStateStore(
            session.engine, self.session_id, extra_metadata=(meta,) if create else ())
        self.engines: LoopEngines = self.state.engines
        self.dialect = self.engines.dialect
        self._q = LogQueries.of(self.engines.original.dialect, self._sessions, self._messages,
                                self.state._state)
        # (the one-statement append is SQL text, which a schema_translate_map cannot reach)
        self._append_reads = self._q.one_statement_append and not (
            self.engines.original.get_execution_options().get("schema_translate_map"))
        self._ids: list[int] = []  # row id of every item the caller's index holds

    # -- helpers inside a transaction ------------------------------------------------------
    async def _lock(self, conn: Any) -> None:
        """Take the session's lock: upsert its row in the SDK's sessions table (the row the
        SDK's own writers lock), creating it on first use without a race."""
        if self._q.lock is not None:
            await conn.execute(self._q.lock, {"sid": self.session_id})
            return
        from sqlalchemy import select

        from .sql_dialects import ensure_row

        c = self._sessions.c
        await ensure_row(conn, self.dialect, self._sessions,
                         {"session_id": self.session_id}, c.session_id)
        await conn.execute(select(c.session_id).where(
            c.session_id == self.session_id).with_for_update())

    async def _rows(self, conn: Any, after: int) -> list[Row]:
        found = await conn.execute(self._q.rows, {"sid": self.session_id, "after": after})
        return [(int(r[0]), r[1]) for r in found]

    async def _catch_up(self, conn: Any, known: list[int]) -> tuple[int, list[Row]]:
        """(how many known rows are still the log's prefix, the rows after them)."""
        if known:
            rows = await self._rows(conn, known[-1])
            if rows and rows[0][0] == known[-1]:
                return len(known), rows[1:]
            current = [int(r[0]) for r in await conn.execute(self._q.ids,
                                                              {"sid": self.session_id})]
            keep = 0
            for a, b in zip(known, current, strict=False):
                if a != b:
                    break
                keep += 1
            return keep, await self._rows(conn, known[keep - 1] + 1 if keep else 0)
        return 0, await self._rows(conn, 0)

    def _params(self, known: list[int], seen: int | None) -> dict[str, Any]:
        return {"sid": self.session_id, "after": known[-1] if known else 0,
                "seen": -1 if seen is None else seen}

    @staticmethod
    def _parts(found: Any) -> tuple[StoredState, list[Row], list[int]]:
        """A state-and-rows result (:mod:`.sqlalchemy_queries`): (state, rows, own ids)."""
        state = StoredState()
        rows: list[Row] = []
        mine: list[int] = []
        for part, row_id, epoch, body in found:
            if part == 1:
                rows.append((int(row_id), body))
            elif part == 0:
                state = StoredState(int(row_id), int(epoch), decode_data(body))
            else:
                mine.append(int(row_id))
        return state, rows, mine

    async def _catch_up_and_state(self, conn: Any, known: list[int], seen: int | None, *,
                                  fall_back: bool = True
                                  ) -> tuple[int, list[Row], StoredState] | None:
        """:meth:`_catch_up` and the state in one statement (one round trip) in the common
        case: the newest known row still exists. Otherwise the ids are compared in further
        statements, or without ``fall_back`` None is returned (the caller retries in one
        snapshot)."""
        state, rows, _ = self._parts(await conn.execute(self._q.state_and_rows,
                                                        self._params(known, seen)))
        if not known:
            return 0, rows, state
        if rows and rows[0][0] == known[-1]:
            return len(known), rows[1:], state
        if not fall_back:
            return None
        keep, rows = await self._catch_up(conn, known)  # a row we knew is gone: compare ids
        return keep, rows, state

    async def _begin(self) -> Any:
        await self.state.ready()
        return self.engines.current().begin()

    # -- operations ------------------------------------------------------------------------
    async def _sync(self) -> Delta:
        known, seen = list(self._ids), self._state_version
        await self.state.ready()
        engine = self.engines.current()
        found = None
        if self.dialect in AUTOCOMMIT_READS:  # one statement, one snapshot: no transaction
            async with engine.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                found = await self._catch_up_and_state(conn, known, seen, fall_back=False)
        if found is None:  # SQLite, or a row we knew is gone: every statement in one snapshot
            async with engine.connect() as conn:
                if self.dialect in AUTOCOMMIT_READS:
                    conn = await conn.execution_options(isolation_level="REPEATABLE READ")
                async with conn.begin():
                    found = await self._catch_up_and_state(conn, known, seen)
        assert found is not None
        keep, rows, state = found
        ids, items = self._decode(rows)
        self._advance(keep, ids)
        return Delta(keep, items, self._state_delta(state))

    async def _read_ends(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=False)

    locates_tail: ClassVar[bool] = True

    async def _read_ends_located(self, head: int, tail: int) -> Ends:
        return await self._ends_read(head, tail, locate=True)

    async def _ends_read(self, head: int, tail: int, *, locate: bool) -> Ends:
        seen = self._state_version
        await self.state.ready()
        params = {"sid": self.session_id, "head": head, "tail": tail,
                  "seen": -1 if seen is None else seen}
        query = self._q.ends_located if locate else self._q.ends
        async with self.engines.current().connect() as conn:  # one statement: one snapshot
            if self.dialect in AUTOCOMMIT_READS:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            found = list(await conn.execute(query, params))
        state = StoredState()
        first: list[Row] = []
        last: list[Row] = []
        start = None
        for part, row_id, epoch, body in found:
            if part == 0:
                state = StoredState(int(row_id), int(epoch), decode_data(body))
            elif part == 3:
                start = int(epoch)
            else:
                (first if part == 1 else last).append((int(row_id), body))
        return self._ends(first, last, head, state, start if last else None)

    async def _append(self, items: list[dict[str, Any]]) -> Delta:
        known, seen = list(self._ids), self._state_version
        payloads = [json.dumps(item, ensure_ascii=self._ensure_ascii, separators=(",", ":"))
                    for item in items]
        async with await self._begin() as conn:
            await self._lock(conn)  # (before the next statement starts: it sees every row)
            if self._append_reads:  # one statement appends and reads (PostgreSQL)
                params = self._params(known, seen)
                params.update((f"d{i}", data) for i, data in enumerate(payloads))
                state, others, mine = self._parts(await conn.execute(
                    self._q.append_and_read(len(payloads)), params))
                keep, others = await self._placed(conn, known, others, mine)
            else:
                await conn.execute(self._q.insert, [{"sid": self.session_id, "d": data}
                                                    for data in payloads])
                found = await self._catch_up_and_state(conn, known, seen)
                assert found is not None
                keep, rows, state = found
                others, mine = rows[: len(rows) - len(payloads)], [
                    r[0] for r in rows[len(rows) - len(payloads):]]
        ids, decoded = self._decode(others)
        self._advance(keep, [*ids, *mine])
        return Delta(keep, [*decoded, *items], self._state_delta(state))

    async def _placed(self, conn: Any, known: list[int], rows: list[Row], mine: list[int]
                      ) -> tuple[int, list[Row]]:
        """Where the rows read beside an append go: (known rows kept, other writers' rows
        after them); a row we knew is gone: compare ids (our own rows are left out)."""
        if not known:
            return 0, rows
        if rows and rows[0][0] == known[-1]:
            return len(known), rows[1:]
        keep, rows = await self._catch_up(conn, known)
        own = set(mine)
        return keep, [r for r in rows if r[0] not in own]

    async def _pop(self) -> tuple[dict[str, Any] | None, Delta]:
        from sqlalchemy import delete, func, select

        known, seen = list(self._ids), self._state_version
        m = self._messages.c
        async with await self._begin() as conn:
            await self._lock(conn)
            keep, rows = await self._catch_up(conn, known)
            last = (await conn.execute(select(func.max(m.id)).where(
                m.session_id == self.session_id))).scalar()
            popped_raw = None
            if last is not None:
                popped_raw = (await conn.execute(select(m.message_data).where(
                    m.id == last))).scalar()
                await conn.execute(delete(self._messages).where(m.id == last))
                await self.state.ensure_row(conn)
                await self.state.bump(conn)
            state = await self.state.read(conn, seen)
        ids, items = self._decode(rows)
        popped: dict[str, Any] | None = None
        if last is not None:
            popped = decode_entry(popped_raw) if popped_raw is not None else None
            if ids and ids[-1] == last:
                ids.pop()
                items.pop()
            elif not ids and keep and known[keep - 1] == last:
                keep -= 1
        self._advance(keep, ids)
        return popped, Delta(keep, items, self._state_delta(state))

    async def _clear(self) -> Delta:
        from sqlalchemy import delete

        seen = self._state_version
        async with await self._begin() as conn:
            await self._lock(conn)
            await conn.execute(delete(self._messages).where(
                self._messages.c.session_id == self.session_id))
            await conn.execute(delete(self._sessions).where(
                self._sessions.c.session_id == self.session_id))
            await self.state.ensure_row(conn)
            await self.state.bump(conn, data=None)
            await self.state.drop_checkpoints(conn)
            state = await self.state.read(conn, seen)
        self._ids.clear()
        return Delta(0, [], self._state_delta(state))

    async def _truncate(
        self, length: int, data: Mapping[str, Any] | None, expected_version: int
    ) -> tuple[list[dict[str, Any]], Delta]:
        from sqlalchemy import delete, select

        known, seen = list(self._ids), self._state_version
        m = self._messages.c
        async with await self._begin() as conn:
            await self._lock(conn)
            await self.state.ensure_row(conn)
            if not await self.state.bump(conn, data=data, expected=expected_version):
                raise StoreConflictError("the session state changed meanwhile; retry")
            keep, rows = await self._catch_up(conn, known)
            removed = [(int(r[0]), r[1]) for r in await conn.execute(
                select(m.id, m.message_data).where(m.session_id == self.session_id)
                .order_by(m.id).offset(length))]
            if removed:
                await conn.execute(delete(self._messages).where(
                    m.session_id == self.session_id, m.id >= removed[0][0]))
            state = await self.state.read(conn, seen)
        return self._cut(keep, rows, removed, state, length)

    def spawn(self, session_id: str) -> SQLAlchemyLog:
        other = type(self.sdk_session)(session_id, engine=self.engines.original,
                                       create_tables=False)
        return SQLAlchemyLog(other, self.state.for_session(session_id))

    def describe(self) -> str:
        url = self.engines.original.url
        return f"{url.get_backend_name()} database {url.render_as_string(hide_password=True)!r}"

    def _translate(self, exc: BaseException) -> StoreError | None:
        return translate_sql_error(exc)
