"""The statements of ctxlab's SQLAlchemy log, built once per set of tables and dialect.

Building an SQLAlchemy statement and its cache key costs about half a millisecond of CPU
each time (more than a round trip to a local PostgreSQL); these statements take the session
id and the cursor as bound parameters instead, so each is built once and SQLAlchemy's
compiled cache serves every later execution. Parameters: ``sid`` (the session id), ``after``
(the smallest row id wanted), ``seen`` (the state version the caller holds, -1 for none) and
``d0``, ``d1``, ... (the JSON of appended items).

Rows of a state-and-rows result are ``(part, id, n, body)``: part 0 is the state row
(``id`` its version, ``n`` its epoch, ``body`` its data unless its version is ``seen``),
part 1 the log's rows from ``after`` on, part 2 the ids of rows this statement appended.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from .sql_dialects import db_timestamp, supports_upsert, upsert

#: Dialects whose data-modifying CTEs let one statement append rows and read the log (the
#: rows it reads are the ones committed before it started: never its own).
RETURNING_CTE = frozenset({"postgresql"})

#: Dialects where one statement reads from one snapshot, so the common read needs no
#: transaction (no BEGIN and COMMIT round trips); SQLite's reads are cheap local calls.
AUTOCOMMIT_READS = frozenset({"postgresql", "mysql", "mariadb"})

#: Append statements are kept for batches of up to this many items.
CACHED_BATCH = 32


class LogQueries:
    """The prepared statements of one (dialect, sessions, messages, state) table set."""

    _cache: ClassVar[dict[tuple[str, ...], LogQueries]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def of(cls, dialect: Any, sessions: Any, messages: Any, state: Any) -> LogQueries:
        """The statements for these tables on this SQLAlchemy ``dialect`` (shared)."""
        key = (str(dialect.name), sessions.fullname, messages.fullname, state.fullname)
        with cls._guard:
            found = cls._cache.get(key)
            if found is None:
                found = cls._cache[key] = cls(dialect, sessions, messages, state)
            return found

    def __init__(self, sql_dialect: Any, sessions: Any, messages: Any, state: Any):
        from sqlalchemy import bindparam, func, insert, select

        dialect = self.dialect = str(sql_dialect.name)
        self._preparer = sql_dialect.identifier_preparer
        self._messages, self._state = messages, state
        self._guard = threading.Lock()
        self._appends: dict[int, Any] = {}
        m, sid = messages.c, bindparam("sid")
        self.rows = select(m.id, m.message_data).where(
            m.session_id == sid, m.id >= bindparam("after")).order_by(m.id)
        self.ids = select(m.id).where(m.session_id == sid).order_by(m.id)
        self.lock: Any = None
        if supports_upsert(dialect):
            self.lock = upsert(dialect, sessions, {"session_id": sid}, ["session_id"],
                               {"updated_at": func.current_timestamp()})
        self.state_and_rows = self._union(self._state_part(), self._rows_part())
        self.one_statement_append = dialect in RETURNING_CTE  # see append_and_read
        self.insert = insert(messages).values(  # (executemany: one parameter set per row)
            session_id=sid, message_data=bindparam("d"), created_at=db_timestamp(dialect))

    def _state_part(self) -> Any:
        from sqlalchemy import Integer, bindparam, case, literal, null, select

        st = self._state.c
        return select(literal(0, Integer).label("part"), st.version.label("id"),
                      st.epoch.label("n"),
                      case((st.version != bindparam("seen", type_=Integer), st.data),
                           else_=null()).label("body")
                      ).where(st.session_id == bindparam("sid"))

    def _rows_part(self) -> Any:
        from sqlalchemy import Integer, bindparam, literal, select

        m = self._messages.c
        return select(literal(1, Integer), m.id, literal(0, Integer), m.message_data
                      ).where(m.session_id == bindparam("sid"), m.id >= bindparam("after"))

    @property
    def ends(self) -> Any:
        """The state (part 0), the first ``head`` rows (1) and the last ``tail`` rows (2) of
        session ``sid``, in one statement."""
        found = getattr(self, "_ends", None)
        if found is None:
            found = self._ends = self._build_ends()
        return found

    @property
    def ends_located(self) -> Any:
        """:attr:`ends` and a part 3 whose ``n`` is the position of the tail's first row
        (how many rows of the session precede it: a count on the index, no rows read)."""
        found = getattr(self, "_ends_located", None)
        if found is None:
            found = self._ends_located = self._build_ends(locate=True)
        return found

    def _build_ends(self, *, locate: bool = False) -> Any:
        from sqlalchemy import Integer, bindparam, func, literal, null, select

        m = self._messages.c
        mine = m.session_id == bindparam("sid")
        parts = []
        if locate:
            last = select(m.id).where(mine).order_by(m.id.desc()).limit(
                bindparam("tail")).subquery()
            first_of_tail = select(func.min(last.c.id)).scalar_subquery()
            parts.append(select(literal(3, Integer).label("part"), literal(0, Integer),
                                func.count().label("n"), null()).where(
                mine, m.id < first_of_tail))

        def end(part: int, order: Any, limit: str) -> Any:
            rows = select(literal(part, Integer).label("part"), m.id.label("id"),
                          literal(0, Integer).label("n"), m.message_data.label("body")
                          ).where(mine).order_by(order).limit(bindparam(limit)).subquery()
            return select(rows.c.part, rows.c.id, rows.c.n, rows.c.body)

        return self._union(self._state_part(), end(1, m.id, "head"),
                           end(2, m.id.desc(), "tail"), *parts)

    @staticmethod
    def _union(*parts: Any) -> Any:
        from sqlalchemy import union_all

        return union_all(*parts).order_by("part", "id")

    def append_and_read(self, n: int) -> Any:
        """(PostgreSQL) Append ``n`` rows (``d0``...) and read the state and the rows from
        ``after`` on, in one statement (see the module doc for its rows)."""
        if n > CACHED_BATCH:  # a rare long batch: not worth keeping
            return self._build_append(n)
        with self._guard:
            found = self._appends.get(n)
            if found is None:
                found = self._appends[n] = self._build_append(n)
            return found

    def _build_append(self, n: int) -> Any:
        """Written out as text: SQLAlchemy cannot cache a multi-row ``INSERT ... VALUES``
        (it would compile it again on every call), and VALUES keeps the rows' order."""
        from sqlalchemy import text

        quote = self._preparer.format_table
        messages, state = quote(self._messages), quote(self._state)
        stamp = "CAST(clock_timestamp() AS TIMESTAMP WITHOUT TIME ZONE)"
        rows = ", ".join(f"(:sid, :d{i}, {stamp})" for i in range(n))
        return text(
            f"WITH added AS (INSERT INTO {messages} (session_id, message_data, created_at) "
            f"VALUES {rows} RETURNING id) "
            "SELECT 0 AS part, version AS id, epoch AS n, "
            f"CASE WHEN version <> :seen THEN data END AS body FROM {state} "
            "WHERE session_id = :sid "
            f"UNION ALL SELECT 1, id, 0, message_data FROM {messages} "
            "WHERE session_id = :sid AND id >= :after "
            "UNION ALL SELECT 2, id, 0, NULL FROM added ORDER BY part, id")
