"""``python -m ctxlab``: evaluate memory strategies, replay your own log, compare runs.

Commands::

    python -m ctxlab eval --corpus tau --corpus planted:24 --strategy trim:8 \\
        --strategy summarize:2/4 --out results/
    python -m ctxlab replay chat.jsonl --strategy trim:4 --strategy summarize:2/4
    python -m ctxlab compare results/BASELINE.json results/CANDIDATE.json
    python -m ctxlab drift --corpus planted:6:30-50 --rate 0.5 --every 3
    python -m ctxlab strategies
    python -m ctxlab eval-handoffs | eval-sessions | eval-preload   (ctxlab.eval.beyond_cli)

Every command explains its options with ``--help``. Everything runs offline unless an API
key (or ``OPENAI_BASE_URL``) is set, in which case answer probes go to the real model.
Errors in the input (an unknown strategy, an unreadable file) are reported in one line and
the exit status is 2; ``compare --fail-on-regression`` exits 1 when it finds regressions.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

EPILOG_STRATEGIES = """\
strategy specs:
  SPEC := [BASE] ('+' ADDON)*          no BASE means full
  full                                 keep every item (the baseline)
  trim:N[@T]                           the last N user turns (and at most T tokens)
  summarize:K/L                        past L turns, fold all but the last K into a summary
  +budget:T                            a hard token budget for each model call
  +state                               a structured state message, kept up to date
  +recall[:K]                          bring back evicted turns that match the new input
  +compact                             older bulky tool outputs as compact previews
  e.g. trim:8, summarize:2/4, budget:3000, trim:4+state, trim:6+state+recall+budget:3000
"""

EPILOG_CORPORA = """\
corpora:
  tau[:N]                              tau-bench airline transcripts (200, or the first N)
  abcd                                 3 ABCD customer-service chats
  seed                                 the course's 3 seed conversations
  zh                                   14 Chinese support chats written for ctxlab
  planted[:N[:MIN-MAX[:SEED]]]         planted-fact conversations (default planted:24:30-90:0)
  PATH                                 your own JSON/JSONL log (Responses items or Chat
                                       Completions messages)
"""


class CliError(Exception):
    """A problem with the user's input: printed in one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ctxlab",
        description="Evaluate the short-term memory of an Agents SDK agent: replay "
                    "conversations through memory strategies and measure what survives.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for add in (_add_eval, _add_replay, _add_compare, _add_drift):
        add(sub)

    from .eval.beyond_cli import add_commands

    add_commands(sub)  # eval-handoffs, eval-sessions, eval-preload
    sub.add_parser("strategies", help="list the strategy spec syntax and components",
                   description="List the strategy spec syntax and every registered component.")
    return parser


def _add_eval(sub: Any) -> None:
    ev = sub.add_parser(
        "eval", help="replay corpora through strategies; save and print the results",
        description="Replay every conversation of the corpora through every strategy, the "
                    "way the Agents SDK Runner writes items, and measure what survives: fact "
                    "recall, stale values, answers through the agent, tokens and cost, view "
                    "validity, token-pressure drops and latency. Results are saved as JSON and "
                    "CSV under --out, and a table is printed.",
        epilog=EPILOG_CORPORA + "\n" + EPILOG_STRATEGIES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("--corpus", action="append", metavar="SPEC",
                    help="a corpus to evaluate on (repeatable; default: tau)")
    ev.add_argument("--strategy", action="append", metavar="SPEC",
                    help="a memory strategy (repeatable; default: full, trim:8, summarize:2/4, "
                         "budget:3000, trim:4+state, trim:4+recall)")
    ev.add_argument("--out", default="eval-results", metavar="DIR",
                    help="folder for <run id>.json and .csv files (default: eval-results)")
    ev.add_argument("--run-id", metavar="ID",
                    help="name the run (default: UTC time and a hash of the configuration)")
    ev.add_argument("--no-answers", action="store_true",
                    help="measure availability only; do not ask probes through the agent")
    ev.add_argument("--answer-scope", choices=("offline-kinds", "all"), default="offline-kinds",
                    help="which probes to ask: those the offline model can recall (ticket, "
                         "serial, firmware, error code, email, order, RMA, reservation; in "
                         "Chinese also model, phone, date) with one right answer (default), "
                         "or all (for a real model)")
    ev.add_argument("--max-answer-probes", type=int, default=4, metavar="N",
                    help="ask at most the last N answer probes of each conversation "
                         "(default 4; 0 for none)")
    ev.add_argument("--price-model", default="gpt-4.1-mini", metavar="MODEL",
                    help="price tokens as this model's input (default gpt-4.1-mini; see "
                         "ctxlab.course.costs.PRICES)")
    ev.add_argument("--workers", type=int, default=1, metavar="N",
                    help="processes to spread the conversations over (offline only; default 1)")
    ev.add_argument("--llm-summaries", action="store_true",
                    help="summarize with the configured real model instead of the offline "
                         "extractive summarizer (costs model calls)")
    ev.add_argument("--judge", action="store_true",
                    help="score the final summaries with an LLM judge (needs a real model; "
                         "offline it says it is skipped)")
    ev.add_argument("--latency", action="store_true",
                    help="also print per-operation latency (varies from run to run)")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_replay(sub: Any) -> None:
    rp = sub.add_parser(
        "replay", help="show what each turn's model call would contain, for your own log",
        description="Replay a conversation log (JSON or JSONL; Responses items or Chat "
                    "Completions messages) through strategies and print, for every user turn, "
                    "the items the model call would contain and their tokens, next to what "
                    "the full history would send. Typed facts found in the log (tickets, "
                    "serials, emails, ...) are checked after the last turn.",
        epilog=EPILOG_STRATEGIES, formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("file", help="the conversation log")
    rp.add_argument("--strategy", action="append", metavar="SPEC",
                    help="a memory strategy (repeatable; default: trim:8)")
    rp.add_argument("--turn", type=int, action="append", metavar="N",
                    help="only show turn N (repeatable; default: every turn)")
    rp.add_argument("--tool-calls", action="store_true",
                    help="also show the model calls inside each turn's tool loop")
    rp.add_argument("--brief", action="store_true",
                    help="one line per model call instead of its items")
    rp.add_argument("--width", type=int, default=90, metavar="W",
                    help="characters of item text shown per line (default 90)")
    rp.add_argument("--instructions", metavar="FILE",
                    help="a text file with your agent's instructions, counted in every call "
                         "(default: none)")


def _add_compare(sub: Any) -> None:
    cp = sub.add_parser(
        "compare", help="list regressions of a candidate run against a baseline run",
        description="Compare two saved runs (the .json files `eval` writes): headline deltas "
                    "per strategy, then every regression by category: unanswered questions, "
                    "repeated tool calls, lost constraints, stale values, token-pressure drops.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    cp.add_argument("baseline", help="the baseline run's .json file")
    cp.add_argument("candidate", help="the candidate run's .json file")
    cp.add_argument("--pair", action="append", metavar="BASE=CAND",
                    help="compare baseline strategy BASE with candidate strategy CAND "
                         "(repeatable; default: strategies with the same name)")
    cp.add_argument("--max-rows", type=int, default=10, metavar="N",
                    help="regressions listed per category (default 10)")
    cp.add_argument("--fail-on-regression", action="store_true",
                    help="exit with status 1 when there is any regression (for CI)")


def _add_drift(sub: Any) -> None:
    dr = sub.add_parser(
        "drift", help="measure summary drift and what markers and rebuilds win back",
        description="Evaluate planted conversations with a summarizer that makes seeded "
                    "mistakes fold after fold (a copied identifier, merged problems, a request "
                    "turned into a question), alone, with [uncertain] markers, with a rebuild "
                    "from the raw log every N folds, and with both; next to the exact "
                    "extractive summarizer. Prints facts presented as current, stale values, "
                    "how the agent answered and the summarizer calls counted in the tokens.",
        epilog=EPILOG_CORPORA, formatter_class=argparse.RawDescriptionHelpFormatter)
    dr.add_argument("--corpus", action="append", metavar="SPEC",
                    help="conversations with an answer key (repeatable; default "
                         "planted:6:30-50)")
    dr.add_argument("--rate", type=float, default=0.5, metavar="P",
                    help="chance that a fold makes a mistake (default 0.5)")
    dr.add_argument("--every", type=int, default=3, metavar="N",
                    help="rebuild the summary from the raw log every N folds (default 3)")
    dr.add_argument("--seed", type=int, default=0, help="seed of the mistakes (default 0)")
    dr.add_argument("--summarize", default="2/4", metavar="K/L",
                    help="keep_last_n_turns/context_limit (default 2/4)")


def positive(value: int, flag: str, minimum: int = 1) -> int:
    """``value`` if it is at least ``minimum``; else a :class:`CliError` naming ``flag``."""
    if value < minimum:
        raise CliError(f"{flag} must be >= {minimum}, got {value}")
    return value


async def _eval(args: argparse.Namespace, out: TextIO) -> int:
    from .course.backends import choose_backend, default_summarizer
    from .eval import (
        DEFAULT_STRATEGIES,
        evaluate,
        judge_from_env,
        judge_run,
        load_corpora,
        parse_strategies,
    )
    from .eval.tables import latency_table, summary_table

    corpora = args.corpus or ["tau"]
    specs = args.strategy or list(DEFAULT_STRATEGIES)
    positive(args.workers, "--workers")
    positive(args.max_answer_probes, "--max-answer-probes", 0)
    summarizer: Any = None
    if args.llm_summaries:
        backend = choose_backend()
        if backend.is_offline:
            raise CliError("--llm-summaries needs a real model: set OPENAI_API_KEY (or "
                           "OPENAI_BASE_URL and CTXLAB_MODEL)")
        summarizer = default_summarizer(backend)
    try:
        parse_strategies(specs, summarizer=summarizer)  # cheap: fail before loading corpora
        cases = load_corpora(corpora)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    total = len(cases) * len(specs)
    bar = _progress(total, args.quiet)
    try:
        run = await evaluate(
            cases, specs, agent=_corpus_agent(corpora, not args.no_answers),
            answers=not args.no_answers, scope=args.answer_scope,
            max_answer_probes=args.max_answer_probes, price_model=args.price_model,
            run_id=args.run_id, summarizer=summarizer, corpora=corpora,
            on_result=lambda r: bar.update(1), workers=args.workers)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    finally:
        bar.close()
    paths = run.save(args.out)
    turns = sum(c.n_turns for c in cases)
    print(f"run {run.run_id}: {len(cases)} conversations ({turns:,} user turns), "
          f"{len(specs)} strategies", file=out)
    columns = ["recall", "stale", "answers", "token_ratio", "cost", "invalid", "pressure"]
    if args.no_answers:
        columns.remove("answers")
    print(summary_table(run, columns), file=out)
    if run.config.get("answer_note"):
        print(f"note: {run.config['answer_note']}", file=out)
    if args.latency:
        print("\n" + latency_table(run), file=out)
    if args.judge:
        report = await judge_run(run, cases, judge_from_env())
        print("\n" + report.table(), file=out)
    print(f"saved {paths['json']} (and .summary/.probes/.turns CSV)", file=out)
    return 0


def _corpus_agent(corpora: Sequence[str], answers: bool) -> Any:
    """The agent an evaluation counts: the short task assistant when every corpus is a real
    task-dialogue corpus (SGD, CrossWOZ), else None (the course's support agent)."""
    from .course.backends import choose_backend, offline_backend
    from .eval.dialogue_cases import DIALOGUE_CORPORA, dialogue_agent

    if not all(c.partition(":")[0].partition("@")[0] in DIALOGUE_CORPORA for c in corpora):
        return None
    return dialogue_agent(choose_backend() if answers else offline_backend())


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, quiet: bool) -> Any:
    if quiet:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with openai
        return _NoBar()
    return tqdm(total=total, unit="replay", file=sys.stderr, desc="evaluating",
                dynamic_ncols=True, leave=False)


async def _replay(args: argparse.Namespace, out: TextIO) -> int:
    positive(args.width, "--width", 20)
    case, strategies = _replay_case(args)
    instructions = _instructions(args)
    wanted = set(args.turn or [])
    for t in wanted:
        if not 1 <= t <= case.n_turns:
            raise CliError(f"--turn {t}: the conversation has turns 1..{case.n_turns}")
    print(f"{args.file}: {len(case.items)} items, {case.n_turns} user turns"
          + ("" if instructions else "; instructions not counted (see --instructions)"),
          file=out)
    for strategy in strategies:
        await _replay_strategy(args, case, strategy, instructions, wanted, out)
    return 0


def _replay_case(args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The log as a case, and the strategies to replay it through."""
    from .course.corpora import load_conversation_file
    from .eval import case_from_items, parse_strategies

    try:
        items = load_conversation_file(args.file)
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    try:
        case = case_from_items(items, case_id=Path(args.file).stem or "conversation")
        strategies = parse_strategies(args.strategy or ["trim:8"])
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    return case, strategies


def _instructions(args: argparse.Namespace) -> str | None:
    if not args.instructions:
        return None
    try:
        return Path(args.instructions).read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read --instructions {args.instructions}: "
                       f"{exc.strerror or exc}") from exc


async def _replay_strategy(args: argparse.Namespace, case: Any, strategy: Any,
                           instructions: str | None, wanted: set[int], out: TextIO) -> None:
    """Print one strategy's model calls, its token total and the facts after the last turn."""
    from .eval import StrategyReplay

    print(f"\n=== {strategy.title} ({strategy.name}) ===", file=out)
    replay = StrategyReplay.for_case(case, strategy, instructions=instructions)
    last_probes = []
    sent = full = 0
    async for call in replay.calls():
        if call.probe is not None:
            last_probes.append(call)
            continue
        sent += call.tokens
        full += call.full_tokens
        if (wanted and call.turn not in wanted) or (call.step and not args.tool_calls):
            continue
        _print_call(args, call, out)
    ratio = sent / full if full else 1.0
    print(f"total over all model calls: {sent:,} tokens, {ratio:.0%} of the full "
          f"history's {full:,}", file=out)
    if last_probes:
        kept = []
        for call in last_probes:
            assert call.probe is not None
            fact = case.fact(call.probe.fact, call.probe.expected)
            mark = "kept" if fact.found_in(call.text) else "LOST"
            kept.append(f"{call.probe.fact} {call.probe.expected}: {mark}")
        print("facts after the last turn: " + "; ".join(kept), file=out)


def _print_call(args: argparse.Namespace, call: Any, out: TextIO) -> None:
    from .core.items import describe_items

    where = f"turn {call.turn}" + (f", after tool round {call.step}" if call.step else "")
    share = call.tokens / call.full_tokens if call.full_tokens else 1.0
    count = f"{len(call.items)} item" + ("" if len(call.items) == 1 else "s")
    print(f"{where}: {count}, {call.tokens:,} tokens "
          f"(full history {call.full_tokens:,}; {share:.0%})", file=out)
    if not args.brief:
        text = describe_items(call.items, width=args.width)
        print("    " + text.replace("\n", "\n    "), file=out)
    for note in call.dropped:
        print(f"    dropped to fit the budget: {note}", file=out)


async def _drift(args: argparse.Namespace, out: TextIO) -> int:
    from .eval import load_corpora
    from .eval.drift import drift_report

    positive(args.every, "--every")
    if not 0 <= args.rate <= 1:
        raise CliError(f"--rate must be between 0 and 1, got {args.rate}")
    keep, sep, limit = args.summarize.partition("/")
    if not sep or not keep.isdigit() or not limit.isdigit() or int(keep) > int(limit) \
            or int(limit) < 1:
        raise CliError(f"--summarize {args.summarize!r}: expected K/L with 0 <= K <= L, "
                       "L >= 1, e.g. 2/4")
    try:
        cases = load_corpora(args.corpus or ["planted:6:30-50"])
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    report = await drift_report(cases, rate=args.rate, seed=args.seed, keep=int(keep),
                                limit=int(limit), every=args.every)
    print(f"{len(cases)} conversations, summarize:{keep}/{limit}", file=out)
    print(report.table(), file=out)
    return 0


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    from .eval import EvalRun, compare

    positive(args.max_rows, "--max-rows", 0)
    pairs: dict[str, str] = {}
    for pair in args.pair or []:
        base, sep, cand = pair.partition("=")
        if not sep or not base or not cand:
            raise CliError(f"--pair {pair!r}: expected BASE=CAND, e.g. --pair trim:8=trim:4")
        pairs[base] = cand
    try:
        result = compare(EvalRun.load(args.baseline), EvalRun.load(args.candidate),
                         pairs=pairs or None)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    print(result.table(max_rows=args.max_rows), file=out)
    return 1 if args.fail_on_regression and result.has_regressions else 0


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    out = out or sys.stdout
    args = _parser().parse_args(argv)
    try:
        if args.command == "eval":
            return asyncio.run(_eval(args, out))
        if args.command == "replay":
            return asyncio.run(_replay(args, out))
        if args.command == "compare":
            return _compare(args, out)
        if args.command == "drift":
            return asyncio.run(_drift(args, out))
        if args.command.startswith("eval-"):
            from .eval.beyond_cli import run_command

            return asyncio.run(run_command(args, out))
        from .eval import strategy_help

        print(strategy_help(), file=out)
        return 0
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
