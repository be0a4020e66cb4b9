"""A summarizing session's state: the summary applied to the view, its generation, and
whether it still matches the log it was made from.

The store keeps it beside the log (``{"strategy": "summarizing", "format": 1,
"generation": G, "summary": {...}}``) so a new process resumes with the identical view; a
summary whose prefix was rewritten (a pop into it, a rollback, another writer) is dropped.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.error_text import cause_text
from ..core.rawlog import RawLog
from ..policies.summarize import SummaryRecord
from ..stores.base import StoredState, StoreError

if TYPE_CHECKING:
    from .summarizing import SummarizingSession

logger = logging.getLogger("ctxlab.summarizing")

#: Version of the state this strategy saves in a store.
STATE_FORMAT = 1


def state_data(summary: SummaryRecord | None, generation: int,
               anchor: str | None = None) -> dict[str, Any]:
    """What the store keeps for ``summary`` at ``generation``; ``anchor`` is the
    :func:`~ctxlab.sessions.fold_checkpoint.item_anchor` of the last item it folds (what a
    first read from the fold checkpoint checks the log against)."""
    data = {"strategy": "summarizing", "format": STATE_FORMAT, "generation": generation,
            "summary": None if summary is None else summary.to_dict()}
    if anchor is not None and summary is not None:
        data["anchor"] = {"end": summary.items[1], "item": anchor}
    return data


@dataclass
class SummaryState:
    """The summary in the view, the fold generation, and the (epoch, generation) at which
    the summary was last checked against the log."""

    summary: SummaryRecord | None = None
    generation: int = 0
    verified: tuple[int, int] | None = None

    def data(self) -> dict[str, Any]:
        return state_data(self.summary, self.generation)

    def load(self, stored: StoredState, session_id: str) -> None:
        """Take the summary a store holds (a malformed one is ignored, with a warning)."""
        data = stored.data or {}
        summary = None
        try:
            raw = data.get("summary")
            summary = SummaryRecord.from_dict(raw) if raw else None
            generation = int(data.get("generation", 0))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            logger.warning("session %r: ignoring a malformed summary in the store (%s)",
                           session_id, cause_text(exc))
            generation = 0
        self.summary, self.generation, self.verified = summary, generation, None

    def matches(self, log: RawLog, epoch: int, *, force: bool = False) -> bool:
        """True when the summary (if any) was made from the log's current prefix; checked
        once per (epoch, generation) unless ``force`` (the digest chain is memoized)."""
        summary = self.summary
        if summary is None:
            return True
        end = summary.items[1]
        key = (epoch, summary.generation)
        if end > len(log):
            return False
        if not force and self.verified == key:
            return True
        if summary.digest and log.digest(end) != summary.digest:
            return False
        self.verified = key
        return True

    def applied(self, record: SummaryRecord, epoch: int) -> None:
        """``record`` was saved in the store at ``epoch``."""
        self.summary, self.generation = record, record.generation
        self.verified = (epoch, record.generation)


async def drop_stale(session: SummarizingSession, *, force: bool = False) -> None:
    """Drop the session's summary if the raw items it was made from are no longer the
    log's prefix (a pop into them, a rollback, another writer's change), and save that."""
    fold = session._fold
    summary = fold.summary
    if summary is None or fold.matches(session._log, session._stored.epoch, force=force):
        return
    logger.info("session %r: the summary of turns %s-%s no longer matches the log; "
                "dropping it", session.session_id, *summary.turns)
    fold.summary, fold.verified = None, None
    session._changed()
    try:
        saved = await session._store.save_state(
            session._stored.version, state_data(None, fold.generation))
    except StoreError as exc:  # the next sync re-checks; the view is valid meanwhile
        logger.warning("session %r: could not save the dropped summary: %s",
                       session.session_id, exc)
        return
    if saved is not None:
        session._stored = saved
