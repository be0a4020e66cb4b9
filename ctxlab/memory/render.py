"""Render a :class:`~ctxlab.memory.state.SupportState` as one compact developer message.

The text is short labelled lines, only for fields that hold a value, so an early state costs
a few dozen tokens and a full one stays within a few hundred::

    Conversation state (kept by the memory system; latest values win; as of turn 12)
    user: name Dana Whitfield | email dana.whitfield@example.com
    issue: category overheating | serial SN-4Q7K-22981 | ticket TCK-48213 | ...
    milestones: t2 lookup_device SN-4Q7K-22981: model Aurora 14 (2023) | t7 ...
    next action: Waiting for the user to answer: Which firmware version ...?
    superseded: issue.firmware v1.0.3 (t5) -> v1.0.4 (t9)

Milestones and superseded values are capped (the newest are shown) so the message cannot
grow without bound; ``max_tokens`` is a hard cap on top (lines are dropped from the end of
those lists first, then the text is cut).
"""

from __future__ import annotations

from typing import Any

from ..context.sources import developer_message
from ..core.facts import facts_in_text
from ..core.tokens import DEFAULT_ENCODING, get_token_counter
from .state import LIST_FIELDS, SCALAR_FIELDS, SupportState

STATE_HEADER = "Conversation state (kept by the memory system; latest values win"

_USER = (
    ("name", "name"),
    ("email", "email"),
    ("phone", "phone"),
    ("member_level", "member level"),
    ("user_id", "user id"),
)
_ISSUE = (
    ("category", "category"),
    ("device_model", "device"),
    ("serial", "serial"),
    ("order_id", "order"),
    ("ticket_id", "ticket"),
    ("status", "status"),
    ("rma", "RMA"),
    ("reservation_ids", "reservations"),
    ("firmware", "firmware"),
    ("error_codes", "error"),
)


def _fields(section: Any, names: tuple[tuple[str, str], ...]) -> str:
    parts = []
    for attr, label in names:
        value = getattr(section, attr)
        if attr == "error_codes" and value:
            # "error 42, error E8461": each code next to the word, as people (and the
            # offline model's fact patterns) read error codes
            parts.append(", ".join(f"{label} {code}" for code in value))
            continue
        if isinstance(value, list):
            value = ", ".join(value)
        if value:
            parts.append(f"{label} {value}")
    return " | ".join(parts)


def _t(turn: int | None) -> str:
    return f"t{turn}" if turn is not None else "t?"


def _replaced_values(state: SupportState) -> dict[str, str]:
    """Values the state replaced and holds nowhere as current -> what replaced them last."""
    current: set[str] = set()
    for path in SCALAR_FIELDS:
        value = state.get(path)
        if value:
            current.add(str(value))
            current.update(f.value for f in facts_in_text(str(value)))
    for path in LIST_FIELDS:
        current.update(state.get(path))
    replaced = {h.value: h.replaced_by for h in state.history if h.value not in current}
    for h in state.history:  # values inside replaced text ("category error E1")
        for fact in facts_in_text(h.value):
            if fact.value not in current:
                replaced.setdefault(fact.value, h.replaced_by)
    return replaced


def _mark(text: str, replaced: dict[str, str]) -> str:
    """A milestone with every value the state has since replaced marked as superseded (a
    milestone is history: "lookup_order a@x" must not read as the current email)."""
    if not replaced:
        return text
    for fact in reversed(facts_in_text(text)):
        if not fact.stale and fact.value in replaced:
            end = fact.start + len(fact.value)
            text = f"{text[:end]} [superseded by {replaced[fact.value]}]{text[end:]}"
    return text


def render_state(
    state: SupportState,
    *,
    max_milestones: int = 6,
    max_superseded: int = 4,
    max_tokens: int = 400,
) -> str:
    """The state as compact text ("" while it is empty); at most ``max_tokens`` tokens."""
    for name, value in (
        ("max_milestones", max_milestones),
        ("max_superseded", max_superseded),
        ("max_tokens", max_tokens),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    if state.is_empty():
        return ""
    as_of = f"; as of turn {state.turn})" if state.turn else ")"
    head = [STATE_HEADER + as_of]
    replaced = _replaced_values(state)
    user = _fields(state.user, _USER)
    issue = _mark(_fields(state.issue, _ISSUE), replaced)
    if user:
        head.append(f"user: {user}")
    if issue:
        head.append(f"issue: {issue}")
    if state.constraints:
        head.append("constraints: " + " | ".join(
            f"{n.topic} ({_t(n.turn)}): {n.text}" for n in state.constraints))
    if state.commitments:
        head.append("commitments: " + " | ".join(
            f"({_t(n.turn)}): {n.text}" for n in state.commitments))
    if state.next_action:
        head.append(f"next action: {state.next_action}")
    milestones = state.milestones[-max_milestones:] if max_milestones else []
    superseded = state.history[-max_superseded:] if max_superseded else []
    counter = get_token_counter(DEFAULT_ENCODING)

    def build(ms: list[Any], ss: list[Any]) -> str:
        lines = list(head)
        if ms:
            lines.append("milestones: " + " | ".join(
                f"{_t(m.turn)} {_mark(m.text, replaced)}" for m in ms))
        if ss:
            lines.append(
                "superseded: "
                + " | ".join(
                    f"{s.field} {s.value} ({_t(s.turn)}) -> {_mark(s.replaced_by, replaced)} "
                    f"({_t(s.replaced_at)})"
                    for s in ss
                )
            )
        return "\n".join(lines)

    text = build(milestones, superseded)
    while counter.count(text) > max_tokens and (milestones or superseded):
        if len(milestones) >= len(superseded):
            milestones = milestones[1:]
        else:
            superseded = superseded[1:]
        text = build(milestones, superseded)
    if counter.count(text) > max_tokens:  # only the fixed lines are left: cut by characters
        while text and counter.count(text + " …") > max_tokens:
            text = text[: int(len(text) * 0.9)]
        text += " …"
    return text


def state_message(state: SupportState, **options: Any) -> dict[str, Any] | None:
    """The rendered state as one developer message, or None while the state is empty."""
    text = render_state(state, **options)
    return developer_message(text) if text else None
