"""A context-debug record for every model call: what the model saw and why.

"Why did the agent say that?" is answered by what it was sent. :class:`ContextDebugLog` is
a ``RunConfig(call_model_input_filter=...)`` that observes every model call of a session
(also the calls inside one run's tool loop) and returns the input unchanged. Each call adds
one JSON line to ``<folder>/<session_id>.jsonl`` with

* the session id, the call number, the agent, the time and the mode;
* the tokens of each section of the call (instructions, tool schemas, structured state,
  summary, recent turns, tool outputs, retrieved memory, new input) and the total;
* the ledger's counts and the ledger diff since the previous call (items added or removed,
  state transitions such as ``kept->summarized``, whether the summary changed), both of
  the ledger *as this call saw it* (:mod:`ctxlab.observe.call_ledger`: read during the
  call, a session's own ledger already reflects this run's input);
* a token alert, when a :class:`~ctxlab.observe.TokenMonitor` is attached and fires;
* in ``"development"`` mode only: the full input items and the instructions (passed
  through a :class:`~ctxlab.Redactor` if one is given).

``mode="production"`` writes metadata only: numbers, kinds and states, never text. Writes
are one ``write`` on a file opened for appending, so several processes can log the same
session. A failure to log is reported on the ``ctxlab.debug`` logger and never stops a run.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any, Literal

from ..core.ledger import Ledger
from ..core.redaction import Redactor
from ..core.session_ids import check_session_id
from .call_ledger import call_ledger
from .ledger_diff import LedgerState, ledger_diff
from .monitor import TokenMonitor
from .sections import input_sections

logger = logging.getLogger("ctxlab.debug")

Mode = Literal["development", "production"]
MODES: tuple[str, ...] = ("development", "production")


class ContextDebugLog:
    """Writes a context-debug record per model call of ``session`` (see the module doc).

    Args:
        session: a ctxlab memory session (the one passed to ``Runner.run``).
        folder: where ``<session_id>.jsonl`` goes (created if missing).
        mode: ``"development"`` (full input) or ``"production"`` (metadata only).
        monitor: a :class:`TokenMonitor` that records each call's input tokens.
        redactor: applied to the logged input in development mode.
    """

    def __init__(
        self,
        session: Any,
        folder: str | os.PathLike[str] = "logs",
        *,
        mode: Mode = "development",
        monitor: TokenMonitor | None = None,
        redactor: Redactor | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if not hasattr(session, "view_with_ledger"):
            raise ValueError("ContextDebugLog needs a ctxlab memory session (TrimmingSession, "
                             f"SummarizingSession, ...), got {type(session).__name__}")
        sid = check_session_id(session.session_id, what="session id (the log file name)")
        self.session = session
        self.mode: Mode = mode
        self.monitor = monitor
        self.redactor = redactor
        self.path = Path(folder) / f"{sid}.jsonl"
        self.calls = 0
        self._previous: LedgerState | None = None

    async def __call__(self, data: Any) -> Any:
        """The ``call_model_input_filter``: log, then return the input unchanged."""
        try:
            await self.observe(list(data.model_data.input), data.model_data.instructions,
                               agent=data.agent)
        except Exception as exc:  # observability must never break a run
            logger.warning("could not write the context-debug record of session %r: %s",
                           getattr(self.session, "session_id", "?"), exc)
        return data.model_data

    async def observe(self, items: list[Any], instructions: str | None = None, *,
                      agent: Any = None) -> dict[str, Any]:
        """Build, write and return the record of one model call."""
        limit = getattr(getattr(self.session, "session_settings", None), "limit", None)
        view, now = await self.session.view_with_ledger(limit)
        tools = list(getattr(agent, "tools", ()) or ())
        counter = self.session.token_counter
        ledger = await self._call_ledger(now, items)
        if ledger is not now:  # its positions are this call's input
            view = [items[e.position] for e in ledger.view() if e.position is not None]
        sections, labels = input_sections(items, view, list(ledger.view()), counter,
                                          instructions=instructions, tools=tools)
        state = LedgerState.of(ledger)
        self.calls += 1
        record: dict[str, Any] = {
            "ts": time.time(),
            "session_id": self.session.session_id,
            "call": self.calls,
            "pid": os.getpid(),
            "mode": self.mode,
            "agent": getattr(agent, "name", None),
            "items": len(items),
            "sections": sections,
            "input_tokens": sum(sections.values()),
            "item_sections": labels,
            "item_kinds": [_kind(it) for it in items],
            "ledger": {"counts": ledger.counts(), "view_tokens": ledger.view_tokens,
                       "raw_tokens": ledger.raw_tokens},
            "ledger_diff": ledger_diff(self._previous, state),
        }
        self._previous = state
        if self.monitor is not None:
            alert = await self.monitor.record(self.session.session_id, record["input_tokens"],
                                              agent=record["agent"])
            record["alert"] = None if alert is None else str(alert)
        if self.mode == "development":
            record["instructions"] = self._redact_text(instructions)
            record["input"] = [self._redact_item(it) for it in items]
        self._write(record)
        return record

    async def _call_ledger(self, ledger: Ledger, items: list[Any]) -> Ledger:
        """The session's ledger corrected to what this call sent: read now, it already
        reflects this run's input, which moved the window after the Runner read it
        (:mod:`ctxlab.observe.call_ledger`)."""
        raw_items = getattr(self.session, "raw_items", None)
        if raw_items is None:
            return ledger
        layout = getattr(self.session, "served_layout", None)
        served = layout() if callable(layout) else None
        model_input = [it if isinstance(it, dict) else dict(it) for it in items]
        return call_ledger(ledger, await raw_items(), model_input, self.session.token_counter,
                           served)

    def records(self) -> list[dict[str, Any]]:
        """Every record in the file (written by any process), oldest first."""
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def _redact_item(self, item: Any) -> Any:
        item = dict(item) if not isinstance(item, dict) else item
        if self.redactor is None:
            return item
        return self.redactor.redact_item(item)

    def _redact_text(self, text: str | None) -> str | None:
        if text is None or self.redactor is None:
            return text
        return self.redactor.redact_text(text)

    def _write(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        finally:
            os.close(fd)

    def __repr__(self) -> str:
        return f"ContextDebugLog({str(self.path)!r}, mode={self.mode!r}, calls={self.calls})"


def _kind(item: Any) -> str:
    from ..core.items import item_kind

    return item_kind(item) if isinstance(item, dict) else type(item).__name__
