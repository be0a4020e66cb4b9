"""ReplayView: scrub through a recorded conversation, one model call at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from ...core.sections import budget_sections, full_tokens, sent_tokens
from ...core.tokens import TokenCounter, get_token_counter
from ...eval.replay import Snapshot, replay
from .budget_bar import BudgetBar
from .render import (
    esc,
    input_chip_html,
    model_input_html,
    replay_html,
    replay_row_html,
    turn_label,
)
from .session_view import NO_SHRINK, SessionView


class ReplayView(widgets.VBox):
    """A slider and previous/next buttons over :class:`~ctxlab.eval.replay.Snapshot` s.

    Each step shows what one model call was sent: the session's ledger at that moment as
    chips (watch the window slide and older turns fold into a summary), the new input, a
    :class:`BudgetBar` and the list of items with token totals. Scrubbing only redraws
    recorded ledgers; no model and no session is called.

    It opens at the last model call (or ``start``). The widget has a fixed height
    (:attr:`HEIGHT`), so scrubbing never moves what is below it: the slider, the status
    line, the budget bar and the new input keep their height at the top, and the chips and
    items scroll in the rest (the *body*), one row per turn at its natural height, however
    long the conversation.

    Record one with ``view = await ReplayView.record(items, session, instructions=...)``.
    """

    #: Height of the whole widget: the same at every snapshot.
    HEIGHT = "640px"
    #: The scrolling body never gets lower than this (on a narrow page the parts above it
    #: wrap and the widget scrolls as a whole instead).
    BODY_MIN_HEIGHT = "240px"

    def __init__(
        self,
        snapshots: Sequence[Snapshot],
        *,
        title: str | None = None,
        instructions_tokens: int = 0,
        token_counter: TokenCounter | None = None,
        start: int | None = None,
    ):
        super().__init__()
        if isinstance(snapshots, Snapshot) or not isinstance(snapshots, Sequence):
            raise ValueError(
                f"ReplayView needs a list of Snapshot (from ctxlab.eval.replay.replay), got "
                f"{type(snapshots).__name__}"
            )
        bad = next((n for n, s in enumerate(snapshots) if not isinstance(s, Snapshot)), None)
        if bad is not None:
            raise ValueError(
                f"ReplayView: item {bad} is a {type(snapshots[bad]).__name__}, not a Snapshot"
            )
        if not snapshots:
            raise ValueError("ReplayView needs at least one snapshot; the replay recorded none")
        self.add_class("ctxlab-replay-view")
        self.title = title
        self.instructions_tokens = instructions_tokens
        self.snapshots: tuple[Snapshot, ...] = tuple(snapshots)
        counter = token_counter or get_token_counter()
        self._inputs = [
            [(item, counter.count_item(item)) for item in s.new_input] for s in self.snapshots
        ]
        self._sections = [
            budget_sections(
                s.ledger,
                instructions_tokens=instructions_tokens,
                new_input_tokens=sum(t for _, t in fresh),
            )
            for s, fresh in zip(self.snapshots, self._inputs, strict=True)
        ]
        self._last_turn = max((s.turn for s in self.snapshots), default=0)
        count = len(self.snapshots)
        start = count if start is None else start
        if isinstance(start, bool) or not isinstance(start, int) or not 1 <= start <= count:
            raise ValueError(f"start must be between 1 and {count}, got {start!r}")

        self.slider = widgets.IntSlider(
            value=start, min=1, max=count, step=1, description="model call",
            continuous_update=True, layout=widgets.Layout(width="420px"),
            style={"description_width": "initial"},
        )
        self.slider.add_class("ctxlab-replay-slider")
        self.prev_button = widgets.Button(description="◀ previous", tooltip="previous turn",
                                          layout=widgets.Layout(width="auto"))
        self.prev_button.add_class("ctxlab-prev")
        self.next_button = widgets.Button(description="next ▶", tooltip="next turn",
                                          layout=widgets.Layout(width="auto"))
        self.next_button.add_class("ctxlab-next")
        self.status = widgets.HTML(layout=widgets.Layout(flex=NO_SHRINK))
        self.status.add_class("ctxlab-replay-status")
        self.session_view = SessionView(self.snapshots[start - 1].ledger)
        self.session_view.layout.flex = NO_SHRINK
        self.new_input = widgets.HTML(layout=widgets.Layout(flex=NO_SHRINK))
        self.new_input.add_class("ctxlab-replay-input")
        self.budget = BudgetBar()
        self.budget.layout.flex = NO_SHRINK
        self.model_input = widgets.HTML(layout=widgets.Layout(flex=NO_SHRINK))
        self.prev_button.on_click(lambda _b: self.previous())
        self.next_button.on_click(lambda _b: self.next())
        self.slider.observe(self._on_slider, names="value")
        controls = widgets.HBox((self.prev_button, self.slider, self.next_button),
                                layout=widgets.Layout(align_items="center", flex=NO_SHRINK))
        self.body = widgets.VBox((self.session_view, self.model_input),
                                 layout=self._body_layout())
        self.body.add_class("ctxlab-replay-body")
        self.layout.height = self.HEIGHT
        self.children = (controls, self.status, self.budget, self.new_input, self.body)
        self._render(start)

    def _body_layout(self) -> widgets.Layout:
        """The body takes the height the parts above leave, and scrolls."""
        return widgets.Layout(flex="1 1 auto", min_height=self.BODY_MIN_HEIGHT,
                              overflow="auto", border="1px solid #ddd", padding="4px")

    @classmethod
    async def record(
        cls,
        conversation_items: Sequence[Mapping[str, Any]],
        session: Any,
        *,
        limit: int | None = None,
        title: str | None = None,
        instructions: str | None = None,
        tools: Sequence[Any] = (),
        instructions_tokens: int | None = None,
        start: int | None = None,
    ) -> ReplayView:
        """Replay ``conversation_items`` into ``session`` as the Runner would, and view it.

        ``session`` should be empty: the replay appends to it. ``limit`` is the item limit
        the Runner would pass to ``get_items``. Pass the agent's ``instructions`` (and
        ``tools``) so that totals count them as every model call does (the same number the
        run plots show); ``instructions_tokens`` overrides that count.
        """
        snapshots = await replay(conversation_items, session, limit=limit)
        counter = getattr(session, "token_counter", None)
        counter = counter if isinstance(counter, TokenCounter) else None
        if instructions_tokens is None:
            from ...core.tokens import count_request_tokens

            instructions_tokens = count_request_tokens(instructions, [], list(tools))["total"]
        return cls(snapshots, title=title, instructions_tokens=instructions_tokens,
                   token_counter=counter, start=start)

    # -- navigation --------------------------------------------------------------------
    @property
    def step(self) -> int:
        """The selected snapshot, 1-based (the slider's value)."""
        return self.slider.value

    @property
    def snapshot(self) -> Snapshot:
        return self.snapshots[self.slider.value - 1]

    @property
    def sections(self) -> dict[str, int]:
        """Budget sections of the selected model call."""
        return dict(self._sections[self.slider.value - 1])

    def go(self, step: int) -> None:
        """Show snapshot ``step`` (1-based; clamped to the recorded range)."""
        self.slider.value = min(max(int(step), self.slider.min), self.slider.max)

    def next(self) -> None:
        self.go(self.slider.value + 1)

    def previous(self) -> None:
        self.go(self.slider.value - 1)

    def _on_slider(self, change: Mapping[str, Any]) -> None:
        self._render(int(change["new"]))

    def _render(self, step: int) -> None:
        snapshot = self.snapshots[step - 1]
        fresh = self._inputs[step - 1]
        sections = self._sections[step - 1]
        sent, full = sent_tokens(sections), full_tokens(sections)
        self.prev_button.disabled = step <= 1
        self.next_button.disabled = step >= len(self.snapshots)
        label = turn_label(snapshot.turn, self._last_turn)
        what = (
            "the next model call would see" if not snapshot.turn
            else "the model was sent"
        )
        heading = f"<b>{esc(self.title)}</b> · " if self.title else ""
        self.status.value = (
            f"<div style='font-size:13px'>{heading}<b>{label}</b> "
            f"({step} of {len(self.snapshots)}): {what} {sent:,} tokens; the full "
            f"history would be {full:,}</div>"
        )
        self.session_view.title = f"history at {label}" if snapshot.turn else f"history {label}"
        self.session_view.show(snapshot.ledger)
        self.new_input.value = self._new_input_html(fresh, final=not snapshot.turn)
        self.budget.show(sections)
        self.model_input.value = model_input_html(
            list(snapshot.ledger.view()), fresh,
            instructions_tokens=self.instructions_tokens, final=not snapshot.turn,
        )

    @staticmethod
    def _new_input_html(fresh: Sequence[tuple[Mapping[str, Any], int]], *, final: bool) -> str:
        """The new input's line, also after the last turn (so the body below never moves)."""
        chips = "".join(input_chip_html(item, tokens) for item, tokens in fresh)
        if final and not chips:
            chips = ("<span style='color:#555'>none yet: this is what the next model call "
                     "would start from</span>")
        return f"<div style='font-size:13px;line-height:26px'><b>new input</b> {chips}</div>"

    # -- static forms ------------------------------------------------------------------
    def to_html(self) -> str:
        """Every recorded model call as one row of chips, stacked (no widgets needed)."""
        rows = [
            replay_row_html(
                turn_label(s.turn, self._last_turn), s.turn, list(s.ledger), fresh, sections
            )
            for s, fresh, sections in zip(self.snapshots, self._inputs, self._sections,
                                          strict=True)
        ]
        return replay_html(rows, title=self.title)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return (
            f"ReplayView({len(self.snapshots)} snapshots, turns 1..{self._last_turn}, "
            f"showing {self.slider.value})"
        )
