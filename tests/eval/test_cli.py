"""python -m ctxlab: eval, replay, compare, strategies, and their errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from ctxlab import seed_support_conversation
from ctxlab.cli import main
from ctxlab.eval import EvalRun

from conftest import ROOT


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    common = ["eval", "--corpus", "seed", "--corpus", "planted:1:24-24", "--out", str(folder),
              "--quiet"]
    code, out = run_cli(*common, "--strategy", "trim:3", "--strategy", "budget:900",
                        "--run-id", "base")
    assert code == 0, out
    code2, _ = run_cli(*common, "--strategy", "trim:1", "--strategy", "budget:700",
                       "--run-id", "cand", "--no-answers")
    assert code2 == 0
    return folder, out


def test_eval_saves_the_run_and_prints_a_table(runs):
    folder, out = runs
    assert "run base: 4 conversations" in out
    assert "trim 3" in out and "full history + budget 900" in out and "answers" in out
    assert "note: answers are asked only" in out
    assert f"saved {folder / 'base.json'}" in out
    run = EvalRun.load(folder / "base.json")
    assert run.strategies == ["trim:3", "full+budget:900"]
    assert run.config["corpora"] == ["seed", "planted:1:24-24"]
    assert (folder / "base.summary.csv").exists() and (folder / "base.turns.csv").exists()
    assert EvalRun.load(folder / "cand.json").config["answers"] is False


def test_eval_shows_a_progress_bar_unless_quiet(tmp_path, capsys):
    code, out = run_cli("eval", "--corpus", "seed", "--strategy", "trim:2", "--out",
                        str(tmp_path), "--no-answers", "--latency", "--judge")
    assert code == 0
    assert "evaluating" in capsys.readouterr().err
    assert "answers" not in out.splitlines()[1]
    assert "get_items" in out and "LLM-as-judge skipped" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["eval", "--strategy", "trim:0"], "must be >= 1"),
    (["eval", "--corpus", "nope"], "unknown corpus 'nope'"),
    (["eval", "--workers", "0"], "--workers must be >= 1"),
    (["eval", "--llm-summaries", "--corpus", "seed"], "needs a real model"),
    (["replay", "missing.jsonl"], "cannot read missing.jsonl"),
    (["compare", "a.json", "b.json", "--pair", "x"], "expected BASE=CAND"),
])
def test_bad_input_is_one_line_and_exit_status_2(argv, message, capsys, tmp_path,
                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _ = run_cli(*argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.startswith("error: ")


def test_compare_lists_regressions_and_can_fail_ci(runs):
    folder, _ = runs
    pairs = ["--pair", "trim:3=trim:1", "--pair", "full+budget:900=full+budget:700"]
    code, out = run_cli("compare", str(folder / "base.json"), str(folder / "cand.json"),
                        *pairs, "--max-rows", "1")
    assert code == 0
    assert "baseline base vs candidate cand" in out
    assert "unanswered questions" in out and "token-pressure drops" in out
    code, _ = run_cli("compare", str(folder / "base.json"), str(folder / "cand.json"), *pairs,
                      "--fail-on-regression")
    assert code == 1
    same, text = run_cli("compare", str(folder / "base.json"), str(folder / "base.json"),
                         "--fail-on-regression")
    assert same == 0 and "0 regression(s)" in text


def test_replay_prints_each_turn_s_model_call(tmp_path):
    log = tmp_path / "chat.jsonl"
    log.write_text("\n".join(json.dumps(i) for i in seed_support_conversation().items))
    code, out = run_cli("replay", str(log), "--strategy", "trim:2", "--turn", "19",
                        "--width", "40")
    assert code == 0
    assert "20 user turns" in out and "=== trim 2 (trim:2) ===" in out
    assert "turn 19: " in out and "turn 18: " not in out
    assert "Great. Can you sum up my case" in out  # turn 19's new input
    assert "Thanks, that's everything" not in out  # turn 20 is not shown
    assert "facts after the last turn:" in out
    code, brief = run_cli("replay", str(log), "--brief", "--tool-calls")
    assert "after tool round 1" in brief and "    0 user" not in brief
    code, _ = run_cli("replay", str(log), "--turn", "99")
    assert code == 2


def test_replay_reads_chat_completions_logs_and_counts_instructions(tmp_path):
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Ticket TCK-11111, please check it."},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": "t1", "type": "function",
            "function": {"name": "get_ticket_status",
                         "arguments": json.dumps({"ticket_id": "TCK-11111"})}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "{\"status\": \"open\"}"},
        {"role": "assistant", "content": "It is open."},
        {"role": "user", "content": "Thanks!"},
    ]
    log = tmp_path / "cc.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in messages))
    instructions = tmp_path / "instructions.txt"
    instructions.write_text("You are a support agent.")
    code, out = run_cli("replay", str(log), "--strategy", "trim:1", "--instructions",
                        str(instructions), "--tool-calls")
    assert code == 0 and "instructions not counted" not in out
    assert "turn 1, after tool round 1: 3 items" in out
    assert "ticket TCK-11111: LOST" in out


def test_the_module_entry_point_and_help():
    done = subprocess.run([sys.executable, "-m", "ctxlab", "strategies"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "summarize:K/L" in done.stdout
    for command in ("eval", "replay", "compare"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"], out=io.StringIO())
        assert exit_info.value.code == 0
