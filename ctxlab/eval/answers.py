"""Answer accuracy: ask a probe's question through the agent and score the reply.

A probe's model call (the strategy's view with the question as the new input) is sent
through the real Agents SDK ``Runner`` with the course's agent, without a session: the view
already is what memory decided to send. The reply is scored by identifier exact match: it is
*correct* when it contains the expected value verbatim, and *stale* when it contains a
superseded value instead.

Offline (the default, :class:`ctxlab.OfflineSupportModel`) only probes whose fact kind the
offline model can recall are asked (ticket, serial, firmware, error code, email, order, RMA,
reservation; :data:`ctxlab.course.offline.FACT_KINDS`; asked in Chinese also model number,
phone and date; and constraints and commitments, which it answers with those still in
force), and only when the question has one right answer
(``RecallProbe.answerable``). The offline model is deterministic, so identical views
get the cached reply. With a real model configured the same probes are asked (or every
probe, with ``scope="all"``) and nothing is cached.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agents import Agent, RunConfig, Runner

from ..course.offline import OfflineSupportModel
from .cases import KeyFact, RecallProbe

AnswerScope = Literal["offline-kinds", "all"]

#: What the offline restriction means, in one line (printed in tables and notes).
OFFLINE_NOTE = (
    "answers are asked only for facts the offline model can recall (ticket, serial, firmware, "
    "error code, email, order, RMA, reservation, constraints, commitments; asked in Chinese "
    "also model, phone and date) and whose question has one right answer"
)


@dataclass(frozen=True)
class Answer:
    """The agent's reply to one probe and its score."""

    reply: str
    correct: bool
    stale: bool
    tool_calls: int = 0


def is_offline(agent: Agent[Any]) -> bool:
    """True when the agent runs on ctxlab's deterministic offline model."""
    return isinstance(agent.model, OfflineSupportModel)


def wants_answer(probe: RecallProbe, scope: AnswerScope = "offline-kinds") -> bool:
    """True when the probe is asked through the agent under ``scope``."""
    if scope == "all":
        return True
    if scope != "offline-kinds":
        raise ValueError(f"scope must be 'offline-kinds' or 'all', got {scope!r}")
    return probe.answerable


def score_reply(reply: str, probe: RecallProbe, matcher: KeyFact | None = None) -> Answer:
    """Score ``reply``: correct when it holds the expected value (as ``matcher`` matches it;
    a whole-word match by default), stale when it holds a superseded one instead."""
    fact = matcher or KeyFact(probe.fact, probe.expected, probe.category)
    correct = fact.found_in(reply)
    stale = not correct and any(
        KeyFact(probe.fact, old, probe.category, whole_word=fact.whole_word,
                ignore_case=fact.ignore_case).found_in(reply)
        for old in probe.stale
    )
    return Answer(reply, correct, stale)


class ProbeAsker:
    """Ask probes through ``agent`` (see the module docstring).

    Args:
        agent: the agent to ask (its instructions and tools are sent with every question).
        max_turns: the Runner's ``max_turns`` per question (tool calls count).
        run_config: defaults to ``RunConfig(tracing_disabled=True)``.
    """

    def __init__(self, agent: Agent[Any], *, max_turns: int = 4,
                 run_config: RunConfig | None = None):
        if not isinstance(agent, Agent):
            raise ValueError(f"agent must be an agents.Agent, got {type(agent).__name__}")
        self.agent = agent
        self.max_turns = max_turns
        self.run_config = run_config or RunConfig(tracing_disabled=True)
        self.cached = is_offline(agent)
        self._cache: dict[str, tuple[str, int]] = {}
        self.asked = 0

    async def reply(self, items: Sequence[Mapping[str, Any]]) -> tuple[str, int]:
        """The agent's final reply to ``items`` and how many tool calls it made."""
        key = ""
        if self.cached:
            payload = json.dumps(list(items), sort_keys=True, default=str)
            key = hashlib.sha256(payload.encode()).hexdigest()
            if key in self._cache:
                return self._cache[key]
        self.asked += 1
        result = await Runner.run(self.agent, [dict(it) for it in items],  # type: ignore[misc]
                                  run_config=self.run_config, max_turns=self.max_turns)
        calls = sum(1 for item in result.new_items if getattr(item, "type", "") ==
                    "tool_call_item")
        answer = (str(result.final_output or ""), calls)
        if self.cached:
            self._cache[key] = answer
        return answer

    async def ask(self, items: Sequence[Mapping[str, Any]], probe: RecallProbe,
                  matcher: KeyFact | None = None) -> Answer:
        """Ask ``probe`` (its question is the last item of ``items``) and score the reply."""
        reply, calls = await self.reply(items)
        scored = score_reply(reply, probe, matcher)
        return Answer(scored.reply, scored.correct, scored.stale, calls)
