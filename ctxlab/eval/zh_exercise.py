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

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, SQLiteSession

from ..context import ContextManager
from ..core.tokens import count_request_tokens, count_tokens
from ..memory import DenseIndex, FTS5Index, Recall, RuleBasedStateExtractor, StateMemory
from ..memory.llm_extract import LLMStateExtractor
from ..summarizers import ExtractiveSummarizer, LLMSummarizer
from ..summarizers.base import SummaryResult, call_summarizer
from ..summarizers.prompt import SUMMARY_PROMPT, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN
from ..summarizers.transcript import render_transcript
from .replay import StrategyReplay
from .strategies import Strategy, TransformResult

#: The most a memory may cost, as a share of the full history's cost (every call counted).
ZH_EXERCISE_RATIO = 0.5

#: Where the library's parts live: a class defined elsewhere must not override their methods.
_LIBRARY = ("ctxlab.", "agents.")


class SetupRejected(Exception):
    """The learner's setup is not a memory made of the library's parts (the message says
    which part and why)."""


def _library_base(cls: type) -> type | None:
    return next((c for c in cls.__mro__ if c.__module__.startswith(_LIBRARY)), None)


def _overridden(obj: Any) -> list[str]:
    """Methods of ``obj``'s class that replace the library class it extends."""
    cls = type(obj)
    base = _library_base(cls)
    if base is None or base is cls:
        return []
    names = [n for n, v in inspect.getmembers(base) if callable(v) and not n.startswith("__")]
    return sorted(n for n in names if getattr(cls, n, None) is not getattr(base, n, None))


def _require(obj: Any, kinds: tuple[type, ...], what: str) -> None:
    if not isinstance(obj, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise SetupRejected(f"{what}应该是 ctxlab 的 {names}，这里却是 {type(obj).__name__}："
                            "练习要用库里真正的记忆组件，而不是自己拼好答案的替身")
    changed = _overridden(obj)
    if changed:
        raise SetupRejected(f"{what}（{type(obj).__name__}）改写了 {', '.join(changed)}："
                            "这个练习用库里现成的记忆组件；自己写会话是第 02b 课的练习")


def check_session(session: Any) -> None:
    """A session of ctxlab or of the Agents SDK, whose methods are the library's, and (for a
    summarizing session) a summarizer of ctxlab's."""
    from ..sessions.base import MemorySession

    base = _library_base(type(session))
    if base is not None and base.__module__.startswith("agents."):
        changed = _overridden(session)
        if changed:
            raise SetupRejected(f"会话（{type(session).__name__}）改写了 {', '.join(changed)}："
                                "这个练习用库里现成的记忆组件；自己写会话是第 02b 课的练习")
    else:
        _require(session, (MemorySession,), "make_session() 返回的会话")
    summarizer = getattr(session, "summarizer", None)
    if summarizer is not None:
        _require(summarizer, (ExtractiveSummarizer, LLMSummarizer), "摘要器")


def check_manager(manager: Any, session: Any) -> None:
    """A ContextManager of ctxlab's whose sources are ctxlab's, start empty and read the
    conversation's own session (no callback that could change what the model is sent)."""
    _require(manager, (ContextManager,), "make_manager(session) 返回的对象")
    sources = [("状态来源（state=）", manager.state), ("召回来源（retriever=）", manager.retriever)]
    if manager.state is not None:
        _require(manager.state, (StateMemory,), "状态来源（state=）")
        _require(manager.state.extractor, (RuleBasedStateExtractor, LLMStateExtractor),
                 "状态提取器")
        if not manager.state.state.is_empty():
            raise SetupRejected("状态记忆一开始就已经有内容了：它应该从这段对话里自己提取，"
                                "而不是事先填好")
    if manager.retriever is not None:
        _require(manager.retriever, (Recall,), "召回来源（retriever=）")
        _require(manager.retriever.index, (FTS5Index, DenseIndex), "召回索引")
        if len(manager.retriever.index):
            raise SetupRejected("召回索引一开始就已经有内容了：它应该只索引这段对话")
    for what, source in sources:
        bound = getattr(source, "session", None)
        if bound is not None and bound is not session:
            raise SetupRejected(f"{what}读的是另一个会话：它应该读 make_session() 返回的这个")
    if manager.on_assemble is not None:
        raise SetupRejected("on_assemble 回调能改动发给模型的内容，这个练习里请不要设置")


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
        check_session(session)
        if count_folds and getattr(session, "summarizer", None) is not None:
            meter = _FoldMeter(session.summarizer)
            session.summarizer = meter
            meters.append(meter)
        return session

    def transform_factory(session: Any, _tools: Sequence[Any]) -> Any:
        assert make_manager is not None
        manager = make_manager(session)
        check_manager(manager, session)

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
