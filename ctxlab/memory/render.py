"""Render a :class:`~ctxlab.memory.state.SupportState` as one compact developer message.

The text is short labelled lines, only for fields that hold a value, so an early state costs
a few dozen tokens and a full one stays within a few hundred::

    Conversation state (kept by the memory system; latest values win; as of turn 12)
    user: name Dana Whitfield | email dana.whitfield@example.com
    milestones: t2 lookup_device SN-4Q7K-22981: model Aurora 14 (2023) | t7 ...
    superseded: issue.firmware v1.0.3 (t5) -> v1.0.4 (t9)
    device: laptop: model Aurora 14, serial SN-4Q7K-22981, firmware v1.0.4
    issue: category overheating | error 42
    next action: Waiting for the user to answer: Which firmware version ...?

The history (milestones, superseded values) comes before the current picture, so the
latest mention of every value is its current one.

Every device the customer talked about is listed with its own model, serial and firmware
(a laptop *and* its product name; a laptop and a printer side by side), the current one
last; a value of another device is not "superseded" by the current device's.

Milestones and superseded values are capped (the newest are shown) so the message cannot
grow without bound; ``max_tokens`` is a hard cap on top (lines are dropped from the end of
those lists first, then the text is cut).

A state whose customer writes Chinese (``state.language == "zh"``) is rendered in Chinese,
every label and connective included, with full-width punctuation, each value after the word
a reader looks for, and lists one entry per line::

    对话状态（由记忆系统维护，以最新信息为准；截至第12轮）
    客户：手机号 13912345678
    设备：冰箱（型号 BCD-123）
    问题：冰箱不制冷；工单号 TCK-50821；状态 待派单
    客户要求：
    - 时间安排（第5轮）：……只能周末上门。
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..context.sources import STATE_SOURCE, context_message
from ..core.display import display_width, wrap
from ..core.tokens import DEFAULT_ENCODING, get_token_counter
from ..facts import cues
from ..facts.typed import ALL_FACT_KINDS, facts_in_text
from .state import DEVICE_FIELDS, LIST_FIELDS, SCALAR_FIELDS, Device, SupportState

#: The display width (columns) state messages are wrapped to by default.
DISPLAY_WIDTH = 100
#: The narrowest width a state message may be wrapped to.
MIN_WIDTH = 40

STATE_HEADER = "Conversation state (kept by the memory system; latest values win"
#: The same header in a Chinese state message.
STATE_HEADER_ZH = "对话状态（由记忆系统维护，以最新信息为准"

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
    ("user_id", "账号"),
)
_ISSUE_ZH = (
    ("category", ""),
    ("device_model", "型号"),
    ("serial", "序列号"),
    ("order_id", "订单号"),
    ("ticket_id", "工单号"),
    ("status", "状态"),
    ("rma", "返修单号"),
    ("reservation_ids", "预约号"),
    ("firmware", "固件版本"),
    ("error_codes", "错误代码"),
    ("date", "约定日期"),
)
#: How each language writes a state message: line heads, separators, the device entries.
_WORDS: dict[str, dict[str, str]] = {
    "en": {"user": "user: ", "issue": "issue: ", "devices": "devices: ", "device": "device: ",
           "constraints": "constraints: ", "commitments": "commitments: ",
           "next": "next action: ", "milestones": "milestones: ", "superseded": "superseded: ",
           "turn": "t{n}", "when": "({t})", "as_of": "; as of turn {n})", "end": ")",
           "sep": " | ",
           "list": ", ", "statement": "{topic} ({t}): {text}", "promise": "({t}): {text}",
           "milestone": "{t} {text}", "replaced": "{field} {value} {t} -> {new} {t2}",
           "superseded_by": " [superseded by {new}]", "current": " (current)",
           "model": "model {}", "serial": "serial {}", "firmware": "firmware {}",
           "order": "order {}", "ticket": "ticket {}", "rma": "RMA {}", "status": "status {}",
           "problem": "problem {}",
           "entry": "{name}: {values}", "entry_bare": "{name}", "values": ", "},
    "zh": {"user": "客户：", "issue": "问题：", "devices": "设备：", "device": "设备：",
           "constraints": "客户要求：", "commitments": "客服承诺：", "next": "下一步：",
           "milestones": "处理记录：", "superseded": "已更新：", "turn": "第{n}轮",
           "when": "（{t}）",
           "as_of": "；截至第{n}轮）", "end": "）", "sep": "；", "list": "、",
           "statement": "{topic}（{t}）：{text}", "promise": "{t}：{text}",
           "milestone": "{t} {text}", "replaced": "{field} {value}{t}→ {new}{t2}",
           "superseded_by": "（已更换为 {new}）", "current": "（当前）",
           "model": "型号 {}", "serial": "序列号 {}", "firmware": "固件版本 {}",
           "order": "订单号 {}", "ticket": "工单号 {}", "rma": "返修单号 {}", "status": "状态 {}",
           "problem": "问题 {}",
           "entry": "{name}（{values}）", "entry_bare": "{name}", "values": "，"},
}
#: A device's values, in the order its entry shows them.
_DEVICE_SHOWN = ("model", "serial", "firmware", "order", "ticket", "status", "rma")
#: Chinese lists are written one entry per line under their head.
_BULLETED = {"zh"}
#: A device the customer never named, as each language calls it.
_UNNAMED = {"en": "device", "zh": "设备"}


def _fields(section: Any, names: tuple[tuple[str, str], ...], words: dict[str, str],
            skip: frozenset[str] = frozenset()) -> list[str]:
    parts = []
    for attr, label in names:
        value = getattr(section, attr)
        if not value or attr in skip:
            continue
        if attr == "error_codes" or (attr == "reservation_ids" and label != "reservations"):
            # "error 42, error E8461": each code next to the word, as people (and the
            # offline model's fact patterns) read error codes; in Chinese reservation
            # codes too ("预约号 X"), which the English "reservations X, Y" does not need
            parts.append(words["list"].join(f"{label} {code}" for code in value))
            continue
        if isinstance(value, list):
            value = words["list"].join(value)
        parts.append(f"{label} {value}" if label else str(value))
    return parts


def _t(turn: int | None, language: str = "en") -> str:
    return _WORDS[language]["turn"].format(n=turn if turn is not None else "?")


def _device_values(state: SupportState) -> set[str]:
    return {v for d in state.issue.devices for v in (d.model, d.serial, d.firmware) if v}


def _replaced_values(state: SupportState) -> dict[str, str]:
    """Values the state replaced and holds nowhere as current -> what replaced them last."""
    kinds = _kinds(state)
    current: set[str] = _device_values(state)
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


def _mark(text: str, replaced: dict[str, str], words: dict[str, str],
          kinds: tuple[str, ...] | None = None) -> str:
    """A milestone with every value the state has since replaced marked as superseded (a
    milestone is history: "lookup_order a@x" must not read as the current email)."""
    if not replaced:
        return text
    for fact in reversed(facts_in_text(text, kinds=kinds)):
        if not fact.stale and fact.value in replaced:
            end = fact.start + len(fact.value)
            text = text[:end] + words["superseded_by"].format(new=replaced[fact.value]) + \
                text[end:]
    return text


def _device(device: Device, words: dict[str, str], language: str, current: bool,
            several: bool) -> str:
    """One device's entry; its problem is shown unless it is the current device (whose
    problem the issue line gives), which is marked as current among several."""
    shown = _DEVICE_SHOWN if current else ("problem", *_DEVICE_SHOWN)
    values = [words[attr].format(value) for attr in shown
              if (value := getattr(device, attr))]
    name = (device.name or _UNNAMED[language]) + (words["current"] if current and several
                                                  else "")
    if not values:
        return words["entry_bare"].format(name=name)
    return words["entry"].format(name=name, values=words["values"].join(values))


def _devices(state: SupportState, words: dict[str, str], language: str
             ) -> tuple[str, list[str]]:
    """``devices: laptop: model Aurora 14, serial SN-1 | printer (current): ...``; one device
    is ``device: laptop: model Aurora 14``. No entries when the conversation named no
    device (the issue line then shows the device fields as before)."""
    devices = state.issue.devices
    if not devices or (len(devices) == 1 and devices[0].name is None):
        return "", []
    several = len(devices) > 1
    entries = [_device(d, words, language, n == len(devices) - 1, several)
               for n, d in enumerate(devices)]
    return (words["devices"] if several else words["device"]), entries


@dataclass(frozen=True)
class _Layout:
    """How lines are laid out: separators and bullets of the language, wrapped to
    ``width`` display columns (None: never wrapped). A line is only ever broken between
    entries, or inside an entry longer than the whole width (then at a space or between
    Chinese characters, never inside a value: :func:`ctxlab.core.display.wrap`)."""

    words: dict[str, str]
    language: str
    width: int | None

    def _wrapped(self, line: str, indent: str, prose: bool = False) -> list[str]:
        """``line`` broken at its value separators (", ", "，") where it is too wide, and
        at spaces or between Chinese characters only where one part alone is; a sentence
        (``prose``) is only ever broken at spaces or between Chinese characters."""
        if self.width is None or display_width(line) <= self.width:
            return [line]
        if prose:
            return self._plain(line, indent)
        lead = line[: len(line) - len(line.lstrip(" "))]
        joiner = self.words["values"]
        parts = line[len(lead):].split(joiner)
        if len(parts) > 1 and all(parts):
            return self._packed(parts, joiner, lead, indent)
        return wrap(line[len(lead):], self.width, indent=indent, first_indent=lead)

    def _packed(self, parts: list[str], joiner: str, first: str, indent: str) -> list[str]:
        """``parts`` joined by ``joiner`` into as few lines as fit (each continued line
        ends with the joiner's punctuation and starts with ``indent``)."""
        assert self.width is not None
        lines: list[str] = []
        current = first + parts[0]
        mark = display_width(joiner.rstrip())  # a continued line ends with it
        for n, part in enumerate(parts[1:], 2):
            room = self.width - (mark if n < len(parts) else 0)
            if display_width(current + joiner + part) <= room:
                current += joiner + part
            else:
                lines += self._plain(current + joiner.rstrip(), indent)
                current = indent + part
        return lines + self._plain(current, indent)

    def _plain(self, line: str, indent: str) -> list[str]:
        """``line`` wrapped at spaces or between Chinese characters where too wide."""
        assert self.width is not None
        if display_width(line) <= self.width:
            return [line]
        lead = line[: len(line) - len(line.lstrip(" "))]
        return wrap(line[len(lead):], self.width, indent=indent, first_indent=lead)

    def line(self, head: str, entries: list[str], prose: bool = False) -> str:
        """``head`` then the entries joined by the separator, continued on indented lines
        when wider than the width (``prose``: entries are sentences)."""
        sep = self.words["sep"]
        joined = head + sep.join(entries)
        if self.width is None or display_width(joined) <= self.width:
            return joined
        if not entries:
            return "\n".join(self._wrapped(head, "  "))
        lines: list[str] = []
        current = head + entries[0]
        mark = display_width(sep.rstrip())
        for n, entry in enumerate(entries[1:], 2):
            room = self.width - (mark if n < len(entries) else 0)
            if display_width(current + sep + entry) <= room:
                current += sep + entry
            else:
                lines += self._wrapped(current + sep.rstrip(), "    ", prose)
                current = "  " + entry
        lines += self._wrapped(current, "    ", prose)
        return "\n".join(lines)

    def listed(self, head: str, entries: list[str], prose: bool = False) -> str:
        """A list under its head: a line (as :meth:`line`), or in Chinese a bullet per
        entry on lines of their own."""
        if self.language not in _BULLETED:
            return self.line(head, entries, prose)
        lines = [head.rstrip()]
        for entry in entries:
            lines += self._wrapped(f"- {entry}", "  ", prose)
        return "\n".join(lines)


def _head_lines(state: SupportState, layout: _Layout, replaced: dict[str, str]
                ) -> tuple[list[str], list[str]]:
    """The lines before the history (milestones, superseded values) and after it: the
    header and the user first, then the history, then what is current (devices, issue,
    constraints, commitments, next action), so the current picture comes last, the way a
    reader (and a model's recency) takes the latest mention as the current one."""
    words, language = layout.words, layout.language
    zh = language == "zh"
    as_of = words["as_of"].format(n=state.turn) if state.turn else words["end"]
    top = [layout.line((STATE_HEADER_ZH if zh else STATE_HEADER) + as_of, [])]
    device_head, devices = _devices(state, words, language)
    skip = (frozenset(_split_attr(p) for p in DEVICE_FIELDS if p != "issue.category")
            if devices else frozenset())
    user = _fields(state.user, _USER_ZH if zh else _USER, words)
    issue = [_mark(entry, replaced, words, _kinds(state))
             for entry in _fields(state.issue, _ISSUE_ZH if zh else _ISSUE, words, skip)]
    if user:
        top.append(layout.line(words["user"], user))
    lines = [layout.line(head, entries) for head, entries in
             ((device_head, devices), (words["issue"], issue)) if entries]
    if state.constraints:
        lines.append(layout.listed(words["constraints"], [words["statement"].format(
            topic=_topic(n.topic, language), t=_t(n.turn, language), text=n.text)
            for n in state.constraints], prose=True))
    if state.commitments:
        lines.append(layout.listed(words["commitments"], [
            words["promise"].format(t=_t(n.turn, language), text=n.text)
            for n in state.commitments], prose=True))
    if state.next_action:
        lines.append(layout.line(words["next"], [state.next_action], prose=True))
    return top, lines


def _split_attr(path: str) -> str:
    return path.partition(".")[2]


def _builder(state: SupportState, layout: _Layout, replaced: dict[str, str]
             ) -> Callable[[list[Any], list[Any]], str]:
    """A function of (milestones, superseded values) -> the whole message."""
    words, language = layout.words, layout.language
    kinds = _kinds(state)
    top, current = _head_lines(state, layout, replaced)
    labels = dict(_USER_ZH) | dict(_ISSUE_ZH) if language == "zh" else {}

    def when(turn: int | None) -> str:
        """``(t5)`` / ``（第5轮）``; a Chinese note leaves an unknown turn out."""
        if turn is None and language == "zh":
            return " "
        return words["when"].format(t=_t(turn, language))

    def field(path: str) -> str:
        return labels.get(_split_attr(path)) or ("问题" if language == "zh" else path)

    def build(ms: list[Any], ss: list[Any]) -> str:
        lines = list(top)
        if ms:
            lines.append(layout.listed(words["milestones"], [words["milestone"].format(
                t=_t(m.turn, language), text=_mark(m.text, replaced, words, kinds))
                for m in ms]))
        if ss:
            lines.append(layout.listed(words["superseded"], [words["replaced"].format(
                field=field(s.field), value=s.value, t=when(s.turn),
                new=_mark(s.replaced_by, replaced, words, kinds), t2=when(s.replaced_at))
                for s in ss]))
        return "\n".join([*lines, *current])

    return build


def render_state(
    state: SupportState,
    *,
    max_milestones: int = 6,
    max_superseded: int = 4,
    max_tokens: int = 400,
    width: int | None = DISPLAY_WIDTH,
) -> str:
    """The state as compact text ("" while it is empty); at most ``max_tokens`` tokens, in
    lines of at most ``width`` display columns (a Chinese character takes two; None: no
    wrapping)."""
    _check_limits(max_milestones, max_superseded, max_tokens, width)
    if state.is_empty():
        return ""
    language = state.language if state.language in _WORDS else "en"
    build = _builder(state, _Layout(_WORDS[language], language, width),
                     _replaced_values(state))
    milestones = state.milestones[-max_milestones:] if max_milestones else []
    superseded = state.history[-max_superseded:] if max_superseded else []
    return _fit(build, milestones, superseded, max_tokens)


def _check_limits(max_milestones: int, max_superseded: int, max_tokens: int,
                  width: int | None) -> None:
    """A clear ValueError for a limit of :func:`render_state` that is not a valid one."""
    for name, value in (
        ("max_milestones", max_milestones),
        ("max_superseded", max_superseded),
        ("max_tokens", max_tokens),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    if width is not None and (isinstance(width, bool) or not isinstance(width, int)
                              or width < MIN_WIDTH):
        raise ValueError(f"width must be None or an integer >= {MIN_WIDTH}, got {width!r}")


def _fit(build: Callable[[list[Any], list[Any]], str], milestones: list[Any],
         superseded: list[Any], max_tokens: int) -> str:
    """The message within ``max_tokens``: the oldest milestone or superseded value (of the
    longer list) goes first; if only the fixed lines are left, they are cut by characters."""
    counter = get_token_counter(DEFAULT_ENCODING)
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
    """The rendered state as one memory block (a user message under the memory heading,
    instruction-like lines flagged: :func:`~ctxlab.context.sources.context_message`), or
    None while the state is empty. The message a model
    reads is not wrapped (``width=None``: line breaks would only cost tokens) unless
    ``options`` ask for a width; :func:`render_state` wraps what a person reads."""
    options.setdefault("width", None)
    text = render_state(state, **options)
    return context_message(text, source=STATE_SOURCE) if text else None
