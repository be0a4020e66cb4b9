"""SessionView, ReplayView, BudgetBar and budget_sections, built from real sessions.

The trimming tests replay a conversation with tool calls into a real TrimmingSession. The
summary states come from a ledger built by hand (as a SummarizingSession writes it: folded
items ``summarized``, a synthetic ``summary_prompt`` / ``summary`` pair with index None).
"""

from __future__ import annotations

import asyncio
import html
import importlib
import sys
from html.parser import HTMLParser
from typing import Any

import pytest

from ctxlab import STATE_COLORS, STATES, Ledger, LedgerEntry, TrimmingSession
from ctxlab.core.items import item_text
from ctxlab.core.tokens import get_token_counter
from ctxlab.eval.replay import Snapshot, replay
from ctxlab.viz.widgets import (
    FULL_HISTORY,
    SECTIONS,
    BudgetBar,
    ReplayView,
    SessionView,
    budget_sections,
    full_tokens,
    sent_tokens,
    snapshot_sections,
    tokens_per_turn,
)
from ctxlab.viz.widgets.chips import group_entries, kind_label, text_color

from conftest import arun, assistant, call, output, reasoning, user

CONVERSATION = [
    user("My laptop overheats and shuts down."),
    reasoning("rs_1", "The user has a hardware problem; look the device up."),
    call("c1", "lookup_device", serial="LX-42"),
    output("c1", {"model": "LX 14", "firmware": "1.0.2"}),
    assistant("Your LX 14 runs firmware 1.0.2; please update it to 1.0.3."),
    user("Updated to 1.0.3, it is still hot."),
    assistant("Try a factory reset."),
    user("Reset done; now I see error 42."),
    call("c2", "search_kb", query="error 42"),
    output("c2", "Error 42: the battery controller needs a recalibration."),
    assistant("Leave it on charge for 30 minutes."),
    user("Now it shows error 404 in the browser."),
    assistant("Does it happen on every site?"),
]
TURN_STARTS = [0, 5, 7, 11]


def recorded(max_turns: int = 2) -> tuple[TrimmingSession, list[Snapshot]]:
    async def go() -> tuple[TrimmingSession, list[Snapshot]]:
        session = TrimmingSession("widgets", max_turns=max_turns)
        return session, await replay(CONVERSATION, session)

    return arun(go())


def entry(index: int | None, kind: str, turn: int | None, state: str, tokens: int,
          *, position: int | None = None, text: str | None = None) -> LedgerEntry:
    return LedgerEntry(index=index, kind=kind, turn=turn, state=state,  # type: ignore[arg-type]
                       reason=f"reason for {state}", tokens=tokens, position=position,
                       text=text if text is not None else f"{kind} #{index}")


SUMMARY_TEXT = (
    "Summary of the conversation so far:\n"
    "- device: LX 14, serial LX-42, firmware updated 1.0.2 -> 1.0.3\n"
    "- tried: factory reset; error 42 fixed by a battery recalibration\n"
    "- open: error 404 in the browser <not yet diagnosed> & waiting for the user\n"
    + "- detail line that makes the text longer than any preview. " * 4
)

# What a SummarizingSession's ledger looks like after folding turns 1-2.
SUMMARIZED = Ledger([
    entry(0, "developer", None, "kept", 3, position=0),
    entry(1, "user", 1, "summarized", 5),
    entry(2, "assistant", 1, "summarized", 7),
    entry(3, "user", 2, "summarized", 11),
    entry(4, "tool_call", 2, "summarized", 13),
    entry(5, "tool_output", 2, "summarized", 17),
    entry(6, "assistant", 2, "summarized", 19),
    entry(None, "summary_prompt", None, "summary", 23, position=1,
          text="Summarize the conversation so far."),
    entry(None, "summary", None, "summary", 29, position=2, text=SUMMARY_TEXT),
    entry(7, "user", 3, "kept", 31, position=3),
    entry(8, "tool_call", 3, "kept", 37, position=4),
    entry(9, "tool_output", 3, "kept", 41, position=5),
    entry(10, "assistant", 3, "kept", 43, position=6),
])


class ChipParser(HTMLParser):
    """Collects the attributes of every element whose class list has ``cls``."""

    def __init__(self, cls: str):
        super().__init__()
        self.cls = cls
        self.found: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.cls in (values.get("class") or "").split():
            self.found.append(values)


def elements(markup: str, cls: str = "ctxlab-chip") -> list[dict[str, str | None]]:
    parser = ChipParser(cls)
    parser.feed(markup)
    return parser.found


def chip_state(button: Any) -> str:
    states = [c[len("ctxlab-state-"):] for c in button._dom_classes
              if c.startswith("ctxlab-state-")]
    assert len(states) == 1, button._dom_classes
    return states[0]


def ledger_of(session: TrimmingSession) -> Ledger:
    return arun(session.ledger())


# ------------------------------------------------------------------------- budget_sections


def test_budget_sections_of_a_trimmed_session_add_up_to_what_the_model_sees():
    session, _ = recorded(max_turns=2)
    ledger = ledger_of(session)
    sections = budget_sections(ledger)
    kept_outputs = sum(e.tokens for e in ledger if e.state == "kept" and e.kind == "tool_output")
    assert kept_outputs > 0
    assert sections["tool_outputs"] == kept_outputs
    assert sections["recent_turns"] + sections["tool_outputs"] == ledger.view_tokens
    assert sections[FULL_HISTORY] == ledger.raw_tokens
    assert sections["summary"] == sections["retrieved_memory"] == 0
    assert sections["structured_state"] == sections["instructions"] == sections["new_input"] == 0
    assert set(sections) == {*SECTIONS, FULL_HISTORY}


def test_budget_sections_sort_every_kind_and_state():
    ledger = Ledger([
        *SUMMARIZED,
        entry(None, "retrieved", None, "summary", 53, position=7),
        entry(None, "state", None, "summary", 59, position=8),
        entry(None, "summary", None, "dropped", 61),  # a synthetic item cut from the view
        entry(11, "tool_output", 4, "dropped", 67),  # stored but not sent
        entry(12, "user", 4, "kept", 71, position=9),
    ])
    sections = budget_sections(ledger, instructions_tokens=101, new_input_tokens=103)
    assert sections == {
        "instructions": 101,
        "summary": 23 + 29,
        "recent_turns": 3 + 31 + 37 + 43 + 71,
        "tool_outputs": 41,
        "retrieved_memory": 53,
        "structured_state": 59,
        "new_input": 103,
        FULL_HISTORY: 3 + 5 + 7 + 11 + 13 + 17 + 19 + 31 + 37 + 41 + 43 + 67 + 71,
    }
    assert sent_tokens(sections) == 101 + 52 + 185 + 41 + 53 + 59 + 103
    assert full_tokens(sections) == 101 + sections[FULL_HISTORY] + 103
    # every sent entry is counted exactly once
    sent = sum(e.tokens for e in ledger if e.state in ("kept", "summary"))
    assert sent_tokens(sections) - 101 - 103 == sent


def test_budget_sections_of_an_empty_ledger_and_bad_arguments():
    assert budget_sections(Ledger([])) == dict.fromkeys((*SECTIONS, FULL_HISTORY), 0)
    assert budget_sections([], new_input_tokens=5)["new_input"] == 5
    for bad in (-1, 1.5, True, "3", None):
        with pytest.raises(ValueError, match="instructions_tokens"):
            budget_sections(Ledger([]), instructions_tokens=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="new_input_tokens"):
            budget_sections(Ledger([]), new_input_tokens=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="item 1 is dict"):
        budget_sections([SUMMARIZED[0], {"tokens": 3}])  # type: ignore[list-item]


def test_snapshot_sections_count_the_new_input_and_tokens_per_turn_skips_the_final_call():
    _, shots = recorded(max_turns=2)
    counter = get_token_counter()
    for shot in shots:
        sections = snapshot_sections(shot, instructions_tokens=10)
        assert sections["new_input"] == counter.count_items(shot.new_input)
        assert sections["instructions"] == 10
        assert sent_tokens(sections) == 10 + shot.ledger.view_tokens + sections["new_input"]
    per_turn = tokens_per_turn(shots)
    assert len(per_turn) == 4 == len([s for s in shots if s.turn])
    assert per_turn[0] == counter.count_item(CONVERSATION[0])
    full = tokens_per_turn(recorded(max_turns=100)[1])
    assert all(a <= b for a, b in zip(per_turn, full, strict=True))
    assert per_turn[3] < full[3]  # trimming made the last call smaller


def test_budget_and_plots_work_without_ipywidgets(monkeypatch: pytest.MonkeyPatch):
    import ctxlab.viz

    # restore the package attributes the re-imports below rebind
    monkeypatch.setattr(ctxlab.viz, "widgets", importlib.import_module("ctxlab.viz.widgets"))
    monkeypatch.setattr(ctxlab.viz, "plots", importlib.import_module("ctxlab.viz.plots"))
    for name in [n for n in sys.modules if n.startswith(("ctxlab.viz.widgets", "ctxlab.viz.plot"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # "not installed"
    budget = importlib.import_module("ctxlab.core.sections")
    plots = importlib.import_module("ctxlab.viz.plots.lessons")
    assert budget.budget_sections(SUMMARIZED)["summary"] == 52
    assert plots.plot_budget_bars({"a": {"summary": 1}}).axes
    package = importlib.import_module("ctxlab.viz.widgets")
    with pytest.raises(ImportError, match=r"needs ipywidgets: pip install 'ctxlab\[notebook\]'"):
        package.SessionView  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        package.Nope  # noqa: B018


# ------------------------------------------------------------------------- SessionView


def test_session_view_has_a_chip_per_entry_grouped_by_turn_and_coloured_by_state():
    session, _ = recorded(max_turns=2)
    view = arun(SessionView.from_session(session))
    ledger = ledger_of(session)
    assert view.ledger == ledger
    assert len(view.chips) == len(ledger) == len(CONVERSATION)
    for button, e in zip(view.chips, ledger, strict=True):
        assert chip_state(button) == e.state
        assert f"ctxlab-index-{e.index}" in button._dom_classes
        assert "ctxlab-chip" in button._dom_classes
        assert kind_label(e.kind) in button.description
        assert button.style.button_color == STATE_COLORS[e.state]
        assert button.style.text_color == text_color(STATE_COLORS[e.state])
    assert [g.label for g in view.groups] == ["turn 1", "turn 2", "turn 3", "turn 4"]
    rows = view.groups_box.children
    assert [len(row.children[1].children) for row in rows] == [5, 2, 4, 2]
    assert [chip_state(b) for b in rows[0].children[1].children] == ["dropped"] * 5
    assert {chip_state(b) for b in rows[3].children[1].children} == {"kept"}
    labels = [b.description for b in view.chips[:5]]
    assert labels == ["✗ user", "✗ reasoning", "✗ tool call", "✗ tool output", "✗ assistant"]


def test_session_view_legend_and_tooltips():
    session, _ = recorded(max_turns=2)
    view = arun(SessionView.from_session(session))
    legend = elements(view.legend.value, "ctxlab-legend-item")
    assert [item["data-state"] for item in legend] == list(STATES)
    for state in STATES:
        assert STATE_COLORS[state] in view.legend.value
    counts = ledger_of(session).counts()
    assert f"not sent ({counts['dropped']})" in view.legend.value
    for button, e in zip(view.chips, view.chip_entries, strict=True):
        assert f"{e.tokens} tokens" in button.tooltip
        assert e.reason in button.tooltip
        assert " ".join(e.text.split())[:40] in button.tooltip


def test_clicking_a_chip_shows_its_full_text_in_the_detail_pane():
    session, _ = recorded(max_turns=2)
    view = arun(SessionView.from_session(session))
    assert "Click a chip" in view.detail.value
    output_at = next(n for n, e in enumerate(view.chip_entries) if e.kind == "tool_output")
    view.chips[output_at].click()
    entry_shown = view.chip_entries[output_at]
    assert view.selected == entry_shown
    assert "&quot;firmware&quot;: &quot;1.0.2&quot;" in view.detail.value
    assert f"{entry_shown.tokens} tokens" in view.detail.value
    assert view.chips[output_at].layout.border.startswith("2px solid #000")
    view.chips[0].click()
    assert view.selected == view.chip_entries[0]
    assert "transparent" in view.chips[output_at].layout.border
    with pytest.raises(IndexError, match="no chip at position 99"):
        view.select(99)


def test_summary_states_and_the_full_summary_text():
    view = SessionView(SUMMARIZED, title="summarizing")
    assert [g.label for g in view.groups] == ["preamble", "turn 1", "turn 2", "summary",
                                              "turn 3"]
    assert [chip_state(b) for b in view.chips] == [e.state for e in SUMMARIZED]
    summary_at = next(n for n, e in enumerate(SUMMARIZED) if e.kind == "summary")
    assert view.chips[summary_at].description == "Σ summary"
    assert view.chips[summary_at - 1].description == "Σ summary prompt"
    assert "ctxlab-index-synthetic" in view.chips[summary_at]._dom_classes
    view.chips[summary_at].click()
    # the whole summary, escaped, not a preview
    assert "&lt;not yet diagnosed&gt; &amp; waiting" in view.detail.value
    assert view.detail.value.count("detail line that makes") == 4
    assert "synthetic · summary · summary · 29 tokens" in view.detail.value
    assert "summarized=6" in repr(view)


def test_refresh_after_add_items_shows_the_new_chips():
    async def go() -> None:
        session = TrimmingSession("refresh", max_turns=2)
        await session.add_items(CONVERSATION[:5])
        view = await SessionView.from_session(session)
        assert [chip_state(b) for b in view.chips] == ["kept"] * 5
        await session.add_items(CONVERSATION[5:7])
        assert len(view.chips) == 5  # nothing changes until refresh
        await view.refresh()
        assert [chip_state(b) for b in view.chips] == ["kept"] * 7
        await session.add_items(CONVERSATION[7:8])
        await view.refresh()
        assert [chip_state(b) for b in view.chips] == ["dropped"] * 5 + ["kept"] * 3
        assert view.chips[-1].description == "✓ user"

        other = TrimmingSession("other", max_turns=1)
        await other.add_items(CONVERSATION[:1])
        await view.update_from(other)
        assert view.session is other and len(view.chips) == 1

    arun(go())


def test_selection_follows_the_item_across_redraws():
    _, shots = recorded(max_turns=2)
    view = SessionView(shots[2].ledger)  # before turn 3: everything kept
    view.select(3)
    assert view.selected is not None and view.selected.state == "kept"
    view.show(shots[3].ledger)  # before turn 4: turn 1 dropped
    assert view.selected is not None
    assert view.selected.index == 3 and view.selected.state == "dropped"
    assert "dropped" in view.detail.value
    view.show(Ledger([]))
    assert view.selected is None and "Click a chip" in view.detail.value
    assert "empty" in view.groups_box.children[0].value


def test_constructor_with_a_session_reads_it_in_the_running_loop():
    async def go() -> SessionView:
        session = TrimmingSession("auto", max_turns=2)
        await session.add_items(CONVERSATION[:5])
        view = SessionView(session)
        assert len(view.chips) == 0 and "reading the session" in view.header.value
        for _ in range(5):
            await asyncio.sleep(0)
        assert len(view.chips) == 5
        return view

    arun(go())
    session = TrimmingSession("no-loop")
    view = SessionView(session)  # no running loop: it says how to read the session
    assert "await view.refresh()" in view.header.value
    arun(session.add_items(CONVERSATION[:1]))
    arun(view.refresh())
    assert len(view.chips) == 1


def test_session_view_rejects_what_it_cannot_show():
    with pytest.raises(ValueError, match="session with an async ledger"):
        SessionView(42)
    with pytest.raises(ValueError, match="expected a Ledger"):
        SessionView([{"role": "user"}])
    with pytest.raises(ValueError, match="update_from needs a session"):
        arun(SessionView().update_from(SUMMARIZED))  # type: ignore[arg-type]


def test_session_view_static_html_has_the_same_chips():
    session, _ = recorded(max_turns=2)
    view = arun(SessionView.from_session(session, title="trimmed <2>"))
    markup = view.to_html()
    assert markup == view._repr_html_()
    chips = elements(markup)
    ledger = view.ledger
    assert [c["data-state"] for c in chips] == [e.state for e in ledger]
    assert [c["data-index"] for c in chips] == [str(e.index) for e in ledger]
    assert all(f"{e.tokens} tokens" in (c["title"] or "") for c, e in zip(chips, ledger,
                                                                           strict=True))
    groups = elements(markup, "ctxlab-group")
    assert [g["data-group"] for g in groups] == ["turn:1", "turn:2", "turn:3", "turn:4"]
    assert len(elements(markup, "ctxlab-legend-item")) == len(STATES)
    assert "trimmed &lt;2&gt;" in markup
    assert markup == SessionView(ledger, title="trimmed <2>").to_html()  # deterministic
    static = SessionView(SUMMARIZED).to_html()
    assert [c["data-state"] for c in elements(static)] == [e.state for e in SUMMARIZED]
    assert [c["data-index"] for c in elements(static)][7:9] == ["-", "-"]
    assert "&lt;not yet diagnosed&gt; &amp; waiting" in static  # full text, in <details>


def test_groups_keep_synthetic_entries_where_the_ledger_puts_them():
    groups = group_entries(SUMMARIZED)
    assert [(g.key, g.start, len(g.entries)) for g in groups] == [
        ("preamble", 0, 1), ("turn:1", 1, 2), ("turn:2", 3, 4), ("synthetic:summary", 7, 2),
        ("turn:3", 9, 4),
    ]
    assert groups[3].sent_tokens == 52 and groups[2].sent_tokens == 0


def test_views_of_a_real_summarizing_session():
    summarizing = pytest.importorskip("ctxlab.sessions.summarizing")

    async def go() -> tuple[ReplayView, SessionView]:
        session = summarizing.SummarizingSession(keep_last_n_turns=1, context_limit=2,
                                                 session_id="summaries")
        replay_view = await ReplayView.record(CONVERSATION, session)
        return replay_view, await SessionView.from_session(session)

    replay_view, view = arun(go())
    ledger = view.ledger
    assert [chip_state(b) for b in view.chips] == [e.state for e in ledger]
    assert {"summarized", "summary", "kept"} <= {e.state for e in ledger}
    labels = [g.label for g in view.groups]
    assert labels.index("summary") == labels.index("turn 2") + 1
    pair = [n for n, e in enumerate(ledger) if e.index is None]
    assert [ledger[n].kind for n in pair] == ["summary_prompt", "summary"]
    summary = ledger[pair[1]]
    view.chips[pair[1]].click()
    assert html.escape(summary.text, quote=True) in view.detail.value  # in full
    assert budget_sections(ledger)["summary"] == sum(ledger[n].tokens for n in pair)
    assert [c["data-state"] for c in elements(view.to_html())] == [e.state for e in ledger]
    replay_view.go(3)  # before the fold
    assert "summarized" not in [chip_state(b) for b in replay_view.session_view.chips]
    replay_view.next()  # the call of turn 4 sees turns 1-2 folded into the summary
    states = [chip_state(b) for b in replay_view.session_view.chips]
    assert states.count("summary") == 2 and "summarized" in states


# ------------------------------------------------------------------------- ReplayView


class SpySession:
    """A session that counts reads, to show that scrubbing never touches it."""

    def __init__(self, inner: TrimmingSession):
        self.inner = inner
        self.reads = 0
        self.session_id = inner.session_id
        self.session_settings = inner.session_settings
        self.token_counter = inner.token_counter

    async def get_items(self, limit: int | None = None) -> list[dict[str, Any]]:
        self.reads += 1
        return await self.inner.get_items(limit)

    async def ledger(self, limit: int | None = None) -> Ledger:
        self.reads += 1
        return await self.inner.ledger(limit)

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        await self.inner.add_items(items)


def test_replay_view_scrubs_recorded_snapshots_without_reading_the_session():
    spy = SpySession(TrimmingSession("replay", max_turns=2))
    view = arun(ReplayView.record(CONVERSATION, spy, instructions="Help with devices."))
    reads = spy.reads
    assert len(view.snapshots) == 5
    assert (view.slider.min, view.slider.max, view.slider.value) == (1, 5, 5)  # the last
    assert view.next_button.disabled and not view.prev_button.disabled
    assert view.sections["instructions"] > 0  # counted as every model call counts them
    view.go(1)
    assert view.session_view.chips == []
    assert "➜ user" in view.new_input.value
    for step in range(1, 6):
        view.go(step)
        shot = view.snapshots[step - 1]
        assert view.snapshot is shot
        assert [chip_state(b) for b in view.session_view.chips] == [e.state for e in shot.ledger]
        assert view.sections == {**snapshot_sections(shot),
                                 "instructions": view.instructions_tokens}
    assert view.next_button.disabled and not view.prev_button.disabled
    assert spy.reads == reads  # no session (and so no model) call while scrubbing
    assert "after turn 4" in view.status.value
    assert view.session_view.title == "history after turn 4"  # not "history at after turn 4"
    # the final snapshot has no new input, and says so on a line of the same height
    assert "none yet" in view.new_input.value and "ctxlab-input-chip" not in view.new_input.value
    view.go(1)
    assert view.session_view.title == "history at turn 1"
    assert "sent 1 item:" in view.model_input.value  # not "1 items"
    assert "0 stored items" in view.session_view.header.value


def test_replay_buttons_and_slider_move_through_turns():
    _, shots = recorded(max_turns=2)
    view = ReplayView(shots, start=3)
    before = [chip_state(b) for b in view.session_view.chips]
    assert before == ["kept"] * 7
    view.next_button.click()
    assert view.slider.value == 4
    after = [chip_state(b) for b in view.session_view.chips]
    assert after == ["dropped"] * 5 + ["kept"] * 6  # turn 1 slid out of the window
    assert "turn 4" in view.status.value
    view.prev_button.click()
    assert view.slider.value == 3
    view.slider.value = 5  # dragging the slider redraws too
    assert len(view.session_view.chips) == len(CONVERSATION)
    view.go(99)
    assert view.slider.value == 5
    view.go(-3)
    assert view.slider.value == 1


def test_replay_view_shows_what_the_model_was_sent_with_totals():
    _, shots = recorded(max_turns=2)
    view = ReplayView(shots, instructions_tokens=50, start=4)
    sections = view.sections
    assert sections["instructions"] == 50
    total = sent_tokens(sections)
    assert f"<b>{total:,} tokens</b>" in view.model_input.value
    assert f"the model was sent {total:,} tokens" in view.status.value
    assert f"would be {full_tokens(sections):,}" in view.status.value
    sent_chips = elements(view.model_input.value)
    assert [c["data-index"] for c in sent_chips] == [str(i) for i in range(5, 11)]
    assert len(elements(view.model_input.value, "ctxlab-input-chip")) == 1
    assert view.budget.sections == sections
    segments = elements(view.budget.html.value, "ctxlab-budget-segment")
    now = {s["data-section"]: int(s["data-tokens"] or 0) for s in segments[:4]}
    assert now == {k: v for k, v in sections.items() if v and k in SECTIONS}


def test_replay_view_shows_turns_folding_into_a_summary():
    folded = Ledger([e for e in SUMMARIZED if e.turn in (None, 1, 2) and e.index is not None])
    early = Ledger([entry(e.index, e.kind, e.turn, "kept", e.tokens, position=e.index)
                    for e in folded])
    shots = [
        Snapshot(3, [], [user("third question")], early),
        Snapshot(4, [], [user("fourth question")], SUMMARIZED),
    ]
    view = ReplayView(shots, start=1)
    assert {chip_state(b) for b in view.session_view.chips} == {"kept"}
    view.next()
    states = [chip_state(b) for b in view.session_view.chips]
    assert states.count("summarized") == 6 and states.count("summary") == 2
    assert "summary" in [g.label for g in view.session_view.groups]
    assert view.sections["summary"] == 52
    rows = elements(view.to_html(), "ctxlab-replay-row")
    assert [r["data-turn"] for r in rows] == ["3", "4"]


def test_replay_view_static_html_stacks_every_turn():
    _, shots = recorded(max_turns=2)
    view = ReplayView(shots, title="trim 2")
    markup = view._repr_html_()
    assert markup == view.to_html() == ReplayView(shots, title="trim 2").to_html()
    rows = markup.split("class='ctxlab-replay-row'")[1:]
    assert len(rows) == len(shots)
    for row, shot in zip(rows, shots, strict=True):
        assert [c["data-state"] for c in elements(row)] == [e.state for e in shot.ledger]
        assert len(elements(row, "ctxlab-input-chip")) == len(shot.new_input)
    assert [r["data-turn"] for r in elements(markup, "ctxlab-replay-row")] == [
        "1", "2", "3", "4", "0"]
    assert "after turn 4" in markup
    assert repr(view) == "ReplayView(5 snapshots, turns 1..4, showing 5)"


def test_replay_view_rejects_bad_input():
    _, shots = recorded(max_turns=2)
    with pytest.raises(ValueError, match="at least one snapshot"):
        ReplayView([])
    with pytest.raises(ValueError, match="item 1 is a Ledger"):
        ReplayView([shots[0], shots[0].ledger])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="list of Snapshot"):
        ReplayView(shots[0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="start must be between 1 and 5"):
        ReplayView(shots, start=6)
    # (the layout itself, rows that never squash and a height that never changes, is
    # checked in a real browser: tests/viz/test_browser.py)
    view = ReplayView(shots)
    assert view.layout.height == ReplayView.HEIGHT and view.body in view.children


# ------------------------------------------------------------------------- BudgetBar


def test_budget_bar_draws_sections_against_the_full_history():
    bar = BudgetBar.from_ledger(SUMMARIZED, instructions_tokens=40, new_input_tokens=8)
    sections = budget_sections(SUMMARIZED, instructions_tokens=40, new_input_tokens=8)
    assert bar.sections == sections
    assert bar.sent_tokens == sent_tokens(sections) == 40 + 52 + 114 + 41 + 8
    assert bar.full_tokens == 40 + 227 + 8
    segments = elements(bar.to_html(), "ctxlab-budget-segment")
    now = [(s["data-section"], int(s["data-tokens"] or 0)) for s in segments]
    assert now == [("instructions", 40), ("summary", 52), ("recent_turns", 114),
                   ("tool_outputs", 41), ("new_input", 8),
                   ("instructions", 40), (FULL_HISTORY, 227), ("new_input", 8)]
    widths = [float((s["style"] or "").split("width:")[1].split("%")[0]) for s in segments]
    assert sum(widths[5:]) == pytest.approx(100.0, abs=0.05)  # the longer bar fills the row
    assert widths[1] == pytest.approx(100 * 52 / bar.full_tokens, abs=0.01)
    assert bar.to_html() == bar._repr_html_() == bar.html.value
    assert repr(bar) == "BudgetBar(sent=255, full_history_call=275)"


def test_budget_bar_from_session_and_bad_sections():
    session, _ = recorded(max_turns=2)
    bar = arun(BudgetBar.from_session(session, instructions_tokens=12))
    assert bar.sections == budget_sections(ledger_of(session), instructions_tokens=12)
    with pytest.raises(ValueError, match=r"unknown budget section\(s\) \['memory'\]"):
        bar.show({"memory": 3})
    with pytest.raises(ValueError, match="'summary' must be an integer >= 0"):
        bar.show({"summary": -1})
    assert bar.sections["instructions"] == 12  # a failed show() changes nothing
    empty = BudgetBar()
    assert empty.sent_tokens == 0 and "sent 0 tokens" in empty.to_html()


def test_every_new_input_item_is_counted_once():
    _, shots = recorded(max_turns=2)
    view = ReplayView(shots, start=2)
    counter = get_token_counter()
    expected = counter.count_item(shots[1].new_input[0])
    assert view.sections["new_input"] == expected
    assert f"data-tokens='{expected}'" in view.new_input.value
    assert item_text(shots[1].new_input[0]) in view.new_input.value


def test_session_view_follows_the_session_live():
    import asyncio

    from ctxlab import SessionView

    async def go():
        session = TrimmingSession("live", max_turns=2)
        await session.add_items([user("first question")])
        live = await SessionView.from_session(session)
        frozen = await SessionView.from_session(session, live=False)
        assert len(live.chip_entries) == 1
        await session.add_items([user("second question"), user("third question")])
        for _ in range(50):
            if len(live.chip_entries) == 3:
                break
            await asyncio.sleep(0.01)
        assert len(live.chip_entries) == 3 and len(frozen.chip_entries) == 1
        session.set_max_turns(1)  # a setting change redraws too
        for _ in range(50):
            if [e.state for e in live.chip_entries].count("dropped") == 2:
                break
            await asyncio.sleep(0.01)
        assert [e.state for e in live.chip_entries] == ["dropped", "dropped", "kept"]
        live.close()
        await session.add_items([user("fourth question")])
        await asyncio.sleep(0.05)
        assert len(live.chip_entries) == 3  # closed: no longer follows

    arun(go())


# ------------------------------------------------------------------------- long conversations


def _chat(turns: int) -> list[dict[str, Any]]:
    return [item for n in range(1, turns + 1)
            for item in (user(f"Turn {n}: error {n}."), assistant(f"Try step {n}."))]


def _rows(view: SessionView) -> list[str]:
    """groups_box's children by kind: a turn's label, 'run', or 'detail'."""
    out = []
    for child in view.groups_box.children:
        if child is view.detail:
            out.append("detail")
        elif "ctxlab-unsent-run" in child._dom_classes:
            out.append("run")
        else:
            out.append(next(c for c in child._dom_classes if c.startswith("ctxlab-group-")))
    return out


def test_unsent_runs_are_long_runs_of_turns_the_model_is_not_sent():
    from ctxlab.viz.widgets.chips import unsent_runs

    session = TrimmingSession("runs", max_turns=2)
    arun(session.add_items(_chat(8)))
    groups = group_entries(arun(session.ledger()))
    assert unsent_runs(groups, 3) == [range(0, 6)]
    assert unsent_runs(groups, 7) == [] and unsent_runs(groups, None) == []
    assert unsent_runs(groups[:2] + groups[6:], 3) == []  # 2 unsent turns: shown as they are


def test_a_long_view_opens_on_what_the_model_is_sent_and_opens_the_rest_on_request():
    session = TrimmingSession("long", max_turns=3)
    arun(session.add_items(_chat(100)))
    view = SessionView(arun(session.ledger()))
    assert _rows(view) == ["run", "ctxlab-group-turn-98", "ctxlab-group-turn-99",
                           "ctxlab-group-turn-100"]
    toggle = view._run_rows[0][2]
    assert toggle.description == "▸ show 97 turns not sent"
    assert "194 items not sent: 194 dropped" in view._run_rows[0][3].value
    toggle.click()
    assert len(_rows(view)) == 101 and _rows(view)[1] == "ctxlab-group-turn-1"
    assert toggle.description == "▾ hide these 97 turns"
    toggle.click()
    assert len(_rows(view)) == 4
    # the broken variant: every turn its row (the second edition's view)
    assert len(_rows(SessionView(arun(session.ledger()), collapse_at=None))) == 100
    with pytest.raises(ValueError, match="collapse_at"):
        SessionView(collapse_at=0)


def test_a_chips_full_text_opens_right_under_its_row():
    session = TrimmingSession("detail", max_turns=3)
    arun(session.add_items(_chat(20)))
    view = SessionView(arun(session.ledger()))
    assert view.detail in view.children and "detail" not in _rows(view)  # nothing selected
    view.chips[-4].click()  # turn 19's user message
    assert _rows(view)[-3:] == ["ctxlab-group-turn-19", "detail", "ctxlab-group-turn-20"]
    assert view.detail not in view.children and "#36 · turn 19" in view.detail.value
    view.select(0)  # a dropped item in the collapsed run: the pane is under the run's row
    assert _rows(view)[:2] == ["run", "detail"]
    view.toggle_unsent()
    assert _rows(view)[:3] == ["run", "ctxlab-group-turn-1", "detail"]  # the "hide" row
