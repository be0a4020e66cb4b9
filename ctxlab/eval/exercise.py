"""The check for lesson 06's exercise: choose a memory strategy from measurements.

The learner writes a strategy spec (:mod:`ctxlab.eval.strategies`) that, on six planted
support conversations of 30 to 50 turns (:data:`EXERCISE_CORPUS`), keeps at least
:data:`TARGET_RECALL` of the probed facts in the model's view while sending at most
:data:`MAX_TOKEN_RATIO` of the input tokens the full history sends. The check evaluates the
spec itself (offline, availability only), so it stays right if the corpus or the memory
code changes.
"""

from __future__ import annotations

from .corpus import load_cases
from .evaluate import evaluate
from .exercises import CheckResult
from .strategies import parse_strategy

#: Six planted conversations of 30-50 turns (seeds 100-105).
EXERCISE_CORPUS = "planted:6:30-50:100"
#: The recall a passing strategy reaches (share of probes whose value is in view).
TARGET_RECALL = 0.90
#: The most input tokens it may send, as a share of the full history's.
MAX_TOKEN_RATIO = 0.65


async def check_memory_choice(spec: str | None) -> CheckResult:
    """Lesson 06: a strategy spec with recall >= 90% at <= 65% of the full history's
    tokens on :data:`EXERCISE_CORPUS` (see the module docstring)."""
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
    run = await evaluate(load_cases(EXERCISE_CORPUS), [strategy], answers=False)
    summary = run.summary(strategy.name)
    recall, ratio = summary.recall or 0.0, summary.token_ratio or 0.0
    figures = f"recall {recall:.1%}, {ratio:.1%} of the full history's tokens"
    if recall >= TARGET_RECALL and ratio <= MAX_TOKEN_RATIO:
        return CheckResult(True, f"{strategy.name}: {figures}")
    if recall < TARGET_RECALL and ratio <= MAX_TOKEN_RATIO:
        return CheckResult(False, f"{strategy.name} is cheap enough but forgets too much "
                                  f"({figures}); keep more, or add memory beyond the window")
    if recall >= TARGET_RECALL:
        return CheckResult(False, f"{strategy.name} remembers enough but costs too much "
                                  f"({figures}); send less each turn")
    return CheckResult(False, f"{strategy.name} misses both targets ({figures})")
