"""scripts/real_server_smoke.py runs offline against the fake API (--mock) and prints its
table; against a stopped server it says so after GET /models."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "real_server_smoke.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_BASE_URL", "CTXLAB_MODEL", "OPENAI_API_KEY")}
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)


def rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    """Table rows by (check, how): the columns after those two."""
    lines = stdout.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("check "))
    found = {}
    for line in lines[start + 2:]:
        if line.endswith("checks passed"):
            break
        cells = [c for c in line.split("  ") if c.strip()]
        found[(cells[0].strip(), cells[1].strip())] = [c.strip() for c in cells[2:]]
    return found


def test_the_mock_run_prints_a_table_where_every_check_worked():
    done = run("--mock")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "10/10 checks passed"
    table = rows(done.stdout)
    agent_checks = ["agent + TrimmingSession(2)", "agent + SummarizingSession(1/2)",
                    "agent + ContextManager(state, recall)"]
    expected = {("GET /models", "http")}
    expected |= {(c, how) for c in agent_checks for how in ("run", "streamed")}
    expected |= {("LLMSummarizer", "chat"), ("LLMStateExtractor (json_schema)", "chat"),
                 ("SummaryJudge (json_schema)", "chat")}
    assert set(table) == expected
    assert all(cells[0] == "ok" for cells in table.values())
    for how in ("run", "streamed"):
        assert table[("agent + SummarizingSession(1/2)", how)][-1].startswith("folded; 4 turns")
        for check in agent_checks:
            tokens_in, tokens_out = map(int, table[(check, how)][2].split("/"))
            assert tokens_in > 0 and tokens_out > 0  # usage, streamed runs included
            assert "tools: lookup_device" in table[(check, how)][-1]
    assert table[("GET /models", "http")][-1] == "reachable, serves gpt-4.1-mini"


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
    assert done.stdout.splitlines()[-1] == "0/1 checks passed"


def test_arguments_are_checked():
    assert run("--mock", "--turns", "2").returncode == 2
    missing = run()
    assert missing.returncode == 1 and "set OPENAI_BASE_URL and CTXLAB_MODEL" in missing.stderr
