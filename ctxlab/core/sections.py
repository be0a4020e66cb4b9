"""Where the context budget goes: a ledger split into the sections a model call is made of.

A model call is built from the agent's instructions, whatever the memory strategy sends
from the session (a summary, recent turns and their tool outputs, retrieved memory,
structured state) and the new user input. :func:`budget_sections` splits a
:class:`~ctxlab.core.ledger.Ledger` into those sections using nothing but the ledger's entries, so
it works for every strategy; it also reports ``full_history``, the tokens of every stored
item, which is what the session would send if it kept everything.

This module is pure Python (no ipywidgets, no matplotlib): widgets, plots and evaluation
share it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .ledger import KEPT, SUMMARY, LedgerEntry
from .tokens import TokenCounter, get_token_counter

#: The sections of one model call, in the order a :class:`~ctxlab.ContextManager` assembles
#: them (and tables, bars and plots list them): instructions, structured state, the
#: summary, the recent turns with their tool outputs, retrieved memory, the new input.
SECTIONS: tuple[str, ...] = (
    "instructions",
    "structured_state",
    "summary",
    "recent_turns",
    "tool_outputs",
    "retrieved_memory",
    "new_input",
)

#: Key of the tokens of every stored item (what keeping the full history would send).
FULL_HISTORY = "full_history"

#: Human-readable names of the sections.
SECTION_LABELS: dict[str, str] = {
    "instructions": "instructions",
    "summary": "summary",
    "recent_turns": "recent turns",
    "tool_outputs": "tool outputs",
    "retrieved_memory": "retrieved memory",
    "structured_state": "structured state",
    "new_input": "new input",
    FULL_HISTORY: "full history",
}

#: Section of each synthetic entry kind a strategy may inject.
SYNTHETIC_KIND_SECTIONS: dict[str, str] = {
    "summary": "summary",
    "summary_prompt": "summary",
    "retrieved": "retrieved_memory",
    "state": "structured_state",
}

#: States whose entries are sent to the model (see :mod:`ctxlab.core.ledger`).
SENT_STATES: frozenset[str] = frozenset({KEPT, SUMMARY})


def is_sent(entry: LedgerEntry) -> bool:
    """True when the model is sent this entry (state ``kept`` or ``summary``)."""
    return entry.state in SENT_STATES


def entry_section(entry: LedgerEntry) -> str:
    """The section an entry belongs to when it is sent.

    Synthetic entries go by kind (``summary`` / ``summary_prompt`` -> summary,
    ``retrieved`` -> retrieved memory, ``state`` -> structured state); tool outputs, stored
    or synthetic (a compacted output), are tool outputs; everything else is recent turns.
    """
    if entry.index is None and entry.kind in SYNTHETIC_KIND_SECTIONS:
        return SYNTHETIC_KIND_SECTIONS[entry.kind]
    if entry.kind == "tool_output":
        return "tool_outputs"
    return "recent_turns"


def _check_tokens(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return value


def budget_sections(
    ledger: Iterable[LedgerEntry],
    *,
    instructions_tokens: int = 0,
    new_input_tokens: int = 0,
) -> dict[str, int]:
    """Tokens per section of a model call, plus the full-history total.

    Returns a dict with every key of :data:`SECTIONS` (zero when empty) and
    :data:`FULL_HISTORY`. Only entries the model is sent count towards the sections
    (:func:`is_sent`); ``full_history`` is the sum over every stored entry (synthetic entries
    excluded), whatever its state. ``instructions_tokens`` and ``new_input_tokens`` come from
    outside the session (the agent's instructions are never stored; the new input is stored
    after the model call).
    """
    sections = dict.fromkeys(SECTIONS, 0)
    sections["instructions"] = _check_tokens("instructions_tokens", instructions_tokens)
    sections["new_input"] = _check_tokens("new_input_tokens", new_input_tokens)
    full = 0
    for n, entry in enumerate(ledger):
        if not isinstance(entry, LedgerEntry):
            raise ValueError(
                f"budget_sections expects LedgerEntry items (a Ledger); item {n} is "
                f"{type(entry).__name__}"
            )
        if entry.index is not None:
            full += entry.tokens
        if is_sent(entry):
            sections[entry_section(entry)] += entry.tokens
    sections[FULL_HISTORY] = full
    return sections


def sent_tokens(sections: Mapping[str, int]) -> int:
    """Tokens of the whole model call: the sum of every section."""
    return sum(int(sections.get(name, 0)) for name in SECTIONS)


def full_tokens(sections: Mapping[str, int]) -> int:
    """Tokens of the same call if the full history were sent instead of the session's view."""
    return (
        int(sections.get("instructions", 0))
        + int(sections.get(FULL_HISTORY, 0))
        + int(sections.get("new_input", 0))
    )


def snapshot_sections(
    snapshot: Any,
    *,
    instructions_tokens: int = 0,
    token_counter: TokenCounter | None = None,
) -> dict[str, int]:
    """Sections of a replay :class:`~ctxlab.eval.replay.Snapshot`, counting its new input."""
    counter = token_counter or get_token_counter()
    return budget_sections(
        snapshot.ledger,
        instructions_tokens=instructions_tokens,
        new_input_tokens=counter.count_items(snapshot.new_input),
    )


def tokens_per_turn(
    snapshots: Iterable[Any],
    *,
    instructions_tokens: int = 0,
    token_counter: TokenCounter | None = None,
) -> list[int]:
    """Tokens sent at each user turn of a replay (the final, turn-0 snapshot is skipped)."""
    counter = token_counter or get_token_counter()
    return [
        sent_tokens(
            snapshot_sections(s, instructions_tokens=instructions_tokens, token_counter=counter)
        )
        for s in snapshots
        if s.turn
    ]
