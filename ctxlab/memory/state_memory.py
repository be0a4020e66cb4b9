"""StateMemory: keep a :class:`SupportState` up to date, turn by turn.

Feed it however the conversation reaches you:

* :meth:`StateMemory.update`: the items of one turn;
* :meth:`StateMemory.feed`: any run of items (batches as the Runner stores them, or a
  whole conversation); they are grouped by turn before extraction;
* :meth:`StateMemory.sync`: the items a session stored since the last sync (call it
  after each ``Runner.run``; a bound memory does it itself before every model call);
* :meth:`StateMemory.update_from_ledger` / :meth:`update_from_snapshots`: a ledger or a
  replay's snapshots (no session needed).

As a state source for :class:`~ctxlab.context.ContextManager` (``state=memory``) it syncs
with its session and returns the state as one developer message, including the model
input's current turn even where the Runner has not stored it yet (``Runner.run_streamed``
stores the new input only after the first model call): :meth:`StateMemory.message_for`.
An extractor that fails (a model error, an invalid reply) loses nothing there: the error
is logged, kept in :attr:`StateMemory.last_error`, and the same items are tried again at
the next sync.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..core.error_text import cause_text
from ..core.items import item_kind, item_text
from ..core.ledger import LedgerEntry
from ..core.turns import starts_turn
from .extract import RuleBasedStateExtractor
from .render import render_state, state_message
from .state import Change, StatePatch, SupportState
from .versions import session_version

logger = logging.getLogger("ctxlab.memory")

Item = Mapping[str, Any]


@runtime_checkable
class StateExtractor(Protocol):
    """Anything that turns one turn's items into a :class:`StatePatch`."""

    async def extract(
        self, items: Sequence[Item], *, state: SupportState | None = None, turn: int | None = None
    ) -> StatePatch: ...


class StateMemory:
    """A structured state, the extractor that maintains it, and where it reads from.

    Args:
        extractor: a :class:`StateExtractor` (default: the offline
            :class:`~ctxlab.memory.RuleBasedStateExtractor`; use
            :class:`~ctxlab.memory.LLMStateExtractor` with a real model).
        session: a session to :meth:`sync` from when none is passed (and when the memory is
            used as a state source).
        render_options: passed to :func:`~ctxlab.memory.render.render_state`
            (``max_milestones``, ``max_superseded``, ``max_tokens``).
        include_unstored: whether :meth:`message_for` also reads the current turn's items
            that the session has not stored yet (on a copy of the state; they are read for
            good once stored). Default: yes for the offline rule-based extractor, no for
            others (an LLM extractor would be called twice for the same items).
    """

    def __init__(
        self,
        extractor: StateExtractor | None = None,
        *,
        session: Any = None,
        render_options: Mapping[str, Any] | None = None,
        include_unstored: bool | None = None,
    ):
        if extractor is not None and not callable(getattr(extractor, "extract", None)):
            raise ValueError(
                f"extractor must have an async extract(items, ...) method: {extractor!r}"
            )
        self.extractor = extractor or RuleBasedStateExtractor()
        self.include_unstored = (isinstance(self.extractor, RuleBasedStateExtractor)
                                 if include_unstored is None else bool(include_unstored))
        self.session = session
        self.render_options = dict(render_options or {})
        render_state(SupportState(), **self.render_options)  # validate the options now
        self.state = SupportState()
        self.changes: list[tuple[int | None, Change]] = []
        self.last_error: str | None = None
        self._synced = 0  # items of the bound session already read
        self._turn = 0  # real user messages seen so far
        self._version: object | None = None  # the session's version at the last sync
        self._source: Any = None  # the session last synced from
        self._stored_turn: list[Item] = []  # the items of the newest stored turn

    def __repr__(self) -> str:
        return f"StateMemory(extractor={self.extractor!r}, turn={self.state.turn})"

    # -- feeding -----------------------------------------------------------------------
    async def update(self, items: Sequence[Item], *, turn: int | None = None) -> list[Change]:
        """Extract from the items of one turn (numbered ``turn``, default: the next one)."""
        items = _check_items(items)
        if turn is None:
            turn = self._turn + 1 if any(starts_turn(it) for it in items) else self._turn
        patch = await self.extractor.extract(items, state=self.snapshot(), turn=turn)
        changes = self.state.apply(patch, turn)
        self._turn = max(self._turn, turn)
        self.changes.extend((turn, c) for c in changes)
        return changes

    async def feed(self, items: Sequence[Item]) -> list[Change]:
        """Extract from a run of items that continues what was fed before, turn by turn.

        A turn may arrive in pieces (the Runner stores the user message, then each tool
        round, then the reply): each piece is extracted with its turn's number.
        """
        items = _check_items(items)
        changes: list[Change] = []
        for turn, chunk in self._chunks(items):
            changes += await self.update(chunk, turn=turn)
        return changes

    def _chunks(self, items: Sequence[Item]) -> list[tuple[int, list[Item]]]:
        chunks: list[tuple[int, list[Item]]] = []
        turn = self._turn
        current: list[Item] = []
        for item in items:
            if starts_turn(item):
                if current:
                    chunks.append((turn, current))
                turn += 1
                current = []
            current.append(item)
        if current:
            chunks.append((turn, current))
        return chunks

    async def sync(self, session: Any = None) -> list[Change]:
        """Extract from the items ``session`` (default: the bound one) stored since the
        last sync. Reads ``raw_items()`` when the session has it (ctxlab sessions: the
        untrimmed log), otherwise ``get_items()``. If the extractor fails, nothing is
        marked as read, so the next sync tries the same items again."""
        session = session if session is not None else self.session
        if session is None:
            raise ValueError("sync needs a session: pass one or create StateMemory(session=...)")
        version = session_version(session)
        if version is not None and version == self._version and session is self._source:
            return []  # nothing stored since the last sync
        reader = getattr(session, "raw_items", None) or session.get_items
        stored = list(await reader())
        if len(stored) < self._synced:  # the session was cleared or popped: start over
            self.reset()
        new = stored[self._synced :]
        if not new:
            self._version, self._source = version, session
            self._stored_turn = _newest_turn(stored)
            return []
        saved = self._save()
        try:
            changes = await self.feed(new)
        except Exception as exc:  # keep the old state; retry these items next time
            self._restore(saved)
            self.last_error = cause_text(exc)
            logger.warning("state extraction failed (will retry): %s", self.last_error)
            return []
        self._synced = len(stored)
        self._version, self._source = version, session
        self._stored_turn = _newest_turn(stored)
        self.last_error = None
        return changes

    async def update_from_ledger(self, ledger: Iterable[LedgerEntry]) -> list[Change]:
        """Extract from the stored items a :class:`~ctxlab.core.ledger.Ledger` describes (each
        entry's text and kind; synthetic entries are skipped), turn by turn."""
        items: list[Item] = []
        waiting: deque[str] = deque()  # call ids of rebuilt calls still without an output
        for n, entry in enumerate(ledger):
            if not isinstance(entry, LedgerEntry):
                raise ValueError(f"ledger entry {n} is {type(entry).__name__}, not a LedgerEntry")
            if entry.index is None:
                continue
            item = _entry_item(entry, waiting)
            if item is not None:
                items.append(item)
        return await self.feed(items)

    async def update_from_snapshots(self, snapshots: Sequence[Any]) -> list[Change]:
        """Extract from a replay (:func:`ctxlab.eval.replay`): the last snapshot's ledger lists
        every stored item; its new input, if any, comes last."""
        if not snapshots:
            return []
        last = snapshots[-1]
        changes = await self.update_from_ledger(last.ledger)
        if getattr(last, "new_input", None):
            changes += await self.feed(list(last.new_input))
        return changes

    def snapshot(self, *, milestones: int = 10) -> SupportState:
        """A copy of the state for an extractor to read: profile, issue, next action and
        the last ``milestones`` milestones (cheap however long the conversation is)."""
        state = self.state
        return SupportState(
            user=state.user.model_copy(),
            issue=state.issue.model_copy(deep=True),
            milestones=list(state.milestones[-milestones:]) if milestones else [],
            next_action=state.next_action,
            constraints=list(state.constraints),
            commitments=list(state.commitments),
            turn=state.turn,
            language=state.language,
            letters=state.letters,
        )

    def reset(self) -> None:
        """Forget the state and start reading from the beginning."""
        self.state = SupportState()
        self.changes = []
        self.last_error = None
        self._synced = 0
        self._turn = 0
        self._version = self._source = None
        self._stored_turn = []

    # -- showing -----------------------------------------------------------------------
    def render(self) -> str:
        """The state as compact text ("" while empty)."""
        return render_state(self.state, **self.render_options)

    def message(self) -> dict[str, Any] | None:
        """The state as one context message (role system; not wrapped) (None while empty)."""
        return state_message(self.state, **self.render_options)

    async def __call__(self) -> dict[str, Any] | None:
        """State source for :class:`~ctxlab.context.ContextManager`: sync, then the message."""
        if self.session is not None:
            await self.sync()
        return self.message()

    async def message_for(self, current_turn: Sequence[Item]) -> dict[str, Any] | None:
        """The state message for a model call whose input ends with ``current_turn`` (the
        user message that opened it and what followed): synced with the session, plus, when
        :attr:`include_unstored`, the items of that turn the session has not stored yet,
        read on a copy (the state itself takes them at the sync after they are stored, so
        nothing is read twice)."""
        if self.session is not None:
            await self.sync()
        current = _check_items(current_turn)
        unstored = _unstored(current, self._stored_turn) if self.include_unstored else []
        if not unstored:
            return self.message()
        saved = self._save()
        try:
            await self.feed(unstored)
            return self.message()
        except Exception as exc:  # the state of the stored items still goes out
            logger.warning("state extraction of the current turn failed: %s", cause_text(exc))
        finally:
            self._restore(saved)
        return self.message()

    def _save(self) -> tuple[int, SupportState, list[tuple[int | None, Change]]]:
        """What :meth:`_restore` needs to undo a :meth:`feed`."""
        return self._turn, self.state.clone(), list(self.changes)

    def _restore(self, saved: tuple[int, SupportState, list[tuple[int | None, Change]]]
                 ) -> None:
        self._turn, self.state, self.changes = saved


def _newest_turn(items: Sequence[Item]) -> list[Item]:
    """The items from the last real user message on (empty when there is none)."""
    for index in range(len(items) - 1, -1, -1):
        if starts_turn(items[index]):
            return list(items[index:])
    return []


def _same(a: Item, b: Item) -> bool:
    """The same item as stored and as sent (ids, metadata and key order aside)."""
    return item_kind(a) == item_kind(b) and item_text(a) == item_text(b)


def _unstored(current: Sequence[Item], stored_turn: Sequence[Item]) -> list[Item]:
    """The items of ``current`` (a model input's current turn) the session has not stored:
    all of them when its newest stored turn is another one, else those past what it holds."""
    if not current or not starts_turn(current[0]):
        return []
    if not stored_turn or not _same(stored_turn[0], current[0]):
        return list(current)
    held = 0
    for sent, kept in zip(current, stored_turn, strict=False):
        if not _same(sent, kept):
            break
        held += 1
    return list(current[held:])


def _check_items(items: Any) -> list[Item]:
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise ValueError(f"expected a list of items, got {type(items).__name__}")
    for n, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(
                f"item {n} must be a dict (a Responses item), got {type(item).__name__}"
            )
    return list(items)


_CALL_TEXT = re.compile(r"^([\w.-]+)\((.*)\)$", re.DOTALL)


def _entry_item(entry: LedgerEntry, waiting: deque[str]) -> dict[str, Any] | None:
    """An item rebuilt from a ledger entry's kind and text (enough for extraction).

    Calls get made-up ids; an output is paired with the oldest call still waiting.
    """
    if entry.kind in ("user", "assistant", "developer", "system"):
        return {"role": entry.kind, "content": entry.text}
    if entry.kind == "tool_call":
        match = _CALL_TEXT.match(entry.text)
        name, args = (match.group(1), match.group(2)) if match else ("tool", "")
        call_id = f"ledger_{entry.index}"
        waiting.append(call_id)
        return {"type": "function_call", "call_id": call_id, "name": name, "arguments": args}
    if entry.kind == "tool_output":
        call_id = waiting.popleft() if waiting else f"ledger_{entry.index}"
        return {"type": "function_call_output", "call_id": call_id, "output": entry.text}
    return None
