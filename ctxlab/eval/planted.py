"""Planted-fact conversations: long IT-support chats whose answer key is known exactly.

Real transcripts are short and their facts are few; to see what a memory strategy loses in
a long conversation we plant facts ourselves. :func:`planted_case` writes a support chat of a
chosen length, deterministically from a seed:

* a customer with an email address (given in the first turn, replaced by a new one about
  halfway through: the old address becomes *stale*; in some chats the customer later goes
  back to the old one);
* several issues in a row (a laptop, then a printer, ...), so one chat has two or more
  devices, each with its own values. Each issue plants an error code and a serial number in
  the **user's text**, and a firmware version, a ticket number and sometimes an RMA or order
  numbers in **tool outputs** only (the assistant's replies do not repeat them, so dropping
  the tool output loses the value);
* updates of every kind, as real chats have them: a misread serial corrected, a new error
  code, firmware upgraded (sometimes twice, sometimes rolled back to the first version),
  a ticket merged into another, an order replaced, a second order, an RMA reissued, and a
  return to an earlier device ("back to my laptop: is there an update for it?");
* two or three constraints the customer sets ("email only, never call", "don't ship to a PO
  box", "I'm away until the 14th"), some changed later ("Change of plans: ..."), and
  promises the agent makes ("I'll send the replacement label by Friday"), some changed
  later;
* filler turns (troubleshooting chatter with no identifiers) between everything.

The answer key lists every planted value with the turn and item it was first said in,
where it came from, and which value superseded it. Probes ask about every current fact
every ``probe_every`` turns and after the last turn. :func:`planted_corpus` makes many such
conversations with lengths spread over a range.
"""

from __future__ import annotations

import random
from typing import Any

from .cases import EvalCase, mark_answerable, probes_at
from .planted_data import (
    _DOMAINS,
    _FIRST,
    _LAST,
    COMMITMENTS,
    CONSTRAINTS,
    DEVICES,
    GENERATOR_VERSION,
    Device,
    _code,
    _Constraint,
    _Issue,
    _serial,
    _version,
)
from .planted_events import ChatEvents, Event, IssueEvents

__all__ = ["COMMITMENTS", "CONSTRAINTS", "DEVICES", "GENERATOR_VERSION", "Device",
           "planted_case", "planted_corpus"]


def planted_case(
    seed: int = 0,
    turns: int = 60,
    *,
    issues: int | None = None,
    constraints: int | None = None,
    email_change: bool = True,
    updates: bool = True,
    probe_every: int = 10,
    min_age: int = 2,
) -> EvalCase:
    """One planted conversation with its answer key and probes (see the module docstring).

    Args:
        seed: the same seed (and arguments) always gives the same conversation.
        turns: user turns, >= 12 (filler fills whatever the issues do not use).
        issues: issues in the chat (default 2 for up to 44 turns, 3 up to 66, else 4).
        constraints: constraints the customer sets (default 2 or 3, from the seed).
        email_change: replace the customer's email address about halfway through.
        updates: plant the other updates (corrections, new codes, merges, replacements,
            reverts, changed constraints and promises); False keeps only the email change
            and firmware upgrades.
        probe_every: probe every current fact at turns ``probe_every + 1``,
            ``2 * probe_every + 1``, ... and after the last turn.
        min_age: a fact is probed only once it is at least this many turns old.

    Raises:
        ValueError: naming the argument, when it is out of range or the issues do not fit
            in ``turns``.
    """
    for label, value, low in (("seed", seed, 0), ("turns", turns, 12),
                              ("probe_every", probe_every, 1), ("min_age", min_age, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{label} must be an integer >= {low}, got {value!r}")
    rng = random.Random(f"ctxlab-planted-{GENERATOR_VERSION}-{seed}")
    issues = _issue_count(issues, turns)
    constraints = _constraint_count(constraints, rng)
    chat = _new_chat(rng, seed, updates)
    revert_email = updates and email_change and rng.random() < 0.35
    plan = _plan_issues(chat, rng.sample(DEVICES, issues))
    schedule = _Schedule(chat, plan)
    schedule.add_promise()
    schedule.add_constraints(constraints)
    if email_change:
        schedule.add_email_change(revert_email)
    schedule.core.append(chat.goodbye)
    for event in schedule.with_filler(turns, issues):
        event()
    return _case(chat, plan, seed=seed, turns=turns, probe_every=probe_every, min_age=min_age)


def _issue_count(issues: int | None, turns: int) -> int:
    if issues is None:
        issues = 2 if turns <= 44 else 3 if turns <= 66 else 4
    if isinstance(issues, bool) or not isinstance(issues, int) or not 1 <= issues <= len(DEVICES):
        raise ValueError(f"issues must be an integer from 1 to {len(DEVICES)}, got {issues!r}")
    return issues


def _constraint_count(constraints: int | None, rng: random.Random) -> int:
    if constraints is None:
        constraints = rng.choice((2, 3))
    if (isinstance(constraints, bool) or not isinstance(constraints, int)
            or not 0 <= constraints <= 3):
        raise ValueError(f"constraints must be an integer from 0 to 3, got {constraints!r}")
    return constraints


def _new_chat(rng: random.Random, seed: int, updates: bool) -> ChatEvents:
    """The customer: a name and two email addresses (the second replaces the first)."""
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    emails = [f"{first}.{last}@{rng.choice(_DOMAINS)}".lower(),
              f"{first[0]}{last}.home@{rng.choice(_DOMAINS)}".lower()]
    return ChatEvents(rng, seed, updates=updates, first=first, last=last, emails=emails)


# ------------------------------------------------------------------------------ the issues


def _plan_issues(chat: ChatEvents, devices: list[Device]) -> list[_Issue]:
    """One issue per device, each with its values and the updates it will go through."""
    used: set[str] = set()
    plan = [_new_issue(chat, number, device, used) for number, device in enumerate(devices, 1)]
    if not any(i.upgrades for i in plan):  # every chat has at least one superseded firmware
        plan[0].upgrades = [_next_minor(plan[0])]
    if len(plan) > 1 and chat.chance(0.45):  # back to the first device during a later issue
        plan[0].revisit = True
        if not plan[0].upgrades or plan[0].rollback:
            plan[0].upgrades = [_next_minor(plan[0])]
            plan[0].rollback = False
    return plan


def _next_minor(issue: _Issue) -> str:
    major, minor = (int(x) for x in issue.firmware[1:].split(".")[:2])
    return f"v{major}.{minor + 1}.0"


def _firmware(rng: random.Random, used: set[str]) -> tuple[int, int, int]:
    """A firmware version whose upgrades (next minor .0 and .1) are all unused."""
    while True:
        major, minor, patch = _version(rng)
        versions = {f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0",
                    f"v{major}.{minor + 1}.1"}
        if not versions & used:
            used.update(versions)
            return major, minor, patch


def _new_issue(chat: ChatEvents, number: int, device: Device, used: set[str]) -> _Issue:
    rng = chat.rng
    major, minor, patch = _firmware(rng, used)
    upgrades = []
    if rng.random() < 0.6:
        upgrades.append(f"v{major}.{minor + 1}.0")
        if chat.chance(0.3):
            upgrades.append(f"v{major}.{minor + 1}.1")
    issue = _Issue(
        number=number, device=device, model=rng.choice(device.models),
        symptom=rng.choice(device.symptoms), error=_code(rng, "E", 4, used),
        serial=_serial(rng, used), firmware=f"v{major}.{minor}.{patch}",
        ticket=_code(rng, "TCK-", 5, used), rma=_code(rng, "RMA-", 6, used),
        order=_code(rng, "ORD-", 5, used), upgrades=upgrades,
        warranty=rng.random() < 0.5, has_order=rng.random() < 0.35,
    )
    _plan_updates(chat, issue, used)
    return issue


def _plan_updates(chat: ChatEvents, issue: _Issue, used: set[str]) -> None:
    """Decide (from the seed) which updates the issue goes through."""
    rng, chance = chat.rng, chat.chance
    if chance(0.2):
        issue.misread = _serial(rng, used)
    if chance(0.2):
        issue.new_error = _code(rng, "E", 4, used)
    if issue.upgrades and chance(0.2):
        issue.rollback = True
    if chance(0.25):
        issue.merged = _code(rng, "TCK-", 5, used)
    if issue.has_order and chance(0.35):
        issue.replacement_order = _code(rng, "ORD-", 5, used)
    if issue.has_order and chance(0.25):
        issue.spare_order = _code(rng, "ORD-", 5, used)
    if issue.warranty and chance(0.3):
        issue.reissued_rma = _code(rng, "RMA-", 6, used)


# ---------------------------------------------------------------------------- the schedule


class _Schedule:
    """The chat's events in order (``core``), and the optional updates that make way (newest
    first) when the chat is too short for all of them."""

    def __init__(self, chat: ChatEvents, plan: list[_Issue]) -> None:
        self.chat, self.rng, self.plan = chat, chat.rng, plan
        self.optional: list[Event] = []
        self.core: list[Event] = [chat.hello]
        self.warranties: list[Event] = []
        bounds: list[tuple[Event, Event]] = []  # each issue's first and last event
        for issue in plan:
            events = IssueEvents(chat, issue)
            steps = events.steps(self.optional)
            bounds.append((steps[0], steps[-1]))
            if issue.warranty:
                self.warranties.append(events.warranty)
            self.core += steps
        self.first_report = self.core[1]
        if plan[0].revisit:  # during the second issue, back to the first device
            begin, end = (self.core.index(e) for e in bounds[1])
            self.insert_between(chat.revisit_event(plan[0]), begin + 1, end, extra=False)

    def insert_between(self, event: Event, low: int, high: int | None = None,
                       extra: bool = True) -> int:
        core = self.core
        position = self.rng.randint(max(1, low), len(core) if high is None else max(low, high))
        core.insert(position, event)
        if extra:
            self.optional.append(event)
        return position

    def add_promise(self) -> None:
        """Most chats with a repair get a promise from the agent, sometimes changed later."""
        chat = self.chat
        if not (self.warranties and chat.updates and self.rng.random() < 0.8):
            return
        template = self.rng.choice(COMMITMENTS)
        self._add_said(template, "commitment", self.core.index(self.warranties[0]) + 1, True)

    def add_constraints(self, count: int) -> None:
        for template in self.rng.sample(CONSTRAINTS, count):
            self._add_said(template, "constraint", 1, False)

    def _add_said(self, template: _Constraint, category: str, low: int, extra: bool) -> None:
        chat = self.chat
        pick, new = chat.picks(template)
        at = self.insert_between(chat.said(template, category, pick, new, False), low,
                                 extra=extra)
        if template.update and chat.chance(0.45):
            self.insert_between(chat.said(template, category, pick, new, True), at + 1)

    def add_email_change(self, revert: bool) -> None:
        """About halfway through, a new email address; sometimes back to the old one later."""
        chat, emails = self.chat, self.chat.emails
        change = max(2, round(len(self.core) * 0.55))
        self.core.insert(change, chat.new_email(
            emails[1], f"Before I forget: my old address is being shut down, please use "
            f"{emails[1]} from now on."))
        if revert:
            self.insert_between(chat.new_email(
                emails[0], f"Actually, please go back to {emails[0]}: the new address keeps "
                "bouncing my mail."), change + 2)

    def needed(self) -> int:
        return len(self.core) + sum(1 for i in self.plan if i.misread)  # a misread: 2 turns

    def with_filler(self, turns: int, issues: int) -> list[Event]:
        """Every event to run: optional updates dropped (newest first) until the chat fits
        in ``turns``, the turns left over filled with filler after the first report."""
        core, optional, plan = self.core, self.optional, self.plan
        while self.needed() > turns and (optional or any(i.misread for i in plan)):
            if optional:
                core.remove(optional.pop())
            else:
                next(i for i in reversed(plan) if i.misread).misread = None
        spare = turns - self.needed()
        if spare < 0:
            raise ValueError(f"turns={turns} is too short for {issues} issues: they need at "
                             f"least {self.needed()} turns; pass more turns or fewer issues")
        after_report = core.index(self.first_report) + 1  # filler only once there is a problem
        slots = sorted(self.rng.randint(after_report, len(core) - 1) for _ in range(spare))
        events: list[Event] = []
        for position, event in enumerate(core):
            events += [self.chat.filler] * sum(1 for s in slots if s == position)
            events.append(event)
        return events


def _case(chat: ChatEvents, plan: list[_Issue], *, seed: int, turns: int, probe_every: int,
          min_age: int) -> EvalCase:
    """The written chat as a case: its answer key, and probes every ``probe_every`` turns."""
    w = chat.w
    facts = tuple(w.facts)
    starts = [n for n, it in enumerate(w.items) if it.get("role") == "user"]
    checkpoints = [*range(probe_every + 1, turns + 1, probe_every), turns + 1]
    probes = [p for t in checkpoints for p in probes_at(facts, t, min_age=min_age)]
    meta = {
        "seed": seed, "turns": turns, "generator": GENERATOR_VERSION,
        "customer": f"{chat.first} {chat.last}",
        "issues": [{"device": i.device.noun, "model": i.model, "symptom": i.symptom}
                   for i in plan],
    }
    return EvalCase(
        id=f"planted-{seed}-{turns}t", source="planted", items=w.items, facts=facts,
        probes=mark_answerable(w.items, starts, probes), meta=meta,
    )


def planted_corpus(
    n: int = 24, *, min_turns: int = 30, max_turns: int = 90, seed: int = 0, **options: Any
) -> list[EvalCase]:
    """``n`` planted conversations, lengths spread evenly from ``min_turns`` to
    ``max_turns``, seeds ``seed``, ``seed + 1``, ... (``options`` go to :func:`planted_case`)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not isinstance(min_turns, int) or not isinstance(max_turns, int) or min_turns > max_turns:
        raise ValueError(f"need integers min_turns <= max_turns, got {min_turns!r} and "
                         f"{max_turns!r}")
    if n == 1:
        lengths = [min_turns]
    else:
        lengths = [round(min_turns + k * (max_turns - min_turns) / (n - 1)) for k in range(n)]
    return [planted_case(seed + k, length, **options) for k, length in enumerate(lengths)]
