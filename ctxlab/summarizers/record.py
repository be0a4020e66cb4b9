"""HandoverRecord: the structured note behind the extractive summary.

The record is what the summarizer *knows*; the summary text is only its rendering
(:mod:`ctxlab.summarizers.render`). A fold reads the newly folded items into the record of
the previous fold and renders again; it never re-reads its own text. The record holds

* the facts, per entity with their history, and the constraints and commitments
  (:class:`ctxlab.facts.tracker.FactTracker`);
* the reported problems, per device, open or resolved (and when);
* the troubleshooting steps: what the agent asked the customer to do (or a tool call) and
  the result the customer reported; small talk is not a step;
* tool calls still waiting for their output (pending actions), tool health, milestones,
  product and environment details, and other identifier-like values (names, dates,
  amounts, account ids) with the order they were last mentioned in.

The fact tracker also counts the letters of the customer's messages (CJK characters and
Latin letters, :class:`ctxlab.facts.language.LanguageCount`): a conversation whose customer
writes Chinese gets a Chinese summary (:attr:`HandoverRecord.language`).

Everything is bounded (the newest entries are kept, with counts of what was left out), so
the record and its rendering stay the same size however long the conversation gets. The
record is a JSON-ready dict (:meth:`HandoverRecord.to_dict`); reading items in several
batches gives the same record as reading them at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.items import is_call, is_output, item_kind, item_text, pair_key
from ..facts import cues
from ..facts.identifiers import find_identifiers
from ..facts.language import Language
from ..facts.statements import sentences
from ..facts.tracker import FactTracker, device_noun
from ..facts.typed import facts_in_text
from .doubts import Doubts
from .text import describe_outcome, gist, is_question, last_question, tool_outcome

#: Version of :meth:`HandoverRecord.to_dict`'s format.
RECORD_FORMAT = 1
#: Entries kept in the record (the newest); rendering may show fewer.
MAX_STEPS = 24
MAX_RESOLVED = 8
MAX_MILESTONES = 12
MAX_OTHER_VALUES = 25
MAX_ENVIRONMENT = 12
MAX_PENDING = 32

_FLAGS = re.IGNORECASE


def _alt(fragments: Iterable[str]) -> str:
    return "|".join(f"(?:{f})" for f in fragments)


_SYMPTOM = re.compile(cues.words(cues.SYMPTOM, end=False), _FLAGS)
_RESOLVED = re.compile(cues.words(cues.RESOLVED, end=False), _FLAGS)
_NEGATION = re.compile(r"\b(?:not|never|still)\b|n't\b|\?|？|吗|还是|没有?好", _FLAGS)
# A step: an English instruction verb (after an optional lead such as "please"), or a
# Chinese one after a lead (请先, 然后) or a step number: a Chinese sentence that merely
# starts with a verb ("登录不上一般是…") is not an instruction.
_STEP = re.compile(
    r"^(?:\d+[.)]\s*)?(?:(?:" + _alt(w for w in cues.STEP_LEADS if w.isascii()) + r")\s+)?"
    + cues.words((v for v in cues.STEP_VERBS if v.isascii()), start=False)
    + r"|^(?:\d+[.)、]\s*(?:" + _alt(w for w in cues.STEP_LEADS if not w.isascii()) + r")?|(?:"
    + _alt(w for w in cues.STEP_LEADS if not w.isascii()) + r"))(?:"
    + _alt(v for v in cues.STEP_VERBS if not v.isascii()) + r")", _FLAGS)
_CLAUSE = re.compile(r"[:;]\s+|[：；，]")
_OUTCOME = re.compile(cues.words(cues.OUTCOME, end=False), _FLAGS)
_USER_ACTION = re.compile(cues.words(cues.USER_ACTION), _FLAGS)
_NEW_PROBLEM = re.compile(_alt(cues.NEW_PROBLEM), _FLAGS)
_ERROR = re.compile(r"\berror\b", _FLAGS)
_NEW_PROBLEM_LEAD = re.compile(r"^\W*(?:now\s+)?(?:" + _alt(cues.NEW_PROBLEM) + r")\s*[:,.-]?\s*",
                               _FLAGS)
#: Log-line dates ("2025-03-14 power cycle") one tool output may add to the record; an
#: event log with more is data, not details anyone asks about, and adds none.
MAX_OUTPUT_DATES = 4
_LOG_LINE = re.compile(r" [A-Za-z]")
_PRODUCT = re.compile(
    r"\b(?:MacBook(?: Pro| Air)?|iMac|Mac mini|iPhone(?: \d+)?|iPad|Pixel \d+|Galaxy \w+|"
    r"ThinkPad \w+|Windows \d+|macOS(?: [A-Z]\w+)?|Ubuntu(?: [\d.]+)?|Linux|Android(?: \d+)?|"
    r"iOS(?: \d+)?|Chrome|Safari|Firefox|Edge|Outlook|Wi-?Fi|Ethernet|Bluetooth|VPN)\b")
_CONTEXT = re.compile(
    r"\b(?:(?:premium|gold|silver|bronze|business|enterprise|vip) (?:customer|member|plan|tier)|"
    r"based in (?:the )?[A-Z][\w.]*(?: [A-Z][\w.]*)?|[A-Z]{2,}-based|"
    r"(?:second|third|fourth|fifth) time)\b", _FLAGS)
#: Identifier kinds kept as "other identifiers" (typed facts are the tracker's).
OTHER_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Other codes", ("prefixed_code", "code", "long_number")),
    ("Account ids", ("account_id",)),
    ("Names", ("name",)),
    ("Phones", ("phone",)),
    ("Versions", ("version",)),
    ("Other error codes", ("error_code", "http_status")),
    ("Dates & times", ("date", "timestamp", "time")),
    ("Amounts", ("money", "quantity")),
    ("Links", ("url",)),
    ("Other emails", ("email",)),
)
_OTHER_LABEL = {kind: label for label, kinds in OTHER_KINDS for kind in kinds}


_WORD = re.compile(r"[A-Za-z]{4,}")
_STOP = frozenset({"please", "then", "that", "this", "what", "with", "your", "tell", "again",
                   "still", "after", "from", "have", "about", "there", "they", "when", "will",
                   "next", "know", "does", "done", "same", "just"})


def _content_words(text: str) -> set[str]:
    """Word stems (first five letters) of the longer words of an English text."""
    return {w.lower()[:5] for w in _WORD.findall(text) if w.lower() not in _STOP}


@dataclass
class Issue:
    """A problem the customer reported, about ``entity``, open until ``resolved``."""

    entity: str | None
    text: str
    turn: int
    resolved: int | None = None


@dataclass
class Step:
    """A troubleshooting step: ``who`` (agent, customer or a tool's name) did ``action``
    in ``turn``; ``result`` is what came of it (None while unknown), reported in
    ``result_turn``."""

    turn: int
    who: str
    action: str
    entity: str | None = None
    result: str | None = None
    result_turn: int | None = None


@dataclass
class Pending:
    """A tool call folded without its output."""

    call_id: str
    tool: str
    turn: int
    entity: str | None = None


@dataclass
class HandoverRecord:
    """The extractive summarizer's structured note (see the module docstring)."""

    gist_words: int = 14
    facts: FactTracker = field(default_factory=FactTracker)
    issues: list[Issue] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    steps_omitted: int = 0
    pending: list[Pending] = field(default_factory=list)
    tools: dict[str, list[Any]] = field(default_factory=dict)  # name -> [calls, failures, last]
    milestones: list[tuple[int, str]] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    others: dict[str, dict[str, int]] = field(default_factory=dict)  # kind -> value -> seq
    opening: str | None = None  # the customer's first message (what they came for)
    question: tuple[int, str] | None = None  # the agent's latest unanswered question
    awaiting: int | None = None  # index in steps of the step waiting for its result
    seq: int = 0
    seeded_from_text: bool = False
    doubts: Doubts = field(default_factory=Doubts)

    # -- persistence -------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (what :class:`~ctxlab.summarizers.SummaryResult` carries)."""
        return {
            "format": RECORD_FORMAT, "facts": self.facts.to_dict(),
            "issues": [dict(vars(i)) for i in self.issues],
            "steps": [dict(vars(s)) for s in self.steps], "steps_omitted": self.steps_omitted,
            "pending": [dict(vars(p)) for p in self.pending],
            "tools": {k: list(v) for k, v in self.tools.items()},
            "milestones": [list(m) for m in self.milestones],
            "environment": list(self.environment),
            "others": {k: dict(v) for k, v in self.others.items()},
            "opening": self.opening,
            "question": list(self.question) if self.question else None,
            "awaiting": self.awaiting, "seq": self.seq,
            "seeded_from_text": self.seeded_from_text, "doubts": self.doubts.to_list(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, gist_words: int = 14) -> HandoverRecord:
        """The inverse of :meth:`to_dict` (ValueError on another format)."""
        if not isinstance(data, Mapping) or int(data.get("format", 0)) != RECORD_FORMAT:
            raise ValueError("not a HandoverRecord (or a format this ctxlab cannot read)")
        question = data.get("question")
        return cls(
            gist_words=gist_words, facts=FactTracker(data["facts"]),
            issues=[Issue(**i) for i in data.get("issues", ())],
            steps=[Step(**s) for s in data.get("steps", ())],
            steps_omitted=int(data.get("steps_omitted", 0)),
            pending=[Pending(**p) for p in data.get("pending", ())],
            tools={str(k): list(v) for k, v in data.get("tools", {}).items()},
            milestones=[(int(t), str(m)) for t, m in data.get("milestones", ())],
            environment=[str(e) for e in data.get("environment", ())],
            others={str(k): {str(v): int(n) for v, n in vals.items()}
                    for k, vals in data.get("others", {}).items()},
            opening=data.get("opening"),
            question=(int(question[0]), str(question[1])) if question else None,
            awaiting=data.get("awaiting"), seq=int(data.get("seq", 0)),
            seeded_from_text=bool(data.get("seeded_from_text", False)),
            doubts=Doubts(data.get("doubts", ())),
        )

    @property
    def turn(self) -> int:
        return self.facts.turn

    @property
    def language(self) -> Language:
        """The language of the customer's messages read so far (``"en"`` or ``"zh"``)."""
        return self.facts.language

    # -- reading -----------------------------------------------------------------------
    def read(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Read ``items`` in order, continuing the conversation read so far."""
        names: dict[str, str] = {p.call_id: p.tool for p in self.pending}
        for item in items:
            kind = item_kind(item)
            text = item_text(item)
            self.facts.observe(item)
            if kind == "user":
                self.doubts.hedged(text, self.facts)
            if self.doubts.entries:
                self.doubts.settle(self.facts)
            if kind == "user":
                self._user(text)
            elif kind == "assistant":
                self._assistant(text)
            elif is_call(item):
                key = pair_key(item)
                name = str(item.get("name") or item.get("type") or "tool")
                if key:
                    names[key[1]] = name
                    self._call(key[1], name)
            elif is_output(item):
                key = pair_key(item)
                call_id = key[1] if key else ""
                self._output(call_id, names.get(call_id, "tool"), text)
                self._others(text, output=True)
                continue
            else:
                continue
            self._others(text)
            self._environment(text)

    def read_note(self, text: str) -> None:
        """Start from a note this summarizer did not keep a record for (another summarizer's,
        or one stored before records existed): its facts, constraints and commitments are
        read as a memory note, values marked stale there stay stale."""
        self.facts.observe_text(text, "note")
        self.facts.letters.add(text)
        self.doubts.from_note(text, self.facts)
        self._others(text)
        self.seeded_from_text = True

    def _user(self, text: str) -> None:
        self.seq += 1
        if self.opening is None:
            self.opening = gist(text, self.gist_words * 2)
        entity = self.facts.focus
        resolved = _RESOLVED.search(text) is not None and not _NEGATION.search(text)
        new_problem = _NEW_PROBLEM.search(text) is not None
        if (_OUTCOME.search(text) or resolved) and not new_problem:
            step = self._step_answered(text)
            if step is not None:
                step.result, step.result_turn = gist(text, self.gist_words), self.turn
        self.awaiting = None  # a result is the customer's next message, or none came
        if _USER_ACTION.search(text) and not is_question(text):
            self._step(Step(self.turn, "customer", gist(text, self.gist_words), entity))
        if resolved:
            self._resolve(entity)
        if self._reports_problem(text, resolved, new_problem):
            self._open_issue(text, entity, resolved, new_problem)
        self.question = None

    def _resolve(self, entity: str | None) -> None:
        """The customer says it works: the latest open issue (of this entity, if any) ends."""
        open_ = [i for i in self.issues if i.resolved is None]
        mine = [i for i in open_ if i.entity == entity] or open_
        if mine:
            mine[-1].resolved = self.turn

    def _reports_problem(self, text: str, resolved: bool, new_problem: bool) -> bool:
        """A statement of a symptom (not a question, not a "fixed it") that is a new
        problem, the first one, about a named device, or with an error."""
        if not _SYMPTOM.search(text) or is_question(text) or (resolved and not new_problem):
            return False
        return bool(new_problem or not self.issues or device_noun(text) or _ERROR.search(text))

    def _open_issue(self, text: str, entity: str | None, resolved: bool,
                    new_problem: bool) -> None:
        open_here = [i for i in self.issues if i.resolved is None and i.entity == entity]
        if open_here and not new_problem:
            return
        report = _NEW_PROBLEM_LEAD.sub("", text).strip() or text
        if resolved:  # "That fixed it. Now a different problem: ..."
            report = _NEW_PROBLEM_LEAD.sub("", report[_NEW_PROBLEM.search(
                report).start():] if _NEW_PROBLEM.search(report) else report)
        self.issues.append(Issue(entity, gist(report, self.gist_words * 2), self.turn))
        self._bound_issues()

    def _assistant(self, text: str) -> None:
        actions = []
        for _, _, sentence in sentences(text):
            if is_question(sentence):
                continue
            # "Let's try something else: restart it" -> the clause that gives the action
            clause = next((c for c in _CLAUSE.split(sentence) if _STEP.search(c)), None)
            if clause is None:
                continue
            actions.append(clause.rstrip(".。"))
            if len(actions) == 3:
                break
        if actions:
            action = gist(("；" if self.language == "zh" else "; ").join(actions),
                          self.gist_words)
            last = self.steps[-1] if self.steps else None
            if (last is not None and last.who == "agent" and last.action == action
                    and last.entity == self.facts.focus):
                last.turn, last.result = self.turn, None  # the same step asked again
            else:
                self._step(Step(self.turn, "agent", action, self.facts.focus))
            self.awaiting = len(self.steps) - 1
        question = last_question(text)
        self.question = (self.turn, gist(question, self.gist_words)) if question else None

    def _call(self, call_id: str, name: str) -> None:
        self.pending.append(Pending(call_id, name, self.turn, self.facts.calls.get(call_id)
                                    or self.facts.focus))
        if len(self.pending) > MAX_PENDING:
            self.pending = self.pending[-MAX_PENDING:]

    def _output(self, call_id: str, name: str, text: str) -> None:
        waiting = next((p for p in self.pending if p.call_id == call_id), None)
        if waiting is not None:
            self.pending.remove(waiting)
        ok, outcome = tool_outcome(text)
        stats = self.tools.setdefault(name, [0, 0, ""])
        stats[0] = int(stats[0]) + 1
        stats[1] = int(stats[1]) + (0 if ok else 1)
        stats[2] = outcome
        entity = waiting.entity if waiting else self.facts.focus
        turn = waiting.turn if waiting else self.turn
        self._step(Step(turn, name, "called", entity, outcome, self.turn))
        if not ok:
            self._milestone(f"{name} è°ç¨å¤±è´¥ï¼{describe_outcome(outcome, 'zh')}"
                            if self.language == "zh" else f"{name} failed: {outcome}")

    def _step_answered(self, text: str) -> Step | None:
        """The agent's step a customer's outcome report answers: the step of the agent's
        last message, or (a late report, "still hot after cleaning the vents") the newest
        recent step without a result that shares a word with the report."""
        if self.awaiting is not None and self.awaiting < len(self.steps):
            return self.steps[self.awaiting]
        words = _content_words(text)
        for step in reversed(self.steps[-6:]):
            if (step.who == "agent" and step.result is None and self.turn - step.turn <= 6
                    and words & _content_words(step.action)):
                return step
        return None

    def _step(self, step: Step) -> None:
        self.steps.append(step)
        if len(self.steps) > MAX_STEPS:
            cut = len(self.steps) - MAX_STEPS
            self.steps = self.steps[cut:]
            self.steps_omitted += cut
            if self.awaiting is not None:
                self.awaiting = self.awaiting - cut if self.awaiting >= cut else None

    def _milestone(self, text: str) -> None:
        self.milestones.append((self.turn, text))
        if len(self.milestones) > MAX_MILESTONES:
            self.milestones = self.milestones[-MAX_MILESTONES:]

    def _bound_issues(self) -> None:
        resolved = [i for i in self.issues if i.resolved is not None]
        if len(resolved) > MAX_RESOLVED:
            gone = {id(i) for i in resolved[: len(resolved) - MAX_RESOLVED]}
            self.issues = [i for i in self.issues if id(i) not in gone]

    def _others(self, text: str, *, output: bool = False) -> None:
        typed = {f.value for f in facts_in_text(text, kinds=self.facts.kinds(text))}
        found = [i for i in find_identifiers(text)
                 if i.value not in typed and i.kind in _OTHER_LABEL]
        if output:  # log lines ("2025-03-14 power cycle"), not standalone dates
            dates = [i for i in found if i.kind in ("date", "timestamp")
                     and _LOG_LINE.match(text, i.start + len(i.value))]
            if len(dates) > MAX_OUTPUT_DATES:
                skip = {id(i) for i in dates}
                found = [i for i in found if id(i) not in skip]
        for ident in found:
            self.seq += 1
            values = self.others.setdefault(ident.kind, {})
            values[ident.value] = self.seq
            if len(values) > MAX_OTHER_VALUES:
                oldest = min(values, key=values.__getitem__)
                del values[oldest]

    def _environment(self, text: str) -> None:
        for pattern in (_PRODUCT, _CONTEXT):
            for match in pattern.finditer(text):
                value = match.group(0)
                if value.lower() not in (e.lower() for e in self.environment):
                    self.environment.append(value)
        if len(self.environment) > MAX_ENVIRONMENT:
            self.environment = self.environment[-MAX_ENVIRONMENT:]

    # -- reading the record ------------------------------------------------------------
    def open_issues(self) -> list[Issue]:
        return [i for i in self.issues if i.resolved is None]

    def latest_open(self) -> Issue | None:
        """The latest unresolved problem (the one status and next step describe)."""
        open_ = self.open_issues()
        return open_[-1] if open_ else None
