"""The check for lesson 06's exercise: choose a memory strategy by what the agent would use.

The learner writes a strategy spec (:mod:`ctxlab.eval.strategies`) that, on six planted
support conversations of 30 to 50 turns (:data:`EXERCISE_CORPUS`), with values that change
along the way:

* presents at least :data:`TARGET_CURRENT` of the probed facts **as current** (in view is
  not enough: an old value shown as current counts against it, :mod:`ctxlab.eval.use`);
* never presents a superseded value as current, at any model call;
* answers at least :data:`TARGET_ANSWERS` of the probes asked through the offline agent
  (identifiers, constraints and commitments) correctly;
* spends at most :data:`MAX_TOKEN_RATIO` of the tokens the full history sends, counting
  every model call: the agent's and the summarizer's (each fold reads the summary prompt,
  the previous summary and the folded turns, and writes a new summary);
* keeps at least the latest turn verbatim (a summarizing base with ``K = 0``: the agent
  would read "Did that." without the step it answers).

The targets ask for a strategy better than every one lesson 06 prints on both axes at once:
more facts presented as current than ``trim:4+state`` (98.7%, 57% of the tokens) for fewer
tokens, and as many as ``summarize:2/4`` (100%, 77% with its folds) for far fewer. Neither
memory alone gets there: the state keeps the values it has a field for, recall brings back
the turns it has none for, and the verbatim window is the largest cost left, so a short
window with both (``trim:1+state+recall``: 99.7% at 54%) passes, while the near misses fail
(tests check each): a state without recall, or with a single snippet, misses a fact or
more; a longer window with both, or any summary, costs too much.

The check evaluates the spec itself (offline, answers through the offline model with its
default, perfect reading), so it stays right if the corpus or the memory code changes. It
first measures use and tokens, and asks the questions through the agent only when those
targets are met. Every strategy the lessons show fails at least one target (tests check
this), so copying one is not an answer.
"""

from __future__ import annotations

from .corpus import load_cases
from .evaluate import evaluate
from .exercises import CheckResult
from .results import EvalRun, StrategySummary
from .strategies import Strategy, parse_strategy

#: Six planted conversations of 30-50 turns (seeds 100-105).
EXERCISE_CORPUS = "planted:6:30-50:100"
#: Share of probes whose view presents the current value as current.
TARGET_CURRENT = 0.99
#: Share of the asked probes the agent answers correctly.
TARGET_ANSWERS = 0.95
#: The most tokens it may spend (agent and summarizer calls), as a share of the full history's.
MAX_TOKEN_RATIO = 0.55


async def check_memory_choice(spec: str | None) -> CheckResult:
    """Lesson 06: a strategy spec that meets the targets of the module docstring on
    :data:`EXERCISE_CORPUS`."""
    if spec is None:
        return CheckResult(None, "fill in `my_strategy` in the cell above, run it, then run "
                                 "this check")
    if not isinstance(spec, str):
        return CheckResult(False, f"expected a strategy spec string such as 'trim:8', got "
                                  f"{type(spec).__name__}")
    try:
        strategy = parse_strategy(spec)
    except ValueError as exc:
        return CheckResult(False, f"that spec does not parse: {exc}")
    if keeps_no_turn(strategy):
        return CheckResult(False, f"{strategy.name} keeps no turn verbatim: after every fold the "
                                  "agent reads the customer's reply (\"Did that.\") without the "
                                  "step it answers; keep at least the latest turn (K >= 1)")
    summary = (await verdicts([strategy]))[strategy.name]
    misses = shortfalls(summary)
    answers = (f"{summary.answers_correct}/{summary.answer_probes} answers"
               if summary.answer_probes else "answers not asked (the other targets are missed)")
    figures = (f"{summary.current_rate or 0:.1%} of facts presented as current, "
               f"{summary.use_stale} calls with a stale value as current, {answers}, "
               f"{summary.token_ratio or 0:.1%} of the full history's tokens "
               f"({summary.summary_calls} summarizer calls included)")
    if not misses:
        return CheckResult(True, f"{strategy.name}: {figures}")
    return CheckResult(False, f"{strategy.name}: {'; '.join(misses)} ({figures})")


async def exercise_run(strategies: list[Strategy | str], *, answers: bool = True) -> EvalRun:
    """``strategies`` evaluated as the check evaluates an answer."""
    return await evaluate(load_cases(EXERCISE_CORPUS), strategies, answers=answers,
                          max_answer_probes=None)


async def verdicts(strategies: list[Strategy | str]) -> dict[str, StrategySummary]:
    """Each strategy's summary as the check judges it: use and tokens for all; answers
    (the slow part) only for those that meet the other targets."""
    first = await exercise_run(strategies, answers=False)
    out = {s.strategy: s for s in first.summaries()}
    parsed = [parse_strategy(s) for s in strategies]
    hopeful = [s for s in parsed if not shortfalls(out[s.name])]
    if hopeful:
        second = await exercise_run(hopeful)
        out.update({s.strategy: s for s in second.summaries()})
    return out


def keeps_no_turn(strategy: Strategy) -> bool:
    """True for a summarizing base that keeps no turn verbatim (``summarize:0/L``)."""
    return strategy.params.get("keep_last_n_turns") == 0


def shortfalls(summary: StrategySummary) -> list[str]:
    """The targets a strategy's results miss, each with a hint (empty: all met)."""
    current = summary.current_rate or 0.0
    answers = summary.answer_accuracy or 0.0
    ratio = summary.token_ratio or 0.0
    misses = []
    if summary.use_stale:
        misses.append("it presents a superseded value as current: the agent would use an "
                      "old value")
    if current < TARGET_CURRENT:
        misses.append("it forgets too much: keep more, or add memory beyond the window")
    if summary.answer_probes and answers < TARGET_ANSWERS:
        misses.append("the agent answers too few questions from its view")
    if ratio > MAX_TOKEN_RATIO:
        misses.append("it costs too much: send less each turn (fewer verbatim turns), and "
                      "remember that every fold is a summarizer call too")
    return misses
