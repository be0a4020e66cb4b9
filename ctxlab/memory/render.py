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

A state whose customer writes Chinese (``state.language == "zh"``) is rendered with Chinese
labels, each value after the word a reader looks for (``问题：型号 BCD-123 | 工单号
TCK-50821``, ``用户：手机号 13912345678``)::

    对话状态（由记忆系统维护；以最新值为准；截至第9轮）
"""

from __future__ import annotations

from typing import Any

from ..context.sources import context_message
from ..core import cues
from ..core.facts import ALL_FACT_KINDS, facts_in_text
from ..core.tokens import DEFAULT_ENCODING, get_token_counter
from .state import LIST_FIELDS, SCALAR_FIELDS, SupportState

STATE_HEADER = "Conversation state (kept by the memory system; latest values win"
#: The same header in a Chinese state message.
STATE_HEADER_ZH = "对话状态（由记忆系统维护；以最新值为准"

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
    ("date", "date"),
)
_USER_ZH = (
    ("name", "姓名"),
    ("email", "邮箱"),
    ("phone", "手机号"),
    ("member_level", "会员等级"),
    ("user_id", "用户ID"),
)
_ISSUE_ZH = (
    ("category", "类别"),
    ("device_model", "型号"),
    ("serial", "序列号"),
    ("order_id", "订单号"),
    ("ticket_id", "工单号"),
    ("status", "状态"),
    ("rma", "返修单号"),
    ("reservation_ids", "预约号"),
    ("firmware", "固件版本"),
    ("error_codes", "错误代码"),
    ("date", "日期"),
)
#: Line heads of the state message, per language.
_HEADS: dict[str, dict[str, str]] = {
    "en": {"user": "user: ", "issue": "issue: ", "constraints": "constraints: ",
           "commitments": "commitments: ", "next": "next action: ",
           "milestones": "milestones: ", "superseded": "superseded: ", "turn": "t{n}",
           "as_of": "; as of turn {n})", "end": ")", "statement": "{topic} ({t}): {text}",
           "promise": "({t}): {text}"},
    "zh": {"user": "用户：", "issue": "问题：", "constraints": "要求：", "commitments": "承诺：",
           "next": "下一步：", "milestones": "里程碑：", "superseded": "已替换：",
           "turn": "第{n}轮", "as_of": "；截至第{n}轮）", "end": "）",
           "statement": "{topic}（{t}）：{text}", "promise": "（{t}）：{text}"},
}


def _fields(section: Any, names: tuple[tuple[str, str], ...]) -> str:
    parts = []
    for attr, label in names:
        value = getattr(section, attr)
        if value and (attr == "error_codes" or (attr == "reservation_ids"
                                                  and label != "reservations")):
            # "error 42, error E8461": each code next to the word, as people (and the
            # offline model's fact patterns) read error codes; in Chinese reservation
            # codes too ("预约号 X"), which the English "reservations X, Y" does not need
            parts.append(", ".join(f"{label} {code}" for code in value))
            continue
        if isinstance(value, list):
            value = ", ".join(value)
        if value:
            parts.append(f"{label} {value}")
    return " | ".join(parts)


def _t(turn: int | None, language: str = "en") -> str:
    return _HEADS[language]["turn"].format(n=turn if turn is not None else "?")


def _replaced_values(state: SupportState) -> dict[str, str]:
    """Values the state replaced and holds nowhere as current -> what replaced them last."""
    kinds = _kinds(state)
    current: set[str] = set()
    for path in SCALAR_FIELDS:
        value = state.get(path)
        if value:
            current.add(str(value))
            current.update(f.value for f in facts_in_text(str(value), kinds=kinds))
    for path in LIST_FIELDS:
        current.update(state.get(path))
    replaced = {h.value: h.replaced_by for h in state.history if h.value not in current}
    for h in state.history:  # values inside replaced text ("category error E1")
        for fact in facts_in_text(h.value, kinds=kinds):
            if fact.value not in current:
                replaced.setdefault(fact.value, h.replaced_by)
    return replaced


def _kinds(state: SupportState) -> tuple[str, ...] | None:
    """Every fact kind in a Chinese state (model numbers, phones, dates); the default else."""
    return ALL_FACT_KINDS if state.language == "zh" else None


def _mark(text: str, replaced: dict[str, str], kinds: tuple[str, ...] | None = None) -> str:
    """A milestone with every value the state has since replaced marked as superseded (a
    milestone is history: "lookup_order a@x" must not read as the current email)."""
    if not replaced:
        return text
    for fact in reversed(facts_in_text(text, kinds=kinds)):
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
    language = state.language if state.language in _HEADS else "en"
    words = _HEADS[language]
    kinds = _kinds(state)
    as_of = words["as_of"].format(n=state.turn) if state.turn else words["end"]
    head = [(STATE_HEADER_ZH if language == "zh" else STATE_HEADER) + as_of]
    replaced = _replaced_values(state)
    user = _fields(state.user, _USER_ZH if language == "zh" else _USER)
    issue = _mark(_fields(state.issue, _ISSUE_ZH if language == "zh" else _ISSUE), replaced,
                  kinds)
    if user:
        head.append(words["user"] + user)
    if issue:
        head.append(words["issue"] + issue)
    if state.constraints:
        head.append(words["constraints"] + " | ".join(words["statement"].format(
            topic=_topic(n.topic, language), t=_t(n.turn, language), text=n.text)
            for n in state.constraints))
    if state.commitments:
        head.append(words["commitments"] + " | ".join(
            words["promise"].format(t=_t(n.turn, language), text=n.text)
            for n in state.commitments))
    if state.next_action:
        head.append(words["next"] + state.next_action)
    milestones = state.milestones[-max_milestones:] if max_milestones else []
    superseded = state.history[-max_superseded:] if max_superseded else []
    counter = get_token_counter(DEFAULT_ENCODING)

    def build(ms: list[Any], ss: list[Any]) -> str:
        lines = list(head)
        if ms:
            lines.append(words["milestones"] + " | ".join(
                f"{_t(m.turn, language)} {_mark(m.text, replaced, kinds)}" for m in ms))
        if ss:
            lines.append(
                words["superseded"]
                + " | ".join(
                    f"{s.field} {s.value} ({_t(s.turn, language)}) -> "
                    f"{_mark(s.replaced_by, replaced, kinds)} ({_t(s.replaced_at, language)})"
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


def _topic(topic: str, language: str) -> str:
    return cues.CONSTRAINT_TOPICS_ZH.get(topic, topic) if language == "zh" else topic


def state_message(state: SupportState, **options: Any) -> dict[str, Any] | None:
    """The rendered state as one context message (``{"role": "system", "content": text}``,
    the form every server takes), or None while the state is empty."""
    text = render_state(state, **options)
    return context_message(text) if text else None
