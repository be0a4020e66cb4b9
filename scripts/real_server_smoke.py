#!/usr/bin/env python3
"""Smoke-test ctxlab against a real OpenAI-compatible server, and print what worked.

    OPENAI_BASE_URL=http://localhost:11434/v1 CTXLAB_MODEL=qwen2.5:7b \\
        .venv/bin/python scripts/real_server_smoke.py
    .venv/bin/python scripts/real_server_smoke.py --base-url http://127.0.0.1:8080/v1 --model m
    .venv/bin/python scripts/real_server_smoke.py --mock     # offline: the tests' fake API

It asks the server ``GET /models``, then runs the course's support agent for a few turns of
the lessons' chat under trimming, summarizing (small enough to fold, so turns follow a
summary) and a ContextManager with state and recall, each with ``Runner.run`` and
``Runner.run_streamed``; then calls LLMSummarizer, LLMStateExtractor (structured output) and
SummaryJudge directly. Each check is one row: ok or FAIL, seconds, tokens the server
reported, and what happened (the reply, the tools called, or the error). The exit code is
0 when every check passed.

``--mock`` serves the requests from ``tests/openai_fake_api.py`` (an httpx MockTransport that
answers like the API and checks every request body against the openai request types), so
the script itself can be tested without a server. Tracing is disabled.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MOCK_MODEL = "gpt-4.1-mini"


@dataclass
class Row:
    """One check's outcome."""

    check: str
    how: str
    ok: bool
    seconds: float
    tokens: str
    detail: str


@dataclass
class Setup:
    """The backend under test and the clients the direct checks use."""

    backend: Any
    client: Any  # AsyncOpenAI for LLMSummarizer / LLMStateExtractor / SummaryJudge
    check_http: Any = None  # httpx.Client for GET /models (None: a real one)


def _one_line(text: str, width: int = 70) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def make_setup(args: argparse.Namespace) -> Setup:
    from ctxlab.course.backends import compatible_backend

    if args.mock:
        import httpx

        sys.path.insert(0, str(ROOT / "tests"))
        from openai_fake_api import FAKE_BASE_URL, FakeOpenAI

        fake = FakeOpenAI(models=[args.model or MOCK_MODEL])
        backend = compatible_backend(
            FAKE_BASE_URL, args.model or MOCK_MODEL,
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(fake)))
        return Setup(backend, fake.async_client(),
                     httpx.Client(transport=httpx.MockTransport(fake)))
    base_url = args.base_url or os.environ.get("OPENAI_BASE_URL", "")
    model = args.model or os.environ.get("CTXLAB_MODEL", "")
    if not base_url or not model:
        sys.exit("set OPENAI_BASE_URL and CTXLAB_MODEL (or pass --base-url and --model), "
                 "or use --mock")
    api_key = os.environ.get("OPENAI_API_KEY") or None
    max_tokens = args.max_tokens
    backend = compatible_backend(base_url, model, api_key=api_key, max_tokens=max_tokens)
    return Setup(backend, backend.model._client)


# ---------------------------------------------------------------------------- agent checks


async def run_turns(agent: Any, session: Any, messages: list[str], *, streamed: bool,
                    run_config: Any = None) -> tuple[str, str]:
    """Run ``messages`` one run each; (tokens "in/out", detail)."""
    from ctxlab.course.runs import run_conversation

    records = await run_conversation(agent, messages, session, run_config=run_config,
                                     streamed=streamed)
    tokens = f"{sum(r.input_tokens for r in records)}/{sum(r.output_tokens for r in records)}"
    tools = sorted({name for r in records for name in r.tool_calls})
    detail = (f"{len(records)} turns, tools: {', '.join(tools) or 'none'}; last: "
              f"{_one_line(records[-1].reply, 40)}")
    return tokens, detail


def agent_checks(setup: Setup, turns: int) -> list[tuple[str, str, Callable[[], Awaitable[Any]]]]:
    from ctxlab import ContextManager, Recall, StateMemory, SummarizingSession, TrimmingSession
    from ctxlab.course.agent import make_support_agent
    from ctxlab.course.backends import default_summarizer
    from ctxlab.course.corpora import support_chat_script
    from ctxlab.summarizers.base import SUMMARY_SHADOW_PROMPT

    agent = make_support_agent(setup.backend)
    messages = support_chat_script()[0][:turns]
    checks: list[tuple[str, str, Callable[[], Awaitable[Any]]]] = []
    for streamed in (False, True):
        how = "streamed" if streamed else "run"

        async def trimming(streamed: bool = streamed) -> tuple[str, str]:
            session = TrimmingSession(f"smoke-trim-{streamed}", max_turns=2)
            return await run_turns(agent, session, messages, streamed=streamed)

        async def summarizing(streamed: bool = streamed) -> tuple[str, str]:
            session = SummarizingSession(keep_last_n_turns=1, context_limit=2,
                                         summarizer=default_summarizer(setup.backend),
                                         session_id=f"smoke-sum-{streamed}")
            tokens, detail = await run_turns(agent, session, messages, streamed=streamed)
            await session.flush()
            view = await session.get_items()
            folded = bool(view) and view[0].get("content") == SUMMARY_SHADOW_PROMPT
            if not folded:
                raise RuntimeError(f"no fold happened ({detail})")
            return tokens, "folded; " + detail

        async def managed(streamed: bool = streamed) -> tuple[str, str]:
            session = TrimmingSession(f"smoke-cm-{streamed}", max_turns=2)
            manager = ContextManager(6000, state=StateMemory(session=session),
                                     retriever=Recall(session=session), session=session)
            return await run_turns(agent, session, messages, streamed=streamed,
                                   run_config=manager.run_config())

        checks += [("agent + TrimmingSession(2)", how, trimming),
                   ("agent + SummarizingSession(1/2)", how, summarizing),
                   ("agent + ContextManager(state, recall)", how, managed)]
    return checks


# ---------------------------------------------------------------------------- direct calls


def caller_checks(setup: Setup) -> list[tuple[str, str, Callable[[], Awaitable[Any]]]]:
    from ctxlab.course.corpora import seed_support_conversation
    from ctxlab.eval.judge import SummaryJudge
    from ctxlab.memory.llm_extract import LLMStateExtractor
    from ctxlab.summarizers import LLMSummarizer

    model = setup.backend.model_name
    items = seed_support_conversation().items
    summary_text: list[str] = []

    async def summarize() -> tuple[str, str]:
        result = await LLMSummarizer(setup.client, model=model, api="chat").summarize(items[:12])
        summary_text.append(result.text)
        return f"{result.input_tokens}/{result.output_tokens}", _one_line(result.text)

    async def extract() -> tuple[str, str]:
        extractor = LLMStateExtractor(setup.client, model, api="chat")
        patch = await extractor.extract(items[:6])
        found = {**patch.values, **{k: ", ".join(v) for k, v in patch.add.items()}}
        return "-", _one_line("; ".join(f"{k}={v}" for k, v in found.items()) or "(nothing)")

    async def judge() -> tuple[str, str]:
        summary = summary_text[0] if summary_text else "The customer reported a red light."
        verdict = await SummaryJudge(setup.client, model, api="chat").judge(items[:12], summary)
        return "-", f"overall {verdict.overall}/5, scores {verdict.scores()}"

    return [("LLMSummarizer", "chat", summarize),
            ("LLMStateExtractor (json_schema)", "chat", extract),
            ("SummaryJudge (json_schema)", "chat", judge)]


# ---------------------------------------------------------------------------- main


async def run_check(name: str, how: str, check: Callable[[], Awaitable[Any]],
                    timeout: float) -> Row:
    began = time.perf_counter()
    try:
        tokens, detail = await asyncio.wait_for(check(), timeout)
        ok = True
    except Exception as exc:  # every failure is reported, none stops the others
        tokens, detail, ok = "-", _one_line(f"{type(exc).__name__}: {exc}", 110), False
    return Row(name, how, ok, time.perf_counter() - began, tokens, detail)


def server_row(setup: Setup) -> Row:
    from ctxlab.course.backends import server_check

    began = time.perf_counter()
    found = server_check(setup.backend, http_client=setup.check_http)
    assert found is not None
    line = found.lines()[0]
    return Row("GET /models", "http", found.problem is None, time.perf_counter() - began, "-",
               _one_line(line.split(":", 1)[1], 200))


def table(rows: list[Row]) -> str:
    head = ("check", "how", "result", "seconds", "tokens in/out", "detail")
    cells = [head] + [(r.check, r.how, "ok" if r.ok else "FAIL", f"{r.seconds:.1f}", r.tokens,
                       r.detail) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
    lines = []
    for n, c in enumerate(cells):
        lines.append("  ".join(f"{v:<{w}}" for v, w in zip(c, widths, strict=False)) + "  " + c[-1])
        if n == 0:
            lines.append("-" * len(lines[0]))
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> int:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    setup = make_setup(args)
    print(f"server: {setup.backend.base_url}  model: {setup.backend.model_name}"
          f"{'  (mock)' if args.mock else ''}", flush=True)
    rows = [server_row(setup)]
    if rows[0].ok:
        for name, how, check in agent_checks(setup, args.turns) + caller_checks(setup):
            rows.append(await run_check(name, how, check, args.timeout))
            print(f"  {'ok  ' if rows[-1].ok else 'FAIL'} {name} ({how})", flush=True)
    print(table(rows))
    passed = sum(r.ok for r in rows)
    print(f"{passed}/{len(rows)} checks passed")
    return 0 if passed == len(rows) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mock", action="store_true",
                        help="serve requests from the tests' fake API (no server needed)")
    parser.add_argument("--base-url", help="the server's API root (default: OPENAI_BASE_URL)")
    parser.add_argument("--model", help="the model name (default: CTXLAB_MODEL)")
    parser.add_argument("--turns", type=int, default=4,
                        help="user turns per agent check (>= 3, so that summarizing folds)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds allowed per check (small models on CPU are slow)")
    parser.add_argument("--max-tokens", type=int, default=512,
                        help="reply cap sent with every agent request")
    args = parser.parse_args(argv)
    if args.turns < 3:
        parser.error("--turns must be >= 3 (a summarizing session with context_limit=2 "
                     "folds at the third turn)")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
