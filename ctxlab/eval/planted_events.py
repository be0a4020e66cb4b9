"""The events of one planted chat (:mod:`ctxlab.eval.planted`). An event writes one exchange
(the customer's turn, maybe a tool call, the assistant's answer) and plants the values it
says: :class:`ChatEvents` has the ones every chat has (greeting, filler, email changes,
constraints, promises, goodbye), :class:`IssueEvents` those of one issue."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.items import item_text
from .cases import TOOL_OUTPUT, USER, KeyFact
from .planted_data import _FILLER, _Constraint, _events_log, _Issue

#: One exchange of a planted chat, written when called.
Event = Callable[[], None]



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


class ChatEvents:
    """The events every planted chat has, and the state they share: the writer, the random
    source, the customer, the device being discussed and the current email address."""

    def __init__(self, rng: random.Random, seed: int, *, updates: bool, first: str, last: str,
                 emails: list[str]) -> None:
        self.rng = rng
        self.updates = updates
        self.first, self.last = first, last
        self.emails = emails
        self.w = _Writer(seed)
        self.state: dict[str, Any] = {"device": "device", "email": emails[0]}

    def chance(self, p: float) -> bool:
        """An optional update happens (never when the chat plants no updates)."""
        return self.updates and self.rng.random() < p

    def hello(self) -> None:
        w, first = self.w, self.first
        index = w.user(f"Hi, this is {first} {self.last}. You can reach me at {self.emails[0]} "
                       "if we get cut off.")
        w.plant("email", "email", "email", self.emails[0], index, USER)
        w.assistant(f"Hi {first}, thanks. What can I help you with today?")

    def lookup(self, i: _Issue, serial: str) -> None:
        out = self.w.tool("lookup_device", {"serial": serial}, {
            "serial": serial, "model": i.model, "purchased": "2023-10-02",
            "firmware": i.firmware, "owner": f"{self.first} {self.last}",
            "diagnostics": {"battery_health": "good", "temperature": "normal",
                            "events": _events_log(self.rng)},
        })
        self.w.plant(f"issue{i.number}.firmware", "firmware", "firmware", i.firmware, out,
                     TOOL_OUTPUT)

    def upgrade(self, i: _Issue, version: str, again: bool = False) -> Event:
        w = self.w

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

    def revisit_event(self, i: _Issue) -> Event:
        return self.upgrade(i, i.upgrades[0], again=True)

    def new_email(self, address: str, text: str) -> Event:
        def run() -> None:
            index = self.w.user(text)
            self.w.plant("email", "email", "email", address, index, USER)
            self.state["email"] = address
            self.w.assistant(f"Updated: I'll use {address} from now on.")
        return run

    def said(self, template: _Constraint, category: str, pick: str, new: str | None,
             update: bool) -> Event:
        text = (template.update if update else template.text) or ""
        value = (template.update_value if update else template.value) or ""
        text, value = (t.format(x=pick, y=new) for t in (text, value))
        w = self.w

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

    def picks(self, template: _Constraint) -> tuple[str, str | None]:
        if not template.choices:
            return "", None
        pick = self.rng.choice(template.choices)
        others = [c for c in template.choices if c != pick]
        return pick, self.rng.choice(others)

    def goodbye(self) -> None:
        self.w.user("That's everything for today, thanks for the help.")
        self.w.assistant(f"You're welcome, {self.first}. Have a good day!")

    def filler(self) -> None:
        said_, answer = self.rng.choice(_FILLER)
        self.w.user(said_.format(device=self.state["device"]))
        self.w.assistant(answer.format(device=self.state["device"]))


class IssueEvents:
    """The events of one issue: its report, serial number and ticket, and the firmware,
    warranty, order and update steps its plan calls for (:meth:`steps`)."""

    def __init__(self, chat: ChatEvents, issue: _Issue) -> None:
        self.chat, self.w, self.i = chat, chat.w, issue
        self.name = f"issue{issue.number}"

    def steps(self, optional: list[Event]) -> list[Event]:
        """The issue's events in order; the optional updates are also appended to
        ``optional`` (they make way when the chat is too short)."""
        i = self.i
        steps: list[Event] = [self.report, self.serial]

        def extra(event: Event) -> None:
            steps.append(event)
            optional.append(event)

        if i.new_error:
            extra(self.new_error)
        steps.append(self.ticket)
        if i.merged:
            extra(self.merge)
        if i.upgrades and not i.revisit:
            steps.append(self.chat.upgrade(i, i.upgrades[0]))
            if len(i.upgrades) > 1:
                extra(self.chat.upgrade(i, i.upgrades[1]))
            if i.rollback:
                extra(self.rollback)
        if i.warranty:
            steps.append(self.warranty)
            if i.reissued_rma:
                extra(self.reissue)
        if i.has_order:
            steps.append(self.order)
            if i.replacement_order:
                extra(self.replace_order)
            if i.spare_order:
                extra(self.spare_order)
        steps.append(self.resolved)
        return steps

    def _tool(self, name: str, args: dict[str, Any], result: dict[str, Any], fact: str,
              category: str, value: str) -> None:
        out = self.w.tool(name, args, result)
        self.w.plant(f"{self.name}.{fact}", category, category, value, out, TOOL_OUTPUT)

    def report(self) -> None:
        i, w = self.i, self.w
        self.chat.state["device"] = i.device.noun
        opener = "Now a different problem:" if i.number > 1 else "My"
        subject = f"my {i.device.noun}" if i.number > 1 else i.device.noun
        index = w.user(f"{opener} {subject} {i.symptom}. The screen says error {i.error}.")
        w.plant(f"{self.name}.error_code", "error_code", "error_code", i.error, index, USER)
        w.assistant(f"Sorry to hear that. Could you read me the serial number from the "
                    f"label on the {i.device.noun}?")

    def serial(self) -> None:
        i, w, name = self.i, self.w, self.name
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
        self.chat.lookup(i, i.serial)
        w.assistant(f"Thanks, I found your {i.model}. Let's try a few things before we "
                    "send it anywhere.")

    def ticket(self) -> None:
        i = self.i
        self.w.user("Can you log this somewhere so it doesn't get lost?")
        self._tool("create_ticket", {"serial": i.serial, "summary": i.symptom},
                   {"ticket_id": i.ticket, "status": "open", "queue": "hardware",
                    "priority": "normal"}, "ticket", "ticket", i.ticket)
        self.w.assistant("Done: it's logged with the hardware team, and you'll get updates by "
                         "email.")

    def merge(self) -> None:
        i = self.i
        assert i.merged is not None
        self.w.user("Is anyone looking at my ticket yet?")
        self._tool("get_ticket_status", {"ticket_id": i.ticket},
                   {"ticket_id": i.merged, "status": "in progress",
                    "note": f"{i.ticket} was merged into {i.merged}"}, "ticket", "ticket",
                   i.merged)
        self.w.assistant("Yes: a technician is on it. Your ticket was merged into a new one, so "
                         "please use the new number from now on.")

    def new_error(self) -> None:
        i, w = self.i, self.w
        assert i.new_error is not None
        index = w.user(f"It's showing a new error code instead now: error {i.new_error}.")
        w.plant(f"{self.name}.error_code", "error_code", "error_code", i.new_error, index, USER)
        w.assistant("Thanks, that's a useful change. Let's keep going with the new code in "
                    "mind.")

    def rollback(self) -> None:
        i = self.i
        self.w.user("Since that update it's worse. Can you undo it?")
        self._tool("rollback_firmware", {"serial": i.serial},
                   {"serial": i.serial, "firmware": i.firmware, "status": "rolled back"},
                   "firmware", "firmware", i.firmware)
        self.w.assistant("Done: it's back on the version it had before the update.")

    def warranty(self) -> None:
        i = self.i
        self.w.user("Is it still covered? I might need a repair.")
        self._tool("check_warranty", {"serial": i.serial},
                   {"serial": i.serial, "covered": True, "coverage_ends": "2027-03-14",
                    "rma": i.rma, "note": "repair authorised"}, "rma", "rma", i.rma)
        self.w.assistant("Good news: it's covered, and I've opened a repair authorisation for "
                         "you.")

    def reissue(self) -> None:
        i = self.i
        assert i.reissued_rma is not None
        self.w.user("The repair shop says my authorisation isn't valid. Can you check?")
        self._tool("check_warranty", {"serial": i.serial},
                   {"serial": i.serial, "covered": True, "rma": i.reissued_rma,
                    "replaces": i.rma, "note": "authorisation reissued"}, "rma", "rma",
                   i.reissued_rma)
        self.w.assistant("Sorry about that: the authorisation was reissued, so please give the "
                         "shop the new one.")

    def order(self) -> None:
        i, email = self.i, self.chat.state["email"]
        self.w.user(f"I also ordered a replacement {i.device.part} last week. Has it shipped?")
        self._tool("lookup_order", {"email": email},
                   {"order_id": i.order, "email": email, "item": i.device.part,
                    "status": "shipped", "carrier": "ParcelCo"}, "order", "order", i.order)
        self.w.assistant("It has shipped and should arrive in a few days.")

    def replace_order(self) -> None:
        i = self.i
        assert i.replacement_order is not None
        self.w.user(f"The {i.device.part} never arrived, so I reordered it. Can you check the "
                    "new order?")
        self._tool("lookup_order", {"email": self.chat.state["email"]},
                   {"order_id": i.replacement_order, "replaces": i.order,
                    "status": "processing", "carrier": "ParcelCo"}, "order", "order",
                   i.replacement_order)
        self.w.assistant("I see it: the new order replaces the lost one and is being packed.")

    def spare_order(self) -> None:
        i = self.i
        assert i.spare_order is not None
        self.w.user("I ordered a spare one for the office too. Is that on its way?")
        self._tool("lookup_order", {"email": self.chat.state["email"], "item": "spare"},
                   {"order_id": i.spare_order, "item": f"spare {i.device.part}",
                    "status": "shipped", "carrier": "ParcelCo"}, "order_spare", "order",
                   i.spare_order)
        self.w.assistant("Yes, the spare has shipped as well.")

    def resolved(self) -> None:
        self.w.user(self.chat.rng.choice(("That fixed it, thanks.",
                                          "It seems fine now, thank you.",
                                          "Okay, it works again.")))
        self.w.assistant(f"Glad to hear it. I'll note that the {self.i.device.noun} is working "
                         "again.")
