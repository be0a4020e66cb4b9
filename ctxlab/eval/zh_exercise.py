"""Lesson 05b's exercise check: a memory for the Chinese fridge chat that answers three late
questions at half the cost of the full history, every model call counted.

The lesson's own table shows two memories that keep every fact (``trim 3 + state`` and
``summarize 2/4``); the exercise asks for more than copying them. Three things decide:

* **the answers**: after the fridge chat and a late change of phone number, the agent
  (the real Runner and the offline model) gives the new number and never the old one,
  the fridge's model number and the weekend-only constraint;
* **the cost of the whole conversation**, not only of the three answers: every model call
  the agent makes while the chat goes on (each turn and each tool round, replayed the way
  the Runner writes items: :class:`~ctxlab.eval.replay.StrategyReplay`), the three
  questions, and every fold of a summarizer, which is a model call of its own (priced as
  the request :class:`~ctxlab.summarizers.LLMSummarizer` would send, ``SUMMARY_PROMPT`` and
  the transcript, plus the summary it writes; lesson 03 teaches that folding is not free).
  It must be at most :data:`ZH_EXERCISE_RATIO` of the full history's;
* **real parts**: the session, the context manager, its state source and retriever, and a
  summarizer must be ctxlab's (or the Agents SDK's) classes, without overridden methods. A
  duck-typed fake that hands the model hand-written answers is not a memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, SQLiteSession

from ..core.tokens import count_request_tokens, count_tokens
from ..summarizers.base import SummaryResult, call_summarizer
from ..summarizers.prompt import SUMMARY_PROMPT, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN
from ..summarizers.transcript import render_transcript
from .exercise_parts import SetupRejected, check_manager, check_session  # noqa: F401 (SetupRejected: its old home)
from .replay import StrategyReplay
from .strategies import Strategy, TransformResult

#: The most a memory may cost, as a share of the full history's cost (every call counted).
ZH_EXERCISE_RATIO = 0.5

@dataclass
class _FoldMeter:
    """Wraps a session's summarizer and prices each fold as the model call it stands for."""

    inner: Any
    calls: int = 0
    tokens: int = 0
    name: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.name = getattr(self.inner, "name", type(self.inner).__name__)

    async def summarize(self, items: list[dict[str, Any]], *,
                        previous_summary: str | None = None,
                        previous_state: dict[str, Any] | None = None) -> SummaryResult:
        result = await call_summarizer(self.inner, items, previous_summary, previous_state)
        self.calls += 1
        if result.input_tokens is not None and result.output_tokens is not None:
            self.tokens += result.input_tokens + result.output_tokens
        else:  # what an LLMSummarizer would have sent and received
            request = (f"Write the hand-over note for this conversation.\n{TRANSCRIPT_OPEN}\n"
                       f"{render_transcript(items)}\n{TRANSCRIPT_CLOSE}")
            self.tokens += count_request_tokens(
                SUMMARY_PROMPT, [{"role": "user", "content": request}])["total"]
            self.tokens += count_tokens(result.text)
        return result


@dataclass
class Cost:
    """What a memory cost over the whole conversation: the agent's calls (every turn and
    tool round), the summarizer's folds, and what the full history cost for the same calls."""

    agent_tokens: int
    fold_tokens: int
    folds: int
    full_tokens: int

    @property
    def total(self) -> int:
        return self.agent_tokens + self.fold_tokens


def _strategy(make_session: Callable[[], Any], make_manager: Callable[[Any], Any] | None,
              meters: list[_FoldMeter], count_folds: bool) -> Strategy:
    def session_factory(_session_id: str) -> Any:
        session = make_session()
        check_session(session, "zh")
        if count_folds and getattr(session, "summarizer", None) is not None:
            meter = _FoldMeter(session.summarizer)
            session.summarizer = meter
            meters.append(meter)
        return session

    def transform_factory(session: Any, _tools: Sequence[Any]) -> Any:
        assert make_manager is not None
        manager = make_manager(session)
        check_manager(manager, session, "zh")

        async def transform(instructions: str | None,
                            items: list[dict[str, Any]]) -> TransformResult:
            built = await manager.assemble_input(items, instructions=instructions)
            return TransformResult(built.items, built.dropped, built.warning)

        return transform

    return Strategy("yours", session_factory,
                    transform_factory if make_manager is not None else None)


async def conversation_cost(agent: Agent[Any], history: Sequence[Mapping[str, Any]],
                            make_session: Callable[[], Any],
                            make_manager: Callable[[Any], Any] | None, *,
                            count_folds: bool = True) -> Cost:
    """Replay ``history`` through the memory as the Runner would and count every model
    call's input tokens (and, with ``count_folds``, every fold's; see the module
    docstring). Raises :class:`SetupRejected` for a setup that is not the library's."""
    meters: list[_FoldMeter] = []
    tools = list(agent.tools)
    instructions = agent.instructions if isinstance(agent.instructions, str) else None
    replay = StrategyReplay(history, _strategy(make_session, make_manager, meters, count_folds),
                            instructions=instructions, tools=tools, ledgers=False)
    agent_tokens = full_tokens = 0
    async for call in replay.calls():
        agent_tokens += call.tokens
        full_tokens += call.full_tokens
    return Cost(agent_tokens, sum(m.tokens for m in meters), sum(m.calls for m in meters),
                full_tokens)


def full_history_session() -> Any:
    """The baseline: the Agents SDK's own session, which keeps every item."""
    return SQLiteSession("exercise-05b-full")
