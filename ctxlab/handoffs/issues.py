"""Which issue each turn of a multi-issue chat belongs to.

A customer reports a laptop that overheats, then, before it is solved, a printer that jams;
the printer is dealt with, then they come back to the laptop. A handover that summarizes the
whole chat mixes the two serials and error codes; one that summarizes *the laptop's* turns
does not. :func:`split_issues` assigns every user turn (with everything up to the next user
message: replies, tool calls and outputs) to an issue, by modest readable rules:

1. a turn that names a device not seen yet (laptop, printer, 打印机, ...) opens a new issue
   about it (when it names several new ones, the first);
2. a turn that names only devices already seen resumes one: the one after a resume phrase
   ("back to my laptop", "回到笔记本"), else the last one named ("the printer is fine,
   but the laptop still freezes");
3. a turn that names an identifier (serial, ticket, order, RMA) first seen in an issue's
   turns resumes that issue;
4. any other turn stays with the current issue.

With a schema (``split_issues(items, schema=...)``), issues are services instead of
devices: see :mod:`ctxlab.handoffs.service_split`.

Turns before any device is named form issue 0 (greetings, the customer's email, standing
requests): :class:`IssueSplit` treats it as the *customer* part, shared by every issue.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.items import is_user_message, item_text
from ..core.turns import segment_turns
from ..facts.typed import facts_in_text

Item = Mapping[str, Any]

#: Device words -> the subject they name (English, then Chinese). Longer words first.
DEVICE_WORDS: tuple[tuple[str, str], ...] = (
    ("docking station", "docking station"), ("dock", "docking station"),
    ("laptop", "laptop"), ("notebook", "laptop"), ("macbook", "laptop"),
    ("desktop", "desktop"), ("printer", "printer"), ("scanner", "scanner"),
    ("router", "router"), ("modem", "router"), ("monitor", "monitor"),
    ("smartphone", "phone"), ("iphone", "phone"), ("phone", "phone"),
    ("tablet", "tablet"), ("ipad", "tablet"), ("headset", "headset"),
    ("keyboard", "keyboard"), ("mouse", "mouse"), ("webcam", "webcam"),
    ("fridge", "fridge"), ("refrigerator", "fridge"), ("washing machine", "washing machine"),
    ("笔记本电脑", "笔记本"), ("笔记本", "笔记本"), ("台式机", "台式机"), ("打印机", "打印机"),
    ("路由器", "路由器"), ("显示器", "显示器"), ("手机", "手机"), ("平板", "平板"),
    ("扩展坞", "扩展坞"), ("耳机", "耳机"), ("键盘", "键盘"), ("鼠标", "鼠标"),
    ("冰箱", "冰箱"), ("洗衣机", "洗衣机"), ("空调", "空调"), ("电视", "电视"),
)
_DEVICE = re.compile("|".join(
    (rf"\b{re.escape(w)}s?\b" if w.isascii() else re.escape(w)) for w, _ in DEVICE_WORDS),
    re.IGNORECASE)
_SUBJECT = {w: s for w, s in DEVICE_WORDS}
#: A resume phrase and the words after it ("back to my laptop", "回到笔记本的问题").
_RESUME = re.compile(r"\b(?:back\s+to|return\s+to|go\s+on\s+with|continue\s+with)\b(.{0,30})"
                     r"|(?:回到|再说|接着说|继续说|再回到|继续处理)(.{0,8})", re.IGNORECASE)
#: Identifier kinds that tie a turn to the issue they were first seen in.
ISSUE_KINDS = ("serial", "ticket", "order", "rma", "error_code", "firmware")

#: The id of the customer part (turns before any device is named).
CUSTOMER = 0


def devices_in(text: str) -> list[str]:
    """The subjects ``text`` names, in order of first mention, each once."""
    found = []
    for match in _DEVICE.finditer(text):
        word = match.group(0).lower()
        if word not in _SUBJECT and word.endswith("s"):
            word = word[:-1]  # plurals: "laptops"
        found.append(_SUBJECT.get(word, word))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Issue:
    """Issue ``number`` (1, 2, ...): its ``subject`` and the user turns (1-based) in it;
    ``context``: what a back-reference in its first turn ("a hotel there") pointed to."""

    number: int
    subject: str
    turns: tuple[int, ...]
    context: tuple[str, ...] = ()


@dataclass(frozen=True)
class IssueSplit:
    """A conversation's turns, assigned to issues (see the module docstring)."""

    items: tuple[Item, ...]
    turn_issue: tuple[int, ...]  # per user turn (index 0 = turn 1): its issue, 0 = customer
    issues: tuple[Issue, ...]

    @property
    def current(self) -> Issue | None:
        """The issue of the last turn (None while no device was named)."""
        last = self.turn_issue[-1] if self.turn_issue else CUSTOMER
        return self.issue(last) if last != CUSTOMER else None

    def issue(self, number: int) -> Issue:
        for issue in self.issues:
            if issue.number == number:
                return issue
        raise KeyError(f"no issue {number} in this conversation (issues: "
                       f"{', '.join(f'{i.number} {i.subject}' for i in self.issues) or 'none'})")

    def find(self, subject: str) -> Issue:
        """The issue about ``subject`` (a device word such as "laptop" or "笔记本")."""
        wanted = devices_in(subject) or [subject]
        for issue in self.issues:
            if issue.subject == wanted[0]:
                return issue
        raise KeyError(f"no issue about {subject!r} (issues: "
                       f"{', '.join(i.subject for i in self.issues) or 'none'})")

    def turn_items(self, numbers: Sequence[int]) -> list[Item]:
        """The items of the given turns (1-based), in order, whole turns."""
        seg = segment_turns(self.items)
        wanted = set(numbers)
        return [self.items[i] for t in seg.turns if t.number in wanted for i in t.indices]

    def items_of(self, number: int, *, before: int | None = None) -> list[Item]:
        """The items of issue ``number``'s turns (before turn ``before``, if given)."""
        turns = [t for t in self.issue(number).turns if before is None or t < before]
        return self.turn_items(turns)

    def describe(self, width: int = 70) -> str:
        """One line per user turn: its number, its issue, and the start of the message."""
        lines = []
        seg = segment_turns(self.items)
        for turn, number in zip(seg.turns, self.turn_issue, strict=True):
            label = "customer" if number == CUSTOMER else self.issue(number).subject
            text = " ".join(item_text(self.items[turn.start]).split())
            if len(text) > width:
                text = text[: width - 1] + "…"
            lines.append(f"t{turn.number:<3}{label:<16}{text}")
        return "\n".join(lines)

    def customer_items(self) -> list[Item]:
        """The items of the customer part (turns before any device was named)."""
        return self.turn_items([n + 1 for n, i in enumerate(self.turn_issue) if i == CUSTOMER])


def split_issues(items: Sequence[Item], schema: Any = None) -> IssueSplit:
    """Assign each user turn of ``items`` to an issue (see the module docstring).

    With ``schema`` (an SGD-style ``schema.json``, a ``{service: [slots]}`` dict or a
    :class:`~ctxlab.handoffs.services.ServiceSchema`), the issues are the services the
    customer asks for, found by the schema's words instead of device words
    (:func:`~ctxlab.handoffs.service_split.split_services`)."""
    if schema is not None:
        from .service_split import split_services

        return split_services(items, schema)
    seg = segment_turns(items)
    subjects: dict[str, int] = {}
    owners: dict[str, int] = {}  # identifier -> issue
    turns: dict[int, list[int]] = {}
    current = CUSTOMER
    assignment: list[int] = []
    for turn in seg.turns:
        text = item_text(items[turn.start]) if is_user_message(items[turn.start]) else ""
        current = _issue_of(text, subjects, owners, current)
        assignment.append(current)
        turns.setdefault(current, []).append(turn.number)
        if current != CUSTOMER:
            for index in turn.indices:
                for fact in facts_in_text(item_text(items[index]), kinds=ISSUE_KINDS):
                    owners.setdefault(fact.value, current)
    issues = tuple(Issue(n, subject, tuple(turns.get(n, ()))) for subject, n in subjects.items())
    return IssueSplit(tuple(items), tuple(assignment), issues)


def _issue_of(text: str, subjects: dict[str, int], owners: Mapping[str, int],
              current: int) -> int:
    """The issue a user turn saying ``text`` belongs to: a new device opens one (added to
    ``subjects``), a known device (the one it resumes, else the last named) returns to its
    issue, an identifier to its owner's; otherwise the turn stays with ``current``."""
    named = devices_in(text)
    new = [d for d in named if d not in subjects]
    known = [d for d in named if d in subjects]
    if new:
        subjects[new[0]] = len(subjects) + 1
        return subjects[new[0]]
    if known:
        resumed = devices_in(" ".join(m.group(1) or m.group(2) or ""
                                      for m in _RESUME.finditer(text)))
        return subjects[next((d for d in resumed if d in subjects), known[-1])]
    owner = _owner(text, owners)
    return owner if owner is not None else current


def _owner(text: str, owners: Mapping[str, int]) -> int | None:
    for fact in facts_in_text(text, kinds=ISSUE_KINDS):
        if fact.value in owners:
            return owners[fact.value]
    return None
