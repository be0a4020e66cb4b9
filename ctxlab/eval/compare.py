"""Baseline vs candidate: what got better, what got worse, and where exactly.

:func:`compare` matches two :class:`~ctxlab.eval.results.EvalRun` s strategy by strategy
(same name; or the only strategy of each run; or pairs you give), case by case and probe by
probe, and lists every **regression** by category:

=========================== ==============================================================
category                    a probe (or event) the baseline passed and the candidate fails
=========================== ==============================================================
``unanswered_questions``    a value the user gave is gone: the agent would have to ask again
``repeated_tool_calls``     a value a tool returned is gone: the agent would have to call
                            the tool again
``lost_constraints``        a constraint the customer set is no longer in view
``stale_as_current``        a view presents a superseded value as current: at a probe, or
                            at more model calls than before for a fact with a history
                            (:mod:`ctxlab.eval.use`)
``stale_values``            a superseded value is in view (or answered) instead of its
                            replacement
``token_pressure_drops``    a pinned fact newly cut because of a token budget (the turn,
                            the cause and the tokens before and after the cut)
=========================== ==============================================================

A probe "passes" by its answer when it was asked in both runs, else by availability.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .metrics import CaseResult, PressureEvent, ProbeResult
from .results import EvalRun

#: Regression categories, in report order, with their headings.
REGRESSION_CATEGORIES: dict[str, str] = {
    "unanswered_questions": "unanswered questions (the agent must ask the user again)",
    "repeated_tool_calls": "repeated tool calls (a tool result is gone)",
    "lost_constraints": "lost constraints",
    "stale_as_current": "stale-as-current (a superseded value presented as current)",
    "stale_values": "stale values (an old value instead of its replacement)",
    "token_pressure_drops": "token-pressure drops (a pinned fact cut by a budget)",
}


@dataclass(frozen=True)
class Regression:
    """One thing the candidate does worse: where, and what happened."""

    category: str
    strategy: str
    case: str
    turn: int
    fact: str
    detail: str


@dataclass(frozen=True)
class StrategyDelta:
    """Headline numbers of one matched pair of strategies (baseline, candidate)."""

    baseline: str
    candidate: str
    recall: tuple[float | None, float | None]
    answer_accuracy: tuple[float | None, float | None]
    stale_as_current: tuple[float | None, float | None]
    token_ratio: tuple[float | None, float | None]
    cost_per_100_turns: tuple[float, float]
    pressure_events: tuple[int, int]
    invalid_calls: tuple[int, int]


@dataclass
class Comparison:
    """The outcome of :func:`compare`."""

    baseline_id: str
    candidate_id: str
    deltas: list[StrategyDelta]
    regressions: list[Regression] = field(default_factory=list)
    improvements: int = 0
    missing_cases: int = 0

    @property
    def has_regressions(self) -> bool:
        return bool(self.regressions)

    def by_category(self) -> dict[str, list[Regression]]:
        """Regressions grouped by category (every category present, in report order)."""
        grouped: dict[str, list[Regression]] = {name: [] for name in REGRESSION_CATEGORIES}
        for r in self.regressions:
            grouped.setdefault(r.category, []).append(r)
        return grouped

    def counts(self) -> dict[str, int]:
        return {name: len(items) for name, items in self.by_category().items()}

    def table(self, max_rows: int = 5) -> str:
        """A readable report: the headline deltas, then regressions by category."""
        from .tables import comparison_table

        return comparison_table(self, max_rows=max_rows)


def _pairs(baseline: EvalRun, candidate: EvalRun,
           pairs: Mapping[str, str] | None) -> list[tuple[str, str]]:
    b_names, c_names = baseline.strategies, candidate.strategies
    if pairs:
        for b, c in pairs.items():
            if b not in b_names:
                raise ValueError(f"baseline run {baseline.run_id!r} has no strategy {b!r}; it "
                                 f"has {', '.join(b_names)}")
            if c not in c_names:
                raise ValueError(f"candidate run {candidate.run_id!r} has no strategy {c!r}; "
                                 f"it has {', '.join(c_names)}")
        return list(pairs.items())
    same = [(n, n) for n in b_names if n in c_names]
    if same:
        return same
    if len(b_names) == 1 and len(c_names) == 1:
        return [(b_names[0], c_names[0])]
    raise ValueError(f"the runs share no strategy (baseline: {', '.join(b_names)}; candidate: "
                     f"{', '.join(c_names)}); say which to compare, e.g. "
                     f"pairs={{'{b_names[0]}': '{c_names[0]}'}}")


def _what(p: ProbeResult) -> str:
    if p.asked:
        if p.correct:
            return "answered"
        return f"answered {p.reply!r}" if p.reply else "no answer"
    return "in view" if p.available else "not in view"


def _probe_regressions(strategy: str, case: str, base: ProbeResult, cand: ProbeResult
                       ) -> list[Regression]:
    out: list[Regression] = []
    asked = base.asked and cand.asked
    passed_before = bool(base.correct) if asked else base.available
    passed_now = bool(cand.correct) if asked else cand.available
    if passed_before and not passed_now:
        category = ("lost_constraints" if base.category == "constraint"
                    else "repeated_tool_calls" if base.from_tool else "unanswered_questions")
        detail = (f"{base.fact}={base.expected}: baseline {_what(base)}, "
                  f"candidate {_what(cand)}")
        out.append(Regression(category, strategy, case, base.turn, base.fact, detail))
    if cand.use == "stale" and base.use != "stale":
        out.append(Regression("stale_as_current", strategy, case, base.turn, base.fact,
                              f"{base.fact}: the view presents a superseded value as current "
                              f"instead of {base.expected} (baseline: {base.use or 'unscored'})"))
    stale_before = base.stale or bool(base.answer_stale)
    stale_now = cand.stale or bool(cand.answer_stale)
    if stale_now and not stale_before:
        where = "answered" if cand.answer_stale else "in view"
        out.append(Regression("stale_values", strategy, case, base.turn, base.fact,
                              f"{base.fact}: a superseded value is {where} instead of "
                              f"{base.expected}"))
    return out


def _event_key(e: PressureEvent) -> tuple[int, str, str, str]:
    return (e.turn, e.fact, e.value, e.cause)


def _case_regressions(strategy: str, base: CaseResult, cand: CaseResult
                      ) -> tuple[list[Regression], int]:
    regressions: list[Regression] = []
    improvements = 0
    probes = {p.probe: p for p in base.probes}
    for p in cand.probes:
        before = probes.get(p.probe)
        if before is None:
            continue
        regressions += _probe_regressions(strategy, cand.case, before, p)
        improvements += int(not before.passed and p.passed)
    before = {u.fact: u for u in base.use}
    for u in cand.use:
        old = before.get(u.fact)
        if u.stale > (old.stale if old else 0):
            regressions.append(Regression(
                "stale_as_current", strategy, cand.case, u.first_stale_turn or 0, u.fact,
                f"{u.fact}: {u.stale_value} presented as current in {u.stale} of {u.calls} "
                f"model calls (baseline: {old.stale if old else 0})"))
    known = {_event_key(e) for e in base.pressure}
    for e in cand.pressure:
        if _event_key(e) not in known:
            regressions.append(Regression(
                "token_pressure_drops", strategy, cand.case, e.turn, e.fact,
                f"{e.fact}={e.value} cut by the {e.cause}: {e.tokens_before:,} -> "
                f"{e.tokens_after:,} tokens ({e.detail})"))
    return regressions, improvements


def compare(baseline: EvalRun, candidate: EvalRun, *,
            pairs: Mapping[str, str] | None = None) -> Comparison:
    """Compare ``candidate`` with ``baseline`` (see the module docstring).

    ``pairs`` maps baseline strategy names to candidate ones; by default strategies with
    the same name are paired, or the single strategies of two one-strategy runs.

    Raises:
        ValueError: when no strategies can be paired, or a named one is missing.
    """
    if not isinstance(baseline, EvalRun) or not isinstance(candidate, EvalRun):
        raise ValueError("compare needs two EvalRun objects (EvalRun.load(path) reads one)")
    result = Comparison(baseline.run_id, candidate.run_id, deltas=[])
    for b_name, c_name in _pairs(baseline, candidate, pairs):
        b_sum, c_sum = baseline.summary(b_name), candidate.summary(c_name)
        result.deltas.append(StrategyDelta(
            b_name, c_name, (b_sum.recall, c_sum.recall),
            (b_sum.answer_accuracy, c_sum.answer_accuracy),
            (b_sum.stale_as_current, c_sum.stale_as_current),
            (b_sum.token_ratio, c_sum.token_ratio),
            (b_sum.cost_per_100_turns, c_sum.cost_per_100_turns),
            (b_sum.pressure_events, c_sum.pressure_events),
            (b_sum.invalid_calls, c_sum.invalid_calls),
        ))
        label = b_name if b_name == c_name else f"{b_name} -> {c_name}"
        base_cases = {r.case: r for r in baseline.results_for(b_name)}
        for cand in candidate.results_for(c_name):
            base = base_cases.get(cand.case)
            if base is None:
                result.missing_cases += 1
                continue
            found, better = _case_regressions(label, base, cand)
            result.regressions += found
            result.improvements += better
    return result
