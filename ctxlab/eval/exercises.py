"""Checks for the lessons' exercises.

Each lesson ends with an exercise: the learner fills in a cell, then runs a check from this
module, which answers with a :class:`CheckResult` that renders as a one-line verdict. A
check never raises for a wrong answer (so a notebook always runs top to bottom); an
answer left as ``None`` reports "not answered yet". The checks compute the right answer
themselves, with the offline backend, so they stay correct if the course data changes.
"""

from __future__ import annotations

import html
import numbers
from dataclasses import dataclass
from typing import Any

from agents import RunConfig, SQLiteSession

from ..core.display import NOTEBOOK_COLUMNS, wrap
from ..core.items import item_text
from ..course.agent import make_support_agent
from ..course.corpora import support_chat_script
from ..course.costs import cost_usd
from ..course.offline import OfflineSupportModel
from ..course.runs import TurnRecord, run_conversation, spent_tokens
from ..sessions import SummarizingSession, TrimmingSession
from .zh_exercise import ZH_EXERCISE_RATIO

#: Checks run the offline model: nothing to trace or export.
_QUIET = RunConfig(tracing_disabled=True)


#: The verdict's mark per language (plain characters every font has: emoji render as boxes
#: without an emoji font).
_MARKS: dict[str, dict[bool | None, str]] = {
    "en": {True: "✓ correct", False: "✗ not yet", None: "… not answered yet"},
    "zh": {True: "✓ 通过", False: "✗ 还没通过", None: "… 还没作答"},
}


@dataclass(frozen=True)
class CheckResult:
    """The verdict on one answer: ``passed`` is True, False, or None (not answered yet);
    ``language`` is the language of the lesson (``"zh"`` for lesson 05b), which the mark
    is written in. Printed, the verdict is wrapped to fit a notebook line."""

    passed: bool | None
    message: str
    language: str = "en"

    def __bool__(self) -> bool:
        return self.passed is True

    def __str__(self) -> str:
        mark = _MARKS.get(self.language, _MARKS["en"])[self.passed]
        sep = "：" if self.language == "zh" else ": "
        return "\n".join(wrap(f"{mark}{sep}{self.message}", NOTEBOOK_COLUMNS, indent="  "))

    __repr__ = __str__

    def _repr_html_(self) -> str:
        color = {True: "#009E73", False: "#D55E00", None: "#666666"}[self.passed]
        label = _MARKS.get(self.language, _MARKS["en"])[self.passed]
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

def whole_number(answer: Any) -> int | None:
    """``answer`` as an int when it is a whole number (``9``, ``9.0``, ``numpy.int64(9)``);
    None otherwise (``9.5``, ``"9"``, ``True``)."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, numbers.Integral):
        return int(answer)
    if isinstance(answer, numbers.Real) and float(answer).is_integer():
        return int(answer)
    return None


async def _ticket_recalled(max_turns: int) -> bool:
    messages, probes = support_chat_script()
    probe = next(p for p in probes if p.fact == "ticket_id")
    agent = make_support_agent(OfflineSupportModel())
    session = TrimmingSession(f"exercise-{max_turns}", max_turns=max_turns)
    records = await run_conversation(agent, messages[: probe.turn], session, run_config=_QUIET)
    return probe.expected in records[-1].reply


_SMALLEST: list[int] = []


async def smallest_window_for_ticket() -> int:
    """The smallest ``max_turns`` for which the agent still answers the ticket question
    (computed once per process).

    A larger window holds everything a smaller one does, so recall is monotone in
    ``max_turns`` and a binary search finds the edge.
    """
    if _SMALLEST:
        return _SMALLEST[0]
    low, high = 1, 20  # 20 turns hold the whole conversation up to the question
    while low < high:
        middle = (low + high) // 2
        if await _ticket_recalled(middle):
            high = middle
        else:
            low = middle + 1
    _SMALLEST.append(low)
    return low


async def check_smallest_window(answer: Any) -> CheckResult:
    """Lesson 02: the smallest TrimmingSession window that still recalls the ticket."""
    if answer is None:
        return _pending("`smallest_max_turns`")
    turns = whole_number(answer)
    if turns is None or turns < 1:
        return CheckResult(False, f"expected a positive whole number of turns, got {answer!r}")
    expected = await smallest_window_for_ticket()
    if turns == expected:
        return CheckResult(True, f"max_turns={expected}: the ticket id is still in the window, "
                                 "and one turn less loses it")
    if turns > expected:
        return CheckResult(False, f"max_turns={turns} works but is not the smallest; look for "
                                  "the last turn where the ticket id appears, in any item")
    return CheckResult(False, f"with max_turns={turns} the agent no longer sees the ticket id")


# ---------------------------------------------------------------------------- lesson 03

#: Lesson 03's exercise: every (K, L) the check compares answers with.
FOLD_GRID: tuple[tuple[int, int], ...] = tuple(
    (keep, limit) for limit in range(1, 9) for keep in range(limit + 1))
#: Lesson 03's exercise: the share of the full history's tokens a setup may spend (the
#: agent's calls and the summarizer's, input and output).
FOLD_BUDGET = 0.60


@dataclass(frozen=True)
class FoldRun:
    """The support chat under one SummarizingSession setting: folds, every token spent
    (agent and summarizer), the facts the agent could not recall, and the turns answered
    without the previous turn in view verbatim."""

    folds: int
    tokens: int
    missed: tuple[str, ...]
    blind_turns: tuple[int, ...]


def _spent(records: list[TurnRecord]) -> int:
    return spent_tokens(records)


async def _summarizing_run(keep: int, limit: int) -> FoldRun:
    messages, probes = support_chat_script()
    agent = make_support_agent(OfflineSupportModel())
    session = SummarizingSession(keep_last_n_turns=keep, context_limit=limit,
                                 session_id=f"exercise-{keep}-{limit}")
    records = await run_conversation(agent, messages, session, run_config=_QUIET)
    missed = tuple(p.fact for p in probes if p.expected not in records[p.turn - 1].reply)
    blind = tuple(r.turn for r in records[1:] if not any(
        item.get("role") == "user" and item_text(item) == records[r.turn - 2].user
        for item in r.calls[0].items[:-1]))
    return FoldRun(session.summaries_applied, _spent(records), missed, blind)


def fold_count(keep: int, limit: int, turns: int = 20) -> int:
    """How many folds a SummarizingSession makes over ``turns`` user turns: a fold when more
    than ``limit`` turns are unfolded, leaving ``keep`` (counted without running anything)."""
    unfolded = folds = 0
    for _ in range(turns):
        unfolded += 1  # the Runner stores the new input: a fold may follow
        if unfolded > limit:
            folds += 1
            unfolded = keep
    return folds


_FOLD_CACHE: dict[Any, Any] = {}


async def _cached_run(keep: int, limit: int) -> FoldRun:
    if (keep, limit) not in _FOLD_CACHE:
        _FOLD_CACHE[(keep, limit)] = await _summarizing_run(keep, limit)
    return _FOLD_CACHE[(keep, limit)]


async def full_history_tokens() -> int:
    """Every token the support chat spends with the full history (computed once)."""
    if "full" not in _FOLD_CACHE:
        messages, _ = support_chat_script()
        agent = make_support_agent(OfflineSupportModel())
        full = await run_conversation(agent, messages, SQLiteSession("exercise-full"),
                                      run_config=_QUIET)
        _FOLD_CACHE["full"] = _spent(full)
    return int(_FOLD_CACHE["full"])


def _passes(run: FoldRun, full_tokens: int) -> bool:
    return not run.missed and not run.blind_turns and run.tokens <= FOLD_BUDGET * full_tokens


async def fewest_folds() -> tuple[int, int]:
    """The fewest folds any (K, L) of :data:`FOLD_GRID` needs to keep the previous turn
    verbatim at every turn, answer the five probes and spend at most :data:`FOLD_BUDGET` of
    the full history's tokens; and the full history's tokens. Settings are tried from the
    fewest folds up (folds are counted without a run), so only a few are run."""
    full_tokens = await full_history_tokens()
    if "best" not in _FOLD_CACHE:
        levels = sorted({fold_count(k, lim) for k, lim in FOLD_GRID if k >= 1})
        for level in levels:
            tried = [kl for kl in FOLD_GRID if kl[0] >= 1 and fold_count(*kl) == level]
            for keep, limit in tried:
                if _passes(await _cached_run(keep, limit), full_tokens):
                    _FOLD_CACHE["best"] = level
                    break
            if "best" in _FOLD_CACHE:
                break
    return int(_FOLD_CACHE["best"]), full_tokens


async def check_summarizing_setup(keep_last_n_turns: Any, context_limit: Any) -> CheckResult:
    """Lesson 03: a SummarizingSession that keeps the previous turn verbatim at every turn,
    answers the five recall probes of the support chat, spends at most 60% of the full
    history's tokens (every fold is a summarizer call, and counts), and folds as rarely as
    any setting can under those conditions."""
    if keep_last_n_turns is None:
        return _pending("`keep_last_n_turns` and `context_limit`")
    if context_limit is None:  # legal for a session (a token trigger only), not here
        return CheckResult(False, "context_limit=None folds on tokens only (the lesson's "
                                  "summarize:K@P%/W); this exercise tunes the turn trigger: "
                                  "give context_limit a whole number of turns")
    keep, limit = whole_number(keep_last_n_turns), whole_number(context_limit)
    if keep is None or limit is None:
        return CheckResult(False, "keep_last_n_turns and context_limit are whole numbers of "
                                  f"turns; got {keep_last_n_turns!r} and {context_limit!r}")
    try:
        SummarizingSession(keep_last_n_turns=keep, context_limit=limit, session_id="exercise")
    except ValueError as exc:
        return CheckResult(False, str(exc))
    run = await _cached_run(keep, limit)
    full_tokens = await full_history_tokens()
    if run.blind_turns:
        turn = run.blind_turns[0]
        return CheckResult(False, f"at turn {turn} the agent did not see turn {turn - 1} "
                                  f"verbatim ({len(run.blind_turns)} turns like that): a reply "
                                  "such as \"Did that.\" must be read next to the step it "
                                  "answers; keep at least the latest turn")
    if run.missed:
        return CheckResult(False, f"the agent could not recall: {', '.join(run.missed)}")
    share = run.tokens / full_tokens
    if run.tokens > FOLD_BUDGET * full_tokens:
        return CheckResult(False, f"{run.folds} folds and {run.tokens:,} tokens (agent and "
                                  f"summarizer), {share:.0%} of the full history's "
                                  f"{full_tokens:,}; the limit is 60%: every fold reads the "
                                  "summary prompt, the summary and the folded turns")
    best, _ = await fewest_folds()
    if run.folds > best:
        return CheckResult(False, f"{run.folds} folds within {share:.0%} of the tokens; some "
                                  f"setting needs only {best}: how often does a session fold, "
                                  "given K and L?")
    return CheckResult(True, f"{run.folds} folds (the fewest possible) with {run.tokens:,} "
                             f"tokens (agent and summarizer), {share:.0%} of the full "
                             f"history's {full_tokens:,}")


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
    from .exercise_memory import SetupRejected, check_parts

    try:
        check_parts(session, manager)
    except SetupRejected as exc:
        return CheckResult(False, str(exc))
    config = manager.run_config(tracing_disabled=True) if manager is not None else _QUIET
    records = await run_conversation(agent, messages, session, run_config=config)
    full = await run_conversation(agent, messages, SQLiteSession("exercise-05-full"),
                                  run_config=_QUIET)
    used, full_tokens = spent_tokens(records), spent_tokens(full)
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


def zh_exercise_history() -> list[dict[str, Any]]:
    """The fridge chat (``zh-01-fridge-bcd123``) followed by :data:`ZH_LATE_TURNS`."""
    from ..course.corpora import load_zh_support

    fridge = next(c for c in load_zh_support() if c.id == "zh-01-fridge-bcd123")
    items = [dict(item) for item in fridge.items]
    for question, reply in ZH_LATE_TURNS:
        items += [{"role": "user", "content": question}, {"role": "assistant", "content": reply}]
    return items


_ZH_FULL_ANSWERS: list[int] = []  # the full history's input tokens for the three questions


async def check_zh_memory_setup(make_session: Any, make_manager: Any = None, *,
                                count_folds: bool = True) -> CheckResult:
    """Lesson 05b: ``make_session()`` and ``make_manager(session)`` (or None) build a memory
    under which the agent, after the fridge chat and a late change of phone number, gives
    the new number (never the old one), the fridge's model number and the weekend-only
    constraint, and the whole conversation costs at most :data:`ZH_EXERCISE_RATIO` of the
    full history's tokens, every model call counted (summarizer folds included:
    :mod:`ctxlab.eval.zh_exercise`). The verdict is in Chinese, as the lesson is.

    ``count_folds=False`` leaves the folds out of the cost: a deliberately wrong check, kept
    so the tests can show that pricing the folds is what rejects folding at every turn."""
    from ..course.runs import ask_after
    from .exercise_parts import SetupRejected, check_manager, check_session
    from .zh_exercise import conversation_cost, full_history_session

    unusable = _zh_setup_problem(make_session, make_manager)
    if unusable is not None:
        return unusable

    def checked_session() -> Any:
        session = make_session()
        check_session(session, "zh")
        return session

    def checked_manager(session: Any) -> Any:
        manager = make_manager(session)
        check_manager(manager, session, "zh")
        return manager

    agent = make_support_agent(OfflineSupportModel())
    history = zh_exercise_history()
    try:
        cost = await conversation_cost(agent, history, make_session, make_manager,
                                       count_folds=count_folds)
        records = [await ask_after(agent, history, question, checked_session,
                                   checked_manager if make_manager is not None else None)
                   for question, _, _ in ZH_EXERCISE_QUESTIONS]
    except SetupRejected as exc:
        return CheckResult(False, str(exc), "zh")
    except Exception as exc:  # a broken answer is a verdict, not a crash
        return CheckResult(False, f"搭建或运行这个记忆时出错：{type(exc).__name__}: {exc}", "zh")
    if not _ZH_FULL_ANSWERS:
        _ZH_FULL_ANSWERS.extend([(await ask_after(agent, history, question,
                                                  full_history_session)).input_tokens
                                 for question, _, _ in ZH_EXERCISE_QUESTIONS])
    return _zh_verdict(records, cost)


def _zh_setup_problem(make_session: Any, make_manager: Any) -> CheckResult | None:
    """Why the lesson 05b exercise cannot be checked yet (None: it can)."""
    if make_session is None:
        return CheckResult(None, "先在上面的单元格里填好 `make_session`（`make_manager` 可以"
                                 "设为 None）并运行，再运行这个检查", "zh")
    if not callable(make_session) or (make_manager is not None and not callable(make_manager)):
        return CheckResult(False, "`make_session` 应该是一个函数，`make_manager` 是函数或 "
                                  "None（例如 lambda）", "zh")
    return None


def _zh_verdict(records: list[Any], cost: Any) -> CheckResult:
    """The lesson 05b verdict on the answers ``records`` and the conversation's ``cost``."""
    for (question, _, old), record in zip(ZH_EXERCISE_QUESTIONS, records, strict=True):
        if old and old in record.reply:
            return CheckResult(False, f"问“{question}”时，智能体给出的是旧号码 {old}：这个记忆把"
                                      "已经作废的旧值当成了当前值", "zh")
    missed = [expected for (_, expected, _), record in zip(ZH_EXERCISE_QUESTIONS, records,
                                                           strict=True)
              if expected not in record.reply]
    if missed:
        return CheckResult(False, f"智能体没能答出：{'、'.join(missed)}", "zh")
    used = cost.total + sum(r.input_tokens for r in records)
    full = cost.full_tokens + sum(_ZH_FULL_ANSWERS)
    spent = (f"整段对话用了 {used:,} 个 token，是完整历史（{full:,}）的 {used / full:.0%}"
             + (f"，其中摘要压缩 {cost.folds} 次，花了 {cost.fold_tokens:,} 个 token"
                if cost.folds else ""))
    if used > full * ZH_EXERCISE_RATIO:
        return CheckResult(False, f"三个问题都答对了，但{spent}；目标是不超过 "
                                  f"{ZH_EXERCISE_RATIO:.0%}。每一次模型调用（包括摘要压缩）都要"
                                  "计费：还有哪些内容不必每一轮都发给模型？", "zh")
    return CheckResult(True, f"新手机号、冰箱型号和客户要求都答对了；{spent}（已计入每一次"
                             "模型调用）", "zh")


# ---------------------------------------------------------------------------- lesson 06

async def check_memory_choice(spec: str | None) -> CheckResult:
    """Lesson 06: see :func:`ctxlab.eval.exercise.check_memory_choice`."""
    from .exercise import check_memory_choice as check

    return await check(spec)


# ---------------------------------------------------------------------------- lesson 06b

#: Lesson 06b's exercise: the planted chats, the spec swept, and the values of k.
TOP_K_CORPUS = "planted:2:30-50"
TOP_K_SPEC = "trim:4+recall:{}"
TOP_K_VALUES = range(1, 9)
_TOP_K: dict[int, float] = {}


async def _recall_at(k: int) -> float:
    if k not in _TOP_K:
        from .corpus import load_cases
        from .evaluate import evaluate

        run = await evaluate(load_cases(TOP_K_CORPUS), [TOP_K_SPEC.format(k)], answers=False)
        _TOP_K[k] = run.summaries()[0].recall or 0.0
    return _TOP_K[k]


async def smallest_top_k() -> tuple[int, float]:
    """The smallest k of :data:`TOP_K_VALUES` whose recall equals the best any k reaches,
    and that recall. Recall's top-k snippets are nested (top 5 holds top 4), so recall never
    falls as k grows: the best is at the largest k, and a binary search finds the edge."""
    best = await _recall_at(max(TOP_K_VALUES))
    low, high = min(TOP_K_VALUES), max(TOP_K_VALUES)
    while low < high:
        middle = (low + high) // 2
        if await _recall_at(middle) >= best:
            high = middle
        else:
            low = middle + 1
    return low, best


async def check_top_k(answer: Any) -> CheckResult:
    """Lesson 06b: the smallest k for ``trim:4+recall:k`` that reaches the best recall of
    k = 1..8 on the lesson's planted chats."""
    if answer is None:
        return _pending("`top_k`")
    k = whole_number(answer)
    if k is None or k not in TOP_K_VALUES:
        return CheckResult(False, f"answer with a whole number from 1 to 8, got {answer!r}")
    right, best = await smallest_top_k()
    mine = await _recall_at(k)
    if k == right:
        return CheckResult(True, f"k={k}: {mine:.1%} of probed facts in view, the best any k "
                                 "reaches; more snippets only add tokens")
    if k < right:
        return CheckResult(False, f"k={k} keeps {mine:.1%} in view; a larger k keeps {best:.1%}")
    return CheckResult(False, f"k={k} reaches the best recall ({best:.1%}), but a smaller k "
                              "does too")


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


# ---------------------------------------------------------------------------- lesson 09

async def check_issue_filter(candidate: Any) -> CheckResult:
    """Lesson 09: a handoff input filter that gives the repair desk the customer's own turns
    and the resumed issue's turns as they were said (no summary), the current turn and the
    handoff, and nothing of the other issue; run through the real Runner on planted chats
    the lesson does not show."""
    from .beyond_checks import ISSUE_FILTER_SEEDS, issue_filter_problem, receiver_view
    from .multi_issue import multi_issue_case

    if candidate is None:
        return _pending("`only_this_issue`")
    if not callable(candidate):
        return CheckResult(False, "a handoff input filter is a function that takes the SDK's "
                                  "HandoffInputData and returns one, got "
                                  f"{type(candidate).__name__}")
    for seed in ISSUE_FILTER_SEEDS:
        case = multi_issue_case(seed)
        try:
            view = await receiver_view(case, candidate)
        except Exception as exc:  # the learner's code: report it, never raise
            return CheckResult(False, f"on chat {case.id} the handoff failed: "
                                      f"{type(exc).__name__}: {exc}")
        problem = issue_filter_problem(case, view)
        if problem is not None:
            return CheckResult(False, f"on chat {case.id} ({case.resumed.device} resumed after "
                                      f"the {case.other.device}): {problem}")
    return CheckResult(True, f"on {len(ISSUE_FILTER_SEEDS)} chats the repair desk gets the "
                             "customer's turns and the resumed issue's turns word for word, "
                             "and nothing of the other issue")


# ---------------------------------------------------------------------------- lesson 10

async def check_erase(erase: Any) -> CheckResult:
    """Lesson 10: ``erase(user_id, memory=..., hub=..., open_session=...)`` forgets a
    customer in long-term memory, the shared hub and their conversation history (an SQLite
    file, read back byte by byte), keeps another customer, returns the DeletionReport, and
    refuses an unknown customer with UnknownUserError, changing nothing."""
    import tempfile
    from pathlib import Path

    from ..records import UnknownUserError
    from .beyond_checks import bob_erased_problem, call_candidate, erase_problem, erase_setup

    if erase is None:
        return _pending("`erase`")
    if not callable(erase):
        return CheckResult(False, f"erase must be a function, got {type(erase).__name__}")
    with tempfile.TemporaryDirectory(prefix="ctxlab-erase-") as folder:
        world = await erase_setup(Path(folder))
        kwargs = {"memory": world.memory, "hub": world.hub, "open_session": world.open_session}
        try:
            report = await call_candidate(erase, "zoe", **kwargs)
        except Exception as exc:
            return CheckResult(False, f"erase('zoe', ...) raised {type(exc).__name__}: {exc}")
        problem = await erase_problem(world, report)
        if problem is not None:
            return CheckResult(False, problem)
        before = world.bytes()
        try:
            await call_candidate(erase, "nobody", **kwargs)
        except UnknownUserError:
            pass
        except Exception as exc:
            return CheckResult(False, f"erase('nobody', ...) should raise UnknownUserError, "
                                      f"not {type(exc).__name__}: {exc}")
        else:
            return CheckResult(False, "erase('nobody', ...) returned: an unknown customer must "
                                      "get UnknownUserError, so a typo is never reported done")
        if world.bytes() != before:
            return CheckResult(False, "erase('nobody', ...) changed the stores")
        try:  # a second known customer: an erase that only knows zoe is caught here
            problem = await bob_erased_problem(world, await call_candidate(erase, "bob",
                                                                           **kwargs))
        except Exception as exc:
            problem = (f"erase('bob', ...) raised {type(exc).__name__}: {exc} (bob is a known "
                       "customer too)")
        if problem is not None:
            return CheckResult(False, problem)
        await world.memory.aclose()
    return CheckResult(True, "zoe is gone from long-term memory, the hub and every byte of the "
                             "session file while bob stayed; an unknown id is refused; bob "
                             "can be forgotten the same way")


# ---------------------------------------------------------------------------- lesson 11


def check_decay_policy(policy: Any) -> CheckResult:
    """Lesson 11: a DecayPolicy that keeps a busy customer's notes in use for a year, lets
    one-off notes go within 45 days and caps the notes at 40
    (:mod:`ctxlab.eval.exercise_decay`)."""
    from .exercise_decay import check_decay_policy as check

    return check(policy)
