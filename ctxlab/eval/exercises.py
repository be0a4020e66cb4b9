"""Checks for the lessons' exercises.

Each lesson ends with an exercise: the learner fills in a cell, then runs a check from this
module, which answers with a :class:`CheckResult` that renders as a one-line verdict. A
check never raises for a wrong answer (so a notebook always runs top to bottom); an
answer left as ``None`` reports "not answered yet". The checks compute the right answer
themselves, with the offline backend, so they stay correct if the course data changes.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from agents import RunConfig, SQLiteSession

from ..course.agent import make_support_agent
from ..course.corpora import support_chat_script
from ..course.costs import cost_usd
from ..course.offline import OfflineSupportModel
from ..course.runs import TurnRecord, run_conversation
from ..sessions import SummarizingSession, TrimmingSession

#: Checks run the offline model: nothing to trace or export.
_QUIET = RunConfig(tracing_disabled=True)


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: ``passed`` is True, False, or None (not answered yet)."""

    passed: bool | None
    message: str

    def __bool__(self) -> bool:
        return self.passed is True

    def __str__(self) -> str:
        # plain characters every font has (emoji render as boxes without an emoji font)
        mark = {True: "✓ correct", False: "✗ not yet", None: "… not answered yet"}[self.passed]
        return f"{mark}: {self.message}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        color = {True: "#009E73", False: "#D55E00", None: "#666666"}[self.passed]
        label = {True: "✓ correct", False: "✗ not yet", None: "… not answered yet"}[self.passed]
        parts = html.escape(self.message).split("`")  # `code` spans render as code
        message = "".join(f"<code>{part}</code>" if k % 2 else part
                          for k, part in enumerate(parts)) if len(parts) % 2 else html.escape(
            self.message)
        return (f"<p><span style='background:{color};color:white;font-weight:bold;"
                f"padding:1px 8px;border-radius:8px'>{label}</span> {message}</p>")


def _pending(what: str) -> CheckResult:
    return CheckResult(None, f"fill in {what} in the cell above, run it, then run this check")


# ---------------------------------------------------------------------------- lesson 00

#: Lesson 00's exercise conversation: the support chat's first 12 items (5 turns, one
#: with a tool call), a different conversation from the one the lesson trims.
def quickstart_items() -> list[dict[str, Any]]:
    from ..course.corpora import seed_support_conversation

    return seed_support_conversation().items[:12]


async def check_quickstart(session: Any) -> CheckResult:
    """Lesson 00: a ctxlab session holding all of :func:`quickstart_items` whose view is
    exactly the last 3 turns, with a ledger that explains it item by item (the earlier
    items dropped from the view, not deleted) and a window that follows the conversation
    (:mod:`ctxlab.eval.exercise_sessions`)."""
    from .exercise_sessions import check_quickstart as check

    return await check(session)


# ---------------------------------------------------------------------------- lesson 01

def check_run_cost(answer: float | None, records: list[TurnRecord],
                   model: str = "gpt-4.1") -> CheckResult:
    """Lesson 01: the dollar cost of the whole run at ``model``'s price."""
    if answer is None:
        return _pending("`total_cost`")
    if not records:
        return CheckResult(False, "no turns recorded: run the conversation first")
    inputs = sum(r.input_tokens for r in records)
    outputs = sum(r.output_tokens for r in records)
    expected = cost_usd(inputs, outputs, model)
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return CheckResult(False, f"expected a number of dollars, got {type(answer).__name__}")
    if abs(answer - expected) <= 0.005 * expected:
        return CheckResult(True, f"${expected:.4f} for {inputs:,} input and {outputs:,} output "
                                 f"tokens at {model} prices")
    if abs(answer - cost_usd(inputs, 0, model)) <= 0.005 * expected:
        return CheckResult(False, "close: you priced the input tokens only; outputs cost too")
    return CheckResult(False, f"${answer:.4f} is not it; add input and output tokens over all "
                              f"turns and price each with ctxlab.course.costs (model {model!r})")


# ---------------------------------------------------------------------------- lesson 02

async def _ticket_recalled(max_turns: int) -> bool:
    messages, probes = support_chat_script()
    probe = next(p for p in probes if p.fact == "ticket_id")
    agent = make_support_agent(OfflineSupportModel())
    session = TrimmingSession(f"exercise-{max_turns}", max_turns=max_turns)
    records = await run_conversation(agent, messages[: probe.turn], session, run_config=_QUIET)
    return probe.expected in records[-1].reply


async def smallest_window_for_ticket() -> int:
    """The smallest ``max_turns`` for which the agent still answers the ticket question.

    A larger window holds everything a smaller one does, so recall is monotone in
    ``max_turns`` and a binary search finds the edge.
    """
    low, high = 1, 20  # 20 turns hold the whole conversation up to the question
    while low < high:
        middle = (low + high) // 2
        if await _ticket_recalled(middle):
            high = middle
        else:
            low = middle + 1
    return low


async def check_smallest_window(answer: int | None) -> CheckResult:
    """Lesson 02: the smallest TrimmingSession window that still recalls the ticket."""
    if answer is None:
        return _pending("`smallest_max_turns`")
    if isinstance(answer, bool) or not isinstance(answer, int) or answer < 1:
        return CheckResult(False, f"expected a positive whole number of turns, got {answer!r}")
    expected = await smallest_window_for_ticket()
    if answer == expected:
        return CheckResult(True, f"max_turns={expected}: the ticket id is still in the window, "
                                 "and one turn less loses it")
    if answer > expected:
        return CheckResult(False, f"max_turns={answer} works but is not the smallest; look for "
                                  "the last turn where the ticket id appears, in any item")
    return CheckResult(False, f"with max_turns={answer} the agent no longer sees the ticket id")


# ---------------------------------------------------------------------------- lesson 03

#: Lesson 03's exercise: every (K, L) the check compares answers with.
FOLD_GRID: tuple[tuple[int, int], ...] = tuple(
    (keep, limit) for limit in range(1, 11) for keep in range(limit + 1))
#: Lesson 03's exercise: the share of the full history's input tokens a setup may send.
FOLD_BUDGET = 0.60


async def _summarizing_run(keep: int, limit: int) -> tuple[int, int, list[str]]:
    """(folds, input tokens, facts missed) of the support chat under SummarizingSession."""
    messages, probes = support_chat_script()
    agent = make_support_agent(OfflineSupportModel())
    session = SummarizingSession(keep, limit, session_id=f"exercise-{keep}-{limit}")
    records = await run_conversation(agent, messages, session, run_config=_QUIET)
    missed = [p.fact for p in probes if p.expected not in records[p.turn - 1].reply]
    return session.summaries_applied, sum(r.input_tokens for r in records), missed


_FOLD_CACHE: dict[str, Any] = {}


async def fewest_folds() -> tuple[int, int, dict[tuple[int, int], tuple[int, int, list[str]]]]:
    """The fewest folds any (K, L) of :data:`FOLD_GRID` needs to answer all five probes
    within :data:`FOLD_BUDGET` of the full history's tokens; with the full history's tokens
    and every setting's result (computed once per process)."""
    if not _FOLD_CACHE:
        messages, _ = support_chat_script()
        agent = make_support_agent(OfflineSupportModel())
        full = await run_conversation(agent, messages, SQLiteSession("exercise-full"),
                                      run_config=_QUIET)
        full_tokens = sum(r.input_tokens for r in full)
        results = {kl: await _summarizing_run(*kl) for kl in FOLD_GRID}
        good = [folds for folds, used, missed in results.values()
                if not missed and used <= FOLD_BUDGET * full_tokens]
        _FOLD_CACHE.update(best=min(good), full=full_tokens, results=results)
    return _FOLD_CACHE["best"], _FOLD_CACHE["full"], _FOLD_CACHE["results"]


async def check_summarizing_setup(keep_last_n_turns: int | None,
                                  context_limit: int | None) -> CheckResult:
    """Lesson 03: a SummarizingSession that answers all five recall probes of the support
    chat, sends at most 60% of the full history's input tokens, and folds as rarely as any
    setting can under those two conditions (each fold is a summarizer call: cost and
    latency with a real model)."""
    if keep_last_n_turns is None or context_limit is None:
        return _pending("`keep_last_n_turns` and `context_limit`")
    try:
        SummarizingSession(keep_last_n_turns, context_limit, session_id="exercise")
    except ValueError as exc:
        return CheckResult(False, str(exc))
    best, full_tokens, results = await fewest_folds()
    folds, used, missed = results.get((keep_last_n_turns, context_limit)) or \
        await _summarizing_run(keep_last_n_turns, context_limit)
    if missed:
        return CheckResult(False, f"the agent could not recall: {', '.join(missed)}")
    if used > FOLD_BUDGET * full_tokens:
        return CheckResult(False, f"all probes answered, but {used:,} input tokens is "
                                  f"{used / full_tokens:.0%} of the full history's "
                                  f"{full_tokens:,} (the limit is 60%): fold a little sooner")
    if folds > best:
        return CheckResult(False, f"{folds} folds within {used / full_tokens:.0%} of the "
                                  f"tokens; some setting needs only {best}: how often does a "
                                  "session fold, given K and L?")
    return CheckResult(True, f"{folds} folds (the fewest possible) with {used:,} input tokens, "
                             f"{used / full_tokens:.0%} of the full history's {full_tokens:,}")


# ---------------------------------------------------------------------------- lesson 04

#: Lesson 04's exercise budget: tighter than the lesson's 2,500 tokens.
EXERCISE_BUDGET = 1800


async def check_budget_setup(manager: Any) -> CheckResult:
    """Lesson 04: a ContextManager with ``max_tokens <= 1800`` under which the agent, over
    the full-history chat, still answers all five recall probes, and whose calls keep the
    budget as *sent* (measured, not as the manager reports). A call may exceed it only if
    it holds nothing but the part a manager never drops; the verdict names that call and
    why (:mod:`ctxlab.eval.exercise_budget`)."""
    from .exercise_budget import check_budget_setup as check

    return await check(manager)


# ---------------------------------------------------------------------------- lesson 05

#: Lesson 05's exercise: the share of the full history's input tokens a setup may send.
MEMORY_BUDGET = 0.30


async def check_memory_setup(make_session: Any, make_manager: Any) -> CheckResult:
    """Lesson 05: ``make_session()`` and ``make_manager(session)`` build a memory setup that
    answers all five probes with at most :data:`MEMORY_BUDGET` of the full history's input
    tokens (every setup the lesson shows needs more, or forgets)."""
    if make_session is None or make_manager is None:
        return _pending("`make_session` and `make_manager`")
    if not callable(make_session) or not callable(make_manager):
        return CheckResult(False, "both answers must be functions (for example lambdas)")
    messages, probes = support_chat_script()
    agent = make_support_agent(OfflineSupportModel())
    try:
        session = make_session()
        manager = make_manager(session)
    except Exception as exc:
        return CheckResult(False, f"building the setup failed: {type(exc).__name__}: {exc}")
    config = manager.run_config(tracing_disabled=True) if manager is not None else _QUIET
    records = await run_conversation(agent, messages, session, run_config=config)
    full = await run_conversation(agent, messages, SQLiteSession("exercise-05-full"),
                                  run_config=_QUIET)
    used = sum(r.input_tokens for r in records)
    full_tokens = sum(r.input_tokens for r in full)
    missed = [p.fact for p in probes if p.expected not in records[p.turn - 1].reply]
    if missed:
        return CheckResult(False, f"the agent could not recall: {', '.join(missed)}")
    if used > full_tokens * MEMORY_BUDGET:
        return CheckResult(False, f"all probes answered, but with {used / full_tokens:.1%} of "
                                  f"the full history's tokens; the target is "
                                  f"{MEMORY_BUDGET:.0%}: what still makes every call large?")
    return CheckResult(True, f"all 5 probes answered with {used:,} input tokens, "
                             f"{used / full_tokens:.0%} of the full history's {full_tokens:,}")


# ---------------------------------------------------------------------------- lesson 05b

#: What the fridge customer says after the recorded chat: a new phone number, then two
#: questions that have nothing to do with it (user message, agent reply).
ZH_LATE_TURNS: tuple[tuple[str, str], ...] = (
    ("对了，我手机号换了，新号码是13600001234，以后打这个。",
     "好的，已经把您的联系电话改成13600001234。"),
    ("冷冻室的温度设几度合适？", "冷冻室一般设在零下18度左右就可以。"),
    ("门封条脏了能用酒精擦吗？", "不建议用酒精，用温水加一点洗洁精擦干净再晾干就行。"),
)
#: The questions lesson 05b's exercise asks after :func:`zh_exercise_history`, with the
#: value each answer must hold (and, for the phone, the old number it must not give).
ZH_EXERCISE_QUESTIONS: tuple[tuple[str, str, str], ...] = (
    ("你们记的我的手机号是多少？", "13600001234", "13912345678"),
    ("我冰箱的型号是多少来着？", "BCD-123", ""),
    ("我之前跟你说过要注意什么？", "只能周末上门", ""),
)
#: The most input tokens the three questions may cost, as a share of the full history's.
ZH_EXERCISE_RATIO = 0.5


def zh_exercise_history() -> list[dict[str, Any]]:
    """The fridge chat (``zh-01-fridge-bcd123``) followed by :data:`ZH_LATE_TURNS`."""
    from ..course.corpora import load_zh_support

    fridge = next(c for c in load_zh_support() if c.id == "zh-01-fridge-bcd123")
    items = [dict(item) for item in fridge.items]
    for question, reply in ZH_LATE_TURNS:
        items += [{"role": "user", "content": question}, {"role": "assistant", "content": reply}]
    return items


async def check_zh_memory_setup(make_session: Any, make_manager: Any) -> CheckResult:
    """Lesson 05b: ``make_session()`` and ``make_manager(session)`` (or None) build a memory
    under which the agent, after the fridge chat and a late change of phone number, gives
    the new number (never the old one), the fridge's model number and the weekend-only
    constraint, with at most half the input tokens of the full history."""
    from ..course.runs import ask_after

    if make_session is None:
        return _pending("`make_session` (and `make_manager`, or leave it None)")
    if not callable(make_session) or (make_manager is not None and not callable(make_manager)):
        return CheckResult(False, "`make_session` must be a function, and `make_manager` a "
                                  "function or None (for example lambdas)")
    agent = make_support_agent(OfflineSupportModel())
    history = zh_exercise_history()
    used = full = 0
    missed: list[str] = []
    for question, expected, old in ZH_EXERCISE_QUESTIONS:
        try:
            record = await ask_after(agent, history, question, make_session, make_manager)
        except Exception as exc:  # a broken answer is a verdict, not a crash
            return CheckResult(False, f"building or running the setup failed: "
                                      f"{type(exc).__name__}: {exc}")
        baseline = await ask_after(agent, history, question,
                                   lambda: SQLiteSession("exercise-05b-full"))
        used += record.input_tokens
        full += baseline.input_tokens
        if old and old in record.reply:
            return CheckResult(False, f"asked {question!r}, the agent gave the old number {old}: "
                                      "the memory presents a replaced value as current")
        if expected not in record.reply:
            missed.append(expected)
    if missed:
        return CheckResult(False, f"the agent could not recall: {', '.join(missed)}")
    if used > full * ZH_EXERCISE_RATIO:
        return CheckResult(False, f"all three answered, but with {used / full:.0%} of the full "
                                  f"history's tokens; the target is {ZH_EXERCISE_RATIO:.0%}")
    return CheckResult(True, f"new phone number, model number and constraint answered with "
                             f"{used:,} input tokens, {used / full:.0%} of the full history's "
                             f"{full:,}")


# ---------------------------------------------------------------------------- lesson 06

async def check_memory_choice(spec: str | None) -> CheckResult:
    """Lesson 06: see :func:`ctxlab.eval.exercise.check_memory_choice`."""
    from .exercise import check_memory_choice as check

    return await check(spec)


# ---------------------------------------------------------------------------- lesson 07

#: A tool output that leaks more than the agent needs (the exercise's input).
LEAKY_ORDER_OUTPUT: dict[str, Any] = {
    "order_id": "ORD-55120",
    "status": "shipped",
    "carrier": "UPS",
    "customer_name": "Dana Whitfield",
    "home_address": "12 Elm Street, Springfield",
    "contact": "dana.whitfield@example.com",
    "payment": {"card": "4111 1111 1111 1111", "amount_usd": 129.0},
}


async def check_redaction(redactor: Any) -> CheckResult:
    """Lesson 07: a Redactor that, on a session storing an order conversation, keeps the
    order id, status, carrier and amount and stores no personal data: not from
    :data:`LEAKY_ORDER_OUTPUT`, not from the card number the customer types into the chat,
    not from a later record with a field the service added (:mod:`ctxlab.eval.
    exercise_redaction`)."""
    from .exercise_redaction import check_redaction as check

    return await check(redactor)


# ---------------------------------------------------------------------------- lesson 02b

async def check_own_session(session_class: Any) -> CheckResult:
    """Lesson 02b: a session class written by hand (not one of ctxlab's sessions, a
    subclass or a wrapper of one), ``session_class(max_turns=N)``, that shows the last N
    turns and never sends something the API rejects: checked on histories the lesson did
    not show (parallel calls, reasoning, a call waiting for an approval) and several N, with
    ``pop_item`` and ``clear_session`` (:mod:`ctxlab.eval.exercise_sessions`)."""
    from .exercise_sessions import check_own_session as check

    return await check(session_class)


# ---------------------------------------------------------------------------- lesson 08

#: The lengths (user turns) lesson 08's cache sweep looks at.
CACHE_LENGTHS: tuple[int, ...] = (10, 20, 30, 40, 50, 60, 70, 80, 90)


async def cache_crossover(strategy: str, *, against: str = "full") -> int | None:
    """The first length in :data:`CACHE_LENGTHS` at which ``strategy`` costs less than
    ``against`` per 100 turns with prompt caching, on lesson 08's 90-turn chat (None if
    it never does)."""
    from ..course.agent import SUPPORT_INSTRUCTIONS, SUPPORT_TOOLS
    from .caching import cache_sweep
    from .planted import planted_corpus

    case = max(planted_corpus(6), key=lambda c: len(c.items))
    sweep = await cache_sweep(case.items, [against, strategy], CACHE_LENGTHS,
                              instructions=SUPPORT_INSTRUCTIONS, tools=SUPPORT_TOOLS)
    for length in CACHE_LENGTHS:
        base, mine = sweep[length]
        if mine.cached_cost_per_100_turns < base.cached_cost_per_100_turns:
            return length
    return None


async def check_cache_crossover(answer: int | None) -> CheckResult:
    """Lesson 08: the first length (of 10, 20, ..., 90 turns) at which ``trim:8/8`` becomes
    cheaper than the full history once the prompt cache is counted."""
    if answer is None:
        return _pending("`crossover_turns`")
    if isinstance(answer, bool) or not isinstance(answer, int):
        return CheckResult(False, f"answer with a whole number of turns, got {answer!r}")
    right = await cache_crossover("trim:8/8")
    if answer == right:
        return CheckResult(True, f"from {right} turns on, trimming in steps of 8 beats the "
                                 "cached full history; before that, the cache makes keeping "
                                 "everything cheaper")
    if answer not in CACHE_LENGTHS:
        return CheckResult(False, f"pick one of the sweep's lengths: {list(CACHE_LENGTHS)}")
    hint = ("too early: at that length the full history, mostly served from the cache, is "
            "still cheaper" if right is None or answer < right else
            "trimming in steps already costs less before that length")
    return CheckResult(False, f"not at {answer} turns: {hint}")
