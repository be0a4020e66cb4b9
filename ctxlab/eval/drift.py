"""Summary drift, measured: how much a summary that errs from fold to fold costs the agent,
and what each remedy wins back.

A :class:`~ctxlab.course.drifting.DriftingSummarizer` makes seeded mistakes (a paraphrased
identifier, two problems merged, a request turned into a question) that later folds carry
forward. :func:`drift_report` evaluates planted conversations with it in four variants:

* ``drifting``: the mistakes, silent;
* ``+ markers``: each mistake marked ``[uncertain]`` (:mod:`ctxlab.summarizers.doubts`): the
  agent asks the customer to confirm instead of stating a wrong value, and a later turn
  that mentions the value settles it;
* ``+ rebuild every N``: every ``N``-th fold summarizes everything folded again from the raw
  log instead of extending the previous summary (the session's ``rebuild_every=N``; the same
  fold :meth:`ctxlab.SummarizingSession.rebuild_summary` makes on demand), so only one
  fold's worth of drift survives a rebuild; it costs no extra call, but that fold reads
  every folded turn;
* ``+ both``;

next to the exact extractive summarizer, and reports per variant: facts presented as
current, superseded values presented as current, and how the agent answered the probes:
correctly, by asking to confirm an uncertain value, by stating a wrong value, or not at all.
Every summarizer call (a rebuild fold reading the whole raw log included) is counted in the
tokens (``vs full``).
``python -m ctxlab drift`` prints the same table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents import Agent

from ..core.display import NOTEBOOK_COLUMNS, display_width, pad, wrap
from ..course.drifting import DriftingSummarizer
from ..facts.typed import ALL_FACT_KINDS, facts_in_text
from ..sessions import SummarizingSession
from ..summarizers import ExtractiveSummarizer
from ..summarizers.metered import MeteredSummarizer
from .cases import EvalCase
from .evaluate import evaluate
from .metrics import ProbeResult
from .results import EvalRun, StrategySummary
from .strategies import Strategy

#: How a reply says a value is uncertain (:data:`ctxlab.course.offline.replies.UNSURE`).
UNSURE_CUES = ("marked as uncertain", "could you confirm", "待确认")


@dataclass(frozen=True)
class DriftVariant:
    """One summarizer setup: drifting or exact, with or without markers and rebuilds."""

    name: str
    label: str
    drifting: bool = True
    markers: bool = False
    rebuild_every: int | None = None


def drift_variants(every: int = 3) -> tuple[DriftVariant, ...]:
    """The exact summarizer, the drifting one, and the drifting one with each remedy."""
    return (
        DriftVariant("exact", "exact (ExtractiveSummarizer)", drifting=False),
        DriftVariant("drifting", "drifting"),
        DriftVariant("markers", "drifting + [uncertain] markers", markers=True),
        DriftVariant("rebuild", f"drifting + rebuild every {every} folds", rebuild_every=every),
        DriftVariant("both", f"drifting + markers + rebuild every {every}", markers=True,
                     rebuild_every=every),
    )


def drift_strategy(variant: DriftVariant, *, keep: int = 2, limit: int = 4, rate: float = 0.5,
                   seed: int = 0) -> Strategy:
    """The :class:`~ctxlab.eval.Strategy` of a variant (``summarize:K/L`` with its summarizer)."""

    def make(session_id: str) -> Any:
        inner = (DriftingSummarizer(rate=rate, seed=seed, markers=variant.markers)
                 if variant.drifting else ExtractiveSummarizer())
        return SummarizingSession(keep_last_n_turns=keep, context_limit=limit,
                                  summarizer=MeteredSummarizer(inner), session_id=session_id,
                                  rebuild_every=variant.rebuild_every)

    return Strategy(f"summarize:{keep}/{limit} ({variant.name})", make, label=variant.label,
                    params={"base": f"summarize:{keep}/{limit}", "keep_last_n_turns": keep,
                            "context_limit": limit, "drift": variant.name})


def answer_kind(probe: ProbeResult) -> str:
    """``correct``, ``unsure`` (asks to confirm), ``wrong`` (states another value of the
    kind) or ``missing`` (states none) for an asked probe."""
    reply = probe.reply or ""
    if any(cue in reply for cue in UNSURE_CUES):
        return "unsure"
    if probe.correct:
        return "correct"
    kinds = [probe.category] if probe.category in ALL_FACT_KINDS else []
    if kinds and facts_in_text(reply, kinds=kinds):
        return "wrong"
    return "missing"


@dataclass(frozen=True)
class DriftRow:
    """One variant's figures (see :func:`drift_report`)."""

    label: str
    summary: StrategySummary
    answers: dict[str, int]

    @property
    def asked(self) -> int:
        return sum(self.answers.values())


@dataclass(frozen=True)
class DriftReport:
    """The variants' figures and the run they come from."""

    rows: list[DriftRow]
    run: EvalRun
    rate: float
    seed: int

    def row(self, name: str) -> DriftRow:
        for row, strategy in zip(self.rows, self.run.strategies, strict=True):
            if strategy.endswith(f"({name})"):
                return row
        raise KeyError(f"no variant {name!r}")

    def table(self) -> str:
        """One row per variant: current, stale-as-current, answers by kind, folds, vs full."""
        width = max(8, *(display_width(r.label) for r in self.rows))
        head = (f"{'summarizer':<{width}}  {'current':>7}  {'stale':>5}  {'correct':>7}  "
                f"{'confirm':>7}  {'wrong':>5}  {'none':>4}  {'calls':>5}  {'vs full':>7}")
        lines = [head, "-" * len(head)]
        for row in self.rows:
            s, a = row.summary, row.answers
            lines.append(
                f"{pad(row.label, width)}  {s.current_rate or 0:>7.1%}  {s.use_stale:>5}  "
                f"{a['correct']:>7}  {a['unsure']:>7}  {a['wrong']:>5}  {a['missing']:>4}  "
                f"{s.summary_calls:>5}  {s.token_ratio or 0:>7.1%}")
        legend = (f"drift: rate {self.rate} per fold, seed {self.seed}; current = probed "
                  "facts the view presents as current; stale = model calls presenting a "
                  "superseded value as current; answers to the "
                  f"{self.rows[0].asked} asked probes: correct, asks to confirm, states a "
                  "wrong value, states none; calls = summarizer calls (a rebuild is a "
                  "fold that reads the raw log), counted in vs full")
        # wrapped at spaces: a notebook's output area breaks an over-long line anywhere,
        # even inside a word ("superse|ded")
        lines += wrap(legend, max(len(lines[0]), NOTEBOOK_COLUMNS))
        return "\n".join(lines)


async def drift_report(cases: Sequence[EvalCase], *, rate: float = 0.5, seed: int = 0,
                       keep: int = 2, limit: int = 4, every: int = 3,
                       agent: Agent[Any] | None = None, run_id: str = "drift") -> DriftReport:
    """Evaluate ``cases`` with every :func:`drift_variants` variant (answers included)."""
    variants = drift_variants(every)
    strategies = [drift_strategy(v, keep=keep, limit=limit, rate=rate, seed=seed)
                  for v in variants]
    run = await evaluate(list(cases), strategies, agent=agent, max_answer_probes=None,
                         run_id=run_id)
    rows = []
    for strategy in strategies:
        summary = run.summary(strategy.name)
        kinds = dict.fromkeys(("correct", "unsure", "wrong", "missing"), 0)
        for result in run.results_for(strategy.name):
            for probe in result.probes:
                if probe.asked:
                    kinds[answer_kind(probe)] += 1
        rows.append(DriftRow(strategy.title, summary, kinds))
    return DriftReport(rows, run, rate, seed)


@dataclass(frozen=True)
class FoldCheck:
    """After one fold: the last folded turn, and how many facts of the answer key that the
    folded turns established (and still current then) the summary does not present as
    current."""

    fold: int
    turn: int
    wrong: int
    facts: int


async def drift_over_folds(case: EvalCase, summarizer: Any, *, keep: int = 2,
                           limit: int = 4) -> list[FoldCheck]:
    """Feed ``case`` into a ``summarize:K/L`` session with ``summarizer`` the way the Runner
    stores it and check the summary after every fold against the answer key."""
    from .replay import runner_batches

    session = SummarizingSession(keep_last_n_turns=keep, context_limit=limit,
                                 summarizer=summarizer, session_id=f"drift-{case.id}")
    checks: list[FoldCheck] = []
    for batch in runner_batches(case.items):
        before = session.summaries_applied
        await session.add_items(batch)
        if session.summaries_applied == before or session.summary is None:
            continue
        last = session.summary.turns[1]
        wrong, due = wrong_in_summary(case, session.summary.text, last)
        checks.append(FoldCheck(session.summaries_applied, last, wrong, due))
    return checks


def wrong_in_summary(case: EvalCase, text: str, last_turn: int) -> tuple[int, int]:
    """(wrong, facts): of the answer-key facts established by ``last_turn`` and current
    then, how many ``text`` does not present as current (:mod:`ctxlab.eval.use`)."""
    from .use import read_use

    due = [f for f in case.facts if f.first_turn is not None and f.first_turn <= last_turn
           and f.current_at(last_turn)]
    wrong = 0
    for fact in due:
        older = [f for f in case.facts if f.name == fact.name and f.value != fact.value]
        if read_use(text, fact, older).use != "current":
            wrong += 1
    return wrong, len(due)
