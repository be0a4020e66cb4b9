"""What the checks of lessons 09 and 10 run (:func:`ctxlab.eval.exercises.check_issue_filter`
and :func:`~ctxlab.eval.exercises.check_erase` call these).

* :func:`receiver_view`: a planted multi-issue chat's resume turn, handed to the repair
  desk through the learner's input filter, and what the desk's model was sent;
* :func:`issue_filter_problem`: what is wrong with that view, if anything: not a valid
  sequence, the handoff or the current turn missing, a fact of the resumed issue or the
  customer's email lost, a fact of the other issue present, the issue's turns not kept as
  they were said;
* :func:`erase_setup` / :func:`erase_problem`: a customer and a bystander stored in
  long-term memory, the hub and an SQLite session file, and what the learner's ``erase``
  left behind.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import SQLiteSession

from ..core.items import is_user_message, item_kind, item_text
from ..core.validate import validate_items
from ..handoffs.filters import view_text
from ..handoffs.issues import CUSTOMER, split_issues
from .handoff_eval import resume_to_repair
from .multi_issue import MultiIssueCase

#: The chats the lesson 09 check runs (not the lesson's own).
ISSUE_FILTER_SEEDS = (21, 22, 23)


async def receiver_view(case: MultiIssueCase, candidate: Any) -> list[dict[str, Any]]:
    """The repair desk's first model input after a handoff through ``candidate``."""
    from ..course.team import OfflineTeamModel, make_support_team

    team = make_support_team(OfflineTeamModel(), input_filter=candidate)
    _, sent = await resume_to_repair(team, case, f"exercise-{case.id}")
    if not sent:
        raise RuntimeError("the support agent did not hand off")
    return sent[0]


def issue_filter_problem(case: MultiIssueCase, view: Sequence[Mapping[str, Any]]) -> str | None:
    """What is wrong with the repair desk's view for the lesson 09 exercise (None: nothing)."""
    problems = validate_items(view)
    if problems:
        return f"the view is not a valid item sequence ({problems[0]}): the API would refuse it"
    if len(view) < 3 or view[-2].get("type") != "function_call" or view[-1].get(
            "type") != "function_call_output":
        return "the view must end with the handoff call and its output (keep the handoff step)"
    users = [item_text(i) for i in view if is_user_message(i)]
    if not users or users[-1] != case.resume:
        return "the customer's current message (the resume request) must be the last user turn"
    problem = _facts_problem(case, view_text(view))
    if problem is not None:
        return problem
    a, b = case.resumed, case.other
    split = split_issues([*case.items, {"role": "user", "content": case.resume}])
    wanted = [n + 1 for n, i in enumerate(split.turn_issue)
              if i in (CUSTOMER, split.find(a.device).number)]
    other = [n + 1 for n, i in enumerate(split.turn_issue) if i == split.find(b.device).number]
    return _turns_problem(case, [_said(i) for i in view[:-2]],
                          [_said(i) for i in split.turn_items(wanted)],
                          [_said(i) for i in split.turn_items(other)])


def _facts_problem(case: MultiIssueCase, text: str) -> str | None:
    """A fact of the resumed issue or the customer's email lost, or a fact of the other
    issue present, in the view's ``text``."""
    a, b = case.resumed, case.other
    for kind, value in a.facts.items():
        if value not in text:
            return f"the {a.device} issue's {kind} {value} is lost"
    if case.customer["email"] not in text:
        return "the customer's email (said before any issue) is lost"
    for kind, value in b.facts.items():
        if value not in a.facts.values() and value in text:
            return f"the {b.device}'s {kind} {value} reaches the repair desk"
    return None


#: How the lesson 09 check names an item of the view.
_KINDS = {"user": "customer message", "assistant": "agent reply", "tool_call": "tool call",
          "tool_output": "tool result"}


def _said(item: Mapping[str, Any]) -> tuple[str, str]:
    """An item as what was said: its kind and its text (ids and shapes aside)."""
    return item_kind(item), item_text(item)


def _turns_problem(case: MultiIssueCase, got: list[tuple[str, str]],
                   wanted: list[tuple[str, str]], other: list[tuple[str, str]]) -> str | None:
    """What differs between the view before the handoff step and the customer's and the
    resumed issue's turns, every item of them (agent replies and tool rounds too)."""
    if got == wanted:
        return None
    for kind, text in got:
        if (kind, text) not in wanted:
            what = f"{_KINDS.get(kind, kind)} {text[:60]!r}"
            if (kind, text) in other:
                return (f"the {case.other.device} issue's {what} reaches the repair desk: keep "
                        f"only the customer's own turns and the {case.resumed.device} issue's")
            article = "an" if what[0] in "aeiou" else "a"
            return (f"{article} {what} that was never said in this chat reaches the repair "
                    "desk: keep the customer's own turns and the issue's turns as they were "
                    "said (no summary)")
    for kind, text in wanted:
        if (kind, text) not in got:
            return (f"the {_KINDS.get(kind, kind)} {text[:60]!r} is missing: keep the "
                    f"customer's own turns and the {case.resumed.device} issue's whole, as "
                    "they were said, the agents' replies and tool results too")
    return ("keep the customer's own turns and the issue's turns as they were said, in "
            "order (no summary, nothing else)")


async def call_candidate(candidate: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a sync or async function."""
    value = candidate(*args, **kwargs)
    if inspect.isawaitable(value):
        value = await value
    return value


# ---------------------------------------------------------------------------- lesson 10

#: What the customer to forget said (each value must be gone from every byte afterwards).
ERASE_MARKERS = ("zoe.quist.7781@example.org", "C02ZQ7781QZ", "Byte Clinic")
_ZOE = [
    [{"role": "user", "content": f"Hi, I'm Zoe Quist, write to {ERASE_MARKERS[0]}."},
     {"role": "assistant", "content": "Hi Zoe, what can I do for you?"},
     {"role": "user", "content": f"My laptop freezes; the serial is {ERASE_MARKERS[1]}."},
     {"role": "assistant", "content": "Let's look at it."}],
    [{"role": "user", "content": f"I left the laptop at the {ERASE_MARKERS[2]} repair shop."},
     {"role": "assistant", "content": "Good to know."}],
]
#: The bystander's email: kept while zoe is forgotten, gone once bob is.
BOB_EMAIL = "bob.keeps.data@example.org"
_BOB = [{"role": "user", "content": f"I'm Bob, {BOB_EMAIL}, printer jams."},
        {"role": "assistant", "content": "Let's fix that."}]


@dataclass
class EraseWorld:
    """A customer (zoe) and a bystander (bob) stored everywhere (see the module doc)."""

    folder: Path
    memory: Any
    hub: Any
    sessions_file: Path

    def open_session(self, session_id: str) -> SQLiteSession:
        return SQLiteSession(session_id, self.sessions_file)

    def bytes(self) -> bytes:
        data = b""
        for path in sorted(self.folder.iterdir()):
            if path.is_file():
                data += path.read_bytes()
        return data


async def erase_setup(folder: Path) -> EraseWorld:
    from ..hub import MemoryHub
    from ..longterm import LongTermMemory
    from ..memory.state import StatePatch

    world = EraseWorld(folder, LongTermMemory(str(folder / "memory.db")),
                       MemoryHub(str(folder / "hub.db")), folder / "sessions.db")
    for user, chats in (("zoe", _ZOE), ("bob", [_BOB])):
        for n, items in enumerate(chats, 1):
            session = world.open_session(f"{user}-{n}")
            await session.add_items(items)
            await world.memory.end_session(user, session)
        await world.memory.drain()
        email = ERASE_MARKERS[0] if user == "zoe" else BOB_EMAIL
        await world.hub.apply(user, StatePatch(values={"user.email": email}), agent="support")
    return world


async def erase_problem(world: EraseWorld, report: Any) -> str | None:
    """What the learner's erase left behind, or broke (None: nothing)."""
    from ..longterm import DeletionReport
    from ..records import UnknownUserError

    if not isinstance(report, DeletionReport):
        return (f"erase must return the DeletionReport of what it deleted, got "
                f"{type(report).__name__}")
    data = world.bytes()
    where = {"memory.db": "long-term memory", "hub.db": "the shared hub",
             "sessions.db": "the conversation history"}
    for marker in ERASE_MARKERS:
        if marker.encode() in data:
            for path in sorted(world.folder.iterdir()):
                if path.is_file() and marker.encode() in path.read_bytes():
                    store = where.get(path.name.split("-")[0], path.name)
                    return f"{marker!r} is still readable in {store} ({path.name})"
    try:
        await world.memory.get("zoe")
        return "long-term memory still answers for zoe"
    except UnknownUserError:
        pass
    try:
        bob_ok = ((await world.memory.get("bob")).profile.email == BOB_EMAIL
                  and (await world.hub.read("bob")).version > 0
                  and len(await world.open_session("bob-1").get_items()) == 2)
    except UnknownUserError:
        bob_ok = False
    if not bob_ok:
        return "another customer's data (bob's) was deleted too"
    return None


async def bob_erased_problem(world: EraseWorld, report: Any) -> str | None:
    """What ``erase("bob")``, the second known customer, left behind (None: nothing)."""
    from ..longterm import DeletionReport
    from ..records import UnknownUserError

    if not isinstance(report, DeletionReport):
        return (f"erase('bob', ...) must return the DeletionReport of what it deleted, got "
                f"{type(report).__name__}")
    if BOB_EMAIL.encode() in world.bytes():
        return "after erase('bob', ...) bob's email is still readable in the stores"
    try:
        await world.memory.get("bob")
    except UnknownUserError:
        return None
    return "after erase('bob', ...) long-term memory still answers for bob"
