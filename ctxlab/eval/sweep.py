"""Choosing ``max_turns`` / ``context_limit`` / a budget: sweep, Pareto front, advice.

A sweep evaluates one strategy template (``"trim:{}"``, ``"summarize:2/{}"``,
``"budget:{}"``, ``"trim:{}+state"``) at several values and plots recall against tokens.
A point is on the **Pareto front** when no other point has at least its recall for fewer
tokens. The **recommendation** is the cheapest point whose recall reaches the target;
when none does, the point with the best recall (the cheapest among equals), and the advice
says the target was missed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.display import NOTEBOOK_COLUMNS, wrap
from .cases import EvalCase
from .evaluate import evaluate
from .results import EvalRun


@dataclass(frozen=True)
class SweepPoint:
    """One value of the sweep: the strategy it made and its headline numbers."""

    value: Any
    strategy: str
    recall: float
    token_ratio: float
    cost_per_100_turns: float
    answer_accuracy: float | None = None


def pareto_front(points: Iterable[SweepPoint]) -> list[SweepPoint]:
    """The points no other point beats on both recall (higher) and tokens (lower), by
    ascending tokens."""
    ordered = sorted(points, key=lambda p: (p.token_ratio, -p.recall))
    front: list[SweepPoint] = []
    best = -1.0
    for point in ordered:
        if point.recall > best:
            front.append(point)
            best = point.recall
    return front


def recommend(points: Sequence[SweepPoint], target: float = 0.95) -> SweepPoint:
    """The cheapest point reaching ``target`` recall, else the best recall (cheapest of
    equals)."""
    if not points:
        raise ValueError("no sweep points to choose from")
    if not 0 < target <= 1:
        raise ValueError(f"target must be in (0, 1], got {target}")
    reaching = [p for p in points if p.recall >= target]
    if reaching:
        return min(reaching, key=lambda p: (p.token_ratio, -p.recall))
    return max(points, key=lambda p: (p.recall, -p.token_ratio))


@dataclass
class SweepResult:
    """The points of a sweep, its front, the recommendation, and the underlying run."""

    template: str
    points: list[SweepPoint]
    target: float
    run: EvalRun

    @property
    def pareto(self) -> list[SweepPoint]:
        return pareto_front(self.points)

    @property
    def recommended(self) -> SweepPoint:
        return recommend(self.points, self.target)

    def advice(self) -> str:
        """One sentence: what to choose and why (wrapped at spaces to fit a notebook line)."""
        best = self.recommended
        share = f"{best.recall:.1%} of probed facts in view at {best.token_ratio:.0%} of the " \
                "full history's input tokens"
        if best.recall >= self.target:
            said = (f"{best.strategy}: the cheapest setting that keeps at least "
                    f"{self.target:.0%} recall ({share}).")
        else:
            said = (f"no value reaches {self.target:.0%} recall; {best.strategy} comes "
                    f"closest ({share}); try larger values or another strategy.")
        return "\n".join(wrap(said, NOTEBOOK_COLUMNS))

    def table(self) -> str:
        """Value, recall, token ratio, cost per 100 turns; * marks the Pareto front, ->
        the recommendation."""
        front = {p.strategy for p in self.pareto}
        chosen = self.recommended.strategy
        lines = [f"   {'strategy':<24} {'recall':>7} {'tokens':>7} {'$/100 turns':>12}"]
        for p in self.points:
            mark = ("->" if p.strategy == chosen else "  ") + ("*" if p.strategy in front
                                                              else " ")
            lines.append(f"{mark}{p.strategy:<24} {p.recall:>7.1%} {p.token_ratio:>7.1%} "
                         f"{p.cost_per_100_turns:>12.4f}")
        lines.append("* on the Pareto front (no other value has as much recall for fewer "
                     "tokens); -> recommended")
        return "\n".join(lines)


def _specs(template: str, values: Iterable[Any]) -> list[tuple[Any, str]]:
    if not isinstance(template, str) or template.count("{}") != 1:
        raise ValueError(f"template must contain exactly one '{{}}' for the value, e.g. "
                         f"'trim:{{}}'; got {template!r}")
    out = [(value, template.format(value)) for value in values]
    if not out:
        raise ValueError("values is empty: give at least one value to sweep")
    return out


async def sweep(
    cases: Sequence[EvalCase],
    template: str = "trim:{}",
    values: Iterable[Any] = range(1, 13),
    *,
    target: float = 0.95,
    answers: bool = False,
    **options: Any,
) -> SweepResult:
    """Evaluate ``template`` at each of ``values`` on ``cases`` (see the module docstring).

    Availability only by default (``answers=False``), which is what recall means here;
    ``options`` go to :func:`~ctxlab.eval.evaluate`.
    """
    specs = _specs(template, values)
    run = await evaluate(cases, [s for _, s in specs], answers=answers, **options)
    points = []
    for (value, _), summary in zip(specs, run.summaries(), strict=True):
        points.append(SweepPoint(value, summary.strategy, summary.recall or 0.0,
                                 summary.token_ratio or 0.0, summary.cost_per_100_turns,
                                 summary.answer_accuracy))
    return SweepResult(template, points, target, run)
