"""Planted-fact conversations: long IT-support chats whose answer key is known exactly.

Real transcripts are short and their facts are few; to see what a memory strategy loses in
a long conversation we plant facts ourselves. :func:`planted_case` writes a support chat of a
chosen length, deterministically from a seed:

* a customer with an email address (given in the first turn, replaced by a new one about
  halfway through: the old address becomes *stale*);
* several issues in a row (a laptop, then a printer, ...). Each issue plants an error code
  and a serial number in the **user's text**, and a firmware version, a ticket number and
  sometimes an RMA or order number in **tool outputs** only (the assistant's replies do not
  repeat them, so dropping the tool output loses the value); some issues upgrade the
  firmware, which supersedes the version read earlier;
* one or two constraints the customer sets ("never ship to my home, use the Denver office");
* filler turns (troubleshooting chatter with no identifiers) between everything.

The answer key lists every planted value with the turn and item it was first said in,
where it came from, and which value superseded it. Probes ask about every current fact
every ``probe_every`` turns and after the last turn. :func:`planted_corpus` makes many such
conversations with lengths spread over a range.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.items import item_text
from .cases import TOOL_OUTPUT, USER, EvalCase, KeyFact, mark_answerable, probes_at

#: Bumped when the generator's output changes for a given seed.
GENERATOR_VERSION = 1

_FIRST = ("Dana", "Ravi", "Mei", "Tomas", "Aisha", "Jonas", "Lucia", "Kwame", "Ingrid", "Omar",
          "Sofia", "Hiro", "Nadia", "Pablo", "Greta", "Arjun")
_LAST = ("Whitfield", "Okafor", "Lindqvist", "Moreau", "Castillo", "Nakamura", "Haddad",
         "Kowalski", "Brennan", "Ferreira", "Adeyemi", "Novak", "Sato", "Quinn")
_DOMAINS = ("example.com", "example.org", "example.net")
_CITIES = ("Denver", "Lisbon", "Osaka", "Tallinn", "Porto", "Calgary", "Dublin", "Leeds")
_FOLDERS = ("Quarterly Reports", "Client Drawings", "Thesis Drafts", "Payroll Archive")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_SERIAL_PREFIXES = ("C02", "F4K", "G7Q", "H2M", "J9W", "K5T", "L3P", "M8X")
_ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"


@dataclass(frozen=True)
class Device:
    noun: str
    models: tuple[str, ...]
    symptoms: tuple[str, ...]
    part: str


DEVICES: tuple[Device, ...] = (
    Device("laptop", ("Aurora 14", "Aurora 16"),
           ("shuts down as soon as I unplug the charger", "gets very hot and the fan never stops",
            "freezes a few minutes after I log in"), "charger"),
    Device("printer", ("InkJet Pro", "LaserDesk"),
           ("jams on every second page", "prints blank pages",
            "keeps dropping off the office network"), "toner cartridge"),
    Device("router", ("NetHub AX", "NetHub Mini"),
           ("drops the connection every evening", "reboots on its own",
            "stopped handing out addresses"), "power adapter"),
    Device("monitor", ("ViewPort Wide", "ViewPort Studio"),
           ("flickers when I open a spreadsheet", "shows no signal after waking up"),
           "display cable"),
    Device("phone", ("Pocket Max", "Pocket Mini"),
           ("drains its battery by lunchtime", "won't connect to the work email app"), "battery"),
    Device("docking station", ("DockOne", "DockOne Plus"),
           ("stopped charging my laptop", "only drives one of my two screens"), "power brick"),
)

#: Filler exchanges: a customer line and the assistant's answer, with no identifiers.
_FILLER: tuple[tuple[str, str], ...] = (
    ("I tried that, but nothing changed.",
     "Thanks for checking. Let's try something else:\n1. Turn the {device} off completely.\n"
     "2. Disconnect every cable and wait half a minute.\n3. Reconnect power first, then the "
     "rest, and switch it on again."),
    ("Give me a minute, I'm trying it now.",
     "No problem. Take your time and tell me what you see once it's back up."),
    ("Okay, it's restarting.",
     "Great. Let me know whether the problem comes back once it has started."),
    ("Still the same, unfortunately.",
     "Understood. Let's look at the settings next: open the device settings, find the power "
     "and performance section, and switch it back to the recommended defaults. Tell me when "
     "that's done."),
    ("Should I keep the {device} plugged in while we do this?",
     "Yes, please keep it on power while we work on it; a shutdown in the middle of a check "
     "can confuse the results."),
    ("My colleague says hers does the same thing sometimes.",
     "That's worth knowing: if several units show it, it may be a setting your office pushes "
     "to all of them. Let's keep going with yours for now."),
    ("Sorry, I had to step away for a moment. Where were we?",
     "No worries. We were checking whether the problem comes back after a clean restart. "
     "Could you try that once more?"),
    ("Does it matter that I'm working from home today?",
     "Working from home is fine; nothing we do here depends on the office network."),
    ("The light on the front is blinking slowly now.",
     "That's useful to know. A slow blink usually means it is waiting for a network or a "
     "driver; it should settle within a minute or two."),
    ("I cleaned the vents, just in case.",
     "Thanks, dust is a common cause of this kind of trouble. Let's see whether it behaves "
     "better over the next few minutes."),
    ("How long does this usually take?", "It usually takes a few minutes. I'll stay with you."),
    ("Is there anything I should back up first?",
     "Good idea: copy anything you can't afford to lose to your cloud folder or an external "
     "drive before we go further."),
    ("It worked for an hour and then it started again.",
     "Intermittent faults are the hardest kind. Let's note when it happens: right after "
     "start-up, after some time, or only under load?"),
    ("I'm on a video call in a bit, can we speed this up?",
     "Understood, I'll keep it short. One quick check and then you can go."),
    ("It only seems to happen in the afternoon.",
     "Thanks for your patience. I'm writing down everything we tried, including when it "
     "happens, so that nobody has to repeat it later."),
)


def _events_log(rng: random.Random) -> list[str]:
    kinds = ("power cycle", "thermal check passed", "driver update", "self-test passed",
             "network reconnect", "sleep", "wake", "battery calibration")
    day = rng.randint(1, 20)
    return [f"2025-0{rng.randint(1, 9)}-{day + n:02d} {rng.choice(kinds)}" for n in range(8)]


@dataclass
class _Issue:
    number: int
    device: Device
    model: str
    symptom: str
    error: str
    serial: str
    firmware: str
    ticket: str
    rma: str
    order: str
    upgrade: str | None
    warranty: bool
    has_order: bool


@dataclass
class _Writer:
    """Appends items turn by turn and records where each planted value first appears."""

    seed: int
    items: list[dict[str, Any]] = field(default_factory=list)
    facts: list[KeyFact] = field(default_factory=list)
    turn: int = 0
    calls: int = 0

    def user(self, text: str) -> int:
        self.turn += 1
        self.items.append({"role": "user", "content": text})
        return len(self.items) - 1

    def assistant(self, text: str) -> None:
        self.items.append({"role": "assistant", "content": text})

    def tool(self, name: str, args: dict[str, Any], result: dict[str, Any]) -> int:
        self.calls += 1
        call_id = f"call_planted_{self.seed}_{self.calls}"
        self.items.append({"type": "function_call", "call_id": call_id, "name": name,
                           "arguments": json.dumps(args)})
        self.items.append({"type": "function_call_output", "call_id": call_id,
                           "output": json.dumps(result)})
        return len(self.items) - 1

    def plant(self, name: str, category: str, kind: str | None, value: str, index: int,
              where: str) -> None:
        if value not in item_text(self.items[index]):  # pragma: no cover - generator bug
            raise AssertionError(f"planted {name}={value} is not in item {index}")
        for n, old in enumerate(self.facts):
            if old.name == name and old.superseded_by is None:
                self.facts[n] = replace(old, superseded_by=value, superseded_turn=self.turn)
        self.facts.append(KeyFact(name=name, value=value, category=category, kind=kind,
                                  first_item=index, first_turn=self.turn, where=where,
                                  whole_word=True))


def _code(rng: random.Random, prefix: str, digits: int, used: set[str]) -> str:
    while True:
        value = prefix + "".join(rng.choice("0123456789") for _ in range(digits))
        if value not in used:
            used.add(value)
            return value


def _serial(rng: random.Random, used: set[str]) -> str:
    while True:
        body = "".join(rng.choice(_ALNUM) for _ in range(9))
        value = rng.choice(_SERIAL_PREFIXES) + body
        letters = sum(c.isalpha() for c in value)
        if letters >= 2 and sum(c.isdigit() for c in value) >= 2 and value not in used:
            used.add(value)
            return value


def _version(rng: random.Random) -> tuple[int, int, int]:
    return rng.randint(1, 4), rng.randint(0, 9), rng.randint(0, 9)


def planted_case(
    seed: int = 0,
    turns: int = 60,
    *,
    issues: int | None = None,
    constraints: int | None = None,
    email_change: bool = True,
    probe_every: int = 10,
    min_age: int = 2,
) -> EvalCase:
    """One planted conversation with its answer key and probes (see the module docstring).

    Args:
        seed: the same seed (and arguments) always gives the same conversation.
        turns: user turns, >= 12 (filler fills whatever the issues do not use).
        issues: issues in the chat (default 2 for up to 44 turns, 3 up to 66, else 4).
        constraints: constraints the customer sets (default 1 or 2, from the seed).
        email_change: replace the customer's email address about halfway through.
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
    if issues is None:
        issues = 2 if turns <= 44 else 3 if turns <= 66 else 4
    if isinstance(issues, bool) or not isinstance(issues, int) or not 1 <= issues <= len(DEVICES):
        raise ValueError(f"issues must be an integer from 1 to {len(DEVICES)}, got {issues!r}")
    if constraints is None:
        constraints = rng.choice((1, 2))
    if (isinstance(constraints, bool) or not isinstance(constraints, int)
            or not 0 <= constraints <= 3):
        raise ValueError(f"constraints must be an integer from 0 to 3, got {constraints!r}")

    used: set[str] = set()
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    emails = [f"{first}.{last}@{rng.choice(_DOMAINS)}".lower(),
              f"{first[0]}{last}.home@{rng.choice(_DOMAINS)}".lower()]
    devices = rng.sample(DEVICES, issues)
    plan: list[_Issue] = []
    for number, device in enumerate(devices, 1):
        major, minor, patch = _version(rng)
        while {f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0"} & used:
            major, minor, patch = _version(rng)
        used.update({f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0"})
        plan.append(_Issue(
            number=number, device=device, model=rng.choice(device.models),
            symptom=rng.choice(device.symptoms), error=_code(rng, "E", 4, used),
            serial=_serial(rng, used), firmware=f"v{major}.{minor}.{patch}",
            ticket=_code(rng, "TCK-", 5, used), rma=_code(rng, "RMA-", 6, used),
            order=_code(rng, "ORD-", 5, used),
            upgrade=f"v{major}.{minor + 1}.0" if rng.random() < 0.6 else None,
            warranty=rng.random() < 0.5, has_order=rng.random() < 0.35,
        ))
    if not any(i.upgrade for i in plan):  # every chat has at least one superseded firmware
        i = plan[0]
        major, minor = (int(x) for x in i.firmware[1:].split(".")[:2])
        i.upgrade = f"v{major}.{minor + 1}.0"

    w = _Writer(seed)
    state: dict[str, Any] = {"device": "device", "email": emails[0]}

    def hello() -> None:
        index = w.user(f"Hi, this is {first} {last}. You can reach me at {emails[0]} if we "
                       "get cut off.")
        w.plant("email", "email", "email", emails[0], index, USER)
        w.assistant(f"Hi {first}, thanks. What can I help you with today?")

    def issue_events(i: _Issue) -> list[Callable[[], None]]:
        def report() -> None:
            state["device"] = i.device.noun
            opener = "Now a different problem:" if i.number > 1 else "My"
            subject = f"my {i.device.noun}" if i.number > 1 else i.device.noun
            index = w.user(f"{opener} {subject} {i.symptom}. The screen says error {i.error}.")
            w.plant(f"issue{i.number}.error_code", "error_code", "error_code", i.error, index,
                    USER)
            w.assistant(f"Sorry to hear that. Could you read me the serial number from the "
                        f"label on the {i.device.noun}?")

        def serial() -> None:
            index = w.user(f"Sure, the serial is {i.serial}.")
            w.plant(f"issue{i.number}.serial", "serial", "serial", i.serial, index, USER)
            out = w.tool("lookup_device", {"serial": i.serial}, {
                "serial": i.serial, "model": i.model, "purchased": "2023-10-02",
                "firmware": i.firmware, "owner": f"{first} {last}",
                "diagnostics": {"battery_health": "good", "temperature": "normal",
                                "events": _events_log(rng)},
            })
            w.plant(f"issue{i.number}.firmware", "firmware", "firmware", i.firmware, out,
                    TOOL_OUTPUT)
            w.assistant(f"Thanks, I found your {i.model}. Let's try a few things before we "
                        "send it anywhere.")

        def ticket() -> None:
            w.user("Can you log this somewhere so it doesn't get lost?")
            out = w.tool("create_ticket", {"serial": i.serial, "summary": i.symptom},
                         {"ticket_id": i.ticket, "status": "open", "queue": "hardware",
                          "priority": "normal"})
            w.plant(f"issue{i.number}.ticket", "ticket", "ticket", i.ticket, out, TOOL_OUTPUT)
            w.assistant("Done: it's logged with the hardware team, and you'll get updates by "
                        "email.")

        def upgrade() -> None:
            assert i.upgrade is not None
            w.user("Is there a firmware update that might help?")
            out = w.tool("update_firmware", {"serial": i.serial},
                         {"serial": i.serial, "firmware": i.upgrade, "status": "installed",
                          "restart_required": True})
            w.plant(f"issue{i.number}.firmware", "firmware", "firmware", i.upgrade, out,
                    TOOL_OUTPUT)
            w.assistant("There was one, and it's installed now. Please restart once and tell "
                        "me what you see.")

        def warranty() -> None:
            w.user("Is it still covered? I might need a repair.")
            out = w.tool("check_warranty", {"serial": i.serial},
                         {"serial": i.serial, "covered": True, "coverage_ends": "2027-03-14",
                          "rma": i.rma, "note": "repair authorised"})
            w.plant(f"issue{i.number}.rma", "rma", "rma", i.rma, out, TOOL_OUTPUT)
            w.assistant("Good news: it's covered, and I've opened a repair authorisation for "
                        "you.")

        def order() -> None:
            w.user(f"I also ordered a replacement {i.device.part} last week. Has it shipped?")
            out = w.tool("lookup_order", {"email": state["email"]},
                         {"order_id": i.order, "email": state["email"],
                          "item": i.device.part, "status": "shipped", "carrier": "ParcelCo"})
            w.plant(f"issue{i.number}.order", "order", "order", i.order, out, TOOL_OUTPUT)
            w.assistant("It has shipped and should arrive in a few days.")

        def resolved() -> None:
            w.user(rng.choice(("That fixed it, thanks.", "It seems fine now, thank you.",
                               "Okay, it works again.")))
            w.assistant(f"Glad to hear it. I'll note that the {i.device.noun} is working again.")

        steps = [report, serial, ticket]
        if i.upgrade:
            steps.append(upgrade)
        if i.warranty:
            steps.append(warranty)
        if i.has_order:
            steps.append(order)
        steps.append(resolved)
        return steps

    def new_email() -> None:
        index = w.user(f"Before I forget: my old address is being shut down, please use "
                       f"{emails[1]} from now on.")
        w.plant("email", "email", "email", emails[1], index, USER)
        state["email"] = emails[1]
        w.assistant(f"Updated: I'll use {emails[1]} from now on.")

    templates = [
        ("shipping", "Please never ship anything to my home address; use the {x} office "
                     "instead.", "{x} office", _CITIES),
        ("data", "Whatever you do, don't wipe the {x} folder: it holds the only copy of my "
                 "work.", "{x} folder", _FOLDERS),
        ("schedule", "One more thing: I'm out of the office every {x}, so no visits that day.",
         "every {x}", _WEEKDAYS),
    ]
    chosen = rng.sample(templates, constraints)

    def constraint_event(topic: str, text: str, value: str, choices: tuple[str, ...]
                         ) -> Callable[[], None]:
        pick = rng.choice(choices)

        def run() -> None:
            index = w.user(text.format(x=pick))
            w.plant(f"constraint.{topic}", "constraint", None, value.format(x=pick), index,
                    USER)
            w.assistant("Noted, I've added that to your case so everyone handling it sees it.")

        return run

    def goodbye() -> None:
        w.user("That's everything for today, thanks for the help.")
        w.assistant(f"You're welcome, {first}. Have a good day!")

    def filler() -> None:
        said, answer = rng.choice(_FILLER)
        w.user(said.format(device=state["device"]))
        w.assistant(answer.format(device=state["device"]))

    core: list[Callable[[], None]] = [hello]
    for issue in plan:
        core += issue_events(issue)
    first_report = core[1]
    extras = [constraint_event(*c) for c in chosen]
    for event in extras:
        core.insert(rng.randint(1, len(core)), event)
    if email_change:
        core.insert(max(2, round(len(core) * 0.55)), new_email)
    core.append(goodbye)
    spare = turns - len(core)
    if spare < 0:
        raise ValueError(f"turns={turns} is too short for {issues} issues: they need at least "
                         f"{len(core)} turns; pass more turns or fewer issues")
    after_report = core.index(first_report) + 1  # filler only once there is a problem
    slots = sorted(rng.randint(after_report, len(core) - 1) for _ in range(spare))
    events: list[Callable[[], None]] = []
    for position, event in enumerate(core):
        events += [filler] * sum(1 for s in slots if s == position)
        events.append(event)
    for event in events:
        event()

    facts = tuple(w.facts)
    starts = [n for n, it in enumerate(w.items) if it.get("role") == "user"]
    checkpoints = [*range(probe_every + 1, turns + 1, probe_every), turns + 1]
    probes = [p for t in checkpoints for p in probes_at(facts, t, min_age=min_age)]
    meta = {
        "seed": seed, "turns": turns, "generator": GENERATOR_VERSION,
        "customer": f"{first} {last}",
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
