"""LongTermMemory: what one user's earlier sessions left, recalled in a new session.

The session log holds one conversation; long-term memory holds the user, across all of
them, in a store of its own (:mod:`ctxlab.records`, namespaced by user id):

* **write, after a session, off the hot path**: :meth:`LongTermMemory.end_session`
  schedules :func:`~ctxlab.longterm.consolidate.consolidate` as a background task and
  returns at once (the reply to the user never waits for it); :meth:`drain` waits for the
  pending writes (at shutdown, in tests). Writes are compare-and-swap on the user's record,
  so two sessions of one user ending together both land; a write scheduled before the user
  asked to be forgotten is refused (the record's epoch changed), so a deletion is never
  undone by a late background job;
* **recall, structured first**: :meth:`recall` returns the user's profile, preferences,
  open commitments and recent cases (always: they are small and usually needed), then the
  notes that match the new message (BM25 over the user's own notes, Chinese as character
  bigrams; :class:`~ctxlab.memory.FTS5Index`) for the long tail ("that shop I mentioned");
* **inject**: :meth:`input_filter` is a ``RunConfig(call_model_input_filter=...)`` that puts
  the recollection for the run's user (``UserContext``) in front of the model input, as one
  memory block: a **user** message under the memory heading, dated and attributed, its
  instruction-like lines flagged (a customer's remembered words never get more authority
  than the customer has), and appends the operator's
  :data:`~ctxlab.core.memory_frame.MEMORY_NOTICE` to the instructions; it changes what the
  model sees, never what the session stores;
* **forget**: :meth:`forget` deletes the user's records (see also
  :func:`~ctxlab.longterm.forget.forget_user`, which deletes in every store).
"""

from __future__ import annotations

import asyncio
import datetime
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..context.sources import context_message
from ..core.error_text import cause_text
from ..core.items import is_user_message, item_text
from ..core.memory_frame import with_memory_notice
from ..memory.fts import Doc, FTS5Index
from ..memory.state_memory import StateExtractor
from ..records import (
    RecordConflictError,
    RecordStore,
    UnknownUserError,
    check_user_id,
    open_records,
)
from ..records.users import session_id_of, user_id_of
from .consolidate import consolidate
from .notes import MemoryNotes
from .notes_render import render_in_force
from .record import MEMORY_KEY, Note, UserMemory
from .render import render_notes, render_structured

logger = logging.getLogger("ctxlab.longterm")


@dataclass(frozen=True)
class Recollection:
    """What long-term memory brings into a new session for one message."""

    user_id: str
    known: bool
    structured: str = ""
    notes: tuple[tuple[Note, float], ...] = ()
    language: str = "en"
    #: The notes in force (session first, then standing: :mod:`ctxlab.longterm.notes`).
    in_force: str = ""
    #: When the newest session in memory was written ("" when none was).
    as_of: str = ""
    #: The topics the message asks about (with a schema: :mod:`ctxlab.longterm.topic_notes`).
    topics: str = ""

    def text(self) -> str:
        """The structured part, the notes in force, the topics asked about, then the
        recalled notes ("" for an unknown user)."""
        parts = [self.structured, self.in_force, self.topics,
                 render_notes([n for n, _ in self.notes], self.language)]
        return "\n".join(p for p in parts if p)

    def message(self) -> dict[str, Any] | None:
        """The recollection as one context message (None when there is nothing)."""
        text = self.text()
        if not text:
            return None
        return context_message(text, source=_source(self.as_of, self.language),
                               language=self.language)


_SOURCE = {"en": ("the customer's earlier sessions", ", as of {at}"),
           "zh": ("客户此前的会话", "，截至 {at}")}


def _source(as_of: str, language: str) -> str:
    """Who said what a recollection quotes, and when (after the memory heading)."""
    who, when = _SOURCE.get(language, _SOURCE["en"])
    return who + (when.format(at=as_of) if as_of else "")


def _today() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


class LongTermMemory:
    """Per-user memory across sessions (see the module docstring).

    Args:
        records: where it lives: a record store or what
            :func:`~ctxlab.records.open_records` accepts.
        extractor: the state extractor sessions are read with (default: the offline
            :class:`~ctxlab.RuleBasedStateExtractor`; :class:`~ctxlab.LLMStateExtractor`
            with a real model).
        notes_k: at most this many notes are recalled per message.
        threshold: the least BM25 score (0..1) a recalled note needs.
        clock: the time stamp of a session written without ``at=`` (default: now, UTC).
        structured: whether recall shows the structured part (False: notes only, to
            measure what retrieval alone brings back).
        notes: the user's session and durable notes (:class:`~ctxlab.longterm.MemoryNotes`,
            best on the same record store); recall shows those in force in the run's
            session (``UserContext(user, session_id=...)``).
        schema: the services (topics) the deployment offers (SGD-style ``schema.json``, a
            ``{service: [slots]}`` dict, a ``ServiceSchema``): sessions are then kept topic by
            topic, and recall shows the topic a message asks about.
        dense: a dense model name (``"multilingual"``) or encoder that finds the topic by
            meaning when the question names neither a service nor a slot (default: BM25).
        topics_k: at most this many topics are recalled per message.
    """

    def __init__(self, records: RecordStore | str = "memory", *,
                 extractor: StateExtractor | None = None, notes_k: int = 3,
                 threshold: float = 0.3, clock: Callable[[], str] = _today,
                 structured: bool = True, notes: MemoryNotes | None = None,
                 schema: Any = None, dense: Any = None, topics_k: int = 3):
        if isinstance(notes_k, bool) or not isinstance(notes_k, int) or notes_k < 0:
            raise ValueError(f"notes_k must be an integer >= 0, got {notes_k!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not (
                0 <= threshold <= 1):
            raise ValueError(f"threshold must be a number from 0 to 1, got {threshold!r}")
        self.records = open_records(records)
        self.extractor = extractor
        self.notes_k = notes_k
        self.threshold = float(threshold)
        self.clock = clock
        self.structured = bool(structured)
        if notes is not None and not isinstance(notes, MemoryNotes):
            raise TypeError(f"notes must be a MemoryNotes or None, got {type(notes).__name__}")
        self.notes = notes
        if schema is not None:
            from ..handoffs.services import service_schema

            schema = service_schema(schema)
        self.schema = schema
        self.dense = dense
        self.topics_k = topics_k
        self._pending: dict[str, set[asyncio.Task[Any]]] = {}
        #: Errors of background writes (a failed write is logged here, never raised into a
        #: reply): (user id, session id, error).
        self.errors: list[tuple[str, str, BaseException]] = []
        #: Writes of the user memory record made (each one a compare-and-swap put).
        self.writes = 0
        #: Writes that lost a compare-and-swap race and were redone (consolidation included).
        self.lost_races = 0

    def __repr__(self) -> str:
        return f"LongTermMemory({self.records.describe()})"

    # -- reading ------------------------------------------------------------------------
    async def get(self, user_id: str) -> UserMemory:
        """The user's memory; :class:`UnknownUserError` when nothing is stored for them."""
        found = await self.records.get(check_user_id(user_id), MEMORY_KEY)
        if found.data is None:
            raise UnknownUserError(
                f"long-term memory holds nothing for user {user_id!r} "
                f"({self.records.describe()}): a user is known once a session of theirs "
                "was written (end_session)")
        return UserMemory.model_validate(found.data)

    async def users(self) -> list[str]:
        """Every user with something stored (in this memory's record store)."""
        return await self.records.namespaces()

    async def recall(self, user_id: str, query: str = "", *,
                     session_id: str | None = None) -> Recollection:
        """The user's structured memory, the notes in force in ``session_id`` (with
        ``notes=``), and the notes that match ``query`` (an unknown user gets an empty
        recollection: a first session is not an error)."""
        check_user_id(user_id)
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        try:
            memory: UserMemory | None = await self.get(user_id)
        except UnknownUserError:
            memory = None
        language = memory.language if memory else "en"
        noted = ""
        if self.notes is not None:
            noted = render_in_force(await self.notes.in_force(user_id, session_id), language)
        if memory is None:
            return Recollection(user_id, known=bool(noted), in_force=noted)
        as_of = memory.sessions[-1].at if memory.sessions else ""
        return Recollection(user_id, True,
                            render_structured(memory) if self.structured else "",
                            tuple(self._search(memory.notes, query)), language, noted,
                            as_of=as_of, topics=self._topics(memory, query))

    def _topics(self, memory: UserMemory, query: str) -> str:
        if self.schema is None or not memory.topics:
            return ""
        from .topic_notes import find_topics, render_topics

        found = find_topics(memory.topics, query, self.schema, k=self.topics_k,
                            dense=self.dense)
        return render_topics(found, query, self.schema, memory.language)

    def _search(self, notes: Sequence[Note], query: str) -> list[tuple[Note, float]]:
        if not query.strip() or not notes or not self.notes_k:
            return []
        index = FTS5Index()
        try:
            by_key = {n.key: n for n in notes}
            index.add(Doc(key, n.turn or 0, n.text) for key, n in by_key.items())
            hits = index.search(query, k=self.notes_k, min_score=self.threshold)
        finally:
            index.close()
        return [(by_key[doc.key], score) for doc, score in hits]

    # -- writing ------------------------------------------------------------------------
    async def write_session(self, user_id: str, items: Sequence[Mapping[str, Any]], *,
                            session_id: str, at: str | None = None,
                            expected_epoch: int | None = None) -> UserMemory | None:
        """Write one finished session now (what :meth:`end_session` runs in the background).

        Retries lost races on a fresh read. Returns None, writing nothing, when the user's
        records were deleted after ``expected_epoch`` (the session belongs to before the
        deletion).
        """
        check_user_id(session_id, what="session_id")
        return await self.write_sessions(user_id, [(items, session_id, at or self.clock())],
                                         expected_epoch=expected_epoch)

    async def write_sessions(self, user_id: str,
                             sessions: Sequence[tuple[Sequence[Mapping[str, Any]], str, str]],
                             *, expected_epoch: int | None = None) -> UserMemory | None:
        """Write several finished sessions ``(items, session_id, at)``, oldest first, in one
        compare-and-swap write (what a debounced reflection does after a burst)."""
        check_user_id(user_id)
        for _items, sid, _at in sessions:
            check_user_id(sid, what="session_id")
        for _attempt in range(50):
            found = await self.records.get(user_id, MEMORY_KEY)
            if expected_epoch is not None and found.epoch != expected_epoch:
                logger.info("dropped %d session(s) of user %s: the user was forgotten since",
                            len(sessions), user_id)
                return None
            new = (UserMemory.model_validate(found.data) if found.data
                   else UserMemory(user_id=user_id))
            for items, sid, at in sessions:
                new = await consolidate(new, items, session_id=sid, at=at,
                                        extractor=self.extractor, schema=self.schema)
            try:
                await self.records.put(user_id, MEMORY_KEY, new.model_dump(mode="json"),
                                       expected_version=found.version,
                                       expected_epoch=found.epoch)
                self.writes += 1
                return new
            except RecordConflictError as exc:
                if exc.deleted and expected_epoch is not None:
                    return None
                self.lost_races += 1
        raise RecordConflictError(
            f"gave up writing {len(sessions)} session(s) of user {user_id!r} after 50 lost "
            "races", namespace=user_id, key=MEMORY_KEY, expected=0, actual=0)

    async def end_session(self, user_id: str, source: Any, *, session_id: str | None = None,
                          at: str | None = None) -> asyncio.Task[UserMemory | None]:
        """Schedule writing a finished session and return at once (see the module doc).

        ``source`` is the session's items, or the session itself (a ctxlab session's raw
        items, or an SDK session's items, are read in the background). Returns the task.
        """
        check_user_id(user_id)
        session_id = session_id or getattr(source, "session_id", None)
        if not isinstance(session_id, str):
            raise ValueError("end_session needs session_id= when source is a list of items")
        check_user_id(session_id, what="session_id")
        epoch = (await self.records.get(user_id, MEMORY_KEY)).epoch
        at = at or self.clock()

        async def job() -> UserMemory | None:
            try:
                items = await _items_of(source)
                return await self.write_session(user_id, items, session_id=session_id,
                                                at=at, expected_epoch=epoch)
            except Exception as exc:  # logged and kept: a background write never breaks a reply
                # the cause only: a backend's or extractor's text may quote what was said
                logger.error("long-term write of session %s of user %s failed: %s",
                             session_id, user_id, cause_text(exc))
                self.errors.append((user_id, session_id, exc))
                return None

        task = asyncio.ensure_future(job())
        self.track(user_id, task)
        return task

    async def drain(self) -> None:
        """Wait for every scheduled write to finish."""
        while True:
            tasks = [t for group in self._pending.values() for t in group]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def pending(self) -> int:
        """Background writes not finished yet."""
        return sum(len(group) for group in self._pending.values())

    def pending_for(self, user_id: str) -> int:
        """Background writes of one user not finished yet."""
        return len(self._pending.get(user_id, ()))

    def track(self, user_id: str, task: asyncio.Task[Any]) -> None:
        """Count ``task`` among the user's background writes (drained, cancelled by a
        deletion)."""
        pending = self._pending.setdefault(user_id, set())
        pending.add(task)
        task.add_done_callback(pending.discard)

    def cancel_pending(self, user_id: str) -> int:
        """Cancel the user's unfinished background writes; how many there were."""
        tasks = self._pending.pop(user_id, set())
        for task in tasks:
            task.cancel()
        return len(tasks)

    # -- injecting ----------------------------------------------------------------------
    def input_filter(self) -> Callable[[Any], Any]:
        """A ``call_model_input_filter`` that puts the run's user's recollection first."""

        async def inject(data: Any) -> Any:
            from agents.run_config import ModelInputData

            model_data = data.model_data
            items = list(model_data.input)
            query = next((item_text(i) for i in reversed(items) if is_user_message(i)), "")
            recollection = await self.recall(user_id_of(data.context), query,
                                             session_id=session_id_of(data.context))
            message = recollection.message()
            if message is None:
                return model_data
            return ModelInputData(input=[message, *items],
                                  instructions=with_memory_notice(model_data.instructions,
                                                                  recollection.language))

        return inject

    # -- forgetting ---------------------------------------------------------------------
    async def forget(self, user_id: str) -> int:
        """Delete every record of the user in this store and cancel their pending writes;
        :class:`UnknownUserError` (nothing changed) when nothing is stored for them."""
        check_user_id(user_id)
        if not await self.records.keys(user_id) and not self.pending_for(user_id):
            raise UnknownUserError(f"long-term memory holds nothing for user {user_id!r} "
                                   f"({self.records.describe()}); nothing was deleted")
        self.cancel_pending(user_id)
        return await self.records.delete_namespace(user_id)

    async def aclose(self) -> None:
        await self.drain()
        await self.records.aclose()


async def _items_of(source: Any) -> list[dict[str, Any]]:
    if isinstance(source, Sequence) and not isinstance(source, (str, bytes)):
        return [dict(item) for item in source]
    raw = getattr(source, "raw_items", None)
    if callable(raw):
        return list(await raw())
    getter = getattr(source, "get_items", None)
    if callable(getter):
        return list(await getter())
    raise TypeError(f"end_session needs the session's items or a session, got "
                    f"{type(source).__name__}")
