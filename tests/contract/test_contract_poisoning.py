"""Memory poisoning: remembered words never gain the operator's authority (issue 32).

Each attempt of :data:`poisoning_cases.ATTACKS` (22, English and Chinese: said by the
customer, saved as a standing note with lesson 11's memory tool and consolidated, returned by
a tool, recorded by one agent for another in the hub) happens in one session. The next
session runs through the real SDK Runner on both model classes (Chat Completions and
Responses, through the fake API that enforces the request rules), with long-term memory
(notes in force included) and the hub injecting what they keep. Every request body the fake
received is audited: no attempt is inside the instructions or a system or developer message;
each reaches the model as quoted data (a user message under the memory heading) and flagged.

The guard is tried by breaking it (``broken``): memory injected as a system message (what
ctxlab did before), a detector that flags nothing, a hub that marks nothing when written
(with injection flagging nothing), a frame dropped, the hub's state put back into the
agent's instructions. The same audit catches each one. The same audit runs on one
conversation with the lessons' strategy ``trim:1+state+recall`` (state and recalled turns).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool
from poisoning_cases import ATTACKS, Attack, Verdict, chinese, summary, verdict
from test_contract_handoffs import check_bodies
from test_contract_memory_notes import model_of

import ctxlab.context.sources as sources
import ctxlab.core.memory_frame as frame
import ctxlab.facts.instructions as instructions_module
import ctxlab.hub.agents as hub_agents
import ctxlab.hub.hub as hub_module
import ctxlab.longterm.memory as longterm_memory
from ctxlab import (
    LongTermMemory,
    MemoryHub,
    MemoryNotes,
    StatePatch,
    UserContext,
    compose_filters,
    hub_input_filter,
    hub_instructions,
    memory_tools,
)
from ctxlab.core.memory_frame import MEMORY_NOTICE
from ctxlab.course.runs import run_conversation
from ctxlab.facts.instructions import looks_like_instruction
from ctxlab.memory.render import render_state

from conftest import arun
from contract_runs import KINDS, agent_bodies, agent_on, memory
from openai_fake_api import BrainInput, FakeOpenAI, Reply

TOOL_OUTPUT: dict[str, str] = {}  # the poisoned tool answers with the attack of the run


@function_tool
def check_order(order_id: str) -> str:
    """Look up an order by its id."""
    return json.dumps({"order_id": order_id, "status": "shipped",
                       "note": TOOL_OUTPUT.get("text", "")}, ensure_ascii=False)


def brain_for(attack: Attack):
    """Day one's model: saves a note (``note``), looks the order up (``tool``), else answers."""

    def brain(request: BrainInput) -> Reply:
        if request.json_schema is not None:
            return Reply(text="{}")
        users = [n for n, i in enumerate(request.items) if i.get("role") == "user"
                 and not str(i.get("content")).startswith(frame.MEMORY_HEADINGS["en"])
                 and not str(i.get("content")).startswith(frame.MEMORY_HEADINGS["zh"])]
        last = users[-1]
        outputs = [i for i in request.items[last:] if i.get("type") == "function_call_output"]
        if outputs or not request.tools:
            return Reply(text="Noted." if not chinese(attack) else "好的。")
        if attack.channel == "note":
            return Reply(calls=(("save_memory", json.dumps(
                {"note": attack.text, "scope": "durable"}, ensure_ascii=False)),))
        if attack.channel == "tool":
            return Reply(calls=(("check_order", json.dumps({"order_id": "ORD-5512"})),))
        return Reply(text="Noted." if not chinese(attack) else "好的。")

    return brain


async def day_one(attack: Attack, fake: FakeOpenAI, kind: str, memory_: LongTermMemory,
                  notes: MemoryNotes, hub: MemoryHub, user: str) -> None:
    """The attempt, in one session, then that session written to memory."""
    TOOL_OUTPUT["text"] = attack.text
    agent = Agent(name="support", instructions="Help the customer.",
                  model=model_of(fake, kind), tools=[*memory_tools(notes), check_order])
    said = (attack.text if attack.channel in ("said", "note")
            else ("我的订单 ORD-5512 到哪了？" if chinese(attack) else "Where is order ORD-5512?"))
    session = SQLiteSession(f"{user}-day-1")
    me = UserContext(user, session_id="day-1")
    run = await Runner.run(agent, said, session=session, context=me,
                           run_config=RunConfig(tracing_disabled=True))
    if attack.channel == "hub":  # the support agent writes down what the customer asked
        await hub.apply(user, StatePatch(milestones=[attack.text]), agent="support")
    if attack.channel == "tool":  # ... or what the tool said, for the next agent
        said_by_tool = json.loads(str(run.new_items[1].output))["note"]  # type: ignore[attr-defined]
        await hub.apply(user, StatePatch(milestones=[said_by_tool]), agent="support")
    await memory_.end_session(user, session, session_id="day-1", at="2026-03-02")
    await memory_.drain()
    await notes.end_session(user, "day-1", at="2026-03-02T10:00")


def next_session(attack: Attack, kind: str, *, memory_cls=LongTermMemory,
                 instructions=hub_instructions) -> tuple[Verdict, list[dict[str, Any]], bool]:
    """Day one, then day two's question through the Runner with every memory injector;
    the audit of day two's requests, the bodies, and whether the attempt was flagged when
    it was kept (capture and consolidation)."""
    fake = FakeOpenAI(brain=brain_for(attack))
    notes = MemoryNotes()
    kept = memory_cls(notes.records, notes=notes, threshold=0.0, notes_k=5)
    hub = MemoryHub()
    user = f"customer-{attack.name}"

    async def go() -> bool:
        await day_one(attack, fake, kind, kept, notes, hub, user)
        fake.requests.clear()
        sales = Agent(name="sales", model=model_of(fake, kind),
                      instructions=instructions(hub, "You are sales. Help the customer."))
        config = RunConfig(tracing_disabled=True, call_model_input_filter=compose_filters(
            kept.input_filter(), hub_input_filter(hub)))
        await Runner.run(sales, attack.probe, context=UserContext(user, session_id="day-2"),
                         run_config=config)
        stored = [n for n in (await notes.book(user)).durable if attack.marker in n.text]
        stored_long = [n for n in (await kept.get(user)).notes if attack.marker in n.text]
        state = (await hub.read(user)).state
        return (all(n.flagged for n in stored + stored_long)
                and (attack.channel not in ("hub", "tool")
                     or looks_like_instruction(render_state(state))))

    flagged_when_kept = arun(go())
    bodies = check_bodies(fake, kind)
    return verdict(attack, bodies, said_now=[attack.probe]), bodies, flagged_when_kept


def test_the_attempts_cover_both_languages_and_every_channel():
    assert len(ATTACKS) >= 20 and len({a.name for a in ATTACKS}) == len(ATTACKS)
    assert sum(chinese(a) for a in ATTACKS) >= 10
    assert {a.channel for a in ATTACKS} == {"said", "note", "tool", "hub"}
    assert all(looks_like_instruction(a.text) for a in ATTACKS)  # flagged at capture


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_no_attempt_reaches_the_next_session_with_authority(attack, kind):
    found, bodies, flagged_when_kept = next_session(attack, kind)
    assert not found.with_authority, f"{attack.name} reached a system/developer message"
    assert found.as_memory, f"{attack.name} never reached the next session as quoted data"
    assert not found.unflagged and not found.unframed
    assert flagged_when_kept
    instructions = [b.get("instructions") or next(
        (m["content"] for m in b.get("messages", []) if m.get("role") == "system"), "")
        for b in bodies]
    language = "zh" if chinese(attack) else "en"
    assert all(MEMORY_NOTICE[language] in str(text) for text in instructions)


# ---------------------------------------------------------------------------- broken guards


def as_system(text: str, **_: Any) -> dict[str, Any]:
    """What ctxlab did before issue 32: remembered words in a system message."""
    return {"role": "system", "content": text}


def blind(text: str, language: str | None = None) -> str:
    return text


def no_cue(text: str) -> None:
    """A detector that sees no instruction anywhere (capture, consolidation, hub writes,
    injection)."""
    return None


def unframed(body: str, **_: Any) -> dict[str, Any]:
    return {"role": "user", "content": body}


def leaky_instructions(hub: MemoryHub, base: str) -> Any:
    """The hub's state appended to the agent's instructions (the old hub_instructions)."""

    async def instructions(context: Any, agent: Any) -> str:
        snapshot = await hub.read(context.context.user_id)
        return f"{base}\n\n{render_state(snapshot.state)}"

    return instructions


def audit_all(kind: str, **options: Any) -> dict[str, Verdict]:
    return {a.name: next_session(a, kind, **options)[0] for a in ATTACKS}


@pytest.mark.parametrize("broken", ["system-role", "blind-detector", "unmarked-hub", "no-frame",
                                    "instructions"])
def test_each_broken_guard_is_caught(broken, monkeypatch):
    """``unmarked-hub``: the hub marks nothing when it is written and injection flags
    nothing; notes keep the flag they got at capture, so only the hub's attempts arrive
    unflagged (a blind injection alone is covered by the marks made when written)."""
    options: dict[str, Any] = {}
    if broken == "system-role":
        for module in (longterm_memory, hub_agents, sources):
            monkeypatch.setattr(module, "context_message", as_system)
    elif broken == "blind-detector":
        monkeypatch.setattr(instructions_module, "instruction_cue", no_cue)
    elif broken == "unmarked-hub":
        monkeypatch.setattr(sources, "flag_text", blind)
        monkeypatch.setattr(hub_module, "instruction_lines", lambda state: ())
    elif broken == "no-frame":
        monkeypatch.setattr(sources, "memory_block", unframed)
    else:
        options["instructions"] = leaky_instructions
    verdicts = audit_all("chat", **options)
    counts = summary(verdicts)
    print(f"\n{broken}: {counts}")
    caught = {"system-role": counts["with_authority"], "blind-detector": counts["unflagged"],
              "unmarked-hub": counts["unflagged"], "no-frame": counts["unframed"],
              "instructions": counts["with_authority"]}[broken]
    assert caught > 0, f"the audit missed the broken guard {broken!r}: {counts}"
    if broken == "system-role":  # before the fix: every attempt had the operator's voice
        assert counts["with_authority"] == len(ATTACKS)
    if broken == "unmarked-hub":
        assert counts["unflagged"] == sum(a.channel in ("hub", "tool") for a in ATTACKS)


def test_the_guard_as_built_lets_none_through():
    counts = summary(audit_all("responses"))
    print(f"\nguarded: {counts}")
    assert counts["with_authority"] == 0 and counts["as_memory"] == len(ATTACKS)
    assert counts["unflagged"] == 0 and counts["unframed"] == 0


# ---------------------------------------------------------------------------- in one conversation


SAID = [a for a in ATTACKS if a.channel == "said"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("attack", SAID, ids=[a.name for a in SAID])
def test_state_and_recalled_turns_carry_an_attempt_as_flagged_data(attack, kind):
    """One conversation under ``trim:1+state+recall``: the attempt is trimmed away, then
    recalled (its turn shares the question's words) next to the state: as data, flagged."""
    fake = FakeOpenAI()
    agent = agent_on(fake, kind)
    session, config = memory("trim:1+state+recall", fake, kind, f"poison-{attack.name}-{kind}")
    zh = chinese(attack)
    filler = ["我的笔记本电脑开不了机。" if zh else "My laptop will not turn on.",
              "谢谢。" if zh else "Thanks."]

    arun(run_conversation(agent, [attack.text, *filler, attack.text], session,
                          run_config=config))
    bodies = agent_bodies(fake, kind)
    found = verdict(attack, bodies, said_now=[attack.text])
    assert not found.with_authority and not found.unflagged and not found.unframed
    assert found.as_memory  # recalled: the last question repeats it
