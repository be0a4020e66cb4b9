"""Fixed-width text tables for evaluation results (stable output for notebooks and the CLI)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.display import display_width, grid, pad, wrap_lines
from ..core.items import preview
from .cases import EvalCase
from .results import EvalRun, StrategySummary

if TYPE_CHECKING:
    from .compare import Comparison

#: Columns :func:`summary_table` can show, with their headings and formats.
SUMMARY_COLUMNS: dict[str, tuple[str, str]] = {
    "recall": ("recall", "pct"),
    "current": ("current", "pct"),
    "stale_as_current": ("stale-as-current", "pct"),
    "stale": ("stale", "ratio"),
    "answers": ("answers", "answers"),
    "tokens": ("tokens", "int"),
    "token_ratio": ("vs full", "pct"),
    "cost": ("$/100 turns", "money"),
    "invalid": ("invalid", "int"),
    "pressure": ("pressure", "int"),
    "repeated": ("re-calls", "int"),
    "latency": ("p95 ms", "ms"),
}
DEFAULT_COLUMNS: tuple[str, ...] = ("recall", "current", "stale_as_current", "answers",
                                    "token_ratio", "cost", "invalid", "pressure")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _cell(summary: StrategySummary, column: str) -> str:
    if column == "recall":
        return _pct(summary.recall)
    if column == "current":
        return _pct(summary.current_rate)
    if column == "stale_as_current":
        return _pct(summary.stale_as_current)
    if column == "stale":
        return f"{summary.stale_errors}/{summary.stale_probes}" if summary.stale_probes else "-"
    if column == "answers":
        if not summary.answer_probes:
            return "-"
        return f"{summary.answers_correct}/{summary.answer_probes}"
    if column == "tokens":
        return f"{summary.input_tokens:,}"
    if column == "token_ratio":
        return _pct(summary.token_ratio)
    if column == "cost":
        return f"{summary.cost_per_100_turns:.4f}"
    if column == "invalid":
        return str(summary.invalid_calls)
    if column == "pressure":
        return str(summary.pressure_events)
    if column == "repeated":
        return str(summary.repeated_tool_calls)
    if column == "latency":
        ops = summary.latency_ms
        worst = max((stats["p95"] for stats in ops.values()), default=0.0)
        return f"{worst:.2f}"
    raise ValueError(f"unknown column {column!r}; choose from {', '.join(SUMMARY_COLUMNS)}")


def summary_table(run: EvalRun | Sequence[StrategySummary],
                  columns: Sequence[str] = DEFAULT_COLUMNS) -> str:
    """One row per strategy. Columns (see :data:`SUMMARY_COLUMNS`): recall (probed values in
    view), current (probes whose view presents the current value as current),
    stale-as-current (model calls whose view presents a superseded value as current, over
    every fact with a history), stale (stale errors / probes with a superseded value),
    answers (correct / asked),
    tokens, vs full (token ratio), $/100 turns, invalid views, pressure events, re-calls
    (repeated tool calls), p95 ms (slowest operation's p95; nondeterministic)."""
    summaries = run.summaries() if isinstance(run, EvalRun) else list(run)
    for c in columns:
        if c not in SUMMARY_COLUMNS:
            raise ValueError(f"unknown column {c!r}; choose from {', '.join(SUMMARY_COLUMNS)}")
    heads = ["strategy", *(SUMMARY_COLUMNS[c][0] for c in columns)]
    rows = [[s.label, *(_cell(s, c) for c in columns)] for s in summaries]
    return "\n".join(grid(heads, rows, ["<", *(">" * len(columns))],
                          widths=[8] + [0] * len(columns)))


def corpora_table(runs: Mapping[str, EvalRun | Sequence[StrategySummary]],
                  columns: Sequence[str] = ("current", "stale_as_current", "answers")) -> str:
    """One row per strategy, a group of ``columns`` (see :data:`SUMMARY_COLUMNS`) per corpus:
    ``runs`` maps a corpus name ("planted", "zh") to its run. Strategies are listed in the
    first run's order; a strategy a run lacks shows "-"."""
    for c in columns:
        if c not in SUMMARY_COLUMNS:
            raise ValueError(f"unknown column {c!r}; choose from {', '.join(SUMMARY_COLUMNS)}")
    if not runs:
        raise ValueError("corpora_table needs at least one run")
    tables = {name: {s.strategy: s for s in (run.summaries() if isinstance(run, EvalRun)
                                              else list(run))}
              for name, run in runs.items()}
    order: dict[str, str] = {}
    for table in tables.values():
        for strategy, summary in table.items():
            order.setdefault(strategy, summary.label)
    return _render_corpora(tables, order, columns)


def _render_corpora(tables: Mapping[str, Mapping[str, StrategySummary]],
                    order: Mapping[str, str], columns: Sequence[str]) -> str:
    """:func:`corpora_table`'s text: a group of ``columns`` per corpus, a row per strategy
    of ``order`` (its label), "-" where a corpus lacks it."""
    heads = [SUMMARY_COLUMNS[c][0] for c in columns]

    def cell(name: str, strategy: str, column: str) -> str:
        summary = tables[name].get(strategy)
        return _cell(summary, column) if summary is not None else "-"

    sizes = {name: [max(len(h), *(len(cell(name, s, c)) for s in order))
                    for h, c in zip(heads, columns, strict=True)] for name in tables}
    width = max([8, *(display_width(label) for label in order.values())])
    groups = {name: "  ".join(f"{h:>{n}}" for h, n in zip(heads, sizes[name], strict=True))
              for name in tables}
    top = f"{'':<{width}}  " + " | ".join(pad(name, len(groups[name]), "^") for name in tables)
    lines = [top, f"{'strategy':<{width}}  " + " | ".join(groups.values())]
    lines.append("-" * len(lines[1]))
    for strategy, label in order.items():
        lines.append(f"{pad(label, width)}  " + " | ".join(
            "  ".join(f"{cell(name, strategy, c):>{n}}"
                      for c, n in zip(columns, sizes[name], strict=True))
            for name in tables))
    return "\n".join(lines)


def latency_table(run: EvalRun) -> str:
    """Per strategy and operation: calls, mean and p95 milliseconds (varies run to run)."""
    lines = [f"{'strategy':<28} {'operation':<10} {'calls':>6} {'mean ms':>8} {'p95 ms':>8}"]
    for s in run.summaries():
        for op, stats in s.latency_ms.items():
            calls = sum(len(r.latency_ms.get(op, ())) for r in run.results_for(s.strategy))
            lines.append(f"{pad(s.label, 28)} {op:<10} {calls:>6} {stats['mean']:>8.3f} "
                         f"{stats['p95']:>8.3f}")
    return "\n".join(lines)


def survival_table(run: EvalRun, by: str = "category", *, measure: str = "recall") -> str:
    """Per group (rows) and strategy (columns): the share of probes whose value was in view
    (``measure="recall"``) or presented as current (``measure="current"``); a cell adds how
    many probes saw a superseded value presented as current ("2 stale")."""
    if measure not in ("recall", "current"):
        raise ValueError(f"measure must be 'recall' or 'current', got {measure!r}")
    survival = run.survival(by)
    used = run.use_survival(by)
    names = run.strategies
    labels = [run.labels.get(n, n) for n in names]
    groups = sorted({g for per in survival.values() for g in per})
    rows = []
    for group in groups:
        cells = []
        for name in names:
            kept, total = survival[name].get(group, (0, 0))
            current, stale, _ = used[name].get(group, (0, 0, 0))
            value = kept if measure == "recall" else current
            cell = f"{value / total:.0%} of {total}" if total else "-"
            cells.append(cell + (f", {stale} stale" if stale else ""))
        rows.append(cells)
    lines = grid([by, *labels], [[g, *cells] for g, cells in zip(groups, rows, strict=True)],
                 ["<", *(">" * len(labels))], widths=[5] + [9] * len(labels))
    return "\n".join(lines)


def pressure_table(run: EvalRun, strategy: str | None = None, limit: int = 8) -> str:
    """The token-pressure events (turn, fact, cause, tokens before -> after), first ``limit``."""
    rows = [(r.case, r.strategy, e) for r in run.results for e in r.pressure
            if strategy is None or r.strategy == strategy]
    if not rows:
        return "no pinned fact was cut by a token budget"
    lines = [f"{'case':<22} {'turn':>4}  {'fact':<20} {'cause':<14} {'tokens before -> after':>24}"]
    for case, _, e in rows[:limit]:
        lines.append(f"{pad(preview(case, 22), 22)} {e.turn:>4}  {pad(preview(e.fact, 20), 20)} "
                     f"{e.cause:<14} {f'{e.tokens_before:,} -> {e.tokens_after:,}':>24}")
    if len(rows) > limit:
        lines.append(f"... and {len(rows) - limit} more")
    return "\n".join(lines)


def answer_key_table(case: EvalCase, width: int = 28) -> str:
    """The case's answer key: fact, value (cut to ``width`` columns), first turn, where,
    and what superseded it; columns as wide as their widest cell."""
    rows = []
    for f in sorted(case.facts, key=lambda f: (f.first_item or -1)):
        turn = "-" if f.first_turn is None else str(f.first_turn)
        later = f"{f.superseded_by} (turn {f.superseded_turn})" if f.superseded_by else ""
        rows.append([preview(f.name, 22), preview(f.value, width), turn, f.where or "-", later])
    return "\n".join(grid(["fact", "value", "turn", "where", "superseded by"], rows,
                          ["<", "<", ">", "<", "<"], gap=1, rule=False,
                          widths=[0, 0, 4, 0, 13]))


def comparison_table(comparison: Comparison, max_rows: int = 5) -> str:
    """Headline deltas per strategy pair, then regressions by category (``max_rows`` each),
    wrapped at spaces to fit a notebook line."""
    from .compare import REGRESSION_CATEGORIES

    lines = [f"baseline {comparison.baseline_id} vs candidate {comparison.candidate_id}"]
    for d in comparison.deltas:
        name = d.baseline if d.baseline == d.candidate else f"{d.baseline} -> {d.candidate}"
        lines.append(
            f"  {name}: recall {_pct(d.recall[0])} -> {_pct(d.recall[1])}, stale-as-current "
            f"{_pct(d.stale_as_current[0])} -> {_pct(d.stale_as_current[1])}, answers "
            f"{_pct(d.answer_accuracy[0])} -> {_pct(d.answer_accuracy[1])}, tokens vs full "
            f"{_pct(d.token_ratio[0])} -> {_pct(d.token_ratio[1])}, $/100 turns "
            f"{d.cost_per_100_turns[0]:.4f} -> {d.cost_per_100_turns[1]:.4f}")
    counts = comparison.counts()
    total = sum(counts.values())
    lines.append(f"{total} regression(s), {comparison.improvements} improvement(s)"
                 + (f"; {comparison.missing_cases} candidate case(s) missing from the baseline"
                    if comparison.missing_cases else ""))
    for category, items in comparison.by_category().items():
        if not items:
            continue
        lines.append(f"\n{REGRESSION_CATEGORIES.get(category, category)}: {len(items)}")
        for r in items[:max_rows]:
            lines.append(f"  {preview(r.case, 24)} turn {r.turn}: {r.detail}")
        if len(items) > max_rows:
            lines.append(f"  ... and {len(items) - max_rows} more")
    return wrap_lines("\n".join(lines))
