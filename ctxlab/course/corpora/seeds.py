"""The course's own example conversations and the support chat script of the lessons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..offline.catalog import device_record, rma_number, ticket_status, warranty_status
from .records import (
    Conversation,
    assistant,
    locate_facts,
    tool_round,
    user,
)

# ---------------------------------------------------------------------------- seed conversations


def _untyped(lines: Sequence[str]) -> list[dict[str, Any]]:
    roles = ("user", "assistant")
    return [{"role": roles[n % 2], "content": text} for n, text in enumerate(lines)]


def seed_trimming_flow() -> Conversation:
    """The short chat the trimming lesson starts from: 8 untyped messages, 4 user turns.

    A MacBook Pro that also overheats; firmware v1.0.3 and still failing; a factory reset,
    after which error 42 appears; then error 404 when opening a website. With
    ``max_turns=2`` a trimming session keeps items 4 to 7, and the device and firmware
    are gone from the model's view.
    """
    items = _untyped(
        [
            "I'm on a MacBook Pro, and on top of the other trouble it runs very hot.",
            "Sorry about that. Heat often comes from a stuck process or blocked vents. "
            "Which firmware version is installed?",
            "Firmware v1.0.3, and the problem is still there.",
            "Thanks. Please do a factory reset and tell me what happens afterwards.",
            "I did the factory reset. Now it shows error 42.",
            "Error 42 means a self-test failed during startup. Restart once more and see "
            "whether it comes back.",
            "It booted, but now I get error 404 whenever I open a website.",
            "A 404 means the page itself was not found, so the network is working. Which "
            "address were you opening?",
        ]
    )
    facts = locate_facts(
        items,
        {"device": "MacBook Pro", "firmware": "v1.0.3", "error_code": ["42", "404"]},
        whole_word=True,
    )
    return Conversation("seed-trimming-flow", "seed", items, facts, {"topic": "laptop"})


def seed_router_flow() -> Conversation:
    """The summarizing lesson's chat: 10 untyped messages, 5 user turns about a router.

    The first message carries most of the context (Windows 10, the FAQ did not help, third
    contact, a Premium customer in the US); then firmware v1.0.3 still failing, a reset that
    ends in error 42, a firmware update that fails with another error, and "404 not found"
    on the router's page. The assistant ends by asking whether they are online at all.
    """
    items = _untyped(
        [
            "Hello, my home router will not connect. I'm on Windows 10, your FAQ did not "
            "help, and this is the third time I'm contacting you. I'm a Premium customer "
            "based in the US.",
            "I'm sorry it has taken three contacts. Which firmware version does the router "
            "report on its status page?",
            "It's on firmware v1.0.3 and it still fails.",
            "Please reset the router: hold the reset button for ten seconds, wait two "
            "minutes, and try again.",
            "Reset done. Now the router shows error 42.",
            "Error 42 points to a damaged configuration. Installing the latest firmware "
            "usually clears it.",
            "I tried installing the new firmware, and it stopped with a different error.",
            "Sorry about that. What exactly does the screen say when it stops?",
            "When I open the update page it says 404 not found.",
            "Thanks. Before we go further: is your computer connected to the internet right "
            "now, for example over another network?",
        ]
    )
    facts = locate_facts(
        items,
        {
            "device": "router",
            "os": "Windows 10",
            "contact_count": "third",
            "plan": "Premium",
            "region": "US",
            "firmware": "v1.0.3",
            "error_code": ["42", "404"],
        },
        whole_word=True,
    )
    return Conversation("seed-router-flow", "seed", items, facts, {"topic": "router"})


_TICKET = "TCK-48213"
_SERIAL = "SN-4Q7K-22981"
_EMAIL = "dana.whitfield@example.com"
_RMA = rma_number(_SERIAL)


def seed_support_conversation() -> Conversation:
    """A longer IT-support chat (18 user turns, 4 tool rounds) for the memory lessons.

    A laptop with a blinking red light: a ticket number early, then a serial number, an
    email, firmware v1.0.3, overheating, error 42 after a reset and a 404 on the download
    page. Tool rounds use the course's tools with their exact argument shapes:
    ``lookup_device({"serial": ...})``, ``check_warranty({"serial": ...})`` (its output
    carries the RMA number) and ``get_ticket_status({"ticket_id": ...})`` twice. Later turns
    ask about earlier facts (the email, the RMA, the firmware, the serial), so a memory
    that drops early turns cannot answer them.
    """
    # Tool outputs come from the course's own tool data, so a live run of the agent and this
    # recorded conversation agree (the device record is the bulky ~2,000-token one).
    items = [*_support_diagnosis(), *_support_follow_up()]
    facts = locate_facts(
        items,
        {
            "ticket_id": _TICKET,
            "serial": _SERIAL,
            "customer_name": "Dana Whitfield",
            "email": _EMAIL,
            "firmware": "v1.0.3",
            "error_code": ["42", "404"],
            "rma": _RMA,
        },
        whole_word=True,
    )
    meta = {"topic": "laptop", "tools": ["lookup_device", "check_warranty", "get_ticket_status"]}
    return Conversation("seed-support", "seed", items, facts, meta)


def _support_diagnosis() -> list[dict[str, Any]]:
    """The support chat up to the repair authorisation."""
    device = device_record(_SERIAL)
    warranty = warranty_status(_SERIAL)
    return [
        user("Hi, there's a red light blinking on my laptop and it won't finish starting up."),
        assistant(
            f"Sorry to hear that. I've opened ticket {_TICKET} for you. Could you read "
            "me the serial number from the sticker under the laptop?"
        ),
        user(f"Sure, the serial is {_SERIAL}."),
        *tool_round("call_seed_device_1", "lookup_device", {"serial": _SERIAL}, device),
        assistant(
            "Found it: an Aurora 14 bought in March 2023 and registered to Dana "
            "Whitfield, dana.whitfield@example.com. Is that you?"
        ),
        user(f"Yes, that's me. My email is {_EMAIL} if you need to send me anything."),
        assistant(
            f"Thanks, Dana. I've added {_EMAIL} to ticket {_TICKET}. How fast does the "
            "red light blink, and does the fan spin up?"
        ),
        user(
            "About twice a second. The fan is loud and the bottom gets very hot; it has "
            "been overheating for a week."
        ),
        assistant(
            "Heat together with a blinking red light often points to the fan control "
            "firmware. Which firmware version does the startup screen show?"
        ),
        user("It says firmware v1.0.3."),
        assistant(
            "That version has a known fan-control bug. Hold the power button for 15 "
            "seconds to reset the embedded controller, then start the laptop again."
        ),
        user("Did that. Still failing, same red light."),
        assistant(
            "Then let's do a factory reset from the recovery menu (hold F11 while it "
            "powers on). It erases local files, so back up what you can first."
        ),
        user("Factory reset done. Now it stops at error 42 during startup."),
        *tool_round("call_seed_warranty_1", "check_warranty", {"serial": _SERIAL}, warranty),
        assistant(
            "Error 42 means the storage controller did not answer the self-test, which "
            "needs a repair. Good news: your Aurora Care Plus cover runs until "
            f"2027-03-14, so I've opened a repair authorisation, {_RMA}."
        ),
    ]


def _support_follow_up() -> list[dict[str, Any]]:
    """The rest of the support chat: a 404, ticket status twice, questions about earlier facts."""
    status = ticket_status(_TICKET)
    return [
        user("I also tried to download the recovery driver from your site and got a 404."),
        assistant(
            "That's on our side: the download page moved. You won't need the driver "
            "now that the laptop goes in for repair."
        ),
        user("Has anyone on your side looked at the ticket yet?"),
        *tool_round("call_seed_ticket_1", "get_ticket_status", {"ticket_id": _TICKET}, status),
        assistant(
            "Yes: it is in progress with Priya Nair at the hardware desk, and the "
            "latest note is the repair authorisation."
        ),
        user("Can the priority be raised? I need the laptop for work."),
        assistant(
            "I've asked the hardware desk for high priority because of the "
            "overheating. It usually takes a few minutes to show up."
        ),
        user("Will the repair wipe my files?"),
        assistant(
            "The factory reset already removed local files. The repair replaces the "
            "storage board, so anything you did not back up cannot be recovered by us."
        ),
        user("How do I ship it?"),
        assistant(
            "Print the shipping label we email you, pack the laptop in its box or a "
            "padded one, and drop it at any courier point. Write the RMA number on "
            "the outside."
        ),
        user("Which address will the label go to?"),
        assistant(f"To {_EMAIL}, the email you gave me at the start."),
        user("And what was the RMA number again?"),
        assistant(f"It's {_RMA}."),
        user("Did the priority change go through?"),
        *tool_round("call_seed_ticket_2", "get_ticket_status", {"ticket_id": _TICKET}, status),
        assistant(
            "The ticket is still in progress with Priya Nair; the priority request is "
            "with her desk, and I'll email you when it is confirmed."
        ),
        user("If the repair center asks, which firmware was on it?"),
        assistant("v1.0.3, the version you read from the startup screen."),
        user("Should I mention the overheating too?"),
        assistant(
            "Yes, please add a note about the heat and the loud fan; it helps them "
            "test the fan after the repair."
        ),
        user("What serial number did I give you, so I can check the box?"),
        assistant(f"The serial is {_SERIAL}."),
        user("Great. Can you sum up my case before I go?"),
        assistant(
            f"Ticket {_TICKET}: laptop {_SERIAL} with a blinking red light and "
            "overheating, firmware v1.0.3, error 42 after a factory reset; the 404 "
            f"came from our moved download page. Warranty active; repair {_RMA}; "
            f"label goes to {_EMAIL}."
        ),
        user("Thanks, that's everything."),
        assistant("You're welcome, Dana. Good luck with the repair!"),
    ]



@dataclass(frozen=True)
class Probe:
    """A recall question asked at user turn ``turn`` whose right answer contains ``expected``."""

    turn: int
    fact: str
    expected: str


def support_chat_script() -> tuple[list[str], tuple[Probe, ...]]:
    """What the customer of the seed conversation types, for live runs of the agent.

    Twenty user messages (the customer gives the ticket number herself in the first one, so
    a live agent has it only from the conversation), with the tool requests the course's
    agent acts on (device details, warranty, ticket status) and five recall questions near
    the end, returned as :class:`Probe` objects: the answer to each depends on a fact given
    many turns earlier, which is what memory strategies are judged on.
    """
    messages = [
        f"Hi, my ticket is {_TICKET}. There's a red light blinking on my laptop and it won't "
        "finish starting up.",
        f"Sure, the serial is {_SERIAL}. Can you look up the device details?",
        f"Yes, that's me. My email is {_EMAIL} if you need to send me anything.",
        "About twice a second. The fan is loud and the bottom gets very hot; it has been "
        "overheating for a week.",
        "It says firmware v1.0.3.",
        "Did that. Still failing, same red light.",
        "Factory reset done. Now it stops at error 42 during startup.",
        "Is the laptop still under warranty?",
        "I also tried to download the recovery driver from your site and got a 404.",
        "Has anyone on your side looked at my ticket yet?",
        "Can the priority be raised? I need the laptop for work.",
        "Will the repair wipe my files?",
        "How do I ship it?",
        "Which email address will the shipping label go to?",
        "And what was the RMA number again?",
        "If the repair center asks, which firmware was on it?",
        "Should I mention the overheating too?",
        "What serial number did I give you, so I can check the box?",
        "What was my ticket number, for my records?",
        "Thanks, that's everything.",
    ]
    probes = (
        Probe(14, "email", _EMAIL),
        Probe(15, "rma", _RMA),
        Probe(16, "firmware", "v1.0.3"),
        Probe(18, "serial", _SERIAL),
        Probe(19, "ticket_id", _TICKET),
    )
    return messages, probes
