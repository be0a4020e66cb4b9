#!/usr/bin/env python3
"""Smoke-test ctxlab against a real OpenAI-compatible server, and print what worked.

    OPENAI_BASE_URL=http://localhost:11434/v1 CTXLAB_MODEL=qwen2.5:7b \\
        .venv/bin/python scripts/real_server_smoke.py
    .venv/bin/python scripts/real_server_smoke.py --base-url http://127.0.0.1:8080/v1 --model m
    .venv/bin/python scripts/real_server_smoke.py --mock     # offline: the tests' fake API
    .venv/bin/python scripts/real_server_smoke.py --mock --mock-rules llama-cpp-python

It asks the server ``GET /models``; probes whether it calls tools; runs the course's support
agent for a few turns of the lessons' chat under trimming, summarizing (small enough to
fold, so turns follow a summary) and a ContextManager with state and recall, each with
``Runner.run`` and ``Runner.run_streamed``; calls LLMSummarizer, LLMStateExtractor and
SummaryJudge directly; sends one request larger than an 8k context window; then executes
lessons 00, 03, 05b, 09 and 10 against the server (into a temporary folder: the committed
notebooks are never touched). Lessons 09 and 10 show actions (a handoff, an escalation to a
person, a deletion): on a server that drops tools their cells must say the action did NOT
happen and why (``check_action``), or stop with ``ActionNotTaken`` naming the server limit,
never fail on an empty queue or pass on the model's word.

Each check is one row: ``pass``, ``limit`` (the server cannot do it, and the row names the
server's limit: that is a pass for ctxlab) or ``FAIL`` (a crash or an error that does not
say why), with seconds, the tokens the server reported (``~`` marks figures ctxlab counted
because the server reported none) and what happened. Each lesson is one row: its code cells
that passed, stopped at a named server limit, or failed. The exit code is 0 when nothing
FAILed, 1 otherwise, 2 for a configuration error (such as a URL that is not an API root).

``--mock`` serves the requests from ``tests/openai_fake_api.py`` on a loopback port (an
HTTP server that answers like the API and checks every request body against the openai
request types; ``--mock-rules llama-cpp-python`` also enforces that server's stricter
rules), so the script itself is tested without a model. Tracing is disabled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MOCK_MODEL = "gpt-4.1-mini"
LESSONS = ("00_quickstart", "03_summarizing", "05b_chinese_conversations",
           "09_handoffs_and_multi_issue", "10_memory_across_sessions")
ESTIMATED_NOTE = ("~ : the server reported no token usage; ctxlab counted it (o200k_base), "
                  "an estimate of the server's own count")

Check = Callable[[], Awaitable[tuple[str, str]]]


class ServerLimit(Exception):
    """A check found something the server cannot do; the message names the limit."""


@dataclass
class Row:
    """One check's outcome: ``result`` is ``pass``, ``limit`` or ``FAIL``."""

    check: str
    how: str
    result: str
    seconds: float
    tokens: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.result != "FAIL"


@dataclass
class Setup:
    """The backend under test and the clients the direct checks use."""

    backend: Any
    client: Any  # AsyncOpenAI for LLMSummarizer / LLMStateExtractor / SummaryJudge
    env: dict[str, str]  # what a lesson's kernel gets
    notes: list[str] = field(default_factory=list)


def _one_line(text: str, width: int = 70) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _tokens(records: list[Any]) -> str:
    mark = "~" if any(r.usage_estimated for r in records) else ""
    return (f"{mark}{sum(r.input_tokens for r in records)}/"
            f"{mark}{sum(r.output_tokens for r in records)}")


# ---------------------------------------------------------------------------- setup


@contextlib.contextmanager
def mock_server(args: argparse.Namespace) -> Iterator[str]:
    """The tests' fake API on a loopback port (its base URL), for ``--mock``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from openai_server_rules import RULES

    from openai_fake_api import FakeOpenAI, serve_http

    fake = FakeOpenAI(models=[args.model or MOCK_MODEL],
                      rules=RULES[args.mock_rules] if args.mock_rules else None)
    with serve_http(fake) as base_url:
        yield base_url


def make_setup(args: argparse.Namespace, base_url: str, model: str) -> Setup:
    """The backend for ``base_url`` and ``model``; raises ``BackendConfigError``."""
    from ctxlab.course.backends import compatible_backend

    api_key = None if args.mock else os.environ.get("OPENAI_API_KEY") or None
    backend = compatible_backend(base_url, model, api_key=api_key, max_tokens=args.max_tokens)
    env = {"OPENAI_BASE_URL": base_url, "CTXLAB_MODEL": model,
           "CTXLAB_BACKEND": "openai-compatible", "CTXLAB_MAX_TOKENS": str(args.max_tokens)}
    if api_key:
        env["OPENAI_API_KEY"] = api_key
    return Setup(backend, backend.model._client, env)


# ---------------------------------------------------------------------------- agent checks


async def run_turns(agent: Any, session: Any, messages: list[str], *, streamed: bool,
                    run_config: Any = None) -> tuple[str, str]:
    """Run ``messages`` one run each; (tokens "in/out", detail)."""
    from ctxlab.course.runs import run_conversation

    records = await run_conversation(agent, messages, session, run_config=run_config,
                                     streamed=streamed)
    tools = sorted({name for r in records for name in r.tool_calls})
    detail = (f"{len(records)} turns, tools: {', '.join(tools) or 'none'}; last: "
              f"{_one_line(records[-1].reply, 40)}")
    return _tokens(records), detail


def agent_checks(setup: Setup, turns: int, timeout: float = 600.0,
                 ) -> list[tuple[str, str, Check]]:
    """The agent checks; ``timeout`` is also what one summarizer call may take (the
    session's default, 120 s, is too short for a small model on a busy CPU)."""
    from ctxlab import ContextManager, Recall, StateMemory, SummarizingSession, TrimmingSession
    from ctxlab.course.agent import make_support_agent
    from ctxlab.course.backends import default_summarizer
    from ctxlab.course.corpora import support_chat_script
    from ctxlab.summarizers.base import SUMMARY_SHADOW_PROMPT

    agent = make_support_agent(setup.backend)
    messages = support_chat_script()[0][:turns]
    checks: list[tuple[str, str, Check]] = []
    for streamed in (False, True):
        how = "streamed" if streamed else "run"

        async def trimming(streamed: bool = streamed) -> tuple[str, str]:
            session = TrimmingSession(f"smoke-trim-{streamed}", max_turns=2)
            return await run_turns(agent, session, messages, streamed=streamed)

        async def summarizing(streamed: bool = streamed) -> tuple[str, str]:
            session = SummarizingSession(keep_last_n_turns=1, context_limit=2,
                                         summarizer=default_summarizer(setup.backend),
                                         session_id=f"smoke-sum-{streamed}",
                                         summary_timeout=timeout)
            tokens, detail = await run_turns(agent, session, messages, streamed=streamed)
            await session.flush()
            view = await session.get_items()
            folded = bool(view) and view[0].get("content") == SUMMARY_SHADOW_PROMPT
            if not folded:
                why = f"the summarizer failed: {session.last_error}; " if session.last_error else ""
                raise RuntimeError(f"no fold happened ({why}{detail})")
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

    async def auto_streamed() -> tuple[str, str]:
        """The README's tip (tool_choice="auto") on a streamed run: works, or the named
        limit (llama-cpp-python answers it with an empty event stream)."""
        from agents import ModelSettings

        settings = (setup.backend.model_settings or ModelSettings()).resolve(
            ModelSettings(tool_choice="auto"))
        auto = make_support_agent(setup.backend, model_settings=settings)
        return await run_turns(auto, TrimmingSession("smoke-auto", max_turns=2), messages[:2],
                               streamed=True)

    checks.append(("agent + tool_choice=auto", "streamed", auto_streamed))
    return checks


PROBE_TOOL = {"type": "function", "function": {
    "name": "lookup_device", "description": "Look up a device by its serial number.",
    "parameters": {"type": "object", "properties": {"serial": {"type": "string"}},
                   "required": ["serial"]}}}
PROBE_ASK = [{"role": "user", "content": "Please look up the device with serial SN-4Q7K-22981 "
              "using the lookup_device tool."}]
#: tool_choice values in the order tried: what the agent sends (nothing), then more.
PROBE_CHOICES: tuple[tuple[str, Any], ...] = (
    ("omitted", None), ("auto", "auto"),
    ("named", {"type": "function", "function": {"name": "lookup_device"}}))


def tool_probe(setup: Setup) -> Check:
    """Can the agent use tools here? A tool call must come back with what the agent sends
    (no ``tool_choice``), and the next request, which carries the call and its output as
    ctxlab's compatible backend sends them, must be accepted."""

    async def ask(messages: list[dict[str, Any]], choice: Any) -> Any:
        from ctxlab.core.model_errors import translate_error

        extra = {} if choice is None else {"tool_choice": choice}
        try:
            return await setup.client.chat.completions.create(
                model=setup.backend.model_name, messages=messages, tools=[PROBE_TOOL],
                max_tokens=64, **extra)
        except Exception as exc:
            error = translate_error(exc, url=f"{setup.client.base_url}chat/completions",
                                    model=setup.backend.model_name, caller="tool probe")
            raise (error or exc) from exc

    async def first_call() -> tuple[str, Any, Any]:
        for label, choice in PROBE_CHOICES:
            reply = await ask(PROBE_ASK, choice)
            calls = reply.choices[0].message.tool_calls if reply.choices else None
            if calls:
                return label, choice, calls[0]
        raise ServerLimit(
            "server limit: no tool call came back, even with tool_choice naming the "
            "function: the server's chat template has no tools (llama.cpp: --jinja and "
            "a tool-capable model; llama-cpp-python: --chat_format "
            "chatml-function-calling)")

    async def probe() -> tuple[str, str]:
        label, choice, call = await first_call()
        from ctxlab.course.chat_forms import tool_call_content

        history = [*PROBE_ASK,  # the form the SDK's converter builds after a tool call
                   {"role": "assistant", "content": None, "tool_calls": [
                       {"id": call.id, "type": "function", "function": {
                           "name": call.function.name,
                           "arguments": call.function.arguments}}]},
                   {"role": "tool", "tool_call_id": call.id,
                    "content": '{"serial": "SN-4Q7K-22981", "model": "ThinkPad X1"}'}]
        # ... as ctxlab's compatible backend sends it (content "" next to tool_calls); a
        # refused form raises a ModelCallError naming it
        await ask(tool_call_content(history), choice)
        if label != "omitted":
            raise ServerLimit(
                f"server limit: tools are used only when tool_choice is sent ({label}); the "
                "agent sends none, so it gets plain text (llama-cpp-python[server] drops "
                "tools without tool_choice)")
        return "-", "a tool call came back and the call's history was accepted"

    return probe


# ---------------------------------------------------------------------------- direct calls


def caller_checks(setup: Setup, overflow_tokens: int) -> list[tuple[str, str, Check]]:
    from ctxlab.course.corpora import seed_support_conversation
    from ctxlab.eval.judge import SummaryJudge
    from ctxlab.memory.llm_extract import LLMStateExtractor
    from ctxlab.summarizers import LLMSummarizer

    model = setup.backend.model_name
    items = seed_support_conversation().items
    summary_text: list[str] = []

    def mode(caller: Any) -> str:
        return ("; json_object fallback (the server refuses json_schema)"
                if caller.json_mode == "json_object" else "")

    async def summarize() -> tuple[str, str]:
        result = await LLMSummarizer(setup.client, model=model, api="chat").summarize(items[:12])
        summary_text.append(result.text)
        return f"{result.input_tokens}/{result.output_tokens}", _one_line(result.text)

    async def extract() -> tuple[str, str]:
        extractor = LLMStateExtractor(setup.client, model, api="chat")
        patch = await extractor.extract(items[:6])
        found = {**patch.values, **{k: ", ".join(v) for k, v in patch.add.items()}}
        text = "; ".join(f"{k}={v}" for k, v in found.items()) or "(nothing)"
        return "-", _one_line(text, 60) + mode(extractor)

    async def judge() -> tuple[str, str]:
        summary = summary_text[0] if summary_text else "The customer reported a red light."
        judge = SummaryJudge(setup.client, model, api="chat")
        verdict = await judge.judge(items[:12], summary)
        return "-", f"overall {verdict.overall}/5, scores {verdict.scores()}" + mode(judge)

    return [("LLMSummarizer", "chat", summarize),
            ("LLMStateExtractor (structured)", "chat", extract),
            ("SummaryJudge (structured)", "chat", judge),
            (f"request of {overflow_tokens:,} tokens", "chat",
             overflow_check(setup, overflow_tokens))]


def overflow_check(setup: Setup, tokens: int) -> Check:
    """One summarizer request of about ``tokens`` tokens: it fits, or the error says what
    to do (a bare 400 is a failure)."""

    async def check() -> tuple[str, str]:
        from ctxlab.core.model_errors import ContextOverflowError
        from ctxlab.core.tokens import count_items_tokens
        from ctxlab.course.corpora import seed_support_conversation
        from ctxlab.summarizers import LLMSummarizer

        base = seed_support_conversation().items
        items: list[dict[str, Any]] = []
        while count_items_tokens(items) < tokens:
            items.extend(base)
        summarizer = LLMSummarizer(setup.client, model=setup.backend.model_name, api="chat",
                                   max_tokens=32, tool_trim_limit=10**6)
        try:
            result = await summarizer.summarize(items)
        except ContextOverflowError as exc:
            if "What to do:" not in str(exc):
                raise
            raise ServerLimit(f"{exc.limit}; the error says what to do: "
                              f"{_one_line(str(exc).split('What to do: ')[1], 60)}") from exc
        return (f"{result.input_tokens}/{result.output_tokens}",
                "fits: the server's context window holds it")

    return check


# ---------------------------------------------------------------------------- lessons


@dataclass
class LessonRow:
    """One lesson executed against the server: its code cells by outcome."""

    lesson: str
    cells: int
    passed: int
    limits: list[str]
    failures: list[str]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.failures


#: Errors whose message names a server limit when they say "server limit:".
LIMIT_ERRORS = ("ModelCallError", "CompatibleServerError", "ContextOverflowError",
                "StructuredOutputError", "ActionNotTaken")


#: How ctxlab.eval.evaluate wraps a case's error: ``strategy 'S' failed on case 'C': Name: ...``
_EVAL_WRAP = re.compile(r"strategy '.*?' failed on case '.*?': (\w+): ")


def _wrapped_error(name: str, value: str) -> str:
    """The error's own name, or for the RuntimeError with which ``evaluate`` reports a case
    that failed, the name of the error it wraps (a named server limit stays a limit)."""
    match = _EVAL_WRAP.match(value) if name == "RuntimeError" else None
    return match.group(1) if match else name


def cell_outcomes(nb: Any, stopped: tuple[int, str] | None = None,
                  ) -> tuple[int, int, list[str], list[str]]:
    """(code cells, passed, limit notes, failure notes) of an executed notebook;
    ``stopped`` is ``(cell index, reason)`` when execution stopped there (a timeout, a dead
    kernel): that cell fails with the reason and the cells after it were not run."""
    cells = passed = 0
    limits: list[str] = []
    failures: list[str] = []
    first_bad: int | None = None
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        cells += 1
        if stopped is not None and index >= stopped[0]:
            if index == stopped[0]:
                failures.append(f"cell {index}: {stopped[1]}")
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if not errors:
            passed += 1
            continue
        name, value = errors[0].get("ename", ""), errors[0].get("evalue", "")
        note = f"cell {index}: {name}: {_one_line(value, 150)}"
        if _wrapped_error(name, value) in LIMIT_ERRORS and "server limit" in value:
            limits.append(note)
        elif name == "NameError" and first_bad is not None:
            failures.append(f"cell {index}: NameError after cell {first_bad} stopped")
        else:
            failures.append(note)
        first_bad = index if first_bad is None else first_bad
    if stopped is not None:
        left = sum(1 for cell in nb.cells[stopped[0] + 1:] if cell.cell_type == "code")
        if left:
            failures.append(f"{left} code cells after cell {stopped[0]} not run")
    return cells, passed, limits, failures


def run_lesson(name: str, folder: Path, env: dict[str, str], timeout: float,
               source: Path = ROOT / "notebooks") -> LessonRow:
    """Execute ``{source}/{name}.ipynb`` into ``folder`` with ``env`` (every cell runs,
    also after a failing one; a cell over ``timeout`` seconds stops the lesson) and sort
    its code cells by outcome."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.read(source / f"{name}.ipynb", as_version=4)
    saved = {key: os.environ.get(key) for key in (*env, "OPENAI_API_KEY")}
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.update(env)
    current = [0]
    stopped: tuple[int, str] | None = None
    began = time.perf_counter()
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": str(source)}},
                                on_cell_start=lambda cell, cell_index: current.__setitem__(
                                    0, cell_index))
        client.execute()
    except CellTimeoutError:
        stopped = (current[0], f"timed out after {timeout:.0f} s (a slow server: raise "
                   "--lesson-timeout)")
    except DeadKernelError as exc:
        stopped = (current[0], f"the kernel died: {_one_line(str(exc), 100)}")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    seconds = time.perf_counter() - began
    nbformat.write(nb, folder / f"{name}.ipynb")
    cells, passed, limits, failures = cell_outcomes(nb, stopped)
    return LessonRow(name, cells, passed, limits, failures, seconds)


def lesson_table(rows: list[LessonRow]) -> str:
    lines = [f"{'lesson':<28}  {'code cells':>10}  {'pass':>4}  {'limit':>5}  {'fail':>4}  "
             f"{'seconds':>7}"]
    lines.append("-" * len(lines[0]))
    for r in rows:
        lines.append(f"{r.lesson:<28}  {r.cells:>10}  {r.passed:>4}  {len(r.limits):>5}  "
                     f"{len(r.failures):>4}  {r.seconds:>7.1f}")
        lines += [f"    limit  {note}" for note in r.limits]
        lines += [f"    FAIL   {note}" for note in r.failures]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- main


async def run_check(name: str, how: str, check: Check, timeout: float) -> Row:
    began = time.perf_counter()
    try:
        tokens, detail = await asyncio.wait_for(check(), timeout)
        result = "pass"
    except Exception as exc:  # every failure is reported, none stops the others
        limit = getattr(exc, "limit", None)
        if isinstance(exc, TimeoutError) and not str(exc):  # asyncio.wait_for's: no text
            result, detail = "FAIL", (f"TimeoutError: the check took over {timeout:g} s "
                                      "(a slow or busy server: raise --timeout)")
        elif isinstance(exc, ServerLimit):
            result, detail = "limit", str(exc)
        elif limit:
            result, detail = "limit", f"server limit: {limit}; {type(exc).__name__}: {exc}"
        else:
            result, detail = "FAIL", f"{type(exc).__name__}: {exc}"
        tokens, detail = "-", _one_line(detail, 160)
    return Row(name, how, result, time.perf_counter() - began, tokens, detail)


def server_row(setup: Setup, timeout: float) -> Row:
    """``GET /models``, waiting up to ``timeout`` seconds (a busy llama-cpp-python server
    answers it only between two completions)."""
    import httpx

    from ctxlab.course.backends import server_check

    began = time.perf_counter()
    with httpx.Client(timeout=timeout) as client:
        found = server_check(setup.backend, recheck=True, http_client=client)
    assert found is not None
    line = found.lines()[0]
    return Row("GET /models", "http", "FAIL" if found.problem else "pass",
               time.perf_counter() - began, "-", _one_line(line.split(":", 1)[1], 200))


def table(rows: list[Row]) -> str:
    head = ("check", "how", "result", "seconds", "tokens in/out", "detail")
    cells = [head] + [(r.check, r.how, r.result, f"{r.seconds:.1f}", r.tokens, r.detail)
                      for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
    lines = []
    for n, c in enumerate(cells):
        lines.append("  ".join(f"{v:<{w}}" for v, w in zip(c, widths, strict=False)) + "  " + c[-1])
        if n == 0:
            lines.append("-" * len(lines[0]))
    return "\n".join(lines)


async def checks_async(args: argparse.Namespace, setup: Setup) -> list[Row]:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    rows = [server_row(setup, min(args.timeout, 60.0))]
    if not rows[0].ok or args.no_checks:
        return rows
    checks = [("tool calls (probe)", "chat", tool_probe(setup))]
    checks += agent_checks(setup, args.turns, args.timeout)
    checks += caller_checks(setup, args.overflow_tokens)
    for name, how, check in checks:
        rows.append(await run_check(name, how, check, args.timeout))
        print(f"  {rows[-1].result:<5} {name} ({how})", flush=True)
    return rows


def report(args: argparse.Namespace, setup: Setup) -> int:
    """Run the checks and the lessons, print both tables; the exit code."""
    rows = asyncio.run(checks_async(args, setup))
    print(table(rows))
    if any(r.tokens.startswith("~") for r in rows):
        print(ESTIMATED_NOTE)
    counts = {k: sum(r.result == k for r in rows) for k in ("pass", "limit", "FAIL")}
    print(f"{sum(r.ok for r in rows)}/{len(rows)} checks passed ({counts['pass']} pass, "
          f"{counts['limit']} at a named server limit, {counts['FAIL']} FAIL)")
    lessons = [] if args.lessons == "none" or not rows[0].ok else args.lessons.split(",")
    lesson_rows = []
    if lessons:
        folder = Path(args.lesson_dir or tempfile.mkdtemp(prefix="ctxlab-smoke-lessons-"))
        folder.mkdir(parents=True, exist_ok=True)
        print(f"\nlessons against {setup.backend.base_url} (executed copies in {folder}):",
              flush=True)
        for name in lessons:
            lesson_rows.append(run_lesson(_lesson_name(name), folder, setup.env,
                                          args.lesson_timeout))
            print(f"  {'ok  ' if lesson_rows[-1].ok else 'FAIL'} {lesson_rows[-1].lesson}",
                  flush=True)
        print(lesson_table(lesson_rows))
        print(f"{sum(r.ok for r in lesson_rows)}/{len(lesson_rows)} lessons ran to the end "
              "with no failing cell")
    return 0 if all(r.ok for r in rows) and all(r.ok for r in lesson_rows) else 1


def _lesson_name(name: str) -> str:
    found = [lesson for lesson in LESSONS if lesson.split("_")[0] == name or lesson == name]
    if not found:
        raise SystemExit(f"unknown lesson {name!r}; use one of "
                         f"{', '.join(lesson.split('_')[0] for lesson in LESSONS)}")
    return found[0]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--mock", action="store_true",
                        help="serve requests from the tests' fake API (no server needed)")
    parser.add_argument("--mock-rules",
                        choices=("llama-cpp-python", "llama-cpp-python-function-calling"),
                        help="with --mock: also enforce this server's request rules")
    parser.add_argument("--base-url", help="the server's API root (default: OPENAI_BASE_URL)")
    parser.add_argument("--model", help="the model name (default: CTXLAB_MODEL)")
    parser.add_argument("--turns", type=int, default=4,
                        help="user turns per agent check (>= 3, so that summarizing folds)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds allowed per check (small models on CPU are slow)")
    parser.add_argument("--max-tokens", type=int, default=512,
                        help="reply cap sent with every agent request (CTXLAB_MAX_TOKENS "
                        "in the lessons)")
    parser.add_argument("--overflow-tokens", type=int, default=9000,
                        help="size of the one request that tests a context overflow")
    parser.add_argument("--no-checks", action="store_true",
                        help="only GET /models and the lessons")
    parser.add_argument("--lessons", default="00,03,05b,09,10",
                        help="lessons to execute against the server, or 'none'")
    parser.add_argument("--lesson-dir", help="where the executed lesson copies go "
                        "(default: a new temporary folder)")
    parser.add_argument("--lesson-timeout", type=float, default=14400.0,
                        help="seconds allowed per lesson cell (a 20-turn chat on a small "
                        "CPU server can take an hour or more)")
    args = parser.parse_args(argv)
    if args.turns < 3:
        parser.error("--turns must be >= 3 (a summarizing session with context_limit=2 "
                     "folds at the third turn)")
    if args.mock_rules and not args.mock:
        parser.error("--mock-rules needs --mock")
    if args.lessons != "none":
        for name in args.lessons.split(","):
            _lesson_name(name)
    return args


def main(argv: list[str] | None = None) -> int:
    from ctxlab.course.backends import BackendConfigError

    args = parse_args(argv)
    with contextlib.ExitStack() as stack:
        if args.mock:
            base_url, model = stack.enter_context(mock_server(args)), args.model or MOCK_MODEL
        else:
            base_url = args.base_url or os.environ.get("OPENAI_BASE_URL", "")
            model = args.model or os.environ.get("CTXLAB_MODEL", "")
            if not base_url or not model:
                print("set OPENAI_BASE_URL and CTXLAB_MODEL (or pass --base-url and --model), "
                      "or use --mock", file=sys.stderr)
                return 2
        try:
            setup = make_setup(args, base_url, model)
        except BackendConfigError as exc:
            print(f"configuration error: {exc}", file=sys.stderr)
            return 2
        mock = ""
        if args.mock:
            mock = f"  (mock, {args.mock_rules} rules)" if args.mock_rules else "  (mock)"
        print(f"server: {setup.backend.base_url}  model: {setup.backend.model_name}{mock}",
              flush=True)
        return report(args, setup)


if __name__ == "__main__":
    sys.exit(main())
