"""Render a :class:`~ctxlab.summarizers.record.HandoverRecord` as the summary text, within a
token budget.

The sections are :data:`~ctxlab.summarizers.prompt.SUMMARY_SECTIONS`, in order; a section
with nothing to report is left out. Identifier values appear in one place only, the
**Identifiers** section, each with its device when the chat has several (or the customer,
the case) and, when it changed, what it was before (``v1.1.0 (laptop; earlier: v1.0.2
until turn 13)``: every ctxlab reader treats an ``earlier:`` note as no longer current,
:mod:`ctxlab.facts.staleness`). Within a kind, values are listed in the order they were
last mentioned, so the last one is the one the conversation mentioned last. Values that
only ever came from tool results are listed under their own bullet, ``Firmware (from
tools): ...``, so a reader can prefer what the customer said, as it would in the raw
conversation. A narrative line (a step, a result, the status) quotes a value only while it
is current; a value that was replaced since is written as its kind (``[firmware]``), so the
line never presents an old value as current.

Values and statements the record doubts (:mod:`ctxlab.summarizers.doubts`) are followed by
an uncertainty marker, ``[uncertain]`` (``[待确认]`` in a Chinese note).

Every bullet has shorter forms. While the text is over ``max_tokens``, the least important
detail goes first, oldest first: tool health and environment details, milestones, resolved
problems and earlier versions of constraints, other identifiers, older steps, earlier
values of identifiers (a kind with many values keeps its newest ones). Current
identifiers, constraints, commitments, pending actions, the status and the next step stay,
unless they alone exceed the budget.

A conversation whose customer writes Chinese (:attr:`HandoverRecord.language`) gets the same
note in Chinese: the headings of :data:`~ctxlab.summarizers.prompt.SUMMARY_SECTIONS_ZH`,
labels from :data:`ctxlab.facts.cues.LABELS_ZH` (``手机号：13600002222（此前：15800001111
至第5轮）``; 此前 is a stale label every reader knows) and the phrases of :data:`PHRASES`.
Structure, order, tiers and the token bound are the same in both languages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..core.tokens import DEFAULT_ENCODING, get_token_counter
from ..facts import cues
from ..facts.tracker import RECORDS, Period, Slot
from ..facts.typed import ALL_FACT_KINDS, facts_in_text
from .doubts import MARKERS
from .prompt import SUMMARY_SECTIONS, summary_sections
from .record import OTHER_KINDS, HandoverRecord
from .text import describe_outcome, scrub

#: Tiers: a bullet's form is given up for the next shorter one lowest tier first.
TOOLS, ENVIRONMENT, MILESTONES, RESOLVED, REVISIONS = 1.0, 1.5, 2.0, 3.0, 3.5
OTHERS, STEPS, EARLIER, ISSUES, MUST = 4.0, 5.0, 6.0, 7.0, 10.0
#: Timestamps beyond this many are shown as a count and a range.
MAX_TIMESTAMPS = 4
#: A kind with more current values than this gives way to its newest ones early (before
#: steps); the newest few are never left out.
MANY_VALUES = 10
FEW_VALUES = 5
#: Milestones and resolved problems shown (the newest).
MAX_MILESTONES = 4
MAX_RESOLVED = 1

#: Every phrase of the note, per language. ``{n}`` is a turn number.
PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "turn": "turn {n}", "until": "{value} until turn {n}", "earlier": "earlier: {notes}",
        "list": ", ", "parts": "; ", "colon": ": ", "open": "(", "close": ")",
        "where": "{label}, ",
        "pending": "{tool} ({where}called in turn {n}): no output yet",
        "milestone": "turn {n}: {text}",
        "healthy": "{calls} call(s) of {tools} tool(s) succeeded",
        "others_below": " (the others below)",
        "failures": "{tool}: {failures} of {calls} call(s) failed; last: {last}",
        "resolved_count": "({count} earlier problem(s) resolved)",
        "opening": "opening request (turn 1): {text}",
        "issue_head": "{where} (turn {n}", "issue_head_bare": "(turn {n}",
        "issue_resolved": "{head}, resolved in turn {until}): {text}",
        "issue_open": "{head}, open): {text}", "issue_open_short": "{head}, open)",
        "statement": "{topic}(turn {n}): {text}", "topic": "{topic} ",
        "promise": "(turn {n}): {text}",
        "revisions": "{base} (earlier: {notes})",
        "steps_omitted": "({count:,} earlier steps not shown)",
        "step": "{who} ({where}turn {n}): {action}", "result": " -> customer: {result}",
        "tool_step": "{who} ({where}turn {n}) -> {result}",
        "agent": "agent", "customer": "customer",
        "from_tools": " (from tools)", "timestamps": "{count} timestamps from {first} to {last}",
        "status_open": "Open: the {where}problem reported in turn {n}",
        "last_result": "Last result: {text}", "waiting": "Waiting on customer: {text}",
        "none_open": "No open problem (the {where}problem was resolved in turn {n})",
        "none_reported": "No problem reported yet",
        "next_pending": "Get the result of {tool} ({where}called in turn {n}) before "
                        "anything else",
        "next_step": "Get the result of the last step ({action})",
        "next_answer": "Get the customer's answer, then continue troubleshooting",
        "next_continue": "Continue troubleshooting the {where} problem", "open_word": "open",
        "next_done": "Ask whether anything else needs help",
    },
    "zh": {
        "turn": "第{n}轮", "until": "{value} 至第{n}轮", "earlier": "此前：{notes}",
        "list": "、", "parts": "；", "colon": "：", "open": "（", "close": "）",
        "where": "{label}，",
        "pending": "{tool}（{where}第{n}轮调用）：还没有返回结果",
        "milestone": "第{n}轮：{text}",
        "healthy": "共调用 {tools} 个工具 {calls} 次，全部成功",
        "others_below": "（其余见下）",
        "failures": "{tool}：调用 {calls} 次，其中 {failures} 次失败，最近一次返回“{last}”",
        "resolved_count": "（另有 {count} 个问题已解决）",
        "opening": "客户最初的诉求（第1轮）：{text}",
        "issue_head": "{where}（第{n}轮", "issue_head_bare": "（第{n}轮",
        "issue_resolved": "{head}，第{until}轮已解决）：{text}",
        "issue_open": "{head}，未解决）：{text}", "issue_open_short": "{head}，未解决）",
        "statement": "{topic}（第{n}轮）：{text}", "topic": "{topic}",
        "promise": "第{n}轮：{text}",
        "revisions": "{base}（此前：{notes}）",
        "steps_omitted": "（另有 {count:,} 个更早的步骤未列出）",
        "step": "{who}（{where}第{n}轮）：{action}", "result": "；客户反馈“{result}”",
        "tool_step": "{who}（{where}第{n}轮）：{result}",
        "agent": "客服", "customer": "客户",
        "from_tools": f"（{cues.LABELS_ZH['from_tools']}）",
        "timestamps": "共 {count} 个时间戳（{first} 至 {last}）",
        "status_open": "未解决：客户第{n}轮反映的{where}问题",
        "last_result": "最近一次结果：{text}", "waiting": "等客户回复：{text}",
        "none_open": "没有未解决的问题（{where}问题已在第{n}轮解决）",
        "none_reported": "客户还没有反映具体问题",
        "next_pending": "先等 {tool}（{where}第{n}轮调用）返回结果，再做下一步",
        "next_step": "先确认上一步（{action}）的结果",
        "next_answer": "等客户回答后继续排查",
        "next_continue": "继续排查{where}问题", "open_word": "未解决的",
        "next_done": "问客户还有没有其他需要帮忙的",
    },
}

#: Labels of the "other identifiers" bullets in a Chinese note.
OTHER_LABELS_ZH: dict[str, str] = {
    "Other codes": "其他编号", "Account ids": "账号", "Names": "姓名", "Phones": "电话",
    "Versions": "版本号", "Other error codes": "其他错误代码", "Dates & times": "日期和时间",
    "Amounts": "金额与数量", "Durations": "耗时", "Links": "链接", "Other emails": "其他邮箱",
}
#: A quantity that is a duration (a latency in a tool trace), listed apart from amounts.
_DURATION = re.compile(r"^\d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|secs?|seconds?|mins?|minutes?"
                       r"|h|hrs?|hours?|毫秒|秒|分钟|小时)$", re.IGNORECASE)


@dataclass
class Bullet:
    """One bullet: its forms, longest first (the last may be "" for "left out"), each with
    the tier at which it gives way to the next, and its recency (older goes first)."""

    forms: list[tuple[str, float]]
    recency: int = 0
    chosen: int = 0

    @property
    def text(self) -> str:
        return self.forms[self.chosen][0]

    @property
    def tier(self) -> float:
        return self.forms[self.chosen][1] if self.chosen < len(self.forms) - 1 else float("inf")


@dataclass
class Rendered:
    """Bullets per section (keyed by the English headings) and the note's language."""

    sections: dict[str, list[Bullet]] = field(default_factory=dict)
    language: str = "en"

    def text(self) -> str:
        """The sections with something to report, in order (an empty one is left out)."""
        lines = []
        colon = PHRASES[self.language]["colon"].strip()
        for key, title in zip(SUMMARY_SECTIONS, summary_sections(self.language), strict=True):
            bullets = [b.text for b in self.sections.get(key, []) if b.text]
            if bullets:
                lines.append(f"{title}{colon}")
                lines += [f"- {b}" for b in bullets]
        return "\n".join(lines)


def _fixed(text: str, tier: float = MUST, recency: int = 0) -> Bullet:
    return Bullet([(text, tier), ("", tier)], recency)


def _must(text: str) -> Bullet:
    return Bullet([(text, MUST)])


def _paren(text: str, language: str) -> str:
    """`` (text)`` in English, ``（text）`` in Chinese."""
    return f" ({text})" if language == "en" else f"（{text}）"


def render(record: HandoverRecord, *, max_steps: int = 8, max_tokens: int = 1200,
           language: str | None = None) -> str:
    """The summary text of ``record`` (see the module docstring), in ``language`` (default:
    the language of the customer's messages, :attr:`HandoverRecord.language`)."""
    language = language or record.language
    if language not in PHRASES:
        raise ValueError(f"language must be one of {', '.join(PHRASES)}, got {language!r}")
    w = PHRASES[language]
    out = Rendered({title: [] for title in SUMMARY_SECTIONS}, language)
    sections = out.sections
    sections["Product & Environment"] = _environment(record, language)
    sections["Reported Issue"] = _issues(record, language)
    sections["Constraints & Preferences"] = _statements(record, "constraint", language)
    sections["Agent Commitments"] = _statements(record, "commitment", language)
    sections["Steps Tried & Results"] = _steps(record, max_steps, language)
    sections["Pending Actions"] = [
        _must(w["pending"].format(tool=p.tool, where=_label(record, p.entity, language),
                                  n=p.turn)) for p in record.pending]
    sections["Timeline Milestones"] = [
        _fixed(w["milestone"].format(n=turn, text=text), MILESTONES, n)
        for n, (turn, text) in enumerate(record.milestones[-MAX_MILESTONES:])]
    sections["Tool Performance Insights"] = _tools(record, language)
    sections["Identifiers"] = _identifiers(record, language)
    sections["Current Status & Blockers"] = _status(record, language)
    sections["Next Recommended Step"] = [_must(_next_step(record, language))]
    _scrub_narrative(out, record)
    return _fit(out, max_tokens)


#: Sections whose lines quote what was said (values in them are scrubbed when superseded).
NARRATIVE = ("Product & Environment", "Reported Issue", "Steps Tried & Results",
             "Pending Actions", "Timeline Milestones", "Tool Performance Insights",
             "Current Status & Blockers", "Next Recommended Step")


def _scrub_narrative(out: Rendered, record: HandoverRecord) -> None:
    """Write every value a narrative line quotes as its kind unless it is current (and not
    doubted: a doubted value appears once, with its marker, under Identifiers)."""
    facts = record.facts

    def current(found: object) -> bool:
        kind, value = found.kind, found.value  # type: ignore[attr-defined]
        status = facts.status(kind, value)
        return (status is not None and status.current
                and not record.doubts.fact(status.entity, kind, value))

    for key in NARRATIVE:
        for bullet in out.sections.get(key, []):
            bullet.forms = [(scrub(text, current, facts.kinds(text)) if text else text, tier)
                            for text, tier in bullet.forms]


def _fit(out: Rendered, max_tokens: int) -> str:
    counter = get_token_counter(DEFAULT_ENCODING)
    cache: dict[str, int] = {}

    def tokens(text: str) -> int:
        if text not in cache:
            cache[text] = counter.count(text) + 1 if text else 0
        return cache[text]

    bullets = [b for title in SUMMARY_SECTIONS for b in out.sections[title]]
    heads = sum(tokens(f"{title}:") + 3 for title in summary_sections(out.language))
    total = heads + sum(tokens(b.text) + 1 for b in bullets)
    while total > max_tokens:
        shrinkable = [b for b in bullets if b.chosen < len(b.forms) - 1]
        if not shrinkable:
            break
        bullet = min(shrinkable, key=lambda b: (b.tier, b.recency))
        before = tokens(bullet.text)
        bullet.chosen += 1
        total += tokens(bullet.text) - before
    text = out.text()
    if counter.count(text) > max_tokens:  # the estimate was short: one exact pass more
        while counter.count(text) > max_tokens:
            shrinkable = [b for b in bullets if b.chosen < len(b.forms) - 1]
            if not shrinkable:
                break
            min(shrinkable, key=lambda b: (b.tier, b.recency)).chosen += 1
            text = out.text()
    return text


def _tools(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    healthy = sum(int(calls) for calls, failures, _ in record.tools.values() if not failures)
    bullets = []
    if healthy:
        bullets.append(_fixed(w["healthy"].format(calls=healthy, tools=len(record.tools))
                              + (w["others_below"] if len(record.tools) > 1 and any(
                                  f for _, f, _ in record.tools.values()) else ""), TOOLS))
    for n, (tool, (calls, failures, last)) in enumerate(record.tools.items()):
        if failures:
            bullets.append(_fixed(w["failures"].format(
                tool=tool, failures=failures, calls=calls,
                last=describe_outcome(str(last), language)), RESOLVED, n))
    return bullets


def _label(record: HandoverRecord, entity: str | None, language: str = "en",
           suffix: str | None = None) -> str:
    """The device ``entity`` is (with ``suffix``, default ``", "``), or "" for others."""
    if not entity or entity not in record.facts.entities:
        return ""
    found = record.facts.entities[entity]
    if found.kind != "device":
        return ""
    label = found.label_in(language)
    if suffix is None:
        return PHRASES[language]["where"].format(label=label)
    return label + suffix


# ---------------------------------------------------------------------------- sections


def _environment(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    bullets = []
    devices = []
    for entity in record.facts.devices():
        label = entity.label_in(language)
        devices.append(label + _paren(entity.model, language) if entity.model else label)
    if devices:
        bullets.append(Bullet([(w["parts"].join(devices), ISSUES),
                               (w["parts"].join(devices[-3:]), MUST)]))
    if record.environment:
        bullets.append(_fixed(w["parts"].join(record.environment), ENVIRONMENT))
    return bullets


def _short(text: str, language: str) -> str:
    """The first words of a resolved problem (the first characters of a Chinese one)."""
    if language == "zh":
        return text[:16] + ("…" if len(text) > 16 else "")
    return " ".join(text.split()[:8]) + ("…" if len(text.split()) > 8 else "")


def _issues(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    bullets = []
    resolved = [i for i in record.issues if i.resolved is not None]
    hidden = {id(i) for i in resolved[: max(0, len(resolved) - MAX_RESOLVED)]}
    if hidden:
        bullets.append(_fixed(w["resolved_count"].format(count=len(hidden)), RESOLVED, -1))
    if not record.issues and record.opening:
        bullets.append(Bullet([(w["opening"].format(text=record.opening), ISSUES),
                               ("", ISSUES)]))
    for n, issue in enumerate(record.issues):
        if id(issue) in hidden:
            continue
        where = _label(record, issue.entity, language, "")
        head = (w["issue_head"].format(where=where, n=issue.turn) if where
                else w["issue_head_bare"].format(n=issue.turn))
        if issue.resolved is not None:
            bullets.append(_fixed(w["issue_resolved"].format(
                head=head, until=issue.resolved, text=_short(issue.text, language)),
                RESOLVED, n))
        else:
            bullets.append(Bullet([(w["issue_open"].format(head=head, text=issue.text), ISSUES),
                                   (w["issue_open_short"].format(head=head), MUST)], n))
    return bullets


def _statements(record: HandoverRecord, kind: str, language: str) -> list[Bullet]:
    w = PHRASES[language]
    bullets = []
    facts = record.facts
    for n, said in enumerate(facts.current_statements(kind)):
        topic = ""
        if kind == "constraint":
            name = cues.CONSTRAINT_TOPICS_ZH.get(said.topic, said.topic) if language == "zh" \
                else said.topic
            topic = w["topic"].format(topic=name)
        text = said.text
        if record.doubts.statement(said):
            text += " " + MARKERS[language]
        base = (w["statement"].format(topic=topic, n=said.turn, text=text) if topic
                else w["promise"].format(n=said.turn, text=text))
        earlier = facts.revisions(said)
        forms: list[tuple[str, float]] = []
        if earlier:
            notes = w["list"].join(w["until"].format(value=_flat(s.text), n=s.until)
                                   for s in earlier[:2])
            forms.append((w["revisions"].format(base=base, notes=notes), REVISIONS))
        forms.append((base, MUST))
        bullets.append(Bullet(forms, n))
    return bullets


def _flat(text: str) -> str:
    """A sentence that can sit inside an "earlier: ..." note without ending it."""
    return text.rstrip(".!。！").replace(". ", ", ").replace(";", ",").replace(")", "").replace(
        "(", "").replace("。", "，").replace("）", "").replace("（", "")


def _steps(record: HandoverRecord, max_steps: int, language: str) -> list[Bullet]:
    """The newest steps on the latest open problem's device (the newest two when no
    problem is open), oldest first, with a count of the others."""
    issue = record.latest_open()
    if issue is not None:
        mine = [s for s in record.steps if s.entity == issue.entity and s.turn >= issue.turn]
        steps = mine[-max_steps:]
    else:
        steps = record.steps[-min(2, max_steps):]
    omitted = record.steps_omitted + len(record.steps) - len(steps)
    w = PHRASES[language]
    bullets = []
    if omitted:
        bullets.append(_fixed(w["steps_omitted"].format(count=omitted), STEPS, -1))
    for n, step in enumerate(steps):
        where = _label(record, step.entity, language)
        if step.who in ("agent", "customer"):
            text = w["step"].format(who=w[step.who], where=where, n=step.turn,
                                    action=step.action)
            if step.result is not None:
                text += w["result"].format(result=step.result)
        else:
            text = w["tool_step"].format(who=step.who, where=where, n=step.turn,
                                         result=describe_outcome(step.result or "", language))
        bullets.append(_fixed(text, STEPS, n))
    return bullets


#: The word a value needs in front of it to be read as its kind ("error 42").
_VALUE_WORDS = {"error_code": "error", "reservation": "reservation", "order": "order",
                "ticket": "ticket", "serial": "serial", "firmware": "firmware", "rma": "RMA",
                "model": "model"}
#: The same in a Chinese note ("错误代码 42").
_VALUE_WORDS_ZH = {"error_code": "错误代码", "reservation": "预约号", "order": "订单号",
                   "ticket": "工单号", "serial": "序列号", "firmware": "固件版本",
                   "rma": "返修单号", "model": "型号", "phone": "手机号"}


@lru_cache(maxsize=4096)
def readable(kind: str, value: str, lead: str = "", language: str = "en") -> str:
    """``value`` as written, or with its kind's word in front when a reader would not
    recognise it after ``lead`` ("42" -> "error 42"; after "Error code: " it needs none)."""
    if any(f.kind == kind and f.value == value
           for f in facts_in_text(lead + value, kinds=ALL_FACT_KINDS)):
        return value
    word = (_VALUE_WORDS_ZH if language == "zh" else _VALUE_WORDS).get(kind)
    if word and any(f.kind == kind and f.value == value
                    for f in facts_in_text(f"{word} {value}", kinds=ALL_FACT_KINDS)):
        return f"{word} {value}"
    return value


def _value_note(slot: Slot, value: str, since: int, earlier: Sequence[Period],
                record: HandoverRecord, limit: int | None, lead: str = "",
                language: str = "en") -> str:
    w = PHRASES[language]
    parts = []
    label = (_label(record, slot.entity, language, "") if len(record.facts.devices()) > 1
             else "")
    if label:
        parts.append(label)
    shown = list(earlier) if limit is None else list(earlier)[:limit]
    if shown:
        notes = w["list"].join(w["until"].format(
            value=readable(slot.kind, p.value, "", language), n=p.until) for p in shown)
        parts.append(w["earlier"].format(notes=notes))
    shown_value = readable(slot.kind, value, lead, language)
    if record.doubts.fact(slot.entity, slot.kind, value):
        shown_value += " " + MARKERS[language]
    return shown_value + _paren(w["parts"].join(parts), language) if parts else shown_value


def _earlier_of(slot: Slot) -> dict[str, list[Period]]:
    """Ended periods, attached to the current value that (through a chain of
    replacements) took their place; single-valued slots attach all to the current one.
    Unattached periods go under the key ""."""
    current = slot.current()
    out: dict[str, list[Period]] = {v: [] for v in current}
    out[""] = []
    ended = slot.earlier()  # newest first
    if not slot.multi:
        if current:
            out[current[-1]] = [p for p in ended if p.value != current[-1]]
        else:
            out[""] = ended
        return out
    by_value = {p.value: p for p in slot.periods}
    for period in ended:
        target, hops = period.by, 0
        while target is not None and target not in out and hops < 20:
            nxt = by_value.get(target)
            target = nxt.by if nxt is not None and nxt.until is not None else None
            hops += 1
        out[target if target in out else ""].append(period)
    return out


@dataclass
class _Notes:
    """Renders a kind's values with their devices and earlier values."""

    record: HandoverRecord
    attached: dict[tuple[str, str], list[Period]]
    since: dict[tuple[str, str], int]
    head: str = ""
    language: str = "en"

    def line(self, group: Sequence[tuple[int, Slot, str]], limit: int | None) -> str:
        return PHRASES[self.language]["parts"].join(
            _value_note(slot, value, self.since[(slot.entity, value)],
                        self.attached[(slot.entity, value)], self.record, limit,
                        self.head if n == 0 else "", self.language)
            for n, (_, slot, value) in enumerate(group))


@dataclass
class _KindValues:
    """The current values of one fact kind across its slots: said in conversation, or
    only from tools (each as (recency, slot, value)), with their earlier values and the
    turn each became current; ``loose`` are ended periods no current value replaced."""

    said: list[tuple[int, Slot, str]] = field(default_factory=list)
    tools: list[tuple[int, Slot, str]] = field(default_factory=list)
    loose: list[Period] = field(default_factory=list)
    attached: dict[tuple[str, str], list[Period]] = field(default_factory=dict)
    since: dict[tuple[str, str], int] = field(default_factory=dict)


def _kind_values(slots: Sequence[Slot]) -> _KindValues:
    found = _KindValues()
    for slot in slots:
        earlier = _earlier_of(slot)
        found.loose += earlier.pop("")
        for value in slot.current():
            found.attached[(slot.entity, value)] = earlier.get(value, [])
            found.since[(slot.entity, value)] = max(p.since for p in slot.periods
                                                    if p.value == value and p.until is None)
            seen = slot.said.get(value, 0)
            if seen and slot.entity != RECORDS:
                found.said.append((seen, slot, value))
            else:
                found.tools.append((slot.seen.get(value, 0), slot, value))
    return found


def _group_bullet(notes: _Notes, head: str, group: list[tuple[int, Slot, str]],
                  attached: Mapping[tuple[str, str], list[Period]]) -> Bullet:
    """One kind's values as a bullet in shorter and shorter forms (the newest values and
    the current ones are kept longest)."""
    group.sort(key=lambda entry: entry[0])
    recency = max(entry[0] for entry in group)
    forms = []
    noted = any(attached[(s.entity, v)] for _, s, v in group)
    if len(group) > MANY_VALUES:  # the newest values matter most
        forms += [(head + notes.line(group, None), OTHERS),
                  (head + notes.line(group[-MANY_VALUES:], 1), EARLIER),
                  (head + notes.line(group[-MANY_VALUES:], 0), ISSUES + 0.5),
                  (head + notes.line(group[-FEW_VALUES:], 0), MUST)]
    else:
        if noted:
            forms += [(head + notes.line(group, None), EARLIER),
                      (head + notes.line(group, 1), EARLIER + 0.5)]
        forms.append((head + notes.line(group, 0), MUST))
    return Bullet(forms, recency)


def _identifiers(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    names = cues.labels(language)
    bullets: list[Bullet] = []
    for kind in ALL_FACT_KINDS:
        slots = [s for s in record.facts.slots.values() if s.kind == kind and s.periods]
        if not slots:
            continue
        found = _kind_values(slots)
        label = names.get(kind, kind)
        for group, suffix in ((found.said, ""), (found.tools, w["from_tools"])):
            if group:
                head = f"{label}{suffix}{w['colon']}"
                notes = _Notes(record, found.attached, found.since, head, language)
                bullets.append(_group_bullet(notes, head, group, found.attached))
        if found.loose and not found.said and not found.tools:
            notes_text = w["list"].join(w["until"].format(value=p.value, n=p.until)
                                        for p in found.loose[:4])
            bullets.append(_fixed(f"{label}{w['colon']}" + w["earlier"].format(notes=notes_text),
                                  EARLIER, 0))
    bullets += _other_identifiers(record, language)
    return bullets


def _other_groups(record: HandoverRecord, language: str
                  ) -> list[tuple[str, list[tuple[int, str]]]]:
    """(label, [(recency, value)]) for each kind of other identifier, durations (latencies
    of a tool trace) apart from amounts."""
    w = PHRASES[language]
    groups = []
    for label, kinds in OTHER_KINDS:
        values: list[tuple[int, str]] = []
        for kind in kinds:
            found = record.others.get(kind, {})
            if kind == "timestamp" and len(found) > MAX_TIMESTAMPS:
                ordered = sorted(found)
                values.append((max(found.values()), w["timestamps"].format(
                    count=len(found), first=ordered[0], last=ordered[-1])))
                continue
            values += [(seq, value) for value, seq in found.items()]
        if label == "Amounts":
            groups.append(("Durations", [v for v in values if _DURATION.match(v[1])]))
            values = [v for v in values if not _DURATION.match(v[1])]
        groups.append((label, values))
    return [(OTHER_LABELS_ZH.get(label, label) if language == "zh" else label, values)
            for label, values in groups if values]


def _other_identifiers(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    bullets = []
    for label, values in _other_groups(record, language):
        values.sort()
        recency = values[-1][0]
        text: Callable[[int], str] = lambda n, v=values, lb=label: (  # noqa: E731
            f"{lb}{w['colon']}{w['list'].join(value for _, value in v[-n:])}")
        forms = [(text(len(values)), OTHERS)]
        if len(values) > 8:
            forms.append((text(8), OTHERS + 0.5))
        forms += [(text(min(3, len(values))), OTHERS + 1), ("", OTHERS + 1)]
        bullets.append(Bullet(forms, recency))
    return bullets


def _status(record: HandoverRecord, language: str) -> list[Bullet]:
    w = PHRASES[language]
    space = " " if language == "en" else ""
    issue = record.latest_open()
    bullets = []
    if issue is not None:
        where = _label(record, issue.entity, language, space)
        bullets.append(_must(w["status_open"].format(where=where, n=issue.turn)))
        answered = [s for s in record.steps if s.entity == issue.entity
                    and s.turn >= issue.turn and s.result is not None
                    and s.who in ("agent", "customer")]
        last = max(answered, key=lambda s: (s.result_turn or s.turn, s.turn), default=None)
        if last is not None:
            bullets.append(_must(w["last_result"].format(text=last.result)))
        if record.question is not None:
            bullets.append(_must(w["waiting"].format(text=record.question[1])))
    else:
        done = [i for i in record.issues if i.resolved is not None]
        if done:
            where = _label(record, done[-1].entity, language, space)
            bullets.append(_must(w["none_open"].format(where=where, n=done[-1].resolved)))
        else:
            bullets.append(_must(w["none_reported"]))
    return bullets


def _next_step(record: HandoverRecord, language: str) -> str:
    w = PHRASES[language]
    if record.pending:
        p = record.pending[-1]
        return w["next_pending"].format(tool=p.tool, where=_label(record, p.entity, language),
                                        n=p.turn)
    issue = record.latest_open()
    awaiting = (record.steps[record.awaiting] if record.awaiting is not None
                and record.awaiting < len(record.steps) else None)
    if issue is not None:
        where = _label(record, issue.entity, language, "")
        if awaiting is not None:
            return w["next_step"].format(action=awaiting.action)
        if record.question is not None:
            return w["next_answer"]
        return w["next_continue"].format(where=where or w["open_word"])
    return w["next_done"]
