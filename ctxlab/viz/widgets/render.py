"""Static HTML for ledgers, budgets and replays (inline CSS, no JavaScript).

The live widgets use these strings for their non-interactive parts, and every widget's
``to_html()`` / ``_repr_html_`` is built from them, so a lesson stays readable where widgets
cannot run (GitHub, nbconvert HTML). Output is deterministic: the same ledger gives the
same HTML, which keeps notebook outputs stable under nbval.

Every chip is a ``<span class="ctxlab-chip ctxlab-state-<state>">`` with ``data-state``,
``data-index`` (``-`` for a synthetic entry), ``data-kind`` and ``data-tokens`` attributes.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.items import item_kind, item_text, preview
from ...core.ledger import STATES, LedgerEntry
from ...core.sections import (
    FULL_HISTORY,
    SECTION_LABELS,
    SECTIONS,
    full_tokens,
    sent_tokens,
)
from ..palette import SECTION_COLORS
from .chips import (
    STATE_MARKS,
    STATE_MEANINGS,
    chip_label,
    chip_tooltip,
    entry_heading,
    group_entries,
    kind_label,
    state_color,
    text_color,
)

FONT = "font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif"
BOX = f"{FONT};font-size:13px;color:#222;line-height:1.4"
HISTORY_COLOR = "#D9D9D9"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 item``, ``2 items`` (``words`` for an irregular plural)."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


def esc(text: Any) -> str:
    """HTML-escape ``text`` for element content and quoted attributes."""
    return html.escape(str(text), quote=True)


def chip_classes(entry: LedgerEntry) -> tuple[str, ...]:
    """CSS classes of a chip (also used on the live widget's buttons)."""
    index = "synthetic" if entry.index is None else str(entry.index)
    return ("ctxlab-chip", f"ctxlab-state-{entry.state}", f"ctxlab-kind-{entry.kind}",
            f"ctxlab-index-{index}")


def chip_style(background: str, *, compact: bool = False) -> str:
    pad = "0 4px" if compact else "1px 8px"
    return (
        f"display:inline-block;margin:2px;padding:{pad};border-radius:9px;"
        f"font-size:{11 if compact else 12}px;line-height:18px;white-space:nowrap;"
        f"background:{background};color:{text_color(background)}"
    )


def chip_html(entry: LedgerEntry, *, compact: bool = False) -> str:
    """One chip: state mark and kind, coloured by state, tooltip with tokens and text."""
    index = "-" if entry.index is None else str(entry.index)
    return (
        f"<span class='{' '.join(chip_classes(entry))}' data-state='{esc(entry.state)}' "
        f"data-index='{index}' data-kind='{esc(entry.kind)}' data-tokens='{entry.tokens}' "
        f"title='{esc(chip_tooltip(entry))}' "
        f"style='{chip_style(state_color(entry.state), compact=compact)}'>"
        f"{esc(chip_label(entry, compact=compact))}</span>"
    )


def input_chip_html(item: Mapping[str, Any], tokens: int, *, compact: bool = False) -> str:
    """A chip for an item of the new input (not in the ledger yet: it is stored after the call)."""
    kind = item_kind(item)
    tip = f"new input · {kind_label(kind)} · {tokens} tokens\n{preview(item_text(item), 160)}"
    name = "U" if compact and kind == "user" else kind_label(kind)
    background = SECTION_COLORS["new_input"]
    return (
        f"<span class='ctxlab-input-chip' data-kind='{esc(kind)}' data-tokens='{tokens}' "
        f"title='{esc(tip)}' style='{chip_style(background, compact=compact)}'>"
        f"➜ {esc(name)}</span>"
    )


def legend_html(counts: Mapping[str, int] | None = None) -> str:
    """A legend of the states (colour, mark, meaning and, if given, how many)."""
    items = []
    for state in STATES:
        color = state_color(state)
        count = "" if counts is None else f" ({counts.get(state, 0)})"
        items.append(
            f"<span class='ctxlab-legend-item' data-state='{state}' style='margin-right:12px;"
            f"white-space:nowrap'><span style='{chip_style(color)}'>{STATE_MARKS[state]} "
            f"{state}</span> {esc(STATE_MEANINGS[state])}{count}</span>"
        )
    return f"<div class='ctxlab-legend' style='{BOX};margin:4px 0'>{''.join(items)}</div>"


def group_label_html(label: str, tokens: int, sent: int) -> str:
    return (
        f"<b>{esc(label)}</b><br><span style='color:#555;font-size:11px'>"
        f"{sent} of {tokens} tok sent</span>"
    )


def groups_html(entries: Iterable[LedgerEntry]) -> str:
    """One row per group (preamble, each turn, synthetic items), each a line of chips."""
    rows = []
    for group in group_entries(entries):
        chips = "".join(chip_html(e) for e in group.entries)
        rows.append(
            f"<div class='ctxlab-group' data-group='{esc(group.key)}' style='display:flex;"
            "align-items:flex-start;gap:8px;margin:2px 0'>"
            f"<div style='width:120px;flex:none'>"
            f"{group_label_html(group.label, group.tokens, group.sent_tokens)}</div>"
            f"<div style='display:flex;flex-wrap:wrap'>{chips}</div></div>"
        )
    if not rows:
        return "<div class='ctxlab-empty' style='color:#555'>The session is empty.</div>"
    return "".join(rows)


def detail_html(entry: LedgerEntry | None) -> str:
    """The detail pane: an entry's heading, reason and full text."""
    if entry is None:
        return (
            f"<div class='ctxlab-detail' style='{BOX};color:#555;padding:4px'>"
            "Click a chip to read the item's full text.</div>"
        )
    color = state_color(entry.state)
    return (
        f"<div class='ctxlab-detail' data-state='{esc(entry.state)}' style='{BOX};"
        f"border-left:6px solid {color};padding:4px 8px;margin-top:4px'>"
        f"<div><b>{esc(entry_heading(entry))}</b></div>"
        f"<div style='color:#555'>why: {esc(entry.reason)}</div>"
        "<pre class='ctxlab-detail-text' style='white-space:pre-wrap;word-break:break-word;"
        "margin:4px 0;max-height:320px;overflow:auto;background:#F7F7F7;padding:6px'>"
        f"{esc(entry.text)}</pre></div>"
    )


def full_texts_html(entries: Sequence[LedgerEntry]) -> str:
    """A collapsed section with the full text of every entry (for static renderings)."""
    if not entries:
        return ""
    rows = "".join(
        f"<li data-state='{esc(e.state)}' style='margin:4px 0'>"
        f"<span style='{chip_style(state_color(e.state))}'>{esc(chip_label(e))}</span> "
        f"{esc(entry_heading(e))}<pre style='white-space:pre-wrap;margin:2px 0 0 0;"
        f"background:#F7F7F7;padding:4px'>{esc(e.text)}</pre></li>"
        for e in entries
    )
    return (
        f"<details class='ctxlab-full-texts' style='{BOX}'><summary>Full text of every item "
        f"({len(entries)})</summary><ul style='list-style:none;padding-left:0'>{rows}</ul>"
        "</details>"
    )


def view_summary(entries: Sequence[LedgerEntry]) -> str:
    """``12 stored items (14 chips with the summary pair) · the model is sent 310 tokens:
    250 of the 1,024 stored, plus 60 of summary``: what is counted, said plainly."""
    stored = sum(e.tokens for e in entries if e.index is not None)
    kept = sum(e.tokens for e in entries if e.index is not None and e.state == "kept")
    synthetic = sum(e.tokens for e in entries if e.index is None and e.state == "summary")
    count = sum(1 for e in entries if e.index is not None)
    extra = len(entries) - count
    items = plural(count, "stored item") + (f" ({len(entries)} chips with the summary pair)"
                                            if extra else "")
    if synthetic:
        return (f"{items} · the model is sent {kept + synthetic:,} tokens: {kept:,} of the "
                f"{stored:,} stored, plus {synthetic:,} of summary")
    return f"{items} · the model is sent {kept:,} of the {stored:,} stored tokens"


def header_html(title: str | None, entries: Sequence[LedgerEntry]) -> str:
    heading = f"<b>{esc(title)}</b> · " if title else ""
    return f"<div class='ctxlab-header' style='{BOX}'>{heading}{esc(view_summary(entries))}</div>"


def ledger_html(entries: Sequence[LedgerEntry], *, title: str | None = None) -> str:
    """A whole SessionView as static HTML: header, legend, chip rows and full texts."""
    counts = {state: sum(1 for e in entries if e.state == state) for state in STATES}
    return (
        f"<div class='ctxlab-session-view' style='{BOX}'>"
        f"{header_html(title, entries)}{legend_html(counts)}"
        f"<div class='ctxlab-groups'>{groups_html(entries)}</div>"
        f"{full_texts_html(entries)}</div>"
    )


# ------------------------------------------------------------------------- budgets


def _segments(parts: Iterable[tuple[str, str, int]], scale: int) -> str:
    out = []
    for key, color, tokens in parts:
        if tokens <= 0:
            continue
        label = SECTION_LABELS.get(key, key)
        out.append(
            f"<div class='ctxlab-budget-segment' data-section='{esc(key)}' "
            f"data-tokens='{tokens}' title='{esc(label)}: {tokens:,} tokens' "
            f"style='width:{100 * tokens / scale:.2f}%;background:{color};height:100%'></div>"
        )
    return "".join(out)


def _bar_row(name: str, segments: str, total: int) -> str:
    return (
        "<div style='display:flex;align-items:center;gap:8px;margin:3px 0'>"
        f"<div style='width:90px;flex:none'>{esc(name)}</div>"
        "<div style='flex:1;display:flex;height:16px;background:#FFFFFF;"
        f"border:1px solid #BBBBBB'>{segments}</div>"
        f"<div style='width:100px;flex:none;text-align:right'>{total:,} tok</div></div>"
    )


def budget_html(sections: Mapping[str, int], *, title: str | None = None) -> str:
    """Two bars on one scale: the model call by section, and the same call with full history."""
    sent = sent_tokens(sections)
    full = full_tokens(sections)
    scale = max(sent, full, 1)
    now = _segments(((k, SECTION_COLORS[k], int(sections.get(k, 0))) for k in SECTIONS), scale)
    history = _segments(
        (
            ("instructions", SECTION_COLORS["instructions"], int(sections.get("instructions", 0))),
            (FULL_HISTORY, HISTORY_COLOR, int(sections.get(FULL_HISTORY, 0))),
            ("new_input", SECTION_COLORS["new_input"], int(sections.get("new_input", 0))),
        ),
        scale,
    )
    share = f" ({100 * sent / full:.0f}% of full history)" if full else ""
    legend = "".join(
        f"<span class='ctxlab-budget-legend' data-section='{k}' style='margin-right:10px;"
        f"white-space:nowrap;{'color:#999' if not sections.get(k, 0) else ''}'>"
        f"<span style='display:inline-block;width:10px;height:10px;background:"
        f"{SECTION_COLORS[k]};border:1px solid #888;margin-right:3px'></span>"
        f"{esc(SECTION_LABELS[k])} {int(sections.get(k, 0)):,}</span>"
        for k in SECTIONS
    )
    heading = f"<b>{esc(title)}</b> · " if title else ""
    return (
        f"<div class='ctxlab-budget-bar' style='{BOX}'>"
        f"<div>{heading}the model is sent {sent:,} tokens{esc(share)}</div>"
        f"{_bar_row('sent now', now, sent)}{_bar_row('full history', history, full)}"
        f"<div style='font-size:12px'>{legend}</div></div>"
    )


# ------------------------------------------------------------------------- replays


def model_input_html(
    sent: Sequence[LedgerEntry],
    new_input: Sequence[tuple[Mapping[str, Any], int]],
    *,
    instructions_tokens: int = 0,
    final: bool = False,
) -> str:
    """What one model call was sent, item by item, with token totals.

    ``final`` describes the snapshot after the last turn: what the next call would be sent.
    """
    rows = [
        f"<tr><td>{n}</td><td>{chip_html(e)}</td><td style='text-align:right'>{e.tokens}</td>"
        f"<td>{esc(preview(e.text, 90))}</td></tr>"
        for n, e in enumerate(sent, start=1)
    ]
    rows += [
        f"<tr><td>{len(sent) + n}</td><td>{input_chip_html(item, tokens)}</td>"
        f"<td style='text-align:right'>{tokens}</td>"
        f"<td>{esc(preview(item_text(item), 90))}</td></tr>"
        for n, (item, tokens) in enumerate(new_input, start=1)
    ]
    history = sum(e.tokens for e in sent)
    fresh = sum(t for _, t in new_input)
    total = history + fresh + instructions_tokens
    instr = f"instructions {instructions_tokens:,} + " if instructions_tokens else ""
    return (
        f"<details class='ctxlab-model-input' style='{BOX}'><summary>"
        f"{'The next model call would be sent' if final else 'The model was sent'} "
        f"{plural(len(sent) + len(new_input), 'item')}: {instr}history {history:,} + new input "
        f"{fresh:,} = <b>{total:,} tokens</b></summary>"
        "<table style='border-collapse:collapse;font-size:12px'><thead><tr><th>#</th>"
        "<th>item</th><th>tok</th><th>text</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></details>"
    )


def turn_label(turn: int, last_turn: int) -> str:
    return f"turn {turn}" if turn else f"after turn {last_turn}"


def replay_row_html(
    label: str,
    turn: int,
    entries: Sequence[LedgerEntry],
    new_input: Sequence[tuple[Mapping[str, Any], int]],
    sections: Mapping[str, int],
) -> str:
    """One snapshot as one row of compact chips (groups separated by a gap)."""
    groups = "".join(
        f"<span class='ctxlab-group' data-group='{esc(g.key)}' style='margin-right:6px'>"
        + "".join(chip_html(e, compact=True) for e in g.entries)
        + "</span>"
        for g in group_entries(entries)
    )
    fresh = "".join(input_chip_html(item, tokens, compact=True) for item, tokens in new_input)
    return (
        f"<div class='ctxlab-replay-row' data-turn='{turn}' style='display:flex;"
        "align-items:flex-start;gap:8px;border-top:1px solid #EEE;padding:2px 0'>"
        f"<div style='width:90px;flex:none'><b>{esc(label)}</b></div>"
        f"<div style='flex:1;display:flex;flex-wrap:wrap'>{groups}{fresh}</div>"
        f"<div style='width:150px;flex:none;text-align:right;font-size:12px'>sent "
        f"{sent_tokens(sections):,} / full {full_tokens(sections):,} tok</div></div>"
    )


def replay_html(rows: Sequence[str], *, title: str | None = None) -> str:
    """A whole ReplayView as static HTML: a legend and one row per recorded model call."""
    heading = f"<b>{esc(title)}</b> · " if title else ""
    return (
        f"<div class='ctxlab-replay' style='{BOX}'>"
        f"<div>{heading}what the model was sent at each turn ({plural(len(rows), 'snapshot')}; "
        "➜ marks the new input)</div>"
        f"{legend_html()}{''.join(rows)}</div>"
    )



#: How a collapsed run of unsent turns names the states of its items.
UNSENT_WORDS = {"dropped": "dropped", "summarized": "folded into the summary"}


def unsent_run_html(first: int | None, last: int | None, items: int, tokens: int,
                    states: Mapping[str, int]) -> tuple[str, str]:
    """A collapsed run of unsent turns: its row label (``turns 1–96``, tokens) and what it
    holds (items by state)."""
    turns = f"turns {first}–{last}" if first != last else f"turn {first}"
    how = ", ".join(f"{n:,} {UNSENT_WORDS.get(s, s)}" for s, n in sorted(states.items()) if n)
    label = (f"<div style='line-height:1.25;margin-top:3px'><b>{esc(turns)}</b><br>"
             f"<span style='color:#555;font-size:11px'>0 of {tokens:,} tok sent</span></div>")
    note = (f"<div style='color:#555;font-size:12px;line-height:1.3;margin-top:3px'>"
            f"{plural(items, 'item')} not sent: {esc(how)}</div>")
    return label, note
