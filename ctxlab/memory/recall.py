"""Recall: find evicted turns again when the new input needs them.

A trimming or summarizing session takes old turns out of the model's view; the ledger
still lists them (state ``dropped`` or ``summarized``). :class:`Recall` indexes exactly those
turns, snippet by snippet (:mod:`ctxlab.memory.documents`), and for a new user input
returns the best ``k`` snippets whose score is at least ``threshold`` (0..1; see
:mod:`ctxlab.memory.fts` for what a BM25 score of 0.5 means), merged into whole turns.

A recalled turn can hold a value a later turn replaced (the old email address, the first
firmware version). Recall reads the whole conversation into a
:class:`~ctxlab.facts.tracker.FactTracker` as it syncs, and marks such values where it
shows them (``a@x [superseded by b@x in turn 33]``, :mod:`ctxlab.memory.superseded`), so
the model never takes an old value it was shown last for the current one.

It serves three ways:

* as a retrieval source for :class:`~ctxlab.context.ContextManager` (``retriever=recall``):
  the recalled turns become one developer message, clearly marked as recalled history;
* directly: :meth:`Recall.recall` / :meth:`Recall.message`;
* as a tool the agent can call: :meth:`Recall.search_tool` (``search_conversation``).

The default index is :class:`~ctxlab.memory.fts.FTS5Index` (standard library SQLite; it
indexes Chinese, Japanese and Korean text as character bigrams, so "型号" finds "冰箱型号是
BCD-123"); :class:`~ctxlab.memory.dense.DenseIndex` ranks by meaning instead of words, with
all-MiniLM-L6-v2 for English (the ``ctxlab[embeddings]`` extra) or
``DenseIndex("multilingual")`` for Chinese and other languages (the ``ctxlab[multilingual]``
extra).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..context.counting import RequestCounter
from ..context.sources import RetrievedBlock, retrieved_message
from ..core.digest import canonical_json
from ..core.tokens import TokenCounter
from ..core.turns import segment_turns
from ..facts.tracker import FactTracker
from .documents import evicted_turns, render_turn, turn_docs
from .fts import Doc, FTS5Index
from .superseded import mark_superseded
from .versions import session_version

Item = Mapping[str, Any]

#: The minimum snippet score when neither the caller nor the index names one.
DEFAULT_THRESHOLD = 0.5


class SnippetIndex(Protocol):
    """What :class:`Recall` needs from an index (FTS5Index and DenseIndex provide it)."""

    def add(self, docs: Iterable[Doc]) -> int: ...
    def remove(self, keys: Iterable[str]) -> int: ...
    def search(self, query: str, k: int = 5, min_score: float = 0.0) -> list[tuple[Doc, float]]: ...
    def clear(self) -> None: ...
    def __len__(self) -> int: ...


@dataclass(frozen=True)
class RecallHit:
    """One matching snippet: its turn, key, score (0..1) and text."""

    turn: int
    key: str
    score: float
    text: str


@dataclass(frozen=True)
class RecalledTurn:
    """A whole evicted turn brought back: its items, best score, hits and rendered text."""

    turn: int
    score: float
    items: tuple[dict[str, Any], ...]
    hits: tuple[RecallHit, ...]
    text: str

    def block(self) -> RetrievedBlock:
        """As a :class:`~ctxlab.context.RetrievedBlock` for a context manager."""
        return RetrievedBlock(self.text, self.score, f"turn {self.turn}")


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return k


def _check_threshold(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(f"threshold must be a number between 0 and 1, got {threshold!r}")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
    return float(threshold)


class Recall:
    """Index evicted turns and retrieve them for a query.

    Args:
        session: a ctxlab memory session (with ``ledger()`` and ``raw_items()``) that
            :meth:`sync` reads by default; optional when you index items yourself.
        index: the snippet index (default: a new in-memory :class:`FTS5Index`).
        k: how many snippets to retrieve (before merging into turns); default 4.
        threshold: the minimum score (0..1) of a snippet; default: the index's own
            ``threshold`` attribute if it has one (0.35 for the multilingual dense model),
            else 0.5.
        max_turn_tokens: a recalled turn is rendered within about this many tokens.
        counter: the token counter (o200k_base by default).
    """

    def __init__(
        self,
        session: Any = None,
        *,
        index: SnippetIndex | None = None,
        k: int = 4,
        threshold: float | None = None,
        max_turn_tokens: int = 400,
        counter: TokenCounter | None = None,
    ):
        self.session = session
        self.index: SnippetIndex = index if index is not None else FTS5Index()
        self.k = _check_k(k)
        if threshold is None:
            threshold = getattr(self.index, "threshold", DEFAULT_THRESHOLD)
        self.threshold = _check_threshold(threshold)
        if (
            isinstance(max_turn_tokens, bool)
            or not isinstance(max_turn_tokens, int)
            or (max_turn_tokens < 20)
        ):
            raise ValueError(f"max_turn_tokens must be an integer >= 20, got {max_turn_tokens!r}")
        self.max_turn_tokens = max_turn_tokens
        self._counter = RequestCounter(counter)
        # turn -> (items, raw indices, snippet lines)
        self._turns: dict[
            int, tuple[tuple[dict[str, Any], ...], tuple[int, ...], tuple[str, ...]]
        ] = {}
        self._cache: dict[tuple[str, int, float, int], list[RecalledTurn]] = {}
        self._version = 0
        self._seen: dict[int, object] = {}  # id(session) -> its version at the last sync
        #: What the whole conversation established (values, constraints, promises), to mark
        #: what a recalled turn says that a later turn superseded.
        self.facts = FactTracker()
        self._tracked = 0  # items read into ``facts``
        self._ends: tuple[str, str] = ("", "")  # the first and last of them, as JSON

    def __repr__(self) -> str:
        return (
            f"Recall(index={self.index!r}, turns={len(self._turns)}, k={self.k}, "
            f"threshold={self.threshold})"
        )

    @property
    def indexed_turns(self) -> list[int]:
        """The turn numbers currently indexed, ascending."""
        return sorted(self._turns)

    # -- indexing ----------------------------------------------------------------------
    def index_turn(
        self, turn: int, items: Sequence[Item], indices: Sequence[int] | None = None
    ) -> int:
        """Index (or re-index) one turn; returns how many snippets it gave."""
        return self.index_turns([(turn, items, indices)])

    def index_turns(self, turns: Iterable[tuple[int, Sequence[Item], Sequence[int] | None]]) -> int:
        """Index (or re-index) several ``(turn, items, indices)`` at once, in one batch for
        the index (one transaction, or one embedding batch); returns the snippet count."""
        batch: list[tuple[int, Sequence[Item], tuple[int, ...]]] = []
        for turn, items, indices in turns:
            if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
                raise ValueError(f"turn must be an integer >= 1, got {turn!r}")
            if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
                raise ValueError(f"items must be a list of items, got {type(items).__name__}")
            where = tuple(indices) if indices is not None else tuple(range(len(items)))
            batch.append((turn, items, where))
        self.forget_turns([turn for turn, _, _ in batch])
        docs = []
        for turn, items, where in batch:
            snippets = turn_docs(turn, items, where)
            docs += snippets
            self._turns[turn] = (
                tuple(dict(it) for it in items),
                where,
                tuple(d.text for d in snippets),
            )
        self.index.add(docs)
        self._changed()
        return len(docs)

    def index_conversation(
        self, items: Sequence[Item], *, turns: Iterable[int] | None = None
    ) -> int:
        """Index the turns of a whole conversation (all of them, or those listed)."""
        wanted = None if turns is None else set(turns)
        self.track(items)
        return self.index_turns(
            (t.number, items[t.start : t.end], list(t.indices))
            for t in segment_turns(items).turns
            if wanted is None or t.number in wanted
        )

    def forget_turns(self, turns: Iterable[int]) -> int:
        """Remove these turns from the index; returns how many were indexed."""
        removed = 0
        for turn in list(turns):
            entry = self._turns.pop(turn, None)
            if entry is None:
                continue
            self.index.remove(f"{turn}:{i}" for i in entry[1])
            removed += 1
        if removed:
            self._changed()
        return removed

    def clear(self) -> None:
        self.index.clear()
        self._turns.clear()
        self._seen.clear()
        self.facts = FactTracker()
        self._tracked, self._ends = 0, ("", "")
        self._changed()

    def track(self, items: Sequence[Item]) -> None:
        """Read the conversation ``items`` (the whole log so far) into :attr:`facts`: only
        new items are read when the log grew; a log that changed otherwise is re-read."""
        known = self._tracked
        if known and (len(items) < known or (canonical_json(items[0]), canonical_json(
                items[known - 1])) != self._ends):
            self.facts, known = FactTracker(), 0
        if known == len(items):
            return
        self.facts.feed(items[known:])
        self._tracked = len(items)
        self._ends = (canonical_json(items[0]), canonical_json(items[-1]))
        self._changed()

    async def sync(self, session: Any = None) -> int:
        """Bring the index in line with what ``session`` (default: the bound one) has
        evicted: index newly dropped or summarized turns, forget turns back in view.
        Returns how many turns were (re)indexed."""
        session = session if session is not None else self.session
        if session is None:
            raise ValueError("sync needs a session: pass one or create Recall(session=...)")
        if not callable(getattr(session, "ledger", None)) or not callable(
            getattr(session, "raw_items", None)
        ):
            raise ValueError(
                "Recall.sync needs a ctxlab memory session (with ledger() and raw_items()), "
                f"got {type(session).__name__}; index items with index_conversation instead"
            )
        version = session_version(session)
        if version is not None and version == self._seen.get(id(session)):
            return 0  # nothing stored or re-configured since the last sync
        evicted = evicted_turns(await session.ledger())
        stale = [t for t in self._turns if t not in evicted]
        self.forget_turns(stale)
        todo = {t: ix for t, ix in evicted.items() if self._indices(t) != tuple(ix)}
        self._seen[id(session)] = version
        raw = await session.raw_items()
        self.track(raw)
        if not todo:
            return 0
        self.index_turns(
            (turn, [raw[i] for i in indices], indices) for turn, indices in sorted(todo.items())
        )
        return len(todo)

    def _indices(self, turn: int) -> tuple[int, ...] | None:
        entry = self._turns.get(turn)
        return entry[1] if entry else None

    def _changed(self) -> None:
        self._version += 1
        self._cache.clear()

    # -- retrieving --------------------------------------------------------------------
    def search(
        self, query: str, *, k: int | None = None, threshold: float | None = None
    ) -> list[RecallHit]:
        """The best ``k`` snippets scoring at least ``threshold``, best first."""
        if not isinstance(query, str):
            raise ValueError(f"query must be a str, got {type(query).__name__}")
        k = self.k if k is None else _check_k(k)
        threshold = self.threshold if threshold is None else _check_threshold(threshold)
        if not query.strip() or not self._turns:
            return []
        return [
            RecallHit(doc.turn, doc.key, score, doc.text)
            for doc, score in self.index.search(query, k, min_score=threshold)
            if score >= threshold and doc.turn in self._turns
        ]

    def recall(
        self, query: str, *, k: int | None = None, threshold: float | None = None
    ) -> list[RecalledTurn]:
        """The hits of :meth:`search` merged into whole turns, oldest turn first."""
        k = self.k if k is None else _check_k(k)
        threshold = self.threshold if threshold is None else _check_threshold(threshold)
        key = (query, k, threshold, self._version)
        if key in self._cache:
            return list(self._cache[key])
        by_turn: dict[int, list[RecallHit]] = {}
        for hit in self.search(query, k=k, threshold=threshold):
            by_turn.setdefault(hit.turn, []).append(hit)
        turns = []
        for turn in sorted(by_turn):
            hits = tuple(by_turn[turn])
            score = max(h.score for h in hits)
            items, _, lines = self._turns[turn]
            text = mark_superseded(render_turn(
                turn,
                items,
                score=score,
                max_tokens=self.max_turn_tokens,
                counter=self._counter,
                lines=lines,
            ), self.facts)
            turns.append(RecalledTurn(turn, score, tuple(dict(i) for i in items), hits, text))
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = turns
        return list(turns)

    def message(self, query: str, **options: Any) -> dict[str, Any] | None:
        """The recalled turns as one developer message (None when nothing matches)."""
        return retrieved_message([t.block() for t in self.recall(query, **options)])

    async def __call__(self, query: str) -> list[RetrievedBlock]:
        """Retrieval source for :class:`~ctxlab.context.ContextManager`: sync with the bound
        session (if any), then the recalled turns as blocks."""
        if self.session is not None:
            await self.sync()
        return [t.block() for t in self.recall(query)]

    # -- as a tool ---------------------------------------------------------------------
    def search_tool(
        self,
        *,
        name: str = "search_conversation",
        k: int | None = None,
        threshold: float | None = None,
    ) -> Any:
        """A function tool ``search_conversation(query)`` the agent can call.

        It searches the earlier turns that are no longer in the agent's view (syncing with
        the bound session first) and returns JSON: ``{"query": ..., "results": [{"turn",
        "score", "text"}]}``, oldest turn first, or an empty list with a note.
        """
        from agents import function_tool

        k = self.k if k is None else _check_k(k)
        threshold = self.threshold if threshold is None else _check_threshold(threshold)
        recall = self

        async def search_conversation(query: str) -> str:
            """Search earlier parts of this conversation that are no longer shown to you
            (older turns that were trimmed or summarized), for example to find an
            identifier or a detail the user gave before.

            Args:
                query: What to look for, in a few words (include any identifier you know).
            """
            if recall.session is not None:
                await recall.sync()
            found = recall.recall(query, k=k, threshold=threshold)
            payload: dict[str, Any] = {
                "query": query,
                "results": [
                    {"turn": t.turn, "score": round(t.score, 3), "text": t.text} for t in found
                ],
            }
            if not found:
                payload["note"] = "nothing in the earlier conversation matches this query"
            return json.dumps(payload, ensure_ascii=False)

        return function_tool(search_conversation, name_override=name)
