"""Evaluate memory strategies on evaluation cases: the whole pipeline in one call.

:func:`evaluate` replays every case through every strategy
(:func:`~ctxlab.eval.metrics.evaluate_case`), optionally asks the answer probes through the
agent, and returns an :class:`~ctxlab.eval.results.EvalRun` with its configuration and a
run id. Token counts include the agent's instructions and tool schemas, so pass the agent
you ship (default: the course's IT-support agent on the backend the environment selects,
which is the offline model unless an API key or base URL is set).

``workers > 1`` spreads the cases over processes (each evaluates whole cases); it needs
strategies given as spec strings and the offline model.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from typing import Any

from agents import Agent

from ..course.agent import make_support_agent
from ..course.backends import choose_backend, offline_backend
from ..course.costs import PRICES, Price
from .answers import OFFLINE_NOTE, AnswerScope, ProbeAsker, is_offline
from .cases import EvalCase
from .metrics import CaseResult, evaluate_case
from .results import EvalRun, new_run_id
from .strategies import Strategy, parse_strategies, shared_counter


def _version() -> str:
    from .. import __version__

    return __version__


def _instructions(agent: Agent[Any]) -> str | None:
    if agent.instructions is None or isinstance(agent.instructions, str):
        return agent.instructions
    raise ValueError("evaluation counts the agent's instructions, so they must be a string "
                     f"(got {type(agent.instructions).__name__}); pass an agent with text "
                     "instructions")


def _check_cases(cases: EvalCase | Sequence[EvalCase]) -> list[EvalCase]:
    if isinstance(cases, EvalCase):
        return [cases]
    if isinstance(cases, (str, bytes)) or not isinstance(cases, Sequence):
        raise ValueError(f"cases must be an EvalCase or a list of them, got "
                         f"{type(cases).__name__} (load them with ctxlab.eval.load_cases)")
    out = []
    seen: set[str] = set()
    for n, case in enumerate(cases):
        if not isinstance(case, EvalCase):
            raise ValueError(f"case {n} is a {type(case).__name__}, not an EvalCase")
        if case.id in seen:
            raise ValueError(f"case id {case.id!r} occurs twice")
        seen.add(case.id)
        out.append(case)
    if not out:
        raise ValueError("no cases to evaluate")
    return out


def run_config(
    cases: Sequence[EvalCase], strategies: Sequence[Strategy], *, agent: Agent[Any],
    answers: bool, scope: AnswerScope, max_answer_probes: int | None, price_model: str,
    prices: Mapping[str, Price], corpora: Sequence[str] | None,
) -> dict[str, Any]:
    """The configuration an :class:`EvalRun` records (everything that shapes its numbers)."""
    price = prices.get(price_model, None)
    model = agent.model
    model_name = getattr(model, "model_name", None) or getattr(model, "model", None) or model
    return {
        "corpora": list(corpora) if corpora is not None else sorted({c.source for c in cases}),
        "cases": len(cases),
        "turns": sum(c.n_turns for c in cases),
        "strategies": [s.name for s in strategies],
        "strategy_params": {s.name: dict(s.params) for s in strategies},
        "agent": agent.name,
        "answer_model": str(model_name),
        "answers": answers,
        "answer_scope": scope if answers else None,
        "max_answer_probes": max_answer_probes if answers else None,
        "answer_note": OFFLINE_NOTE if answers and scope == "offline-kinds" else None,
        "price_model": price_model,
        "prices": {price_model: {"input": price.input, "output": price.output}} if price else {},
        "ctxlab_version": _version(),
    }


async def evaluate(
    cases: EvalCase | Sequence[EvalCase],
    strategies: Sequence[Strategy | str],
    *,
    agent: Agent[Any] | None = None,
    answers: bool = True,
    scope: AnswerScope = "offline-kinds",
    max_answer_probes: int | None = 4,
    price_model: str = "gpt-4.1-mini",
    prices: Mapping[str, Price] | None = None,
    run_id: str | None = None,
    summarizer: Any = None,
    corpora: Sequence[str] | None = None,
    on_result: Callable[[CaseResult], Any] | None = None,
    workers: int = 1,
) -> EvalRun:
    """Replay ``cases`` through ``strategies`` and measure them (see the module docstring).

    Args:
        cases: :class:`~ctxlab.eval.EvalCase` s (:func:`~ctxlab.eval.load_cases`).
        strategies: :class:`~ctxlab.eval.Strategy` objects or spec strings ("trim:8").
        agent: answers the probes and sets the instructions and tools every request counts.
        answers: ask the answer probes through the agent (False: availability only).
        scope: ``"offline-kinds"`` (default) or ``"all"`` (see :mod:`ctxlab.eval.answers`).
        max_answer_probes: at most this many answer probes per case and strategy (None: all).
        price_model: the model whose price turns tokens into dollars.
        prices: the price table (default :data:`ctxlab.course.costs.PRICES`, editable).
        run_id: the run's id (default: timestamp and config hash, :func:`new_run_id`).
        summarizer: for ``summarize:K/L`` specs (default: the offline extractive one).
        corpora: the corpus specs the cases came from (recorded in the config).
        on_result: called with every :class:`CaseResult` as it is ready (progress bars).
        workers: processes to spread the cases over (1: this process).
    """
    chosen = _check_cases(cases)
    parsed = parse_strategies(strategies, summarizer=summarizer)
    table = dict(PRICES if prices is None else prices)
    if price_model not in table:
        raise ValueError(f"no price for model {price_model!r}; known: {', '.join(sorted(table))}"
                         " (add it to ctxlab.course.costs.PRICES or pass prices=)")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if agent is None:
        agent = make_support_agent(choose_backend() if answers else offline_backend())
    if not isinstance(agent, Agent):
        raise ValueError(f"agent must be an agents.Agent, got {type(agent).__name__}")
    config = run_config(chosen, parsed, agent=agent, answers=answers, scope=scope,
                        max_answer_probes=max_answer_probes, price_model=price_model,
                        prices=table, corpora=corpora)
    created = datetime.now(timezone.utc)
    labels = {s.name: s.title for s in parsed}
    if workers > 1:
        results = await _in_processes(chosen, strategies, parsed, agent, answers, scope,
                                      max_answer_probes, workers, on_result)
    else:
        results = await _here(chosen, parsed, agent, answers, scope, max_answer_probes,
                              on_result)
    return EvalRun(run_id=run_id or new_run_id(config, created),
                   created_at=created.isoformat(timespec="seconds"), config=config,
                   results=results, labels=labels)


async def _here(cases: Sequence[EvalCase], strategies: Sequence[Strategy], agent: Agent[Any],
                answers: bool, scope: AnswerScope, max_answer_probes: int | None,
                on_result: Callable[[CaseResult], Any] | None) -> list[CaseResult]:
    asker = ProbeAsker(agent) if answers else None
    instructions = _instructions(agent)
    tools = list(agent.tools)
    counter = shared_counter()
    results = []
    for strategy in strategies:
        for case in cases:
            try:
                result = await evaluate_case(
                    case, strategy, instructions=instructions, tools=tools, asker=asker,
                    scope=scope, max_answer_probes=max_answer_probes, counter=counter)
            except Exception as exc:
                raise case_failure(strategy.name, case.id, exc) from exc
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def case_failure(strategy: str, case: str, exc: BaseException) -> RuntimeError:
    """The error :func:`evaluate` raises when ``strategy`` fails on ``case``: it names both
    and keeps the original error's type and message (scripts that read it as text, such as
    ``scripts/real_server_smoke.py``, find the original's name after the case id)."""
    return RuntimeError(f"strategy {strategy!r} failed on case {case!r}: "
                        f"{type(exc).__name__}: {exc}")


def _work(cases: list[EvalCase], specs: list[str], answers: bool, scope: AnswerScope,
          max_answer_probes: int | None) -> list[dict[str, Any]]:
    """One worker process: evaluate ``cases`` with the offline agent."""
    agent = make_support_agent(offline_backend())
    parsed = parse_strategies(specs)
    done = asyncio.run(_here(cases, parsed, agent, answers, scope, max_answer_probes, None))
    return [r.to_dict() for r in done]


async def _in_processes(cases: Sequence[EvalCase], raw: Sequence[Strategy | str],
                        strategies: Sequence[Strategy], agent: Agent[Any], answers: bool,
                        scope: AnswerScope, max_answer_probes: int | None, workers: int,
                        on_result: Callable[[CaseResult], Any] | None) -> list[CaseResult]:
    if not all(isinstance(s, str) for s in raw):
        raise ValueError("workers > 1 needs strategies given as spec strings (a Strategy "
                         "object cannot be sent to another process); use workers=1")
    if answers and not is_offline(agent):
        raise ValueError("workers > 1 runs the offline model only; use workers=1 with a real "
                         "model")
    specs = [s.name for s in strategies]
    chunks = [list(cases[k::workers]) for k in range(workers)]
    chunks = [c for c in chunks if c]
    loop = asyncio.get_running_loop()
    # fork where it is safe (Linux): no re-import of the caller's __main__, and asyncio
    # tells a forked child's loop apart by pid. Elsewhere spawn (needs a __main__ guard).
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=context) as pool:
        futures = [loop.run_in_executor(pool, _work, chunk, specs, answers, scope,
                                        max_answer_probes) for chunk in chunks]
        by_case: dict[tuple[str, str], CaseResult] = {}
        for future in asyncio.as_completed(futures):
            for data in await future:
                result = CaseResult.from_dict(data)
                by_case[(result.strategy, result.case)] = result
                if on_result is not None:
                    on_result(result)
    return [by_case[(s.name, c.id)] for s in strategies for c in cases]
