"""The vocabulary of planted chats (:mod:`ctxlab.eval.planted`): customers, devices, filler
exchanges, the constraints customers set and the promises agents make, and the random
identifiers (error codes, serials, firmware versions) a chat plants."""

from __future__ import annotations

import random
from dataclasses import dataclass

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
