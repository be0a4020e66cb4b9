"""An evaluation run: its configuration, every case result, summaries, files on disk.

:class:`EvalRun` holds a run id, when it ran, the configuration (corpora, strategies,
model, price table, answer settings, ctxlab version) and one
:class:`~ctxlab.eval.metrics.CaseResult` per (case, strategy). :meth:`EvalRun.summaries`
aggregates them per strategy (:class:`StrategySummary`); :meth:`EvalRun.save` writes

* ``<run_id>.json``: everything (load it back with :meth:`EvalRun.load`; the compare step
  reads it);
* ``<run_id>.summary.csv``: one row per strategy;
* ``<run_id>.probes.csv``: one row per probe and strategy;
* ``<run_id>.turns.csv``: one row per turn and strategy (tokens).

Dollar figures are computed from token counts with the run's price table when summarized,
so editing :data:`ctxlab.course.costs.PRICES` (or the config's ``prices``) re-prices a saved run.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..course.costs import PRICES, Price, cost_usd
from .metrics import CaseResult

#: Format of the saved JSON (bumped on incompatible changes).
RESULTS_FORMAT = 1


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class StrategySummary:
    """One strategy over all cases of a run.

    ``recall`` is the share of probes whose value was in the view; ``current_rate`` the
    share of probes whose view presents the current value as current (use, not presence:
    :mod:`ctxlab.eval.use`); ``stale_as_current`` the share of model calls, over every fact
    with a history of values, whose view presents a superseded value as current;
    ``stale_rate`` the share of probes with a superseded value that saw the stale value
    instead of the current one;
    ``answer_accuracy`` the share of asked probes answered correctly (None when none was
    asked). ``input_tokens`` counts every model call's input: the agent's and the
    summarizer's (``summary_calls`` folds, ``summary_input_tokens`` of input and
    ``summary_output_tokens`` of output among them); ``token_ratio`` is every token the
    strategy spends (those inputs and the summaries written) over what the full history
    sends for the same agent calls, and ``cost_usd`` prices the inputs and the summaries'
    output (the agent's own replies are the same for every strategy and left out).
    ``repeated_tool_calls`` counts probes about a value that came from a tool
    output and was lost (the agent would have to call the tool again), plus tool calls the
    agent made while answering. Latency figures are per operation, in milliseconds.
    """

    strategy: str
    label: str
    cases: int
    turns: int
    calls: int
    probes: int
    available: int
    stale_probes: int
    stale_errors: int
    answer_probes: int
    answers_correct: int
    stale_answers: int
    input_tokens: int
    full_tokens: int
    cost_usd: float
    invalid_calls: int
    pressure_events: int
    repeated_tool_calls: int
    over_budget: int
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    current_probes: int = 0
    summary_calls: int = 0
    summary_input_tokens: int = 0
    summary_output_tokens: int = 0
    use_calls: int = 0
    use_current: int = 0
    use_stale: int = 0
    use_missing: int = 0

    @property
    def recall(self) -> float | None:
        return _rate(self.available, self.probes)

    @property
    def current_rate(self) -> float | None:
        return _rate(self.current_probes, self.probes)

    @property
    def stale_as_current(self) -> float | None:
        return _rate(self.use_stale, self.use_calls)

    @property
    def stale_rate(self) -> float | None:
        return _rate(self.stale_errors, self.stale_probes)

    @property
    def answer_accuracy(self) -> float | None:
        return _rate(self.answers_correct, self.answer_probes)

    @property
    def spent_tokens(self) -> int:
        """Every token the strategy costs: model-call inputs and the summaries written."""
        return self.input_tokens + self.summary_output_tokens

    @property
    def token_ratio(self) -> float | None:
        return _rate(self.spent_tokens, self.full_tokens)

    @property
    def cost_per_100_turns(self) -> float:
        return 100 * self.cost_usd / self.turns if self.turns else 0.0

    def to_row(self) -> dict[str, Any]:
        """A flat record (for CSV and DataFrames): counts, rates and latency percentiles."""
        row = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "latency_ms"}
        row.update(recall=self.recall, current_rate=self.current_rate,
                   stale_as_current=self.stale_as_current, stale_rate=self.stale_rate,
                   answer_accuracy=self.answer_accuracy, token_ratio=self.token_ratio,
                   cost_per_100_turns=self.cost_per_100_turns)
        for op, stats in self.latency_ms.items():
            for key, value in stats.items():
                row[f"{op}_{key}_ms"] = value
        return row


def summarize_results(results: Iterable[CaseResult], *, strategy: str, label: str = "",
                      model: str = "gpt-4.1-mini",
                      prices: Mapping[str, Price] | None = None) -> StrategySummary:
    """Aggregate one strategy's case results (``model``/``prices`` price the tokens)."""
    chosen = [r for r in results if r.strategy == strategy]
    summary_in = sum(r.summary_input_tokens for r in chosen)
    summary_out = sum(r.summary_output_tokens for r in chosen)
    tokens = sum(r.tokens for r in chosen) + summary_in
    return StrategySummary(
        strategy=strategy, label=label or strategy, cases=len(chosen),
        input_tokens=tokens, cost_usd=cost_usd(tokens, summary_out, model, prices),
        latency_ms=_latency(chosen), summary_input_tokens=summary_in,
        summary_output_tokens=summary_out,
        **_case_totals(chosen), **_probe_totals(chosen), **_use_totals(chosen),
    )


def _latency(chosen: Sequence[CaseResult]) -> dict[str, dict[str, float]]:
    """Per operation: mean, median, 95th percentile and maximum milliseconds."""
    samples: dict[str, list[float]] = {}
    for r in chosen:
        for op, values in r.latency_ms.items():
            samples.setdefault(op, []).extend(values)
    return {
        op: {"mean": round(sum(v) / len(v), 4), "p50": round(_percentile(v, 0.5), 4),
             "p95": round(_percentile(v, 0.95), 4), "max": round(max(v), 4)}
        for op, v in samples.items() if v
    }


def _case_totals(chosen: Sequence[CaseResult]) -> dict[str, int]:
    return {
        "turns": sum(r.n_turns for r in chosen), "calls": sum(r.calls for r in chosen),
        "full_tokens": sum(r.full_tokens for r in chosen),
        "invalid_calls": sum(r.invalid_calls for r in chosen),
        "pressure_events": sum(len(r.pressure) for r in chosen),
        "over_budget": sum(r.over_budget for r in chosen),
        "summary_calls": sum(r.summary_calls for r in chosen),
    }


def _probe_totals(chosen: Sequence[CaseResult]) -> dict[str, int]:
    probes = [p for r in chosen for p in r.probes]
    asked = [p for p in probes if p.asked]
    return {
        "probes": len(probes), "available": sum(p.available for p in probes),
        "stale_probes": sum(1 for p in probes if p.superseded),
        "stale_errors": sum(p.stale for p in probes),
        "answer_probes": len(asked), "answers_correct": sum(bool(p.correct) for p in asked),
        "stale_answers": sum(bool(p.answer_stale) for p in asked),
        "repeated_tool_calls": sum(1 for p in probes if p.from_tool and not p.passed)
        + sum(p.tool_calls for p in asked),
        "current_probes": sum(1 for p in probes if p.use == "current"),
    }


def _use_totals(chosen: Sequence[CaseResult]) -> dict[str, int]:
    uses = [u for r in chosen for u in r.use]
    return {
        "use_calls": sum(u.calls for u in uses), "use_current": sum(u.current for u in uses),
        "use_stale": sum(u.stale for u in uses), "use_missing": sum(u.missing for u in uses),
    }


@dataclass
class EvalRun:
    """A whole evaluation (see the module docstring)."""

    run_id: str
    created_at: str
    config: dict[str, Any]
    results: list[CaseResult]
    labels: dict[str, str] = field(default_factory=dict)

    # -- reading ---------------------------------------------------------------------
    @property
    def strategies(self) -> list[str]:
        """Strategy names in the order they were evaluated."""
        seen: dict[str, None] = {}
        for name in self.config.get("strategies", []):
            seen.setdefault(name, None)
        for r in self.results:
            seen.setdefault(r.strategy, None)
        return list(seen)

    @property
    def model(self) -> str:
        return str(self.config.get("price_model", "gpt-4.1-mini"))

    def price_table(self) -> dict[str, Price]:
        """The run's prices (the config's table over :data:`ctxlab.course.costs.PRICES`)."""
        table = dict(PRICES)
        for name, value in (self.config.get("prices") or {}).items():
            table[name] = Price(float(value["input"]), float(value["output"]))
        return table

    def results_for(self, strategy: str) -> list[CaseResult]:
        return [r for r in self.results if r.strategy == strategy]

    def subset(self, *, sources: Iterable[str] | None = None,
               cases: Iterable[str] | None = None,
               strategies: Iterable[str] | None = None) -> EvalRun:
        """The same run restricted to some corpora (``sources`` such as ``"planted"``,
        ``"tau_bench_airline"``), case ids or strategy names."""
        keep_sources = None if sources is None else set(sources)
        keep_cases = None if cases is None else set(cases)
        keep_strategies = None if strategies is None else list(strategies)
        chosen = [
            r for r in self.results
            if (keep_sources is None or r.source in keep_sources)
            and (keep_cases is None or r.case in keep_cases)
            and (keep_strategies is None or r.strategy in keep_strategies)
        ]
        if not chosen:
            raise ValueError("the subset is empty: no result matches those sources, cases or "
                             "strategies")
        config = dict(self.config)
        if keep_strategies is not None:
            config["strategies"] = [n for n in self.strategies if n in keep_strategies]
        return EvalRun(self.run_id, self.created_at, config, chosen, dict(self.labels))

    def summary(self, strategy: str) -> StrategySummary:
        """The :class:`StrategySummary` of one strategy (KeyError if it was not run)."""
        if strategy not in self.strategies:
            raise KeyError(f"run {self.run_id!r} has no strategy {strategy!r}; it has "
                           f"{', '.join(self.strategies)}")
        return summarize_results(self.results, strategy=strategy,
                                 label=self.labels.get(strategy, strategy), model=self.model,
                                 prices=self.price_table())

    def summaries(self) -> list[StrategySummary]:
        return [self.summary(name) for name in self.strategies]

    def survival(self, by: str = "category") -> dict[str, dict[str, tuple[int, int]]]:
        """For each strategy: ``{group: (available, probes)}``, grouped by a probe field
        (``category``, ``fact``, ``turn``) or ``origin`` (tool output vs user)."""
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for name in self.strategies:
            groups: dict[str, list[int]] = {}
            for r in self.results_for(name):
                for p in r.probes:
                    if by == "origin":
                        key = "tool output" if p.from_tool else "conversation"
                    elif by in ("category", "fact", "turn"):
                        key = str(getattr(p, by))
                    else:
                        raise ValueError(f"by must be category, fact, turn or origin; got {by!r}")
                    counts = groups.setdefault(key, [0, 0])
                    counts[0] += p.available
                    counts[1] += 1
            out[name] = {k: (v[0], v[1]) for k, v in sorted(groups.items())}
        return out

    def use_survival(self, by: str = "category") -> dict[str, dict[str, tuple[int, int, int]]]:
        """For each strategy: ``{group: (current, stale, probes)}``: probes whose view
        presents the current value as current, a superseded one, and all probes, grouped as
        in :meth:`survival`."""
        out: dict[str, dict[str, tuple[int, int, int]]] = {}
        for name in self.strategies:
            groups: dict[str, list[int]] = {}
            for r in self.results_for(name):
                for p in r.probes:
                    if by == "origin":
                        key = "tool output" if p.from_tool else "conversation"
                    elif by in ("category", "fact", "turn"):
                        key = str(getattr(p, by))
                    else:
                        raise ValueError(f"by must be category, fact, turn or origin; got {by!r}")
                    counts = groups.setdefault(key, [0, 0, 0])
                    counts[0] += p.use == "current"
                    counts[1] += p.use == "stale"
                    counts[2] += 1
            out[name] = {k: (v[0], v[1], v[2]) for k, v in sorted(groups.items())}
        return out

    # -- writing ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RESULTS_FORMAT, "run_id": self.run_id, "created_at": self.created_at,
            "config": self.config, "labels": self.labels,
            "summary": [s.to_row() for s in self.summaries()],
            "results": [r.to_dict() for r in self.results],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalRun:
        if not isinstance(data, Mapping) or "run_id" not in data or "results" not in data:
            raise ValueError("not a ctxlab evaluation run (no run_id/results)")
        if data.get("format", RESULTS_FORMAT) > RESULTS_FORMAT:
            raise ValueError(f"results format {data['format']} is newer than this ctxlab "
                             f"understands ({RESULTS_FORMAT}); upgrade ctxlab")
        return cls(
            run_id=str(data["run_id"]), created_at=str(data.get("created_at", "")),
            config=dict(data.get("config", {})),
            results=[CaseResult.from_dict(r) for r in data["results"]],
            labels=dict(data.get("labels", {})),
        )

    def save(self, folder: str | os.PathLike[str]) -> dict[str, Path]:
        """Write the JSON and CSV files into ``folder`` (created if needed); returns their
        paths by kind (``json``, ``summary``, ``probes``, ``turns``)."""
        base = Path(folder)
        base.mkdir(parents=True, exist_ok=True)
        paths = {kind: base / f"{self.run_id}.{kind}.csv" for kind in ("summary", "probes",
                                                                      "turns")}
        paths = {"json": base / f"{self.run_id}.json", **paths}
        paths["json"].write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False),
                                 encoding="utf-8")
        _write_csv(paths["summary"], [s.to_row() for s in self.summaries()])
        _write_csv(paths["probes"], [
            {"case": r.case, "strategy": r.strategy,
             **{k: v for k, v in asdict(p).items() if k != "reply"}}
            for r in self.results for p in r.probes
        ])
        _write_csv(paths["turns"], [
            {"case": r.case, "strategy": r.strategy, **asdict(t)}
            for r in self.results for t in r.turns
        ])
        return paths

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EvalRun:
        """Read a run saved by :meth:`save` (the ``.json`` file).

        Raises:
            ValueError: naming the file, when it is missing, not JSON, or not a run.
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot read results file {os.fspath(path)!r}: "
                             f"{exc.strerror or exc}") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{os.fspath(path)}: not valid JSON (line {exc.lineno}): "
                             f"{exc.msg}") from exc
        try:
            return cls.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{os.fspath(path)}: not a ctxlab evaluation run: {exc}") from exc


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns: dict[str, None] = {}
    for row in rows:
        for key in row:
            columns.setdefault(key, None)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def new_run_id(config: Mapping[str, Any], when: datetime | None = None) -> str:
    """``YYYYmmdd-HHMMSS-<8 hex of the config>``: sortable, and different configs differ."""
    when = when or datetime.now(timezone.utc)
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    return f"{when:%Y%m%d-%H%M%S}-{digest.hexdigest()[:8]}"
