"""A small troubleshooting playbook: which symptom a message describes, and what to try.

Each :class:`Symptom` has the phrases that reveal it, three or four short steps and exactly
one clarifying question. :func:`match_symptoms` lists the symptoms a message mentions, in
the order they appear, so a reply can deal with the first and keep the others open. Steps
and questions may contain ``{code}``, filled with the error code the message mentions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Symptom:
    """One entry of the playbook."""

    key: str
    title: str
    pattern: re.Pattern[str]
    steps: tuple[str, ...]
    question: str

    def render(self, code: str = "") -> tuple[list[str], str]:
        """The numbered steps and the clarifying question, with ``{code}`` filled in."""
        steps = [f"{n}. {step.format(code=code)}" for n, step in enumerate(self.steps, 1)]
        return steps, self.question.format(code=code)


def _symptom(key: str, title: str, pattern: str, steps: list[str], question: str) -> Symptom:
    return Symptom(key, title, re.compile(pattern, re.IGNORECASE), tuple(steps), question)


_HTTP = r"(?<![\w.:/-])(?:400|401|403|404|408|429|500|502|503|504)(?![\w-]|[.,:]\d)"

#: The playbook, most specific entries first (ties in position go to the earlier entry).
PLAYBOOK: tuple[Symptom, ...] = (
    _symptom(
        "http_error",
        "web error {code}",
        _HTTP + r"|\bpage not found\b",
        [
            "Check the address for typos, or open the link again from where you found it.",
            "Open the same page in a private window to rule out a stale cache or cookie.",
            "Try a different site; if every site fails, the problem is the connection, "
            "not the page.",
        ],
        "Do you see that error on every site, or only on one particular page?",
    ),
    _symptom(
        "error_code",
        "error {code}",
        r"\berror(?:[ _-]?code)?\s*[:#]?\s*(?:0x[0-9a-f]+|[a-z]{0,3}-?\d+)\b",
        [
            "Write down the exact wording of the error {code} message and when it appears.",
            "Restart the device, then try the same action once more.",
            "Install any pending system and app updates, since many error codes are fixed by them.",
        ],
        "Does error {code} appear right at startup, or only when you open a specific app?",
    ),
    _symptom(
        "blinking_light",
        "blinking status light",
        r"\b(?:red|orange|amber|white)?\s*(?:status\s+)?(?:light|led)s?\s+(?:is\s+|keeps\s+)?"
        r"(?:blinking|flashing|flickering)\b|\b(?:blinking|flashing)\s+(?:red\s+|orange\s+"
        r"|amber\s+)?(?:light|led)\b|\b(?:red|amber|orange)\s+(?:light|led)\b",
        [
            "Unplug the charger and every accessory, then hold the power button for 10 seconds.",
            "Reconnect only the charger and watch the light for one minute.",
            "Count the blinks in one cycle: the pattern is a hardware diagnostic code.",
        ],
        "How many times does the light blink before it pauses?",
    ),
    _symptom(
        "overheating",
        "overheating",
        r"\b(?:overheat\w*|too hot|running hot|gets? (?:very |really )?hot|heats? up"
        r"|fans? (?:is |are )?(?:loud|noisy|roaring|always on)|thermal)\b",
        [
            "Open Activity Monitor (Mac) or Task Manager (Windows) and quit any process "
            "using a lot of CPU.",
            "Keep the vents clear: work on a hard, flat surface rather than a bed or lap.",
            "Install pending system and firmware updates, then restart.",
        ],
        "Does it heat up even when idle, or only under load such as video calls?",
    ),
    _symptom(
        "no_power",
        "device will not power on",
        r"\b(?:won'?t|will not|doesn'?t|does not|can'?t) (?:turn on|power on|boot|start up)\b"
        r"|\bblack screen\b|\bcompletely dead\b",
        [
            "Charge it for 15 minutes with a charger you know works.",
            "Hold the power button for 10 seconds, release, then press it once.",
            "Disconnect every accessory, docks and external drives included.",
        ],
        "Do you hear a fan or see any light at all when you press the power button?",
    ),
    _symptom(
        "no_connection",
        "network connection",
        r"\b(?:won'?t|can'?t|cannot|doesn'?t|does not|unable to) (?:connect|get online)\b"
        r"|\bnot connecting\b|\bno (?:internet|network|connection)\b|\bwi-?fi\b"
        r"|\bkeeps? disconnecting\b|\bvpn\b",
        [
            "Turn Wi-Fi off and on again (or toggle airplane mode).",
            "Forget the network in Wi-Fi settings and join it again with the password.",
            "Restart the device; at home, restart the router as well.",
        ],
        "Can other devices on the same network get online?",
    ),
    _symptom(
        "battery",
        "battery",
        r"\bbattery\b|\b(?:won'?t|not|isn'?t) charging\b|\bwon'?t charge\b|\bdrain\w*\b",
        [
            "Check the battery health page in system settings.",
            "Try a different outlet, cable and charger if you have them.",
            "Lower screen brightness and close apps that keep running in the background.",
        ],
        "Is the problem that it will not charge at all, or that the charge runs out too quickly?",
    ),
    _symptom(
        "slow",
        "slowness",
        r"\b(?:slow\w*|sluggish|laggy|lagging|takes forever|freez\w*|frozen|hangs?)\b",
        [
            "Restart the device if it has been running for days.",
            "Make sure at least 10 percent of the disk is free.",
            "Check which apps start at login and disable the ones you do not need.",
        ],
        "Did the slowness start after a particular update or a newly installed app?",
    ),
    _symptom(
        "no_sound",
        "sound",
        r"\bno (?:sound|audio)\b|\bcan'?t hear\b|\b(?:sound|audio|speakers?) "
        r"(?:is |are )?(?:not working|stopped|broken|muted)\b|\bmuted\b",
        [
            "Open the sound settings and check which output device is selected.",
            "Make sure the volume is up and the device is not muted.",
            "Disconnect Bluetooth headphones, which often keep the audio to themselves.",
        ],
        "Is the sound missing everywhere, or only in one app such as Teams or the browser?",
    ),
    _symptom(
        "login",
        "sign-in",
        r"\bpassword\b|\blocked out\b|\b(?:can'?t|cannot|unable to) (?:log ?in|sign in)\b"
        r"|\b(?:mfa|2fa)\b",
        [
            "Check that Caps Lock is off and the keyboard layout is the usual one.",
            "Reset the password through the self-service portal.",
            "If the account is locked, wait 15 minutes before trying again.",
        ],
        "Are you locked out of the computer itself, or of one account such as email?",
    ),
    _symptom(
        "display",
        "display",
        r"\bflicker\w*\b|\bscreen (?:is )?(?:blank|dim|flashing)\b|\bexternal (?:monitor|display)"
        r"\b|\bno signal\b",
        [
            "Change the brightness a little: some panels flicker only at low backlight.",
            "Reconnect the display cable or dock firmly at both ends.",
            "Update the graphics driver or the system software.",
        ],
        "Does it also happen on an external monitor?",
    ),
    _symptom(
        "crash",
        "app crashes",
        r"\bcrash\w*\b|\bkeeps? (?:closing|quitting|restarting)\b|\bnot responding\b"
        r"|\bquits? unexpectedly\b",
        [
            "Quit the app completely and open it again.",
            "Update the app to its latest version.",
            "Restart the device to clear stuck background processes.",
        ],
        "Which app crashes, and does it happen right when it opens?",
    ),
    _symptom(
        "printer",
        "printing",
        r"\bprinter\b|\b(?:won'?t|can'?t|cannot) print\b|\bprint (?:job|queue)\b",
        [
            "Check that the printer is on, has paper and shows no error on its panel.",
            "Clear stuck jobs from the print queue.",
            "Remove the printer from your settings and add it again.",
        ],
        "Is it a shared office printer, or one connected directly to your computer?",
    ),
    _symptom(
        "peripheral",
        "keyboard, mouse or Bluetooth device",
        r"\bbluetooth\b|\bkeyboard\b|\bmouse\b|\btrackpad\b|\bheadset\b",
        [
            "Turn the accessory off and on, and charge or replace its battery.",
            "Remove it from the Bluetooth list and pair it again.",
            "Try it on another computer to see whether the accessory is at fault.",
        ],
        "Does the accessory work when it is plugged in with a cable?",
    ),
)

_HTTP_CODES = frozenset({"400", "401", "403", "404", "408", "429", "500", "502", "503", "504"})
_CODE = re.compile(
    r"\berror(?:[ _-]?code)?\s*[:#]?\s*(0x[0-9A-Fa-f]+|[A-Za-z]{0,3}-?\d+)\b|(" + _HTTP + ")",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SymptomMatch:
    """A symptom found in a message, where it starts, and the error code it names."""

    symptom: Symptom
    start: int
    code: str

    @property
    def key(self) -> str:
        return self.symptom.key

    @property
    def title(self) -> str:
        return self.symptom.title.format(code=self.code).strip()


def match_symptoms(text: str) -> list[SymptomMatch]:
    """The playbook entries ``text`` mentions, each once, ordered by first mention."""
    if not isinstance(text, str):
        raise TypeError(f"match_symptoms expects a str, got {type(text).__name__}")
    found: list[tuple[int, int, SymptomMatch]] = []
    for rank, symptom in enumerate(PLAYBOOK):
        match = symptom.pattern.search(text)
        if match is None:
            continue
        code = ""
        if symptom.key in ("http_error", "error_code"):
            code_match = _CODE.search(text, match.start())
            if code_match is not None:
                code = code_match.group(1) or code_match.group(2) or ""
            if symptom.key == "error_code" and code in _HTTP_CODES:
                continue  # "error 404" is a web error, handled by http_error
        found.append((match.start(), rank, SymptomMatch(symptom, match.start(), code)))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    return [entry[2] for entry in found]
