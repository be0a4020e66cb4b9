"""The evaluation commands for memory beyond one conversation::

    python -m ctxlab eval-handoffs [--chats 12] [--mode per-issue --mode full ...]
    python -m ctxlab eval-handoffs --corpus sgd:report [--mode per-service ...]
    python -m ctxlab eval-sessions [--cases 6] [--language en --language zh]
    python -m ctxlab eval-sessions --corpus crosswoz:tune [--setting topics ...]
    python -m ctxlab eval-preload  [--chats 12] [--language en]

``eval-handoffs`` scores what a receiving agent gets in a handoff on planted multi-issue
chats, per history mode: facts of the resumed issue answered right, facts of the other
issue presented as this one's (leaked), missing; the serial the repair desk checks first;
facts of each issue in the view; tokens. ``eval-sessions`` scores cross-session recall on
the "three days later" chats, per long-term memory setting, structured facts and long-tail
facts apart. ``eval-preload`` counts model calls, tool calls and tokens with and without
proactive preloading. Each prints a table and saves JSON in ``--out``.

With ``--corpus sgd|crosswoz[:tune|report][:N][@DIR]`` (repeatable), ``eval-handoffs`` and
``eval-sessions`` run on real task dialogues instead (:mod:`ctxlab.eval.dialogue_handoffs`,
:mod:`ctxlab.eval.dialogue_sessions`): each service of a chained customer is an issue
handed over; long-term memory is asked about each service's slots three days later.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, TextIO

COMMANDS = ("eval-handoffs", "eval-sessions", "eval-preload")


def add_commands(sub: Any) -> None:
    """Add the commands to the CLI's subparsers."""
    ho = sub.add_parser(
        "eval-handoffs", help="score handoff history modes on planted multi-issue chats",
        description="Replay planted multi-issue chats (issue A paused, B handled, A resumed and "
                    "passed to the repair desk) and score what the repair desk receives under "
                    "each handoff history mode.")
    ho.add_argument("--chats", type=int, default=12, metavar="N", help="planted chats (12)")
    ho.add_argument("--mode", action="append", metavar="MODE",
                    help="full, trim:N, sdk-nested, handover, per-issue (default: all five); "
                         "with --corpus: full, trim:N, handover, per-issue, per-service")
    se = sub.add_parser(
        "eval-sessions", help="score cross-session recall on the three-days-later chats",
        description="Write day one's session to long-term memory, then ask day four's questions "
                    "in a new session, without long-term memory, with its structured part, "
                    "with retrieval only, and with both.")
    se.add_argument("--cases", type=int, default=6, metavar="N", help="cases per language (6)")
    se.add_argument("--language", action="append", choices=("en", "zh"),
                    help="en and/or zh (default: both)")
    se.add_argument("--setting", action="append", metavar="S",
                    help="none, structured, retrieval, both (default: all four); with "
                         "--corpus: structured, notes, topics, topics+dense")
    pl = sub.add_parser(
        "eval-preload", help="count tool calls and tokens with and without preloading",
        description="Run the last turn of planted chats (returns, warranty questions, turns "
                    "that need no tool) without and with proactive preloading.")
    pl.add_argument("--chats", type=int, default=12, metavar="N", help="chats per language (12)")
    pl.add_argument("--language", action="append", choices=("en", "zh"),
                    help="en and/or zh (default: both)")
    for parser in (ho, se):
        parser.add_argument("--corpus", action="append", metavar="SPEC",
                            help="a task-dialogue corpus: sgd|crosswoz[:tune|report][:N][@DIR] "
                                 "(repeatable; default: the planted chats)")
    for parser in (ho, se, pl):
        parser.add_argument("--out", default="eval-results", metavar="DIR",
                            help="where the JSON result goes (default: eval-results/)")


def _positive(value: int, flag: str) -> int:
    from ..cli import positive

    return positive(value, flag)


def _report(args: argparse.Namespace, out: TextIO, text: str, name: str,
            data: dict[str, Any]) -> int:
    """Print ``text``, save ``data`` as ``<name>-<time>.json`` in ``--out``, say where."""
    print(text, file=out)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2))
    print(f"saved {path}", file=out)
    return 0


async def run_command(args: argparse.Namespace, out: TextIO) -> int:
    """Run one of :data:`COMMANDS` (the CLI dispatches here)."""
    from ..cli import CliError

    try:
        if args.command == "eval-handoffs":
            return await _handoffs(args, out)
        if args.command == "eval-sessions":
            return await _sessions(args, out)
        return await _preload(args, out)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


async def _corpus_handoffs(args: argparse.Namespace, out: TextIO) -> int:
    from .dialogue_handoffs import MODES, score_dialogue_handoffs

    tables = [await score_dialogue_handoffs(spec, args.mode or MODES) for spec in args.corpus]
    return _report(args, out, "\n".join(t.text() for t in tables), "handoffs",
                   {"command": "eval-handoffs", "corpora": {t.corpus: t.rows() for t in tables}})


async def _corpus_sessions(args: argparse.Namespace, out: TextIO) -> int:
    from .dialogue_sessions import SETTINGS, score_dialogue_sessions

    scores = [await score_dialogue_sessions(spec, args.setting or SETTINGS)
              for spec in args.corpus]
    return _report(args, out, "\n".join(s.text() for s in scores), "sessions",
                   {"command": "eval-sessions", "corpora": {s.corpus: s.rows() for s in scores}})


async def _handoffs(args: argparse.Namespace, out: TextIO) -> int:
    from .handoff_eval import MODES, handoff_table, history_filter, score_handoffs

    if args.corpus:
        return await _corpus_handoffs(args, out)
    from .multi_issue import multi_issue_corpus

    modes = args.mode or list(MODES)
    for mode in modes:
        history_filter(mode)
    scores = await score_handoffs(multi_issue_corpus(_positive(args.chats, "--chats")), modes)
    return _report(args, out, handoff_table(scores), "handoffs",
                   {"command": "eval-handoffs", "chats": args.chats,
                    "modes": [s.as_dict() for s in scores]})


async def _sessions(args: argparse.Namespace, out: TextIO) -> int:
    from .sessions_eval import SETTINGS, memory_for, recall_table, score_recall, three_days_corpus

    if args.corpus:
        return await _corpus_sessions(args, out)
    settings = args.setting or list(SETTINGS)
    for setting in settings:
        if setting != "none":
            memory_for(setting)
    cases = three_days_corpus(_positive(args.cases, "--cases"),
                              languages=args.language or ("en", "zh"))
    score = await score_recall(cases, settings)
    text = (recall_table(score) + "\n(share of day-four questions answered with the day-one "
            "value; structured: profile, case, requests, promises; long-tail: the shop, found "
            "by retrieval)")
    return _report(args, out, text, "sessions", {"command": "eval-sessions",
                                                 "cases": len(cases), "recall": score.as_dict()})


async def _preload(args: argparse.Namespace, out: TextIO) -> int:
    from .preload_eval import preload_corpus, preload_table, score_preloading

    cases = preload_corpus(_positive(args.chats, "--chats"),
                           languages=args.language or ("en", "zh"))
    score = await score_preloading(cases)
    return _report(args, out, preload_table(score), "preload",
                   {"command": "eval-preload", **score.as_dict()})
