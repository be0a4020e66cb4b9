"""Planted multi-issue chats: issue A paused, issue B handled, issue A resumed.

Each chat (:func:`multi_issue_case`, deterministic from a seed, in the style of
:mod:`ctxlab.eval.planted`) is a support conversation in which

* the customer says who they are (an email; sometimes a standing request such as "email
  only, never call": customer facts, true for every issue);
* issue A (a device, its error code, its serial, its firmware from a tool output, often a
  ticket) is worked on, then paused: "Hold on, before we go on with the laptop: my printer
  ...";
* issue B (another device with its own error code, serial, firmware and ticket, sometimes a
  new error code or a firmware upgrade) is handled until it works again;
* the last user message resumes A and asks to be passed on: "Back to my laptop: ... can you
  pass me to the repair team?" (:attr:`MultiIssueCase.resume`, not in ``items``: it is the
  input of the run in which the handoff happens).

The answer key holds each issue's current values by kind (and the values they replaced), the
customer facts, and which issue every user turn belongs to.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from .planted_data import _FILLER, _FIRST, _LAST, DEVICES, Device, _code, _serial, _version

#: Bumped when the generator's output changes for a given seed.
MULTI_ISSUE_VERSION = 1

#: The fact kinds each issue plants (the probes ask for them).
ISSUE_FACT_KINDS = ("serial", "error_code", "ticket", "firmware")
#: Short restatements of a symptom, for the resume message.
_STILL = "still has the same problem"


@dataclass(frozen=True)
class IssueKey:
    """The answer key of one issue: its device, current values by kind, replaced values."""

    label: str  # "A" or "B"
    device: str
    model: str
    facts: dict[str, str]
    replaced: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class MultiIssueCase:
    """One planted multi-issue chat (see the module docstring)."""

    id: str
    items: list[dict[str, Any]]
    resume: str
    issues: dict[str, IssueKey]
    customer: dict[str, str]
    turn_issue: tuple[str, ...]  # per user turn of ``items``: "", "A" or "B"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def resumed(self) -> IssueKey:
        return self.issues["A"]

    @property
    def other(self) -> IssueKey:
        return self.issues["B"]


class _Chat:
    def __init__(self, seed: int):
        self.seed = seed
        self.items: list[dict[str, Any]] = []
        self.turn_issue: list[str] = []
        self.calls = 0

    def user(self, text: str, issue: str) -> None:
        self.items.append({"role": "user", "content": text})
        self.turn_issue.append(issue)

    def assistant(self, text: str) -> None:
        self.items.append({"role": "assistant", "content": text})

    def tool(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> None:
        self.calls += 1
        call_id = f"call_multi_{self.seed}_{self.calls}"
        self.items += [
            {"type": "function_call", "call_id": call_id, "name": name,
             "arguments": json.dumps(args)},
            {"type": "function_call_output", "call_id": call_id, "output": json.dumps(result)}]


@dataclass
class _Plan:
    label: str
    device: Device
    model: str
    symptom: str
    error: str
    serial: str
    firmware: str
    ticket: str | None
    new_error: str | None = None
    upgrade: str | None = None


def _plan(label: str, device: Device, rng: random.Random, used: set[str], *,
          ticket_chance: float, update_chance: float) -> _Plan:
    major, minor, patch = _version(rng)
    plan = _Plan(label, device, rng.choice(device.models), rng.choice(device.symptoms),
                 _code(rng, "E", 4, used), _serial(rng, used), f"v{major}.{minor}.{patch}",
                 _code(rng, "TCK-", 5, used) if rng.random() < ticket_chance else None)
    if rng.random() < update_chance:
        plan.new_error = _code(rng, "E", 4, used)
    if rng.random() < update_chance:
        plan.upgrade = f"v{major}.{minor + 1}.0"
    return plan


def _filler(chat: _Chat, rng: random.Random, device: str, issue: str, count: int) -> None:
    for _ in range(count):
        said, answer = rng.choice(_FILLER)
        chat.user(said.format(device=device), issue)
        chat.assistant(answer.format(device=device))


def _work(chat: _Chat, p: _Plan, *, first: bool) -> None:
    """The serial, the device lookup and the ticket of one issue."""
    noun = p.device.noun
    chat.user(f"Sure, the serial is {p.serial}." if first
              else f"The {noun}'s serial is {p.serial}.", p.label)
    chat.tool("lookup_device", {"serial": p.serial},
              {"serial": p.serial, "model": p.model, "firmware": p.firmware,
               "purchased": "2023-10-02"})
    chat.assistant(f"Thanks, I found your {p.model}. Let's try a few things first.")
    if p.ticket:
        chat.user("Can you log this so it doesn't get lost?" if first
                  else "Please log this one too.", p.label)
        chat.tool("create_ticket", {"serial": p.serial, "summary": p.symptom},
                  {"ticket_id": p.ticket, "status": "open", "queue": "hardware"})
        chat.assistant("Done: it's logged with the hardware team.")


def _updates(chat: _Chat, p: _Plan) -> None:
    if p.new_error:
        chat.user(f"The {p.device.noun} shows a new error code now: error {p.new_error}.",
                  p.label)
        chat.assistant("Thanks, that's useful. Let's keep going with the new code in mind.")
    if p.upgrade:
        chat.user("Is there a firmware update that might help?", p.label)
        chat.tool("update_firmware", {"serial": p.serial},
                  {"serial": p.serial, "firmware": p.upgrade, "status": "installed"})
        chat.assistant("There was one, and it's installed now. Please restart once.")


def multi_issue_case(seed: int = 0, *, filler: tuple[int, int] = (1, 3)) -> MultiIssueCase:
    """One planted multi-issue chat (see the module docstring); the same seed always gives
    the same chat. ``filler`` is the range of filler turns per issue."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    low, high = filler
    if not 0 <= low <= high:
        raise ValueError(f"filler must be (low, high) with 0 <= low <= high, got {filler!r}")
    rng = random.Random(f"ctxlab-multi-issue-{MULTI_ISSUE_VERSION}-{seed}")
    used: set[str] = set()
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    email = f"{first}.{last}@example.com".lower()
    device_a, device_b = rng.sample(DEVICES, 2)
    a = _plan("A", device_a, rng, used, ticket_chance=0.8, update_chance=0.0)
    b = _plan("B", device_b, rng, used, ticket_chance=1.0, update_chance=0.5)
    chat = _Chat(seed)
    customer = {"email": email}
    chat.user(f"Hi, this is {first} {last}. You can reach me at {email} if we get cut off.", "")
    chat.assistant(f"Hi {first}, thanks. What can I help you with today?")
    if rng.random() < 0.5:
        customer["constraint"] = "by email only, never call"
        chat.user("Please reach me by email only, never call.", "")
        chat.assistant("Noted, I've added that to your case.")
    chat.user(f"My {a.device.noun} {a.symptom}. The screen says error {a.error}.", "A")
    chat.assistant(f"Sorry to hear that. Could you read me the serial number from the label "
                   f"on the {a.device.noun}?")
    _work(chat, a, first=True)
    _filler(chat, rng, a.device.noun, "A", rng.randint(low, high))
    chat.user(f"Hold on, before we go on with the {a.device.noun}: my {b.device.noun} "
              f"{b.symptom}. It shows error {b.error}.", "B")
    chat.assistant(f"Let's look at the {b.device.noun} first, then we'll come back to your "
                   f"{a.device.noun}. What's the {b.device.noun}'s serial number?")
    _work(chat, b, first=False)
    _filler(chat, rng, b.device.noun, "B", rng.randint(low, high))
    _updates(chat, b)
    chat.user(f"Okay, the {b.device.noun} works again, thanks.", "B")
    chat.assistant(f"Glad to hear it. Shall we go back to your {a.device.noun}?")
    resume = (f"Back to my {a.device.noun}: it {_STILL}. I think it needs a repair; can you "
              "pass me to the repair team?")
    keys = {}
    for p in (a, b):
        facts = {"serial": p.serial, "error_code": p.new_error or p.error,
                 "firmware": p.upgrade or p.firmware}
        if p.ticket:
            facts["ticket"] = p.ticket
        replaced = {k: (old,) for k, old, new in (("error_code", p.error, p.new_error),
                                                 ("firmware", p.firmware, p.upgrade)) if new}
        keys[p.label] = IssueKey(p.label, p.device.noun, p.model, facts, replaced)
    return MultiIssueCase(
        id=f"multi-issue-{seed}", items=chat.items, resume=resume, issues=keys,
        customer=customer, turn_issue=tuple(chat.turn_issue),
        meta={"seed": seed, "generator": MULTI_ISSUE_VERSION, "customer": f"{first} {last}"})


def multi_issue_corpus(n: int = 12, *, seed: int = 0) -> list[MultiIssueCase]:
    """``n`` planted multi-issue chats, seeds ``seed``, ``seed + 1``, ..."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    return [multi_issue_case(seed + k) for k in range(n)]
