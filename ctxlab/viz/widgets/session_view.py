"""SessionView: one chip per ledger entry, grouped by turn and coloured by state."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle

from ...core.ledger import STATES, Ledger, LedgerEntry
from .chip_looks import ChipLooks
from .chips import (
    ChipGroup,
    group_entries,
    unsent_runs,
)
from .follow import SessionFollower, is_ledger_source
from .render import (
    detail_html,
    group_label_html,
    header_html,
    ledger_html,
    legend_html,
    unsent_run_html,
)


def as_ledger(value: Any) -> Ledger:
    """``value`` as a Ledger (a Ledger, or a sequence of LedgerEntry); ValueError otherwise."""
    if isinstance(value, Ledger):
        return value
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        bad = next((n for n, e in enumerate(value) if not isinstance(e, LedgerEntry)), None)
        if bad is None:
            return Ledger(list(value))
    raise ValueError(
        "expected a Ledger, a list of LedgerEntry, or a session with an async ledger() "
        f"method (every ctxlab session has one); got {type(value).__name__}"
    )



#: Every part of the view keeps its natural height. ipywidgets boxes are flex containers
#: whose children may shrink (their ``overflow: auto`` lets them), so inside a box of fixed
#: height (the replay's scrolling body) rows would otherwise be squashed to a few pixels
#: and their chips drawn over each other instead of the box scrolling.
NO_SHRINK = "none"


class SessionView(SessionFollower, widgets.VBox):
    """What the model sees, item by item: a chip per ledger entry.

    Rows are the preamble, each user turn and the synthetic items a strategy injects (a
    summary sits after the turns it folds). Each chip names the item kind, is coloured by
    state (:data:`ctxlab.core.ledger.STATE_COLORS`, with a mark so colour is not the only cue),
    and has a tooltip with a preview and the exact token count. Clicking a chip shows its
    full text in a detail pane right under the chip's row.

    A run of at least ``collapse_at`` turns none of whose items is sent (dropped, or folded
    into the summary) is one row, with a button that shows its turns: a long conversation's
    view opens on what the model is sent, not on hundreds of rows of turns it no longer sees.
    ``collapse_at=None`` shows every turn.

    Build it from a :class:`~ctxlab.core.ledger.Ledger`, or from a session::

        view = await SessionView.from_session(session)
        ...                                  # the session changes
        await view.refresh()                 # read its ledger again

    Passing a session to the constructor also works inside a running event loop (Jupyter):
    the first read is scheduled and the view fills in a moment later.

    A view bound to a ctxlab session follows it: every change (items added, a summary
    applied, a setting changed) schedules a redraw, so the chips stay current while the
    agent runs. ``live=False`` turns that off; :meth:`close` unsubscribes.
    """

    def __init__(
        self,
        ledger_or_session: Any = None,
        *,
        title: str | None = None,
        limit: int | None = None,
        auto_refresh: bool = True,
        live: bool = True,
        collapse_at: int | None = 3,
    ):
        super().__init__()
        if collapse_at is not None and (isinstance(collapse_at, bool)
                                        or not isinstance(collapse_at, int) or collapse_at < 1):
            raise ValueError(f"collapse_at must be a positive int or None, got {collapse_at!r}")
        self.collapse_at = collapse_at
        #: Whether collapsed runs of unsent turns are open (the button on their row).
        self.expanded = False
        self.add_class("ctxlab-session-view")
        self.title = title
        self.limit = limit
        self.session: Any = None
        self.selected: LedgerEntry | None = None
        self._selected_at: int | None = None
        self._ledger = Ledger([])
        self._groups: list[ChipGroup] = []
        self._chip_entries: list[LedgerEntry] = []
        # Widgets are made when first shown, and then reused: a 100-turn replay opens on
        # a few rows, not one widget per item (the first editions sent over a thousand
        # widget messages at once, and JupyterLab sometimes got them with some missing).
        self._pool: dict[int, widgets.Button] = {}  # ledger position -> its chip
        self._looks = ChipLooks()  # the layouts and styles all chips share
        self._rows: dict[int, widgets.HBox] = {}  # a row of turns: (label, chip box)
        # every row (a turn's, and a run of unsent turns') shares these: row, label, chips
        self._row_looks = (self._row_layout(), widgets.Layout(width="130px", flex="none"),
                           widgets.Layout(flex_flow="row wrap", flex="1"),
                           HTMLStyle())
        self._run_rows: list[tuple[widgets.HBox, widgets.HTML, widgets.Button, widgets.HTML]] = []
        self._shown: list[widgets.Widget] = []  # groups_box's rows, without the detail pane
        self._row_of: dict[int, int] = {}  # chip position -> index in _shown
        self._task: asyncio.Task[Ledger] | None = None
        self._dirty = False
        self._live = bool(live)
        self._unsubscribe: Any = None
        self.header = widgets.HTML(layout=widgets.Layout(flex=NO_SHRINK))
        self.legend = widgets.HTML(layout=widgets.Layout(flex=NO_SHRINK))
        self.groups_box = widgets.VBox(layout=widgets.Layout(margin="2px 0", flex=NO_SHRINK))
        self._empty = widgets.HTML("<span style='color:#555'>The session is empty.</span>")
        self.detail = widgets.HTML(detail_html(None), layout=widgets.Layout(flex=NO_SHRINK))
        self.detail.add_class("ctxlab-detail-pane")
        self.children = (self.header, self.legend, self.groups_box, self.detail)
        if ledger_or_session is None:
            self.show(Ledger([]))
        elif is_ledger_source(ledger_or_session):
            self._bind(ledger_or_session)
            self.show(Ledger([]))
            self.header.value = header_html(title, []) + (
                "<div style='color:#555'>reading the session…</div>"
            )
            if auto_refresh:
                self._schedule_refresh()
        else:
            self.show(as_ledger(ledger_or_session))

    # -- building ----------------------------------------------------------------------
    @classmethod
    async def from_session(cls, session: Any, **kwargs: Any) -> SessionView:
        """A view of ``session``'s ledger, read now, that then follows the session's changes
        (``live=False`` to freeze it; ``await view.refresh()`` reads it again by hand)."""
        view = cls(session, auto_refresh=False, **kwargs)
        await view.refresh()
        return view

    # -- state -------------------------------------------------------------------------
    @property
    def ledger(self) -> Ledger:
        return self._ledger

    @property
    def groups(self) -> list[ChipGroup]:
        """The rows currently shown."""
        return list(self._groups)

    @property
    def chips(self) -> list[widgets.Button]:
        """A chip button per ledger entry, in ledger order, dressed for it (also those of
        collapsed rows: made now if they were never shown)."""
        buttons = []
        for n, entry in enumerate(self._chip_entries):
            buttons.append(self._chip(n))
            self._looks.dress(buttons[-1], entry)
            if n == self._selected_at:
                buttons[-1].layout = self._looks.layout(True)
        return buttons

    @property
    def chip_entries(self) -> list[LedgerEntry]:
        """The entry behind each chip in :attr:`chips`."""
        return list(self._chip_entries)

    # -- drawing -----------------------------------------------------------------------
    def show(self, ledger: Any) -> None:
        """Draw ``ledger`` (reusing chip widgets, so redrawing is cheap)."""
        ledger = as_ledger(ledger)
        self._ledger = ledger
        self._groups = group_entries(ledger)
        self._chip_entries = list(ledger)
        counts = ledger.counts()
        self.header.value = header_html(self.title, ledger)
        self.legend.value = legend_html({s: counts.get(s, 0) for s in STATES})
        runs = {run.start: run for run in unsent_runs(self._groups, self.collapse_at)}
        self._shown, self._row_of = [], {}
        n = 0
        while n < len(self._groups):
            run = runs.get(n)
            if run is not None:
                self._shown.append(self._run_row(sorted(runs).index(n), run))
                if not self.expanded:
                    for group in self._groups[run.start : run.stop]:
                        for position in range(group.start, group.start + len(group.entries)):
                            self._row_of[position] = len(self._shown) - 1
                    n = run.stop
                    continue
                for m in run:
                    self._shown.append(self._group_row(m))
                n = run.stop
                continue
            self._shown.append(self._group_row(n))
            n += 1
        again = self._find(self.selected)
        self.selected, self._selected_at = None, None
        if again is None:
            self.detail.value = detail_html(None)
            self._place_detail(None)
        else:
            self.select(again)

    def _group_row(self, n: int) -> widgets.HBox:
        """Row ``n`` of the groups: its label and its chips."""
        group = self._groups[n]
        # its own line height: a widget's HTML box gives every line a widget's height
        label = (f"<div style='line-height:1.25;margin-top:3px'>"
                 f"{group_label_html(group.label, group.tokens, group.sent_tokens)}</div>")
        positions = range(group.start, group.start + len(group.entries))
        buttons = tuple(self._chip(position) for position in positions)
        for position, button, entry in zip(positions, buttons, group.entries, strict=True):
            self._looks.dress(button, entry)
            self._row_of[position] = len(self._shown)
        classes = ("ctxlab-group", f"ctxlab-group-{group.key.replace(':', '-')}")
        return self._row(n, label, buttons, classes)

    def _run_row(self, k: int, run: range) -> widgets.HBox:
        """The ``k``-th run of unsent turns as one row, with the button that opens it."""
        while len(self._run_rows) <= k:
            label = widgets.HTML(layout=self._row_looks[1])
            toggle = widgets.Button(layout=widgets.Layout(width="auto", height="24px",
                                                          margin="2px"))
            toggle.add_class("ctxlab-unsent-toggle")
            toggle.on_click(lambda _b: self.toggle_unsent())
            note = widgets.HTML(layout=widgets.Layout(margin="0 0 0 6px"))
            row = widgets.HBox((label, toggle, note), layout=self._row_looks[0])
            row.add_class("ctxlab-unsent-run")
            self._run_rows.append((row, label, toggle, note))
        row, label, toggle, note = self._run_rows[k]
        groups = self._groups[run.start : run.stop]
        entries = [e for g in groups for e in g.entries]
        states: dict[str, int] = {}
        for entry in entries:
            states[entry.state] = states.get(entry.state, 0) + 1
        label.value, note.value = unsent_run_html(groups[0].turn, groups[-1].turn, len(entries),
                                                  sum(g.tokens for g in groups), states)
        toggle.description = (f"▾ hide these {len(groups)} turns" if self.expanded
                              else f"▸ show {len(groups)} turns not sent")
        return row

    def toggle_unsent(self) -> None:
        """Open (or close again) the collapsed runs of unsent turns."""
        self.expanded = not self.expanded
        self.show(self._ledger)

    def _place_detail(self, position: int | None) -> None:
        """The detail pane goes right under the row of the chip at ``position`` (under the
        rows when nothing is selected)."""
        rows = list(self._shown) if self._shown else [self._empty]
        at = self._row_of.get(position) if position is not None else None
        if at is None:
            self.groups_box.children = tuple(rows)
            self.children = (self.header, self.legend, self.groups_box, self.detail)
            return
        self.children = (self.header, self.legend, self.groups_box)
        self.groups_box.children = (*rows[: at + 1], self.detail, *rows[at + 1 :])

    def select(self, position: int) -> LedgerEntry:
        """Show the full text of the ``position``-th ledger entry in the detail pane."""
        if not 0 <= position < len(self._chip_entries):
            raise IndexError(
                f"no chip at position {position}; the view has {len(self._chip_entries)} chips"
            )
        entry = self._chip_entries[position]
        if self._selected_at is not None and self._selected_at < len(self._chip_entries):
            self._chip(self._selected_at).layout = self._looks.layout(False)
        self._chip(position).layout = self._looks.layout(True)
        self.selected, self._selected_at = entry, position
        self.detail.value = detail_html(entry)
        self._place_detail(position)
        return entry

    def _find(self, entry: LedgerEntry | None) -> int | None:
        """Where the same item is in the current ledger (its state may have changed)."""
        if entry is None:
            return None
        for n, candidate in enumerate(self._chip_entries):
            if entry.index is not None and candidate.index == entry.index:
                return n
            if (entry.index is None and candidate.index is None
                    and (candidate.kind, candidate.text) == (entry.kind, entry.text)):
                return n
        return None

    def _chip(self, position: int) -> widgets.Button:
        """The chip button of ledger position ``position`` (made on first use)."""
        button = self._pool.get(position)
        if button is None:
            button = self._looks.make(self._chip_entries[position])
            button.on_click(lambda _button, slot=position: self.select(slot))
            self._pool[position] = button
        return button

    def _row(self, n: int, label: str, buttons: tuple[widgets.Button, ...],
             classes: tuple[str, ...]) -> widgets.HBox:
        """Row ``n`` showing ``label`` and ``buttons``: made on first use with what it
        shows (one message per widget), then reused. All rows share their layouts."""
        if n not in self._rows:
            row_look, label_look, chips_look, label_style = self._row_looks
            chips = widgets.HBox(buttons, layout=chips_look)
            self._rows[n] = widgets.HBox(
                (widgets.HTML(label, layout=label_look, style=label_style), chips),
                layout=row_look, _dom_classes=classes)
            return self._rows[n]
        row = self._rows[n]
        text, chips = row.children
        text.value, chips.children, row._dom_classes = label, buttons, classes
        return row

    @staticmethod
    def _row_layout() -> widgets.Layout:
        """A row is as tall as its label or its chips (see :data:`NO_SHRINK`)."""
        return widgets.Layout(align_items="flex-start", flex=NO_SHRINK)

    # -- static forms ------------------------------------------------------------------
    def to_html(self) -> str:
        """The view as static HTML (chips with tooltips, legend, full texts)."""
        return ledger_html(self._ledger, title=self.title)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        counts = ", ".join(f"{s}={n}" for s, n in self._ledger.counts().items() if n)
        return f"SessionView({len(self._ledger)} entries: {counts or 'empty'})"
