"""ExtractiveSummarizer folds correctly forever: current values are the latest stated ones.

The property test writes random support chats in which values are stated, updated, corrected,
merged and reverted, for one or several devices, and a constraint is set and revised, then
folds them at random points any number of times (each fold hands the previous record back,
as SummarizingSession does). Whatever the fold points, the summary presents exactly the
latest stated value of every fact as current (read with ctxlab's one reading rule,
:mod:`ctxlab.facts.staleness`), and the record equals the one a single fold of everything
gives.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlab import SummarizingSession, count_tokens
from ctxlab.facts.staleness import Mention, current_mention, stale_marks
from ctxlab.summarizers import SUMMARY_SECTIONS, ExtractiveSummarizer

from conftest import arun

NOUNS = ("laptop", "printer", "router")


@dataclass
class Device:
    noun: str
    serials: list[str] = field(default_factory=list)
    firmware: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the current error code is the last
    tickets: list[str] = field(default_factory=list)  # every value ever given


@dataclass
class Chat:
    """A generated chat and the truth about it."""

    items: list[dict] = field(default_factory=list)
    emails: list[str] = field(default_factory=list)
    email: str | None = None
    devices: dict[str, Device] = field(default_factory=dict)
    current_tickets: dict[str, list[str]] = field(default_factory=dict)
    away: list[str] = field(default_factory=list)  # every "away until" said; the last holds
    counter: int = 0
    calls: int = 0

    def fresh(self) -> int:
        self.counter += 1
        return self.counter

    def user(self, text: str) -> None:
        self.items.append({"role": "user", "content": text})

    def agent(self, text: str) -> None:
        self.items.append({"role": "assistant", "content": text})

    def tool(self, name: str, args: dict, output: dict) -> None:
        self.calls += 1
        call_id = f"call_{self.calls}"
        self.items.append({"type": "function_call", "call_id": call_id, "name": name,
                           "arguments": json.dumps(args)})
        self.items.append({"type": "function_call_output", "call_id": call_id,
                           "output": json.dumps(output)})


def event(chat: Chat, action: str, noun: str) -> None:
    n = chat.fresh()
    device = chat.devices.get(noun)
    if action == "email" or (action == "revert_email" and len(chat.emails) < 2):
        value = f"person{n}@example.com"
        chat.emails.append(value)
        chat.email = value
        chat.user(f"Please use {value} from now on." if n > 1 else f"You can reach me at {value}.")
        chat.agent("Noted.")
    elif action == "revert_email":
        value = next(e for e in reversed(chat.emails) if e != chat.email)
        chat.email = value
        chat.user(f"Actually, please go back to {value}; the other one bounces.")
        chat.agent(f"Done, I'll use {value} again.")
    elif action == "away":
        value = f"away until the {n}th"
        if chat.away:
            chat.user(f"Change of plans: I'm now {value}.")
        else:
            chat.user(f"I'm {value}, so no visits before then.")
        chat.away.append(value)
        chat.agent("Noted, I've added that to your case.")
    elif device is None or action == "report":
        if device is None:
            device = chat.devices[noun] = Device(noun)
        code = f"E{1000 + n}"
        device.errors.append(code)
        chat.user(f"Now a different problem: my {noun} fails with error {code}.")
        chat.agent(f"Sorry to hear that. Could you read me the serial of the {noun}?")
    elif action == "serial" or not device.serials:
        serial = f"SN{n:04d}{noun[:2].upper()}X9"
        if device.serials:
            old = device.serials[-1]
            chat.user(f"Sorry, I misread the label of my {noun}: the serial is actually "
                      f"{serial}, not {old}.")
        else:
            chat.user(f"The serial of my {noun} is {serial}.")
        device.serials.append(serial)
        version = f"v{n}.0.{len(device.firmware)}"
        chat.tool("lookup_device", {"serial": serial}, {"serial": serial, "firmware": version})
        device.firmware.append(version)
        chat.agent(f"Thanks, I found your {noun}.")
    elif action == "upgrade":
        version = f"v{n}.1.{len(device.firmware)}"
        chat.user(f"Is there a firmware update for my {noun}?")
        chat.tool("update_firmware", {"serial": device.serials[-1]},
                  {"serial": device.serials[-1], "firmware": version, "status": "installed"})
        device.firmware.append(version)
        chat.agent("It's installed now.")
    elif action == "error":
        code = f"E{1000 + n}"
        device.errors.append(code)
        chat.user(f"My {noun} now shows a new error code instead: error {code}.")
        chat.agent("Thanks, noted.")
    elif action == "ticket":
        ticket = f"TCK-{10000 + n}"
        chat.user(f"Can you open a ticket for my {noun}?")
        chat.tool("create_ticket", {"serial": device.serials[-1]},
                  {"ticket_id": ticket, "status": "open"})
        device.tickets.append(ticket)
        chat.current_tickets.setdefault(noun, []).append(ticket)
        chat.agent("Done, it's logged.")
    elif action == "merge" and chat.current_tickets.get(noun):
        old = chat.current_tickets[noun][-1]
        ticket = f"TCK-{10000 + n}"
        chat.user(f"Anything new on the {noun} ticket?")
        chat.agent(f"Ticket {old} was merged into {ticket}; please use {ticket}.")
        device.tickets.append(ticket)
        chat.current_tickets[noun][-1] = ticket
    else:
        chat.user("Still the same, unfortunately.")
        chat.agent("Understood. Let's keep going.")


ACTIONS = ("email", "revert_email", "report", "serial", "upgrade", "error", "ticket",
           "merge", "away", "filler", "filler")


def read_current(text: str, values: list[str]) -> str | None:
    """The value a reader takes as current among ``values`` (the latest unmarked mention)."""
    marks = stale_marks(text)
    mentions = []
    for value in set(values):
        for match in re.finditer(r"(?<![\w.@-])" + re.escape(value) + r"(?![\w@-]|\.\w)", text):
            mentions.append(Mention(value, match.start(), match.end(),
                                    marks.covers(match.start(), match.end())))
    found = current_mention(mentions)
    return found.value if found else None


def check_summary(text: str, chat: Chat) -> None:
    if chat.email is not None:
        assert read_current(text, chat.emails) == chat.email
    if chat.away:
        assert read_current(text, chat.away) == chat.away[-1]
    for noun, device in chat.devices.items():
        if device.serials:
            assert read_current(text, device.serials) == device.serials[-1], noun
        if device.firmware:
            assert read_current(text, device.firmware) == device.firmware[-1], noun
        if device.errors:
            assert read_current(text, device.errors) == device.errors[-1], noun
        for ticket in chat.current_tickets.get(noun, []):
            assert read_current(text, [ticket]) == ticket
        for ticket in set(device.tickets) - set(chat.current_tickets.get(noun, [])):
            assert read_current(text, [ticket]) is None, f"{ticket} presented as current"


def user_turn_starts(items: list[dict]) -> list[int]:
    return [i for i, item in enumerate(items) if item.get("role") == "user"]


chats = st.tuples(st.lists(st.tuples(st.sampled_from(ACTIONS), st.sampled_from(NOUNS)),
                           min_size=3, max_size=45),
                  st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))


@settings(max_examples=120, deadline=None)
@given(chats)
def test_random_folds_keep_the_latest_stated_values_current(spec):
    events, cuts = spec
    chat = Chat()
    for action, noun in events:
        event(chat, action, noun)
    starts = user_turn_starts(chat.items)
    bounds = [*sorted({starts[c % len(starts)] for c in cuts} - {0}), len(chat.items)]
    summarizer = ExtractiveSummarizer()
    previous = None
    begin = 0
    for end in bounds:
        chunk = chat.items[begin:end]
        if previous is not None:
            chunk = [{"role": "user", "content": previous.shadow},
                     {"role": "assistant", "content": previous.text}, *chunk]
        previous = summarizer.summarize(
            chunk, previous_summary=previous.text if previous else None,
            previous_state=previous.state if previous else None)
        begin = end
    assert previous is not None and previous.state is not None
    check_summary(previous.text, chat)
    once = summarizer.summarize(chat.items)
    assert once.state == previous.state
    assert once.text == previous.text
    assert count_tokens(previous.text) <= summarizer.max_tokens


@settings(max_examples=25, deadline=None)
@given(chats, st.integers(min_value=0, max_value=3), st.integers(min_value=1, max_value=4))
def test_a_summarizing_session_presents_the_latest_values(spec, keep, extra):
    events, _ = spec
    chat = Chat()
    batches = []
    for action, noun in events:
        before = len(chat.items)
        event(chat, action, noun)
        batches.append(chat.items[before:])

    async def go():
        session = SummarizingSession(keep, keep + extra, session_id="facts")
        for batch in batches:  # one event at a time: folds end between events
            await session.add_items(batch)
        return session.summary

    record = arun(go())
    if record is None:
        return
    folded = chat.items[: record.items[1]]
    truth = Chat()  # the truth at the end of the folded prefix
    for action, noun in events:
        if len(truth.items) >= len(folded):
            break
        event(truth, action, noun)
    assert truth.items == folded
    check_summary(record.text, truth)
    assert record.state is not None


def test_two_devices_keep_their_own_firmware():
    chat = Chat()
    for action, noun in [("report", "laptop"), ("serial", "laptop"), ("report", "printer"),
                         ("serial", "printer"), ("upgrade", "laptop"), ("upgrade", "printer"),
                         ("upgrade", "laptop")]:
        event(chat, action, noun)
    text = ExtractiveSummarizer().summarize(chat.items).text
    line = next(ln for ln in text.splitlines() if ln.startswith("- Firmware"))
    laptop, printer = chat.devices["laptop"], chat.devices["printer"]
    assert f"{laptop.firmware[-1]} (laptop;" in line and f"{printer.firmware[-1]} (printer;" in line
    check_summary(text, chat)


def test_sections_are_the_prompts_in_order_and_empty_ones_are_left_out():
    text = ExtractiveSummarizer().summarize([{"role": "user", "content": "Hello there"}]).text
    titles = [line[:-1] for line in text.splitlines() if line.endswith(":")]
    assert titles == ["Reported Issue", "Current Status & Blockers", "Next Recommended Step"]
    assert set(titles) <= set(SUMMARY_SECTIONS)
    assert "opening request (turn 1): Hello there" in text
