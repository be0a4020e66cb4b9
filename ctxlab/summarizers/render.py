"""Render a :class:`~ctxlab.summarizers.record.HandoverRecord` as the summary text, within a
token budget.

The sections are :data:`~ctxlab.summarizers.prompt.SUMMARY_SECTIONS`, in order; a section
with nothing to report is left out. Identifier values appear in one place only, the
**Identifiers** section, each with its device when the chat has several (or the customer,
the case) and, when it changed, what it was before (``v1.1.0 (laptop; earlier: v1.0.2
until turn 13)``: every ctxlab reader treats an ``earlier:`` note as no longer current,
:mod:`ctxlab.core.staleness`). Within a kind, values are listed in the order they were
last mentioned, so the last one is the one the conversation mentioned last. Values that
only ever came from tool results are listed under their own bullet, ``Firmware (from
tools): ...``, so a reader can prefer what the customer said, as it would in the raw
conversation. Narrative sections name values by kind (``[serial]``) instead of repeating
them.

Every bullet has shorter forms. While the text is over ``max_tokens``, the least important
detail goes first, oldest first: tool health and environment details, milestones, resolved
problems and earlier versions of constraints, other identifiers, older steps, earlier
values of identifiers (a kind with many values keeps its newest ones). Current
identifiers, constraints, commitments, pending actions, the status and the next step stay,
unless they alone exceed the budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..core import cues
from ..core.facts import FACT_KINDS, facts_in_text
from ..core.tokens import DEFAULT_ENCODING, get_token_counter
from ..core.tracker import RECORDS, Period, Slot
from .prompt import SUMMARY_SECTIONS
from .record import OTHER_KINDS, HandoverRecord

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
    sections: dict[str, list[Bullet]] = field(default_factory=dict)

    def text(self) -> str:
        """The sections with something to report, in order (an empty one is left out)."""
        lines = []
        for title in SUMMARY_SECTIONS:
            bullets = [b.text for b in self.sections.get(title, []) if b.text]
            if bullets:
                lines.append(f"{title}:")
                lines += [f"- {b}" for b in bullets]
        return "\n".join(lines)


def _fixed(text: str, tier: float = MUST, recency: int = 0) -> Bullet:
    return Bullet([(text, tier), ("", tier)], recency)


def _must(text: str) -> Bullet:
    return Bullet([(text, MUST)])


def render(record: HandoverRecord, *, max_steps: int = 8, max_tokens: int = 1200) -> str:
    """The summary text of ``record`` (see the module docstring)."""
    out = Rendered({title: [] for title in SUMMARY_SECTIONS})
    sections = out.sections
    sections["Product & Environment"] = _environment(record)
    sections["Reported Issue"] = _issues(record)
    sections["Constraints & Preferences"] = _statements(record, "constraint")
    sections["Agent Commitments"] = _statements(record, "commitment")
    sections["Steps Tried & Results"] = _steps(record, max_steps)
    sections["Pending Actions"] = [
        _must(f"{p.tool} ({_label(record, p.entity)}called in {cues.LABELS['turn']} {p.turn}): "
              "no output yet") for p in record.pending]
    sections["Timeline Milestones"] = [
        _fixed(f"{cues.LABELS['turn']} {turn}: {text}", MILESTONES, n)
        for n, (turn, text) in enumerate(record.milestones[-MAX_MILESTONES:])]
    sections["Tool Performance Insights"] = _tools(record)
    sections["Identifiers"] = _identifiers(record)
    sections["Current Status & Blockers"] = _status(record)
    sections["Next Recommended Step"] = [_must(_next_step(record))]
    return _fit(out, max_tokens)


def _fit(out: Rendered, max_tokens: int) -> str:
    counter = get_token_counter(DEFAULT_ENCODING)
    cache: dict[str, int] = {}

    def tokens(text: str) -> int:
        if text not in cache:
            cache[text] = counter.count(text) + 1 if text else 0
        return cache[text]

    bullets = [b for title in SUMMARY_SECTIONS for b in out.sections[title]]
    heads = sum(tokens(f"{title}:") + 3 for title in SUMMARY_SECTIONS)
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


def _tools(record: HandoverRecord) -> list[Bullet]:
    healthy = sum(int(calls) for calls, failures, _ in record.tools.values() if not failures)
    bullets = []
    if healthy:
        bullets.append(_fixed(f"{healthy} call(s) of {len(record.tools)} tool(s) succeeded"
                              + (" (the others below)" if len(record.tools) > 1 and any(
                                  f for _, f, _ in record.tools.values()) else ""), TOOLS))
    for n, (tool, (calls, failures, last)) in enumerate(record.tools.items()):
        if failures:
            bullets.append(_fixed(f"{tool}: {failures} of {calls} call(s) failed; last: {last}",
                                  RESOLVED, n))
    return bullets


def _label(record: HandoverRecord, entity: str | None, suffix: str = ", ") -> str:
    if not entity or entity not in record.facts.entities:
        return ""
    found = record.facts.entities[entity]
    if found.kind != "device":
        return ""
    return found.label + suffix


# ---------------------------------------------------------------------------- sections


def _environment(record: HandoverRecord) -> list[Bullet]:
    bullets = []
    devices = []
    for entity in record.facts.devices():
        devices.append(f"{entity.label} ({entity.model})" if entity.model else entity.label)
    if devices:
        bullets.append(Bullet([("; ".join(devices), ISSUES), ("; ".join(devices[-3:]), MUST)]))
    if record.environment:
        bullets.append(_fixed("; ".join(record.environment), ENVIRONMENT))
    return bullets


def _issues(record: HandoverRecord) -> list[Bullet]:
    bullets = []
    resolved = [i for i in record.issues if i.resolved is not None]
    hidden = {id(i) for i in resolved[: max(0, len(resolved) - MAX_RESOLVED)]}
    if hidden:
        bullets.append(_fixed(f"({len(hidden)} earlier problem(s) resolved)", RESOLVED, -1))
    if not record.issues and record.opening:
        bullets.append(Bullet([(f"opening request ({cues.LABELS['turn']} 1): {record.opening}",
                                ISSUES), ("", ISSUES)]))
    for n, issue in enumerate(record.issues):
        if id(issue) in hidden:
            continue
        where = _label(record, issue.entity, "")
        head = f"{where} ({cues.LABELS['turn']} {issue.turn}" if where else (
            f"({cues.LABELS['turn']} {issue.turn}")
        if issue.resolved is not None:
            short = " ".join(issue.text.split()[:8]) + ("…" if len(issue.text.split()) > 8
                                                         else "")
            bullets.append(_fixed(f"{head}, resolved in {cues.LABELS['turn']} "
                                  f"{issue.resolved}): {short}", RESOLVED, n))
        else:
            bullets.append(Bullet([(f"{head}, open): {issue.text}", ISSUES),
                                   (f"{head}, open)", MUST)], n))
    return bullets


def _statements(record: HandoverRecord, kind: str) -> list[Bullet]:
    bullets = []
    facts = record.facts
    for n, said in enumerate(facts.current_statements(kind)):
        topic = f"{said.topic} " if kind == "constraint" else ""
        base = f"{topic}({cues.LABELS['turn']} {said.turn}): {said.text}"
        earlier = facts.revisions(said)
        forms: list[tuple[str, float]] = []
        if earlier:
            notes = ", ".join(f"{_flat(s.text)} {cues.LABELS['until_turn']} {s.until}"
                              for s in earlier[:2])
            forms.append((f"{base} ({cues.LABELS['earlier']}: {notes})", REVISIONS))
        forms.append((base, MUST))
        bullets.append(Bullet(forms, n))
    return bullets


def _flat(text: str) -> str:
    """A sentence that can sit inside an "earlier: ..." note without ending it."""
    return text.rstrip(".!").replace(". ", ", ").replace(";", ",").replace(")", "").replace(
        "(", "")


def _steps(record: HandoverRecord, max_steps: int) -> list[Bullet]:
    """The newest steps on the latest open problem's device (the newest two when no
    problem is open), oldest first, with a count of the others."""
    issue = record.latest_open()
    if issue is not None:
        mine = [s for s in record.steps if s.entity == issue.entity and s.turn >= issue.turn]
        steps = mine[-max_steps:]
    else:
        steps = record.steps[-min(2, max_steps):]
    omitted = record.steps_omitted + len(record.steps) - len(steps)
    bullets = []
    if omitted:
        bullets.append(_fixed(f"({omitted:,} earlier steps not shown)", STEPS, -1))
    for n, step in enumerate(steps):
        where = _label(record, step.entity)
        if step.who in ("agent", "customer"):
            text = f"{step.who} ({where}{cues.LABELS['turn']} {step.turn}): {step.action}"
            if step.result is not None:
                text += f" -> customer: {step.result}"
        else:
            text = f"{step.who} ({where}{cues.LABELS['turn']} {step.turn}) -> {step.result}"
        bullets.append(_fixed(text, STEPS, n))
    return bullets


#: The word a value needs in front of it to be read as its kind ("error 42").
_VALUE_WORDS = {"error_code": "error", "reservation": "reservation", "order": "order",
                "ticket": "ticket", "serial": "serial", "firmware": "firmware", "rma": "RMA"}


@lru_cache(maxsize=4096)
def readable(kind: str, value: str, lead: str = "") -> str:
    """``value`` as written, or with its kind's word in front when a reader would not
    recognise it after ``lead`` ("42" -> "error 42"; after "Error code: " it needs none)."""
    if any(f.kind == kind and f.value == value for f in facts_in_text(lead + value)):
        return value
    word = _VALUE_WORDS.get(kind)
    if word and any(f.kind == kind and f.value == value for f in facts_in_text(f"{word} {value}")):
        return f"{word} {value}"
    return value


def _value_note(slot: Slot, value: str, since: int, earlier: Sequence[Period],
                record: HandoverRecord, limit: int | None, lead: str = "") -> str:
    parts = []
    label = _label(record, slot.entity, "") if len(record.facts.devices()) > 1 else ""
    if label:
        parts.append(label)
    shown = list(earlier) if limit is None else list(earlier)[:limit]
    if shown:
        notes = ", ".join(f"{readable(slot.kind, p.value)} {cues.LABELS['until_turn']} "
                          f"{p.until}" for p in shown)
        parts.append(f"{cues.LABELS['earlier']}: {notes}")
    shown_value = readable(slot.kind, value, lead)
    return f"{shown_value} ({'; '.join(parts)})" if parts else shown_value


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

    def line(self, group: Sequence[tuple[int, Slot, str]], limit: int | None) -> str:
        return "; ".join(
            _value_note(slot, value, self.since[(slot.entity, value)],
                        self.attached[(slot.entity, value)], self.record, limit,
                        self.head if n == 0 else "")
            for n, (_, slot, value) in enumerate(group))


def _identifiers(record: HandoverRecord) -> list[Bullet]:
    facts = record.facts
    bullets: list[Bullet] = []
    for kind in FACT_KINDS:
        slots = [s for s in facts.slots.values() if s.kind == kind and s.periods]
        if not slots:
            continue
        said: list[tuple[int, Slot, str]] = []
        tools: list[tuple[int, Slot, str]] = []
        loose: list[Period] = []
        attached: dict[tuple[str, str], list[Period]] = {}
        since: dict[tuple[str, str], int] = {}
        for slot in slots:
            earlier = _earlier_of(slot)
            loose += earlier.pop("")
            for value in slot.current():
                attached[(slot.entity, value)] = earlier.get(value, [])
                since[(slot.entity, value)] = max(p.since for p in slot.periods
                                                  if p.value == value and p.until is None)
                seen = slot.said.get(value, 0)
                if seen and slot.entity != RECORDS:
                    said.append((seen, slot, value))
                else:
                    tools.append((slot.seen.get(value, 0), slot, value))
        label = cues.LABELS.get(kind, kind)
        for group, suffix in ((said, ""), (tools, f" ({cues.LABELS['from_tools']})")):
            if not group:
                continue
            group.sort(key=lambda entry: entry[0])
            head = f"{label}{suffix}: "
            notes = _Notes(record, attached, since, head)
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
            bullets.append(Bullet(forms, recency))
        if loose and not said and not tools:
            notes = ", ".join(f"{p.value} {cues.LABELS['until_turn']} {p.until}"
                              for p in loose[:4])
            bullets.append(_fixed(f"{label}: {cues.LABELS['earlier']}: {notes}", EARLIER, 0))
    bullets += _other_identifiers(record)
    return bullets


def _other_identifiers(record: HandoverRecord) -> list[Bullet]:
    bullets = []
    for label, kinds in OTHER_KINDS:
        values: list[tuple[int, str]] = []
        for kind in kinds:
            found = record.others.get(kind, {})
            if kind == "timestamp" and len(found) > MAX_TIMESTAMPS:
                ordered = sorted(found)
                values.append((max(found.values()), f"{len(found)} timestamps from "
                               f"{ordered[0]} to {ordered[-1]}"))
                continue
            values += [(seq, value) for value, seq in found.items()]
        if not values:
            continue
        values.sort()
        recency = values[-1][0]
        text: Callable[[int], str] = lambda n, v=values, lb=label: (  # noqa: E731
            f"{lb}: {', '.join(value for _, value in v[-n:])}")
        forms = [(text(len(values)), OTHERS)]
        if len(values) > 8:
            forms.append((text(8), OTHERS + 0.5))
        forms += [(text(min(3, len(values))), OTHERS + 1), ("", OTHERS + 1)]
        bullets.append(Bullet(forms, recency))
    return bullets


def _status(record: HandoverRecord) -> list[Bullet]:
    issue = record.latest_open()
    bullets = []
    if issue is not None:
        where = _label(record, issue.entity, " ")
        bullets.append(_must(f"Open: the {where}problem reported in {cues.LABELS['turn']} "
                             f"{issue.turn}"))
        last = next((s for s in reversed(record.steps) if s.entity == issue.entity
                     and s.turn >= issue.turn and s.result is not None
                     and s.who in ("agent", "customer")), None)
        if last is not None:
            bullets.append(_must(f"Last result: {last.result}"))
        if record.question is not None:
            bullets.append(_must(f"Waiting on customer: {record.question[1]}"))
    else:
        done = [i for i in record.issues if i.resolved is not None]
        if done:
            where = _label(record, done[-1].entity, " ")
            bullets.append(_must(f"No open problem (the {where}problem was resolved in "
                                 f"{cues.LABELS['turn']} {done[-1].resolved})"))
        else:
            bullets.append(_must("No problem reported yet"))
    return bullets


def _next_step(record: HandoverRecord) -> str:
    if record.pending:
        p = record.pending[-1]
        return (f"Get the result of {p.tool} ({_label(record, p.entity)}called in "
                f"{cues.LABELS['turn']} {p.turn}) before anything else")
    issue = record.latest_open()
    awaiting = (record.steps[record.awaiting] if record.awaiting is not None
                and record.awaiting < len(record.steps) else None)
    if issue is not None:
        where = _label(record, issue.entity, "")
        if awaiting is not None:
            return f"Get the result of the last step ({awaiting.action})"
        if record.question is not None:
            return "Get the customer's answer, then continue troubleshooting"
        return f"Continue troubleshooting the {where or 'open'} problem"
    return "Ask whether anything else needs help"
