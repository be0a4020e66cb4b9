"""The check of lesson 04's exercise: a ContextManager that keeps every model call of the
support chat within 1,800 tokens and still answers the five recall probes.

The check measures what the model was *sent* (the offline model reports exact input
tokens), not what the manager says about itself: a manager that undercounts (no tool
schemas), a subclass that passes the input through, or a budget the calls do not keep is
caught. One kind of call may exceed the budget: one that holds nothing but the part a
ContextManager never drops (the instructions, the tool schemas and the current turn: the
new message and the tool calls and outputs of this run) even after the manager's last resort
(the current turn's tool outputs sent as previews). In the support chat, turn 2's second call
carries the 1,954-token ``lookup_device`` output that has just arrived, more than 1,800 on
its own; the manager sends it as a preview, so every call fits. Should a call still be over,
the verdict names it, with the numbers, instead of a pass message that contradicts them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from agents import SQLiteSession

from ..core.items import is_output, is_user_message, item_text
from ..core.tokens import get_token_counter
from ..course.runs import ModelCallRecord, TurnRecord
from .exercise_parts import SetupRejected, check_manager
from .exercises import EXERCISE_BUDGET, CheckResult, _pending


@dataclass(frozen=True)
class OverBudget:
    """A model call over the budget, and how much of it is the part never dropped."""

    turn: int
    call: int  # 1-based, within the turn
    tokens: int
    floor: int  # instructions + tool schemas + the current turn
    fixed: int  # instructions + tool schemas
    outputs: tuple[tuple[str, int], ...]  # the current turn's tool outputs: (tool, tokens)

    @property
    def floor_only(self) -> bool:
        return self.tokens <= self.floor


def over_budget(records: list[TurnRecord], budget: int) -> list[OverBudget]:
    """Every call of ``records`` that sent more than ``budget`` input tokens."""
    counter = get_token_counter()
    out = []
    for record in records:
        for number, call in enumerate(record.calls, start=1):
            tokens = call.input_tokens or 0
            if tokens > budget:
                out.append(_measure(record.turn, number, call, tokens, counter))
    return out


def _measure(turn: int, number: int, call: ModelCallRecord, tokens: int, counter: Any
             ) -> OverBudget:
    items = call.items
    start = max((i for i, it in enumerate(items) if is_user_message(it)), default=len(items))
    current = items[start:]
    names = {it.get("call_id"): str(it.get("name")) for it in current
             if it.get("type") == "function_call"}
    outputs = tuple((names.get(it.get("call_id"), "a tool"), counter.count(item_text(it)))
                    for it in current if is_output(it))
    fixed = call.parts.get("instructions", 0)
    return OverBudget(turn, number, tokens, fixed + counter.count_items(current), fixed,
                      outputs)


def _explain(over: OverBudget) -> str:
    outputs = " and ".join(f"the {tokens:,}-token {tool} output" for tool, tokens in
                           over.outputs) or "this turn's items"
    return (f"turn {over.turn}'s call {over.call} ({over.tokens:,} tokens) holds nothing but "
            f"what a ContextManager never drops: the instructions and tool schemas "
            f"({over.fixed:,}) and the current turn, with {outputs} that has just arrived")


async def check_budget_setup(manager: Any) -> CheckResult:
    """Lesson 04: see :func:`ctxlab.eval.exercises.check_budget_setup`."""
    from ..context import ContextManager
    from ..course.agent import make_support_agent
    from ..course.corpora import support_chat_script
    from ..course.offline import OfflineSupportModel
    from ..course.runs import run_conversation

    if manager is None:
        return _pending("`my_manager`")
    if not isinstance(manager, ContextManager):
        return CheckResult(False, f"expected a ContextManager, got {type(manager).__name__}")
    try:  # a state or recall source that hands the model the answers (as in lesson 05)
        check_manager(manager, None, which_session="the chat the check runs (it opens that "
                                                   "session itself)")
    except SetupRejected as exc:
        return CheckResult(False, str(exc))
    budget = manager.max_tokens
    if budget > EXERCISE_BUDGET:
        return CheckResult(False, f"max_tokens={budget:,}: the budget is "
                                  f"{EXERCISE_BUDGET:,} tokens")
    messages, probes = support_chat_script()
    agent = make_support_agent(OfflineSupportModel())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            records = await run_conversation(agent, messages, SQLiteSession("exercise-04"),
                                             run_config=manager.run_config(
                                                 tracing_disabled=True))
    except Exception as exc:  # a broken answer is a verdict, not a crash
        return CheckResult(False, f"the run failed: {type(exc).__name__}: {exc}")
    missed = [p.fact for p in probes if p.expected not in records[p.turn - 1].reply]
    if missed:
        return CheckResult(False, f"with max_tokens={budget:,} the agent forgot (or never "
                                  f"obtained): {', '.join(missed)}; what else takes the room "
                                  "in older turns besides tool outputs?")
    over = over_budget(records, budget)
    calls = sum(len(r.calls) for r in records)
    cheating = [o for o in over if not o.floor_only]
    if cheating:
        first = cheating[0]
        return CheckResult(False, f"turn {first.turn}'s call {first.call} sent "
                                  f"{first.tokens:,} tokens, over max_tokens={budget:,}, and "
                                  f"only {first.floor:,} of them are the part that is never "
                                  "dropped: the manager did not keep its budget (does it "
                                  "count the tool schemas?)")
    largest = max(c.input_tokens or 0 for r in records for c in r.calls)
    if not over:
        return CheckResult(True, f"all 5 probes answered, and every one of the {calls} model "
                                 f"calls within {budget:,} tokens (largest: {largest:,})")
    return CheckResult(True, f"all 5 probes answered; {calls - len(over)} of the {calls} model "
                             f"calls within {budget:,} tokens. The {_plural(len(over))} over: "
                             f"{'; '.join(_explain(o) for o in over)}. No choice of what to "
                             "keep brings that under the budget")


def _plural(count: int) -> str:
    return "one call" if count == 1 else f"{count} calls"
