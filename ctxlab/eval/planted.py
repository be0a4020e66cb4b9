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

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.items import item_text
from .cases import TOOL_OUTPUT, USER, EvalCase, KeyFact, mark_answerable, probes_at

#: Bumped when the generator's output changes for a given seed.
GENERATOR_VERSION = 2

_FIRST = ("Dana", "Ravi", "Mei", "Tomas", "Aisha", "Jonas", "Lucia", "Kwame", "Ingrid", "Omar",
          "Sofia", "Hiro", "Nadia", "Pablo", "Greta", "Arjun")
_LAST = ("Whitfield", "Okafor", "Lindqvist", "Moreau", "Castillo", "Nakamura", "Haddad",
         "Kowalski", "Brennan", "Ferreira", "Adeyemi", "Novak", "Sato", "Quinn")
_DOMAINS = ("example.com", "example.org", "example.net")
_CITIES = ("Denver", "Lisbon", "Osaka", "Tallinn", "Porto", "Calgary", "Dublin", "Leeds")
_FOLDERS = ("Quarterly Reports", "Client Drawings", "Thesis Drafts", "Payroll Archive")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
_DAYS = ("3rd", "9th", "14th", "21st", "28th")
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
    upgrades: list[str]
    warranty: bool
    has_order: bool
    misread: str | None = None  # a wrong serial given first, then corrected
    new_error: str | None = None  # the error code changes during troubleshooting
    rollback: bool = False  # the last upgrade is rolled back to the first version
    merged: str | None = None  # the ticket is merged into this one
    replacement_order: str | None = None  # the order is replaced by this one
    spare_order: str | None = None  # a second, separate order
    reissued_rma: str | None = None  # the RMA is reissued as this one
    revisit: bool = False  # an upgrade of this device happens during a later issue


@dataclass(frozen=True)
class _Constraint:
    topic: str
    text: str
    value: str
    choices: tuple[str, ...] = ()
    update: str | None = None
    update_value: str | None = None


#: Constraints a customer sets: the sentence, the value that shows it is kept, and how it
#: may be changed later ({x} is the first choice, {y} the new one).
CONSTRAINTS: tuple[_Constraint, ...] = (
    _Constraint("contact", "Please reach me by email only, never call.",
                "by email only, never call", (),
                "Change of plans: calls are fine now, but only after 5 pm.", "only after 5 pm"),
    _Constraint("shipping", "Please never ship anything to my home address; use the {x} "
                "office instead.", "{x} office", _CITIES,
                "Please ship to the {y} office instead of the {x} office from now on.",
                "{y} office"),
    _Constraint("po_box", "Please don't ship anything to a PO box.", "to a PO box"),
    _Constraint("availability", "I'm away until the {x}, so no visits before then.",
                "away until the {x}", _DAYS,
                "Change of plans: I'm now away until the {y}.", "away until the {y}"),
    _Constraint("data", "Whatever you do, don't wipe the {x} folder: it holds the only copy "
                "of my work.", "{x} folder", _FOLDERS),
    _Constraint("schedule", "One more thing: I'm out of the office every {x}, so no visits "
                "that day.", "every {x}", _WEEKDAYS,
                "Small correction: it's every {y} I'm out, not every {x}.", "every {y}"),
)

#: Promises the agent makes after a repair is authorised, and how they may change.
COMMITMENTS: tuple[_Constraint, ...] = (
    _Constraint("label", "I'll send the replacement label by {x}.", "replacement label by {x}",
                _WEEKDAYS, "Small change: I'll send the replacement label by {y} instead of "
                "{x}.", "replacement label by {y}"),
    _Constraint("quote", "I'll email you the repair quote by {x}.", "repair quote by {x}",
                _WEEKDAYS, "Quick update: I'll email you the repair quote by {y} instead, the "
                "workshop is busy.", "repair quote by {y}"),
    _Constraint("pickup", "I'll book a courier pickup for {x}.", "courier pickup for {x}",
                _WEEKDAYS, "Small change: I'll book the courier pickup for {y} instead of {x}.",
                "courier pickup for {y}"),
)


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
        """Record that ``value`` became fact ``name``'s current value in item ``index``
        (superseding its current value, if any; a value may come back after a change)."""
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
    if issues is None:
        issues = 2 if turns <= 44 else 3 if turns <= 66 else 4
    if isinstance(issues, bool) or not isinstance(issues, int) or not 1 <= issues <= len(DEVICES):
        raise ValueError(f"issues must be an integer from 1 to {len(DEVICES)}, got {issues!r}")
    if constraints is None:
        constraints = rng.choice((2, 3))
    if (isinstance(constraints, bool) or not isinstance(constraints, int)
            or not 0 <= constraints <= 3):
        raise ValueError(f"constraints must be an integer from 0 to 3, got {constraints!r}")

    used: set[str] = set()
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    emails = [f"{first}.{last}@{rng.choice(_DOMAINS)}".lower(),
              f"{first[0]}{last}.home@{rng.choice(_DOMAINS)}".lower()]
    revert_email = updates and email_change and rng.random() < 0.35
    devices = rng.sample(DEVICES, issues)
    plan: list[_Issue] = []

    def chance(p: float) -> bool:
        return updates and rng.random() < p

    for number, device in enumerate(devices, 1):
        major, minor, patch = _version(rng)
        versions = {f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0",
                    f"v{major}.{minor + 1}.1"}
        while versions & used:
            major, minor, patch = _version(rng)
            versions = {f"v{major}.{minor}.{patch}", f"v{major}.{minor + 1}.0",
                        f"v{major}.{minor + 1}.1"}
        used.update(versions)
        upgrades = []
        if rng.random() < 0.6:
            upgrades.append(f"v{major}.{minor + 1}.0")
            if chance(0.3):
                upgrades.append(f"v{major}.{minor + 1}.1")
        issue = _Issue(
            number=number, device=device, model=rng.choice(device.models),
            symptom=rng.choice(device.symptoms), error=_code(rng, "E", 4, used),
            serial=_serial(rng, used), firmware=f"v{major}.{minor}.{patch}",
            ticket=_code(rng, "TCK-", 5, used), rma=_code(rng, "RMA-", 6, used),
            order=_code(rng, "ORD-", 5, used), upgrades=upgrades,
            warranty=rng.random() < 0.5, has_order=rng.random() < 0.35,
        )
        if chance(0.2):
            issue.misread = _serial(rng, used)
        if chance(0.2):
            issue.new_error = _code(rng, "E", 4, used)
        if upgrades and chance(0.2):
            issue.rollback = True
        if chance(0.25):
            issue.merged = _code(rng, "TCK-", 5, used)
        if issue.has_order and chance(0.35):
            issue.replacement_order = _code(rng, "ORD-", 5, used)
        if issue.has_order and chance(0.25):
            issue.spare_order = _code(rng, "ORD-", 5, used)
        if issue.warranty and chance(0.3):
            issue.reissued_rma = _code(rng, "RMA-", 6, used)
        plan.append(issue)
    if not any(i.upgrades for i in plan):  # every chat has at least one superseded firmware
        i = plan[0]
        major, minor = (int(x) for x in i.firmware[1:].split(".")[:2])
        i.upgrades = [f"v{major}.{minor + 1}.0"]
    if len(plan) > 1 and chance(0.45):  # back to the first device during a later issue
        plan[0].revisit = True
        if not plan[0].upgrades or plan[0].rollback:
            major, minor = (int(x) for x in plan[0].firmware[1:].split(".")[:2])
            plan[0].upgrades = [f"v{major}.{minor + 1}.0"]
            plan[0].rollback = False

    w = _Writer(seed)
    state: dict[str, Any] = {"device": "device", "email": emails[0]}

    def hello() -> None:
        index = w.user(f"Hi, this is {first} {last}. You can reach me at {emails[0]} if we "
                       "get cut off.")
        w.plant("email", "email", "email", emails[0], index, USER)
        w.assistant(f"Hi {first}, thanks. What can I help you with today?")

    def lookup(i: _Issue, serial: str) -> None:
        out = w.tool("lookup_device", {"serial": serial}, {
            "serial": serial, "model": i.model, "purchased": "2023-10-02",
            "firmware": i.firmware, "owner": f"{first} {last}",
            "diagnostics": {"battery_health": "good", "temperature": "normal",
                            "events": _events_log(rng)},
        })
        w.plant(f"issue{i.number}.firmware", "firmware", "firmware", i.firmware, out,
                TOOL_OUTPUT)

    def upgrade(i: _Issue, version: str, again: bool = False) -> Callable[[], None]:
        def run() -> None:
            if again:
                w.user(f"Back to my {i.device.noun} for a second: is there a firmware update "
                       "for it?")
            else:
                w.user("Is there a firmware update that might help?")
            out = w.tool("update_firmware", {"serial": i.serial},
                         {"serial": i.serial, "firmware": version, "status": "installed",
                          "restart_required": True})
            w.plant(f"issue{i.number}.firmware", "firmware", "firmware", version, out,
                    TOOL_OUTPUT)
            w.assistant("There was one, and it's installed now. Please restart once and tell me "
                        "what you see.")
        return run

    def revisit_event(i: _Issue) -> Callable[[], None]:
        return upgrade(i, i.upgrades[0], again=True)

    def issue_events(i: _Issue) -> list[Callable[[], None]]:
        name = f"issue{i.number}"

        def report() -> None:
            state["device"] = i.device.noun
            opener = "Now a different problem:" if i.number > 1 else "My"
            subject = f"my {i.device.noun}" if i.number > 1 else i.device.noun
            index = w.user(f"{opener} {subject} {i.symptom}. The screen says error {i.error}.")
            w.plant(f"{name}.error_code", "error_code", "error_code", i.error, index, USER)
            w.assistant(f"Sorry to hear that. Could you read me the serial number from the "
                        f"label on the {i.device.noun}?")

        def serial() -> None:
            if i.misread:
                index = w.user(f"Sure, the serial is {i.misread}.")
                w.plant(f"{name}.serial", "serial", "serial", i.misread, index, USER)
                w.tool("lookup_device", {"serial": i.misread},
                       {"error": "no device with that serial number"})
                w.assistant("I can't find a device with that serial number. Could you check "
                            "the label once more?")
                index = w.user(f"Sorry, I misread the label: the serial is actually {i.serial}, "
                               f"not {i.misread}.")
            else:
                index = w.user(f"Sure, the serial is {i.serial}.")
            w.plant(f"{name}.serial", "serial", "serial", i.serial, index, USER)
            lookup(i, i.serial)
            w.assistant(f"Thanks, I found your {i.model}. Let's try a few things before we "
                        "send it anywhere.")

        def ticket() -> None:
            w.user("Can you log this somewhere so it doesn't get lost?")
            out = w.tool("create_ticket", {"serial": i.serial, "summary": i.symptom},
                         {"ticket_id": i.ticket, "status": "open", "queue": "hardware",
                          "priority": "normal"})
            w.plant(f"{name}.ticket", "ticket", "ticket", i.ticket, out, TOOL_OUTPUT)
            w.assistant("Done: it's logged with the hardware team, and you'll get updates by "
                        "email.")

        def merge() -> None:
            assert i.merged is not None
            w.user("Is anyone looking at my ticket yet?")
            out = w.tool("get_ticket_status", {"ticket_id": i.ticket},
                         {"ticket_id": i.merged, "status": "in progress",
                          "note": f"{i.ticket} was merged into {i.merged}"})
            w.plant(f"{name}.ticket", "ticket", "ticket", i.merged, out, TOOL_OUTPUT)
            w.assistant("Yes: a technician is on it. Your ticket was merged into a new one, so "
                        "please use the new number from now on.")

        def new_error() -> None:
            assert i.new_error is not None
            index = w.user(f"It's showing a new error code instead now: error {i.new_error}.")
            w.plant(f"{name}.error_code", "error_code", "error_code", i.new_error, index, USER)
            w.assistant("Thanks, that's a useful change. Let's keep going with the new code in "
                        "mind.")

        def rollback() -> None:
            w.user("Since that update it's worse. Can you undo it?")
            out = w.tool("rollback_firmware", {"serial": i.serial},
                         {"serial": i.serial, "firmware": i.firmware, "status": "rolled back"})
            w.plant(f"{name}.firmware", "firmware", "firmware", i.firmware, out, TOOL_OUTPUT)
            w.assistant("Done: it's back on the version it had before the update.")

        def warranty() -> None:
            w.user("Is it still covered? I might need a repair.")
            out = w.tool("check_warranty", {"serial": i.serial},
                         {"serial": i.serial, "covered": True, "coverage_ends": "2027-03-14",
                          "rma": i.rma, "note": "repair authorised"})
            w.plant(f"{name}.rma", "rma", "rma", i.rma, out, TOOL_OUTPUT)
            w.assistant("Good news: it's covered, and I've opened a repair authorisation for "
                        "you.")

        def reissue() -> None:
            assert i.reissued_rma is not None
            w.user("The repair shop says my authorisation isn't valid. Can you check?")
            out = w.tool("check_warranty", {"serial": i.serial},
                         {"serial": i.serial, "covered": True, "rma": i.reissued_rma,
                          "replaces": i.rma, "note": "authorisation reissued"})
            w.plant(f"{name}.rma", "rma", "rma", i.reissued_rma, out, TOOL_OUTPUT)
            w.assistant("Sorry about that: the authorisation was reissued, so please give the "
                        "shop the new one.")

        def order() -> None:
            w.user(f"I also ordered a replacement {i.device.part} last week. Has it shipped?")
            out = w.tool("lookup_order", {"email": state["email"]},
                         {"order_id": i.order, "email": state["email"],
                          "item": i.device.part, "status": "shipped", "carrier": "ParcelCo"})
            w.plant(f"{name}.order", "order", "order", i.order, out, TOOL_OUTPUT)
            w.assistant("It has shipped and should arrive in a few days.")

        def replace_order() -> None:
            assert i.replacement_order is not None
            w.user(f"The {i.device.part} never arrived, so I reordered it. Can you check the "
                   "new order?")
            out = w.tool("lookup_order", {"email": state["email"]},
                         {"order_id": i.replacement_order, "replaces": i.order,
                          "status": "processing", "carrier": "ParcelCo"})
            w.plant(f"{name}.order", "order", "order", i.replacement_order, out, TOOL_OUTPUT)
            w.assistant("I see it: the new order replaces the lost one and is being packed.")

        def spare_order() -> None:
            assert i.spare_order is not None
            w.user("I ordered a spare one for the office too. Is that on its way?")
            out = w.tool("lookup_order", {"email": state["email"], "item": "spare"},
                         {"order_id": i.spare_order, "item": f"spare {i.device.part}",
                          "status": "shipped", "carrier": "ParcelCo"})
            w.plant(f"{name}.order_spare", "order", "order", i.spare_order, out, TOOL_OUTPUT)
            w.assistant("Yes, the spare has shipped as well.")

        def resolved() -> None:
            w.user(rng.choice(("That fixed it, thanks.", "It seems fine now, thank you.",
                               "Okay, it works again.")))
            w.assistant(f"Glad to hear it. I'll note that the {i.device.noun} is working again.")

        steps: list[Callable[[], None]] = [report, serial]

        def extra(event: Callable[[], None]) -> None:
            steps.append(event)
            optional.append(event)

        if i.new_error:
            extra(new_error)
        steps.append(ticket)
        if i.merged:
            extra(merge)
        if i.upgrades and not i.revisit:
            steps.append(upgrade(i, i.upgrades[0]))
            if len(i.upgrades) > 1:
                extra(upgrade(i, i.upgrades[1]))
            if i.rollback:
                extra(rollback)
        if i.warranty:
            steps.append(warranty)
            if i.reissued_rma:
                extra(reissue)
        if i.has_order:
            steps.append(order)
            if i.replacement_order:
                extra(replace_order)
            if i.spare_order:
                extra(spare_order)
        steps.append(resolved)
        return steps

    def new_email(address: str, text: str) -> Callable[[], None]:
        def run() -> None:
            index = w.user(text)
            w.plant("email", "email", "email", address, index, USER)
            state["email"] = address
            w.assistant(f"Updated: I'll use {address} from now on.")
        return run

    def said(template: _Constraint, category: str, pick: str, new: str | None,
             update: bool) -> Callable[[], None]:
        text = (template.update if update else template.text) or ""
        value = (template.update_value if update else template.value) or ""
        text, value = (t.format(x=pick, y=new) for t in (text, value))

        def run() -> None:
            if category == "constraint":
                index = w.user(text)
                where = USER
                w.assistant("Noted, I've added that to your case so everyone handling it "
                            "sees it.")
            else:
                w.user("What happens next with the repair?" if not update
                       else "Any news on what you promised?")
                w.assistant(text)
                index, where = len(w.items) - 1, "assistant"
            w.plant(f"{category}.{template.topic}", category, category, value, index, where)

        return run

    def picks(template: _Constraint) -> tuple[str, str | None]:
        if not template.choices:
            return "", None
        pick = rng.choice(template.choices)
        others = [c for c in template.choices if c != pick]
        return pick, rng.choice(others)

    def goodbye() -> None:
        w.user("That's everything for today, thanks for the help.")
        w.assistant(f"You're welcome, {first}. Have a good day!")

    def filler() -> None:
        said_, answer = rng.choice(_FILLER)
        w.user(said_.format(device=state["device"]))
        w.assistant(answer.format(device=state["device"]))

    # Updates that make way (newest first) when the chat is too short for all of them.
    optional: list[Callable[[], None]] = []
    core: list[Callable[[], None]] = [hello]
    warranties: list[Callable[[], None]] = []
    bounds: list[tuple[Callable[[], None], Callable[[], None]]] = []  # each issue's first, last
    for issue in plan:
        steps = issue_events(issue)
        bounds.append((steps[0], steps[-1]))
        warranties += [e for e in steps if e.__name__ == "warranty"]
        core += steps
    first_report = core[1]

    def insert_between(event: Callable[[], None], low: int, high: int | None = None,
                       extra: bool = True) -> int:
        position = rng.randint(max(1, low), len(core) if high is None else max(low, high))
        core.insert(position, event)
        if extra:
            optional.append(event)
        return position

    if plan[0].revisit:  # during the second issue, back to the first device
        begin, end = (core.index(e) for e in bounds[1])
        insert_between(revisit_event(plan[0]), begin + 1, end, extra=False)
    if warranties and updates and rng.random() < 0.8:
        template = rng.choice(COMMITMENTS)
        pick, new = picks(template)
        at = insert_between(said(template, "commitment", pick, new, False),
                            core.index(warranties[0]) + 1)
        if template.update and chance(0.45):
            insert_between(said(template, "commitment", pick, new, True), at + 1)
    for template in rng.sample(CONSTRAINTS, constraints):
        pick, new = picks(template)
        at = insert_between(said(template, "constraint", pick, new, False), 1, extra=False)
        if template.update and chance(0.45):
            insert_between(said(template, "constraint", pick, new, True), at + 1)
    if email_change:
        change = max(2, round(len(core) * 0.55))
        core.insert(change, new_email(emails[1], f"Before I forget: my old address is being "
                                      f"shut down, please use {emails[1]} from now on."))
        if revert_email:
            insert_between(new_email(emails[0], f"Actually, please go back to {emails[0]}: the "
                                     "new address keeps bouncing my mail."), change + 2)
    core.append(goodbye)

    def needed() -> int:
        return len(core) + sum(1 for i in plan if i.misread)  # a misread serial: 2 turns

    while needed() > turns and (optional or any(i.misread for i in plan)):
        if optional:
            core.remove(optional.pop())
        else:
            next(i for i in reversed(plan) if i.misread).misread = None
    spare = turns - needed()
    if spare < 0:
        raise ValueError(f"turns={turns} is too short for {issues} issues: they need at least "
                         f"{needed()} turns; pass more turns or fewer issues")
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
