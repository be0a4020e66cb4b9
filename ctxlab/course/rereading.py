"""RereadingSummarizer: the first edition's extractive summarizer, WRONG on purpose.

Kept for lesson 06, which shows why presence is not use. On every incremental fold it
re-reads its own previous note as if it were conversation: values inside "(Superseded:
...)" count as the latest mention again, so current and superseded values swap on every
fold (the agent would write to the old email address), two devices' firmware share one
field, and small talk fills "Steps Tried & Results". Every identifier stays *in view*, so
recall scores it 100%; the stale-as-current column catches it. Use
:class:`ctxlab.ExtractiveSummarizer` instead (it keeps a structured record and never
re-reads its prose).
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.checks import check_int
from ..facts.identifiers import Identifier, find_identifiers
from ..facts.typed import FACT_KINDS, facts_in_text
from ..summarizers.base import SummaryResult, is_summary_pair
from ..summarizers.transcript import Line, transcript_lines

_PRODUCT = re.compile(
    r"\b(?:MacBook(?: Pro| Air)?|iMac|Mac mini|iPhone(?: \d+)?|iPad|Pixel \d+|Galaxy \w+|"
    r"ThinkPad \w+|laptop|desktop|router|modem|printer|monitor|headset|Windows \d+|"
    r"macOS(?: [A-Z]\w+)?|Ubuntu(?: [\d.]+)?|Linux|Android(?: \d+)?|iOS(?: \d+)?|"
    r"Chrome|Safari|Firefox|Edge|Outlook|Wi-?Fi|Ethernet|Bluetooth|VPN|"
    r"firmware(?: version)? v?\d+(?:\.\d+)+)\b",
    re.I,
)
_CONTEXT = re.compile(
    r"\b(?:(?:premium|gold|silver|bronze|business|enterprise|vip) (?:customer|member|plan|tier)|"
    r"based in (?:the )?[A-Z][\w.]*(?: [A-Z][\w.]*)?|[A-Z]{2,}-based|"
    r"(?:second|third|fourth|fifth) time)\b",
    re.I,
)
_SYMPTOM = re.compile(
    r"\b(?:error|fail\w*|not work\w*|won'?t|can'?t|cannot|broken|blink\w*|overheat\w*|"
    r"slow|crash\w*|freez\w*|no sound|disconnect\w*|not found|denied|stuck|issue|problem)\b",
    re.I,
)
_RESOLVED = re.compile(
    r"\b(?:fixed|resolved|works now|working now|that worked|solved|all good|no longer)\b", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

#: The first edition's sections.
SUMMARY_SECTIONS: tuple[str, ...] = (
    "Product & Environment", "Reported Issue", "Steps Tried & Results", "Identifiers",
    "Timeline Milestones", "Tool Performance Insights", "Current Status & Blockers",
    "Next Recommended Step",
)

#: Titles of the typed facts (see :mod:`ctxlab.facts.typed`), listed first.
_FACT_TITLES: dict[str, str] = {
    "ticket": "Ticket",
    "serial": "Serial number",
    "firmware": "Firmware",
    "error_code": "Error codes",
    "email": "Email",
    "order": "Order number",
    "rma": "RMA number",
    "reservation": "Reservation code",
}
#: Typed facts where a newer value replaces the older one.
_SINGLE_VALUED_FACTS = {"firmware", "email"}

_KIND_LABELS: list[tuple[str, tuple[str, ...]]] = [
    ("Other codes", ("prefixed_code", "code", "long_number")),
    ("Account ids", ("account_id",)),
    ("Names", ("name",)),
    ("Other emails", ("email",)),
    ("Phones", ("phone",)),
    ("Versions", ("version",)),
    ("Other error codes", ("error_code", "http_status")),
    ("Dates & times", ("date", "timestamp", "time")),
    ("Amounts", ("money", "quantity")),
    ("Links", ("url",)),
]
#: Kinds where a newer value replaces the older one (the rest accumulate). Generic
#: versions accumulate: several programs have versions; the firmware is a typed fact.
_SINGLE_VALUED = {"email", "phone"}
#: More timestamps than this from the folded turns are reported as a count and a range
#: (an event log's timestamps are not facts anyone asks for; plain dates are kept).
_MAX_TIMESTAMPS = 4


def gist(text: str, words: int) -> str:
    """The opening sentences of ``text`` (enough to say something), at most ``words`` words."""
    flat = " ".join(text.split())
    taken: list[str] = []
    for sentence in _SENTENCE.split(flat) if flat else []:
        taken.extend(sentence.split())
        if len(taken) >= 6:
            break
    return " ".join(taken[:words]) + ("…" if len(taken) > words else "")


def _question(text: str) -> str | None:
    sentences = [s for s in _SENTENCE.split(" ".join(text.split())) if s]
    for sentence in reversed(sentences):
        if sentence.endswith("?"):
            return sentence
    return None


def _tool_outcome(text: str) -> tuple[bool, str]:
    """(ok, short description) for a tool output: its status/error fields or its gist."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        data = None
    if isinstance(data, Mapping):
        if data.get("error"):
            return False, f"error: {gist(str(data['error']), 12)}"
        fields = [
            f"{k}={data[k]}"
            for k in ("status", "warranty", "warranty_status", "result", "state", "message")
            if isinstance(data.get(k), (str, int, float, bool))
        ]
        if fields:
            return True, ", ".join(fields[:3])
        return True, "ok"
    failed = bool(re.search(r"\b(?:error|failed|not found|invalid)\b", text, re.I))
    return not failed, gist(text, 12) or "empty"


def _parse_previous(text: str) -> dict[str, list[str]]:
    """Split one of our own earlier notes into its sections (bullets without the dash)."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.endswith(":") and line[:-1] in SUMMARY_SECTIONS:
            current = line[:-1]
            sections[current] = []
        elif current and line.startswith("- "):
            sections[current].append(line[2:])
    return sections


#: Labels whose values are recognised only in context (a name after "registered to", an
#: all-letter booking code after "reservation"): when an earlier note is extended, their
#: values are read back from its Identifiers bullets instead of being re-detected.
_CONTEXTUAL_LABELS = {"Names": "name", "Other codes": "code", "Reservation code": "code"}


def _carried_identifiers(previous_text: str) -> list[Identifier]:
    carried: list[Identifier] = []
    for bullet in _parse_previous(previous_text).get("Identifiers", []):
        label, _, values = bullet.partition(": ")
        kind = _CONTEXTUAL_LABELS.get(label)
        if kind is None:
            continue
        for value in re.split(r", |; ", values):
            value = value.split(" (Superseded:")[0].strip()
            if value:
                carried.append(Identifier(kind, value, -1))
    return carried


class RereadingSummarizer:
    """WRONG on purpose: the first edition's extractive summarizer (see the module doc).

    Args:
        max_steps: how many "Steps Tried & Results" bullets to keep (the oldest are
            dropped first, with a note; identifiers are never dropped).
        gist_words: words kept from each message in step and status bullets.
        tool_trim_limit: unused by the extraction itself (tool outputs are read in full
            for identifiers); accepted for symmetry with :class:`LLMSummarizer`.
    """

    name = "RereadingSummarizer"

    def __init__(self, *, max_steps: int = 8, gist_words: int = 14,
                 tool_trim_limit: int | None = None):
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        check_int("gist_words", gist_words, minimum=3)
        self.max_steps = max_steps
        self.gist_words = gist_words
        self.tool_trim_limit = tool_trim_limit

    def __repr__(self) -> str:
        return f"RereadingSummarizer(max_steps={self.max_steps}, gist_words={self.gist_words})"

    def summarize(
        self, items: Sequence[Mapping[str, Any]], *, previous_summary: str | None = None
    ) -> SummaryResult:
        items = list(items)
        if is_summary_pair(items):
            from ..core.items import item_text

            previous_summary = previous_summary or item_text(items[1])
            items = items[2:]
        previous = _parse_previous(previous_summary) if previous_summary else {}
        lines = transcript_lines(items)
        sections = OrderedDict((title, []) for title in SUMMARY_SECTIONS)
        sections["Product & Environment"] = self._environment(lines, previous)
        sections["Reported Issue"] = self._issue(lines, previous)
        sections["Steps Tried & Results"] = self._steps(lines, previous)
        sections["Identifiers"] = self._identifiers(lines, previous_summary or "")
        sections["Timeline Milestones"] = self._milestones(lines, previous)
        sections["Tool Performance Insights"] = self._tools(lines, previous)
        sections["Current Status & Blockers"] = self._status(lines)
        sections["Next Recommended Step"] = self._next_step(lines)
        text = "\n".join(
            f"{title}:\n" + "\n".join(f"- {b}" for b in (bullets or ["none"]))
            for title, bullets in sections.items()
        )
        return SummaryResult(text, model=None, extra={"summarizer": self.name})

    # -- sections --------------------------------------------------------------------
    def _environment(self, lines: list[Line], previous: dict[str, list[str]]) -> list[str]:
        seen: OrderedDict[str, str] = OrderedDict()
        for bullet in previous.get("Product & Environment", []):
            if bullet != "none":
                for part in bullet.split("; "):
                    seen.setdefault(part.lower(), part)
        for line in lines:
            if line.role not in ("user", "assistant", "tool call"):
                continue
            for pattern in (_PRODUCT, _CONTEXT):
                for match in pattern.finditer(line.text):
                    seen.setdefault(match.group(0).lower(), match.group(0))
        return ["; ".join(seen.values())] if seen else []

    def _issue(self, lines: list[Line], previous: dict[str, list[str]]) -> list[str]:
        bullets = [b for b in previous.get("Reported Issue", []) if not b.startswith("Latest:")]
        users = [ln for ln in lines if ln.role == "user"]
        if not bullets and users:
            bullets.append(gist(users[0].text, self.gist_words * 2))
        symptomatic = [ln for ln in users if _SYMPTOM.search(ln.text)]
        if symptomatic and symptomatic[-1] is not (users[0] if users else None):
            bullets.append(f"Latest: {gist(symptomatic[-1].text, self.gist_words * 2)}")
        return bullets

    def _steps(self, lines: list[Line], previous: dict[str, list[str]]) -> list[str]:
        steps = [
            b for b in previous.get("Steps Tried & Results", [])
            if b != "none" and not b.startswith("(")
        ]
        omitted = 0
        for b in previous.get("Steps Tried & Results", []):
            match = re.match(r"\((\d+) earlier steps omitted", b)
            if match:
                omitted += int(match.group(1))
        for index, line in enumerate(lines):
            if line.role == "assistant":
                steps.append(f"Agent: {gist(line.text, self.gist_words)}")
            elif line.role == "user" and index > 0:
                steps.append(f"Customer: {gist(line.text, self.gist_words)}")
            elif line.role == "tool call":
                result = next(
                    (ln for ln in lines[index + 1:]
                     if ln.role == "tool result" and ln.tool == line.tool), None)
                outcome = _tool_outcome(result.text)[1] if result else "no result yet"
                steps.append(f"Called {gist(line.text, self.gist_words)} -> {outcome}")
        if len(steps) > self.max_steps:
            omitted += len(steps) - self.max_steps
            steps = steps[-self.max_steps:]
        if omitted:
            steps.insert(0, f"({omitted} earlier steps omitted; identifiers kept below)")
        return steps

    def _identifiers(self, lines: list[Line], previous_text: str) -> list[str]:
        # Typed facts first ("Serial: SN-...", "Ticket: TCK-..."), so a reader knows what
        # each value is; every other identifier-like value follows under a generic label.
        typed = _typed_facts([previous_text, *(line.text for line in lines)])
        claimed = {value for values in typed.values() for value in values}
        found: list[Identifier] = list(find_identifiers(previous_text))
        found.extend(_carried_identifiers(previous_text))
        for line in lines:
            found.extend(find_identifiers(line.text))
        by_kind: dict[str, list[str]] = {}
        for ident in found:
            if ident.value not in claimed:
                _mention(by_kind.setdefault(ident.kind, []), ident.value)
        return [*_typed_bullets(typed), *_identifier_bullets(by_kind)]

    def _milestones(self, lines: list[Line], previous: dict[str, list[str]]) -> list[str]:
        events = [b for b in previous.get("Timeline Milestones", []) if b != "none"]
        seen_errors: set[str] = set()
        for line in lines:
            if line.role == "user":
                for ident in find_identifiers(line.text, kinds=("error_code", "http_status")):
                    if ident.value not in seen_errors:
                        seen_errors.add(ident.value)
                        events.append(f"Error {ident.value} reported")
                if _RESOLVED.search(line.text):
                    events.append(f"Customer confirmed: {gist(line.text, 10)}")
            elif line.role == "tool result":
                ok, outcome = _tool_outcome(line.text)
                events.append(f"{line.tool} {'returned' if ok else 'failed'}: {outcome}")
        return events[-6:]

    def _tools(self, lines: list[Line], previous: dict[str, list[str]]) -> list[str]:
        stats: OrderedDict[str, list[int | str]] = OrderedDict()
        for line in lines:
            if line.role == "tool result" and line.tool:
                ok, outcome = _tool_outcome(line.text)
                entry = stats.setdefault(line.tool, [0, 0, ""])
                entry[0] = int(entry[0]) + 1
                entry[1] = int(entry[1]) + (0 if ok else 1)
                entry[2] = outcome
        bullets = [
            b for b in previous.get("Tool Performance Insights", [])
            if b != "none" and b.split(":")[0] not in stats
        ]
        for tool, (calls, failures, last) in stats.items():
            health = "all succeeded" if failures == 0 else f"{failures} failed"
            bullets.append(f"{tool}: {calls} call(s), {health}; last: {last}")
        return bullets

    def _status(self, lines: list[Line]) -> list[str]:
        users = [ln for ln in lines if ln.role == "user"]
        bullets = []
        resolved = [ln for ln in users if _RESOLVED.search(ln.text)]
        if resolved:
            bullets.append(f"Resolved: {gist(resolved[-1].text, self.gist_words)}")
        open_ = [ln for ln in users if _SYMPTOM.search(ln.text) and ln not in resolved]
        if open_:
            bullets.append(f"Open: {gist(open_[-1].text, self.gist_words)}")
        last_agent = next((ln for ln in reversed(lines) if ln.role == "assistant"), None)
        if last_agent is not None:
            question = _question(last_agent.text)
            if question:
                bullets.append(f"Waiting on customer: {gist(question, self.gist_words)}")
        return bullets

    def _next_step(self, lines: list[Line]) -> list[str]:
        last_agent = next((ln for ln in reversed(lines) if ln.role == "assistant"), None)
        if last_agent is None:
            return ["UNVERIFIED: no agent reply in the folded turns; confirm the current state"]
        question = _question(last_agent.text)
        if question:
            return [f"Get the answer to: {gist(question, self.gist_words)}"]
        return [f"Follow up on: {gist(last_agent.text, self.gist_words)}"]


def _mention(values: list[str], value: str) -> None:
    """Add ``value`` last (moved there if already listed: it is the latest mention)."""
    if value in values:
        values.remove(value)
    values.append(value)


def _typed_facts(texts: list[str]) -> dict[str, list[str]]:
    """The typed facts of ``texts`` by kind, each list in order of latest mention."""
    typed: dict[str, list[str]] = {}
    for text in texts:
        for fact in facts_in_text(text):
            _mention(typed.setdefault(fact.kind, []), fact.value)
    return typed


def _typed_bullets(typed: dict[str, list[str]]) -> list[str]:
    bullets = []
    for kind in FACT_KINDS:
        values = typed.get(kind, [])
        if not values:
            continue
        label = _FACT_TITLES[kind]
        if kind in _SINGLE_VALUED_FACTS and len(values) > 1:
            bullets.append(f"{label}: {values[-1]} (Superseded: {', '.join(values[:-1])})")
        else:
            bullets.append(f"{label}: {', '.join(values)}")
    return bullets


def _identifier_bullets(by_kind: dict[str, list[str]]) -> list[str]:
    """One bullet per label of :data:`_KIND_LABELS` (many timestamps as one range)."""
    stamps = by_kind.get("timestamp", [])
    if len(stamps) > _MAX_TIMESTAMPS:
        ordered = sorted(stamps)
        by_kind["timestamp"] = [
            f"{len(stamps)} timestamps from {ordered[0]} to {ordered[-1]}"]
    bullets = []
    for label, kinds in _KIND_LABELS:
        parts: list[str] = []
        for kind in kinds:
            values = by_kind.get(kind, [])
            if not values:
                continue
            if kind in _SINGLE_VALUED and len(values) > 1:
                parts.append(f"{values[-1]} (Superseded: {', '.join(values[:-1])})")
            else:
                parts.append(", ".join(values))
        if parts:
            bullets.append(f"{label}: {'; '.join(parts)}")
    return bullets
