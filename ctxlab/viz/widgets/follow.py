"""Following a session: a view bound to a ctxlab session redraws when the session changes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ...core.ledger import Ledger
from .render import header_html


def is_ledger_source(value: Any) -> bool:
    """True for objects whose ``ledger()`` method a view can await (ctxlab sessions)."""
    return not isinstance(value, (Ledger, Sequence)) and callable(getattr(value, "ledger", None))


class SessionFollower:
    """What :class:`~ctxlab.viz.widgets.SessionView` does with the session it shows: read
    its ledger (:meth:`refresh`), and, when live, redraw on every change the session
    announces (items added, a summary applied, a setting changed). The view provides
    ``show``, ``header``, ``title``, ``limit`` and the attributes set in its constructor."""

    session: Any
    title: str | None
    limit: int | None
    header: Any
    _task: asyncio.Task[Ledger] | None
    _dirty: bool
    _live: bool
    _unsubscribe: Any
    _ledger: Ledger

    def show(self, ledger: Any) -> None:  # pragma: no cover - the view's
        raise NotImplementedError

    async def refresh(self) -> Ledger:
        """Read the bound session's ledger again and redraw (just redraws without a session)."""
        if self.session is None:
            self.show(self._ledger)
            return self._ledger
        ledger = await self.session.ledger(self.limit)
        self.show(ledger)
        return ledger

    async def update_from(self, session: Any) -> Ledger:
        """Bind the view to ``session`` (any object with an async ``ledger()``) and redraw."""
        if not is_ledger_source(session):
            raise ValueError(
                "update_from needs a session with an async ledger() method, got "
                f"{type(session).__name__}"
            )
        self._bind(session)
        return await self.refresh()

    def _bind(self, session: Any) -> None:
        """Show ``session`` and, when live, follow its changes (unfollowing any other)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.session = session
        subscribe = getattr(session, "subscribe", None)
        if self._live and callable(subscribe):
            self._unsubscribe = subscribe(self._on_session_change)

    def _on_session_change(self, _session: Any) -> None:
        # Called by the session, possibly under its lock: only schedule the redraw. While a
        # redraw is pending, further changes just mark the view dirty (one more redraw).
        if self._task is not None and not self._task.done():
            self._dirty = True
            return
        self._schedule_refresh()

    def close(self) -> None:
        """Stop following the session and close the widget."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        super().close()

    def _schedule_refresh(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.header.value = header_html(self.title, []) + (
                "<div style='color:#555'>call <code>await view.refresh()</code> to read "
                "the session</div>"
            )
            return

        def report(task: asyncio.Task[Ledger]) -> None:
            if self._dirty and not task.cancelled():
                self._dirty = False
                self._schedule_refresh()
                return
            if not task.cancelled() and task.exception() is not None:
                self.header.value += (
                    f"<div style='color:#B00'>could not read the session: "
                    f"{task.exception()!r}</div>"
                )

        self._task = loop.create_task(self.refresh())
        self._task.add_done_callback(report)
