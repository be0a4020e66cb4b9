"""scripts/real_server_smoke.py runs offline against the fake API (--mock, also with
llama-cpp-python's rules) and prints its tables; a stopped server fails at GET /models; a
URL that is not an API root gets the configuration error, not a traceback."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import nbformat

from conftest import arun

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "real_server_smoke.py"
AGENT_CHECKS = ["agent + TrimmingSession(2)", "agent + SummarizingSession(1/2)",
                "agent + ContextManager(state, recall)"]
DIRECT_CHECKS = [("LLMSummarizer", "chat"), ("LLMStateExtractor (structured)", "chat"),
                 ("SummaryJudge (structured)", "chat"), ("request of 9,000 tokens", "chat")]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_BASE_URL", "CTXLAB_MODEL", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=900)


def rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """Check table rows by (check, how): the columns after those two."""
    lines = stdout.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("check "))
    found = {}
    for line in lines[start + 2:]:
        if "checks passed" in line or line.startswith("~ :"):
            break
        cells = [c for c in line.split("  ") if c.strip()]
        found[(cells[0].strip(), cells[1].strip())] = [c.strip() for c in cells[2:]]
    return found


def expected_checks() -> set[tuple[str, str]]:
    found = {("GET /models", "http"), ("tool calls (probe)", "chat"),
             ("agent + tool_choice=auto", "streamed")}
    found |= {(c, how) for c in AGENT_CHECKS for how in ("run", "streamed")}
    return found | set(DIRECT_CHECKS)


def test_the_mock_run_prints_a_table_where_every_check_and_a_lesson_passed(tmp_path):
    done = run("--mock", "--lessons", "00", "--lesson-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    table = rows(done.stdout)
    assert set(table) == expected_checks()
    assert all(cells[0] == "pass" for cells in table.values())
    assert "13/13 checks passed (13 pass, 0 at a named server limit, 0 FAIL)" in done.stdout
    assert "tools: lookup_device" in table[("agent + tool_choice=auto", "streamed")][-1]
    for how in ("run", "streamed"):
        assert table[("agent + SummarizingSession(1/2)", how)][-1].startswith("folded; 4 turns")
        for check in AGENT_CHECKS:
            tokens_in, tokens_out = map(int, table[(check, how)][2].split("/"))
            assert tokens_in > 0 and tokens_out > 0  # reported usage: no "~"
            assert "tools: lookup_device" in table[(check, how)][-1]
    assert table[("GET /models", "http")][-1] == "reachable, serves gpt-4.1-mini"
    assert table[("request of 9,000 tokens", "chat")][-1] == \
        "fits: the server's context window holds it"
    lesson = next(line for line in done.stdout.splitlines() if line.startswith("00_quickstart"))
    code_cells, passed, limits, fails = map(int, lesson.split()[1:5])
    assert code_cells == passed > 5 and limits == fails == 0
    assert done.stdout.splitlines()[-1] == "1/1 lessons ran to the end with no failing cell"
    executed = nbformat.read(tmp_path / "00_quickstart.ipynb", as_version=4)
    committed = nbformat.read(ROOT / "notebooks" / "00_quickstart.ipynb", as_version=4)
    backend = _backend_output(executed)
    assert "Backend: openai-compatible" in backend  # it ran against the server, not offline
    assert "Backend: offline" in _backend_output(committed)


def _backend_output(nb: nbformat.NotebookNode) -> str:
    """The printed output of the quickstart cell that names the backend."""
    texts = ("".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells
             if cell.cell_type == "code")
    return next(text for text in texts if "Backend:" in text)


def test_llama_cpp_python_rules_end_in_passes_and_named_limits():
    done = run("--mock", "--mock-rules", "llama-cpp-python", "--lessons", "none")
    assert done.returncode == 0, done.stdout + done.stderr
    table = rows(done.stdout)
    assert set(table) == expected_checks()
    results = {key: cells[0] for key, cells in table.items()}
    limits = {key for key, result in results.items() if result == "limit"}
    assert limits == {("tool calls (probe)", "chat"), ("request of 9,000 tokens", "chat"),
                      ("agent + tool_choice=auto", "streamed")}
    assert table[("agent + tool_choice=auto", "streamed")][-1].startswith(
        "server limit: streamed tool_choice=auto; ModelCallError: ")
    assert table[("tool calls (probe)", "chat")][-1].startswith(
        "server limit: tools are used only when tool_choice is sent (named); the agent sends "
        "none")
    assert table[("request of 9,000 tokens", "chat")][-1].startswith(
        "context window of 8,192 tokens; the error says what to do: give the model at least")
    for check in AGENT_CHECKS:
        assert not table[(check, "run")][2].startswith("~")  # reported by the server
        assert table[(check, "streamed")][2].startswith("~")  # counted: none was sent
    for check in ("LLMStateExtractor (structured)", "SummaryJudge (structured)"):
        assert table[(check, "chat")][-1].endswith(
            "json_object fallback (the server refuses json_schema)")
    assert "~ : the server reported no token usage; ctxlab counted it" in done.stdout
    assert "13/13 checks passed (10 pass, 3 at a named server limit, 0 FAIL)" in done.stdout


def _outputs(nb: nbformat.NotebookNode) -> str:
    return "\n".join("".join(o.get("text", "") for o in cell.outputs) for cell in nb.cells
                     if cell.cell_type == "code")


def test_lessons_03_09_10_run_to_the_end_on_llama_cpp_python_and_say_what_did_not_happen(
        tmp_path):
    """Issue 34: on the real server lesson 09 ended in a bare IndexError and lesson 10
    claimed a deletion that did not happen. On the fake with that server's rules (the
    stand-in: no model file here) every cell of 03, 09 and 10 runs, and each action that
    did not happen is said to have not happened, with the server limit."""
    done = run("--mock", "--mock-rules", "llama-cpp-python", "--no-checks",
               "--lessons", "03,09,10", "--lesson-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[0]: line.split()[1:5] for line in done.stdout.splitlines()
             if line.startswith(("03_", "09_", "10_"))}
    for lesson, (cells, passed, limits, fails) in lines.items():
        assert int(cells) == int(passed) + int(limits) and fails == "0", lesson
    assert done.stdout.splitlines()[-1] == "3/3 lessons ran to the end with no failing cell"
    limit = "server limit: tools are used only when tool_choice is sent"
    handoffs = _outputs(nbformat.read(tmp_path / "09_handoffs_and_multi_issue.ipynb",
                                      as_version=4))
    assert "checked: escalate to the human desk: it did NOT happen. The model did not call " \
           "transfer_to_human_agent" in handoffs and limit in handoffs
    assert "hand off to the repair desk: it did NOT happen" in handoffs
    assert "scored on the offline team model" in handoffs  # the offline table says so
    forget = _outputs(nbformat.read(tmp_path / "10_memory_across_sessions.ipynb",
                                    as_version=4))
    assert "checked: delete the customer's data: it did NOT happen. The model did not call " \
           "delete_my_data" in forget and limit in forget
    summarizing = _outputs(nbformat.read(tmp_path / "03_summarizing.ipynb", as_version=4))
    assert "token source: all " in summarizing and "reported by the server at " in summarizing


def test_a_stopped_server_fails_at_get_models_with_the_hints():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run("--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert done.returncode == 1
    table = rows(done.stdout)
    assert list(table) == [("GET /models", "http")]
    cells = table[("GET /models", "http")]
    assert cells[0] == "FAIL" and "is the server running? does the URL end in /v1?" in cells[-1]
    assert "0/1 checks passed" in done.stdout and "lessons" not in done.stdout


def test_a_url_that_is_not_an_api_root_prints_the_configuration_error():
    for url, expected in (
        ("localhost:8080/v1", "has no http:// or https:// scheme; write it in full, e.g. "
                              "http://localhost:8080/v1"),
        ("http://localhost:8080/v1/chat/completions", "ends in /chat/completions, an "
                                                      "endpoint; give the API root instead"),
    ):
        done = run("--base-url", url, "--model", "m")
        assert done.returncode == 2
        assert done.stderr.startswith(f"configuration error: OPENAI_BASE_URL={url!r} ")
        assert expected in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


def test_arguments_are_checked():
    assert run("--mock", "--turns", "2").returncode == 2
    assert run("--base-url", "http://x/v1", "--mock-rules", "llama-cpp-python").returncode == 2
    assert "unknown lesson '07'" in run("--mock", "--lessons", "07").stderr
    missing = run()
    assert missing.returncode == 2 and "set OPENAI_BASE_URL and CTXLAB_MODEL" in missing.stderr


def load_script():
    spec = importlib.util.spec_from_file_location("real_server_smoke", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_lesson_cells_are_sorted_into_pass_limit_and_fail():
    smoke = load_script()

    def cell(error: tuple[str, str] | None = None):
        made = nbformat.v4.new_code_cell("x")
        if error is not None:
            made.outputs = [nbformat.v4.new_output("error", ename=error[0], evalue=error[1],
                                                   traceback=[])]
        return made

    overflow = ("ContextOverflowError", "agent (m): the request does not fit the model's "
                "context window (... 400; server limit: context window of 8,192 tokens) ...")
    # how ctxlab.eval.evaluate reports a case that failed: a RuntimeError wrapping the error
    from ctxlab.core.model_errors import ModelCallError
    from ctxlab.eval.evaluate import case_failure

    limit = case_failure("summarize:2/4", "p-1",
                         ModelCallError("answered 500 (server limit: no json_schema)",
                                        "http://x/v1"))
    wrapped = ("RuntimeError", str(limit))
    wrapped_fail = ("RuntimeError", str(case_failure("trim:2", "p-1", KeyError(
        "server limit"))))  # not a named limit: a failure
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# lesson"), cell(), cell(overflow),
        cell(("NameError", "name 'runs' is not defined")),
        cell(("ModelCallError", "http://x/v1/chat/completions answered 500 to agent: ...")),
        cell(("AssertionError", "")), cell(), cell(wrapped), cell(wrapped_fail)])
    cells, passed, limits, failures = smoke.cell_outcomes(nb)
    assert (cells, passed) == (8, 2)
    assert limits == ["cell 2: ContextOverflowError: " + overflow[1],
                      "cell 7: RuntimeError: " + wrapped[1]]  # evaluate's wrap keeps a limit
    assert failures[3] == "cell 8: RuntimeError: " + wrapped_fail[1]
    assert failures[0] == "cell 3: NameError after cell 2 stopped"
    assert failures[1].startswith("cell 4: ModelCallError: http://x/v1/chat/completions "
                                  "answered 500")  # an error without a named limit fails
    assert failures[2] == "cell 5: AssertionError: "
    # an action that did not happen, stopped with the server limit named, is a limit
    action = nbformat.v4.new_notebook(cells=[cell(("ActionNotTaken", "checked: hand off: it "
                                                   "did NOT happen. ... server limit: tools "
                                                   "are used only when tool_choice is sent")),
                                             cell(("ActionNotTaken", "checked: hand off: it "
                                                   "did NOT happen. The model did not call "
                                                   "it: the model chose not to call it."))])
    _, _, action_limits, action_fails = smoke.cell_outcomes(action)
    assert len(action_limits) == 1 and action_limits[0].startswith("cell 0: ActionNotTaken")
    assert len(action_fails) == 1 and action_fails[0].startswith(
        "cell 1: ActionNotTaken")  # no named limit: a failure
    # a bare openai error is a failure even when its text mentions a limit
    bare = nbformat.v4.new_notebook(cells=[cell(("BadRequestError", "server limit: 8192"))])
    assert smoke.cell_outcomes(bare)[3] == ["cell 0: BadRequestError: server limit: 8192"]


def test_a_lesson_stopped_by_a_timeout_names_the_cell_and_what_was_not_run():
    smoke = load_script()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a"),
                                         nbformat.v4.new_markdown_cell("b"),
                                         nbformat.v4.new_code_cell("c"),
                                         nbformat.v4.new_code_cell("d")])
    cells, passed, limits, failures = smoke.cell_outcomes(nb, (2, "timed out after 60 s"))
    assert (cells, passed, limits) == (3, 1, [])
    assert failures == ["cell 2: timed out after 60 s", "1 code cells after cell 2 not run"]


def probe_on(fake) -> tuple[str, str]:
    """The tool probe's outcome against ``fake``: ("pass", detail) or ("limit", reason)."""
    from types import SimpleNamespace

    smoke = load_script()
    setup = smoke.Setup(SimpleNamespace(model_name="gpt-4.1-mini"), fake.async_client(), {})
    row = arun(smoke.run_check("tool calls (probe)", "chat", smoke.tool_probe(setup), 60))
    return row.result, row.detail


def test_the_tool_probe_tells_a_usable_server_from_each_limit():
    from dataclasses import replace

    from openai_server_rules import LLAMA_CPP_PYTHON, LLAMA_CPP_PYTHON_FUNCTION_CALLING

    from openai_fake_api import FakeOpenAI

    assert probe_on(FakeOpenAI()) == (
        "pass", "a tool call came back and the call's history was accepted")
    for rules, choice in ((LLAMA_CPP_PYTHON, "named"),
                          (LLAMA_CPP_PYTHON_FUNCTION_CALLING, "auto")):
        fake = FakeOpenAI(rules=rules)
        result, detail = probe_on(fake)
        assert result == "limit" and detail.startswith(
            f"server limit: tools are used only when tool_choice is sent ({choice})")
        follow_up = fake.bodies("chat/completions")[-1]  # accepted: content "", not null
        assert follow_up["messages"][1]["content"] == "" and follow_up["messages"][1][
            "tool_calls"] and fake.rejections == []
    fake = FakeOpenAI(rules=LLAMA_CPP_PYTHON)  # what the agent sends first, then more
    probe_on(fake)
    assert [b.get("tool_choice") for b in fake.bodies("chat/completions")] == [
        None, "auto", {"type": "function", "function": {"name": "lookup_device"}},
        {"type": "function", "function": {"name": "lookup_device"}}]
    never = FakeOpenAI(rules=replace(LLAMA_CPP_PYTHON, tool_choices=()))
    result, detail = probe_on(never)
    assert result == "limit" and detail.startswith(
        "server limit: no tool call came back, even with tool_choice naming the function")


def test_a_cell_over_the_timeout_stops_its_lesson_without_a_traceback(tmp_path):
    smoke = load_script()
    source, folder = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    folder.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("import time\ntime.sleep(60)"),
        nbformat.v4.new_code_cell("x")]), source / "slow.ipynb")
    row = smoke.run_lesson("slow", folder, {}, 5, source=source)
    assert (row.cells, row.passed, row.limits) == (3, 1, [])
    assert row.failures == ["cell 1: timed out after 5 s (a slow server: raise --lesson-timeout)",
                            "1 code cells after cell 1 not run"]
    assert (folder / "slow.ipynb").exists() and not row.ok


def summarizing_row(timeout: float):
    """The smoke script's summarizing check (plain run) against its --mock server, with
    ``timeout`` as --timeout."""
    smoke = load_script()
    args = smoke.parse_args(["--mock", "--lessons", "none", "--timeout", str(timeout)])
    with smoke.mock_server(args) as base_url:
        setup = smoke.make_setup(args, base_url, smoke.MOCK_MODEL)
        checks = {(name, how): check for name, how, check in
                  smoke.agent_checks(setup, 3, args.timeout)}
        return arun(smoke.run_check("sum", "run", checks[("agent + SummarizingSession(1/2)",
                                                          "run")], 120))


def test_the_summarizing_check_gives_the_summarizer_the_check_timeout():
    """On the real server (SmolLM2 on a busy CPU) a summary took over the session's default
    120 s and the check failed with "no fold happened": the summarizer now gets the check's
    own --timeout, and a fold that still fails says why."""
    row = summarizing_row(600.0)
    assert row.result == "pass" and row.detail.startswith("folded; 3 turns")
    row = summarizing_row(0.0001)  # the broken variant: a timeout no summary can meet
    assert row.result == "FAIL"
    assert row.detail.startswith("RuntimeError: no fold happened (the summarizer failed: ")
    assert "timed out after" in row.detail


def test_a_server_that_does_not_answer_is_named_busy_not_a_bare_timeout():
    """Seen on the real server: llama-cpp-python answers GET /models only between two
    completions, so a busy server timed out at 5 s and the row said only "is the server
    running?". A socket that accepts and never answers stands in for it."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        done = run("--base-url", f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
                   "--model", "m", "--timeout", "2")
    assert done.returncode == 1
    cells = rows(done.stdout)[("GET /models", "http")]
    assert cells[0] == "FAIL"
    assert cells[-1].startswith("no answer from http://127.0.0.1:")
    assert "/v1/models within 2 s" in cells[-1] and "may be busy with another request" in \
        cells[-1]


def test_a_check_over_its_timeout_says_so_and_what_to_raise():
    import asyncio

    smoke = load_script()

    async def slow() -> tuple[str, str]:
        await asyncio.sleep(5)
        return "-", "never"

    row = arun(smoke.run_check("slow", "run", slow, 0.2))
    assert (row.result, row.tokens) == ("FAIL", "-")
    assert row.detail == "TimeoutError: the check took over 0.2 s (a slow or busy server: " \
        "raise --timeout)"
