"""The check for lesson 06's exercise: choose a memory strategy by what the agent would use.

The learner writes a strategy spec (:mod:`ctxlab.eval.strategies`) that, on six planted
support conversations of 30 to 50 turns (:data:`EXERCISE_CORPUS`), with values that change
along the way:

* presents at least :data:`TARGET_CURRENT` of the probed facts **as current** (in view is
  not enough: an old value shown as current counts against it, :mod:`ctxlab.eval.use`);
* never presents a superseded value as current, at any model call;
* answers at least :data:`TARGET_ANSWERS` of the probes asked through the offline agent
  (identifiers, constraints and commitments) correctly;
* sends at most :data:`MAX_TOKEN_RATIO` of the input tokens the full history sends.

The check evaluates the spec itself (offline, answers included), so it stays right if the
corpus or the memory code changes. Every strategy the lesson shows fails at least one
target (tests check this), so copying one is not an answer.
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
TARGET_CURRENT = 0.95
#: Share of the asked probes the agent answers correctly.
TARGET_ANSWERS = 0.95
#: The most input tokens it may send, as a share of the full history's.
MAX_TOKEN_RATIO = 0.52


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
    run = await exercise_run([strategy])
    summary = run.summary(strategy.name)
    misses = shortfalls(summary)
    figures = (f"{summary.current_rate or 0:.1%} of facts presented as current, "
               f"{summary.use_stale} calls with a stale value as current, "
               f"{summary.answers_correct}/{summary.answer_probes} answers, "
               f"{summary.token_ratio or 0:.1%} of the full history's tokens")
    if not misses:
        return CheckResult(True, f"{strategy.name}: {figures}")
    return CheckResult(False, f"{strategy.name}: {'; '.join(misses)} ({figures})")


async def exercise_run(strategies: list[Strategy | str]) -> EvalRun:
    """``strategies`` evaluated as the check evaluates an answer (answers included)."""
    return await evaluate(load_cases(EXERCISE_CORPUS), strategies, answers=True,
                          max_answer_probes=None)


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
    if answers < TARGET_ANSWERS:
        misses.append("the agent answers too few questions from its view")
    if ratio > MAX_TOKEN_RATIO:
        misses.append("it costs too much: send less each turn (fewer verbatim turns, or "
                      "fold sooner)")
    return misses
