"""The checks of the two session exercises: lesson 00 (a ctxlab session showing the last
three turns, explained by its ledger) and lesson 02b (a session class written by hand).

Both check behaviour, not names: lesson 00's answer must be a ctxlab session whose ledger
explains its view item by item and whose window follows the conversation (a fresh copy fed
one more turn shows the new last three turns); lesson 02b's answer must be the learner's own
class (not one of ctxlab's sessions, a subclass or a wrapper of one) that keeps valid
windows of exactly the last N turns on histories the lesson never showed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.items import item_text
from ..core.ledger import Ledger
from ..core.session_ids import new_session_id
from ..core.turns import segment_turns
from ..core.validate import validate_items
from ..sessions.base import MemorySession
from .borrowed import library_session
from .exercises import CheckResult, _pending

QUICKSTART_TURNS = 3


def quickstart_extra_turn() -> list[dict[str, Any]]:
    """One more turn (with a tool round) the check feeds a fresh copy of lesson 00's answer:
    its window must move on, not stay on the twelve items the exercise shows."""
    return [
        {"role": "user", "content": "Done. Is the laptop still under warranty?"},
        {"type": "function_call", "call_id": "call_check_00", "name": "check_warranty",
         "arguments": '{"serial": "SN-4Q7K-22981"}'},
        {"type": "function_call_output", "call_id": "call_check_00",
         "output": '{"serial": "SN-4Q7K-22981", "status": "covered", "until": "2027-03-14"}'},
        {"role": "assistant", "content": "Yes, it is covered until 14 March 2027."},
    ]


def last_turns(items: Sequence[Mapping[str, Any]], n: int) -> tuple[int, list[Any]]:
    """Where the last ``n`` turns of ``items`` start, and those items."""
    turns = segment_turns(items).turns
    start = turns[-n].start if len(turns) >= n else 0
    return start, list(items[start:])


def ledger_problem(ledger: Any, raw: Sequence[Mapping[str, Any]],
                   view: Sequence[Mapping[str, Any]], start: int) -> str | None:
    """What is wrong with ``ledger`` as the explanation of a view that shows ``raw[start:]``
    (None: every stored item has its entry, the older ones dropped, the rest kept in order)."""
    if not isinstance(ledger, Ledger):
        return (f"ledger() returned a {type(ledger).__name__}, not a ctxlab Ledger with one "
                "entry per stored item")
    entries = ledger.raw()
    if [e.index for e in entries] != list(range(len(raw))):
        return (f"it has entries for {len(entries)} stored items; the session stores "
                f"{len(raw)}, and each needs exactly one")
    for entry, item in zip(entries, raw, strict=True):
        if entry.text != item_text(item) or entry.tokens <= 0:
            return f"the entry of item {entry.index} does not describe that item"
        want = "dropped" if entry.index < start else "kept"
        if entry.state != want:
            return (f"item {entry.index} (turn {entry.turn}) is '{entry.state}' in the ledger; "
                    f"the model {'does not see' if want == 'dropped' else 'sees'} it, so it "
                    f"should be '{want}'")
        position = None if want == "dropped" else entry.index - start
        if entry.position != position:
            return (f"item {entry.index} is at position {entry.position} of the view in the "
                    f"ledger, but at {position} in what get_items() returns")
    if len(ledger.view()) != len(view):
        return (f"the ledger says the model is sent {len(ledger.view())} items; get_items() "
                f"returns {len(view)}")
    return None


async def follows_the_conversation(session: MemorySession) -> str | None:
    """None if a fresh session of the same kind and settings, fed the exercise's items and
    one more turn, shows the new last three turns (with a ledger to match)."""
    from ..stores import open_store
    from .exercises import quickstart_items

    items = [*quickstart_items(), *quickstart_extra_turn()]
    try:
        copy = session._spawn_like(open_store(None, new_session_id()))
        await copy.add_items([dict(item) for item in items])
        view, ledger = await copy.get_items(), await copy.ledger()
    except Exception as exc:  # a broken answer is a verdict, not a crash
        return f"a fresh {type(session).__name__} like yours failed: {type(exc).__name__}: {exc}"
    start, expected = last_turns(items, QUICKSTART_TURNS)
    if view != expected:
        return (f"fed one more turn, a fresh {type(session).__name__} with your settings shows "
                f"{len(view)} items instead of the new last {QUICKSTART_TURNS} turns "
                f"({len(expected)} items): the window must follow the conversation")
    problem = ledger_problem(ledger, items, view, start)
    return None if problem is None else f"fed one more turn, its ledger is wrong: {problem}"


async def check_quickstart(session: Any) -> CheckResult:
    """Lesson 00: see :func:`ctxlab.eval.exercises.check_quickstart`."""
    from .exercises import quickstart_items

    if session is None:
        return _pending("`my_session`")
    if not isinstance(session, MemorySession):
        return CheckResult(False, f"a {type(session).__name__} is not a ctxlab session: use one "
                                  "(TrimmingSession, ...), which stores everything, decides what "
                                  "the model sees and keeps a ledger that says why")
    items = quickstart_items()
    try:
        raw = await session.raw_items()
        view, ledger = await session.get_items(), await session.ledger()
    except Exception as exc:  # a broken answer is a verdict, not a crash
        return CheckResult(False, f"reading the session failed: {type(exc).__name__}: {exc}")
    if raw != items:
        return CheckResult(False, "the session should store all 12 items of the exercise "
                                  f"conversation, in order; it stores {len(raw)}")
    start, expected = last_turns(items, QUICKSTART_TURNS)
    if view != expected:
        users = sum(1 for item in view if item.get("role") == "user")
        return CheckResult(False, f"the view has {len(view)} items and {users} user turns; it "
                                  "should show exactly the last 3 turns, whole")
    problem = ledger_problem(ledger, raw, view, start)
    if problem is None:
        problem = await follows_the_conversation(session)
    if problem is not None:
        return CheckResult(False, f"the view is right, but {problem}")
    return CheckResult(True, f"the model sees the last 3 turns ({len(view)} items); the ledger "
                             f"marks the {start} older items, the tool call and its output "
                             "among them, dropped from the view, and they are still stored")


# ---------------------------------------------------------------------------- lesson 02b

def own_session_scenarios() -> list[tuple[str, list[list[dict[str, Any]]]]]:
    """Histories in the Runner's batches that a home-made session meets in real use."""
    def user(text: str) -> dict[str, Any]:
        return {"role": "user", "content": text}

    def reply(text: str) -> dict[str, Any]:
        return {"role": "assistant", "content": text}

    def tool_round(cid: str, name: str = "lookup_device", *, reasoning: bool = False
                   ) -> list[dict[str, Any]]:
        head = [{"type": "reasoning", "id": f"rs_{cid}", "summary": []}] if reasoning else []
        return [*head,
                {"type": "function_call", "call_id": cid, "name": name, "arguments": "{}"},
                {"type": "function_call_output", "call_id": cid, "output": f"result {cid}"}]

    plain = [batch for t in range(6) for batch in ([user(f"question {t}")],
                                                    [reply(f"answer {t}")])]
    tools = []
    for t in range(6):
        tools += [[user(f"serial question {t}")], tool_round(f"c{t}", reasoning=t % 2 == 0),
                  [reply(f"found {t}")]]
    parallel = []
    for t in range(5):
        calls = [{"type": "function_call", "call_id": f"p{t}{k}", "name": "lookup",
                  "arguments": "{}"} for k in range(2)]
        outs = [{"type": "function_call_output", "call_id": f"p{t}{k}", "output": "ok"}
                for k in (1, 0)]
        parallel += [[user(f"two lookups {t}")], calls + outs, [reply(f"both done {t}")]]
    approval = []  # a tool waiting for a human approval that never comes, then one more turn
    for t in range(3):
        approval += [[user(f"earlier {t}")], tool_round(f"e{t}"), [reply(f"done {t}")]]
    approval += [[user("refund order 77")],
                 [{"type": "reasoning", "id": "rs_refund", "summary": []},
                  {"type": "function_call", "call_id": "refund-77", "name": "issue_refund",
                   "arguments": "{}"}],
                 [user("any news?")], [reply("still waiting for approval")]]
    return [("plain turns", plain), ("tool rounds with reasoning", tools),
            ("parallel tool calls", parallel), ("an approval that never comes", approval)]


#: The windows the check asks for: small ones, and one longer than every history.
OWN_SESSION_WINDOWS: tuple[int, ...] = (1, 2, 3, 10)


def _waits_for_output(items: list[dict[str, Any]], index: int) -> bool:
    """A call with no output anywhere after it (or the reasoning right before one)."""
    item = items[index]
    if item.get("type") == "reasoning":
        return index + 1 < len(items) and _waits_for_output(items, index + 1)
    if item.get("type") != "function_call":
        return False
    return not any(o.get("type") == "function_call_output" and o.get("call_id") ==
                   item.get("call_id") for o in items[index + 1:])


def _window_problem(view: list[Any], stored: list[dict[str, Any]], max_turns: int
                    ) -> str | None:
    """What is wrong with ``view`` as the last ``max_turns`` turns of ``stored``."""
    problems = validate_items(view, check_keys=False)
    if problems:
        return f"the API would reject what it sends: {problems[0]}"
    if any(item not in stored for item in view):
        return "it sends an item that was never stored (a changed or invented item)"
    turns = segment_turns(stored).turns[-max_turns:]
    needed = [stored[i] for turn in turns for i in turn.indices
              if not _waits_for_output(stored, i)]
    missing = [item for item in needed if item not in view]
    if missing:
        return (f"{len(missing)} item(s) of the last turns are missing, e.g. "
                f"{str(missing[0])[:80]}")
    users = sum(1 for item in view if item.get("role") == "user")
    if users > max_turns:
        return f"it shows {users} user turns"
    return None


async def _run_scenario(session_class: Any, batches: list[list[dict[str, Any]]],
                        max_turns: int) -> tuple[Any, list[Any]]:
    session = session_class(max_turns=max_turns)
    for batch in batches:
        await session.add_items([dict(item) for item in batch])
    return session, await session.get_items()


async def _pop_and_clear_problem(session: Any, stored: list[dict[str, Any]]) -> str | None:
    """``pop_item`` must return the newest stored item and take it out of the view;
    ``clear_session`` must leave nothing to send."""
    popped = await session.pop_item()
    if popped != stored[-1]:
        return f"pop_item() returned {str(popped)[:60]}, not the newest item"
    if stored[-1] in await session.get_items():
        return "after pop_item() the popped item is still sent"
    await session.clear_session()
    if await session.get_items():
        return "after clear_session() it still sends items"
    return None


async def check_own_session(session_class: Any) -> CheckResult:
    """Lesson 02b: see :func:`ctxlab.eval.exercises.check_own_session`."""
    from agents.memory import Session

    if session_class is None:
        return _pending("`MySession`")
    library = library_session(session_class)
    for name, batches in own_session_scenarios():
        stored = [item for batch in batches for item in batch]
        for max_turns in OWN_SESSION_WINDOWS:
            if library is not None:
                return CheckResult(False, f"{library}: the exercise is to write the session "
                                          "yourself (compare your views with "
                                          "TrimmingSession's afterwards)")
            try:
                session, view = await _run_scenario(session_class, batches, max_turns)
                library = library_session(session_class, session)
                if library is not None:
                    continue
                if not isinstance(session, Session):
                    return CheckResult(False, "the Runner would not accept it as a session: it "
                                              "needs session_id, session_settings, get_items, "
                                              "add_items, pop_item and clear_session")
                problem = _window_problem(view, stored, max_turns)
                if problem is None and name == "plain turns" and max_turns == 2:
                    problem = await _pop_and_clear_problem(session, stored)
            except Exception as exc:  # a broken answer is a verdict, not a crash
                problem = f"the session raised {type(exc).__name__}: {exc}"
            if problem is not None:
                return CheckResult(False, f"{name}, max_turns={max_turns}: {problem}")
    return CheckResult(True, "valid windows of exactly the last N turns on every history, "
                             "including parallel calls, reasoning and a call still waiting "
                             "for its output (set aside until the output arrives)")
