"""The set-up a user meets first: the two commands, Binder, CI, committed notebooks,
and benchmarks that still run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))


def pins(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        match = re.match(r"([A-Za-z0-9_.-]+)==([^;\s]+)\s*(;.*)?$", line)
        if match and (not match.group(3) or ">=" in match.group(3)):
            found[match.group(1).lower()] = match.group(2)
    return found


def test_binder_pins_match_the_course_and_install_ctxlab():
    root, binder = pins(ROOT / "requirements.txt"), pins(ROOT / "binder" / "requirements.txt")
    assert binder, "binder/requirements.txt pins nothing"
    for name, version in binder.items():
        assert root.get(name) == version, f"{name}: binder {version}, root {root.get(name)}"
    lines = [ln.strip() for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[-1] == "-e ."
    assert re.fullmatch(r"python-3\.1\d\n?", (ROOT / "binder" / "runtime.txt").read_text())


def test_readme_documents_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert "./run lab" in readme and "./run test" in readme
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python3 \./run test$", ci, re.M)
    assert "OPENAI_BASE_URL" in readme and "binder" in readme.lower()


@pytest.mark.parametrize("readme", ["README.md", "README.zh-CN.md"])
def test_each_readme_lists_every_lesson_once_in_its_lesson_table(readme):
    text = (ROOT / readme).read_text()
    start = text.index("| `00_quickstart` |")  # the lesson table (a cost table may follow)
    table = text[start:text.index("\n\n", start)]
    rows = re.findall(r"^\| `(\d\d\w*)` \|", table, re.M)
    assert sorted(rows) == sorted(p.stem for p in NOTEBOOKS), readme


def test_requirements_end_with_the_editable_package():
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines[-1] == "-e ."
    assert "nest_asyncio" not in (ROOT / "requirements.txt").read_text().split("#")[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_executed_and_complete(path):
    nb = json.loads(path.read_text())
    assert "widgets" not in nb.get("metadata", {}), "strip metadata.widgets"
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    counts = [c["execution_count"] for c in code]
    assert None not in counts, "every code cell must be executed"
    assert counts == sorted(counts) and counts[0] == 1, "execute top to bottom"
    for cell in code:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"stored error output in {path.name}"
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    assert "In this lesson you will" in text or "you will" in text, "goals up front"
    assert re.search(r"^## (?:\S+ · )?Exercise", text, re.MULTILINE)  # 05b: ## 练习 · Exercise
    assert re.search(r"from ctxlab\.eval\.exercises import [^\n]*check_", text), "exercise check"
    assert re.search(r"^## (?:\S+ · )?Try it with a real model", text, re.MULTILINE)
    assert "nest_asyncio.apply" not in text


#: The link to the next lesson, in English or (lesson 05b) in Chinese.
NEXT = re.compile(r"\*\*(?:Next:|下一课：)\*\*")


def test_every_lesson_links_to_the_next_one_and_the_links_resolve():
    """A learner finishes a lesson and follows its **Next:** link (**下一课：** in the Chinese
    lesson); the last lesson has none."""
    names = [path.name for path in NOTEBOOKS]
    for index, path in enumerate(NOTEBOOKS):
        nb = json.loads(path.read_text())
        last = "".join([c for c in nb["cells"] if c["cell_type"] == "markdown"][-1]["source"])
        targets = re.findall(r"\]\(([0-9][^)]*\.ipynb)\)", NEXT.split(last)[-1])
        if index == len(NOTEBOOKS) - 1:
            assert not NEXT.search(last), f"{path.name} is the last lesson"
            continue
        assert NEXT.search(last), f"{path.name}: no **Next:** link in its last cell"
        assert targets and set(targets) <= set(names), f"{path.name}: broken link {targets}"
        assert names[index + 1] in targets, f"{path.name} skips {names[index + 1]}"


def run_script(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_trimming_benchmark_runs_and_reports_the_target():
    out = run_script("benchmarks/bench_trimming.py", "--sizes", "100", "--turns", "3")
    assert "TrimmingSession" in out and "SQLiteSession" in out and "target at 100" in out


def test_reflection_benchmark_runs_and_a_burst_writes_once():
    out = run_script("benchmarks/bench_reflection.py", "--records", "memory", "--bursts", "4",
                     "--delay", "0.01")
    row = next(line.split() for line in out.splitlines() if line.split()[:1] == ["4"])
    assert row[1] == "4" and row[4] == "1", out  # plain: 4 writes; debounced: 1
    assert "both kept all 4 sessions" in out


def test_issue30_benchmark_runs_on_a_corpus_slice():
    out = run_script("benchmarks/bench_issue30.py", "--limit", "1", "--mode", "per-service",
                     "--setting", "topics", "--out", "-")
    assert out.count(": per-issue handovers") == 4 and out.count(": long-term recall (") == 4
    assert "per-service" in out and "topics" in out


def test_summarizing_benchmark_runs_and_reports_the_target():
    out = run_script("benchmarks/bench_summarizing.py", "--turns", "8", "--delay", "0.01",
                     "--model-ms", "0")
    assert "blocking" in out and "background" in out and "target background p95" in out


def test_summary_size_benchmark_runs_and_reports_fold_times():
    out = run_script("benchmarks/bench_summary_size.py", "--turns", "1100")
    assert "summary tokens" in out and "1,000" in out and "fold time" in out


def test_memory_truth_benchmark_runs_and_reports_the_targets():
    out = run_script("benchmarks/bench_memory_truth.py", "--n", "2", "--min-turns", "30",
                     "--max-turns", "30", "--strategy", "summarize:2/4",
                     "--strategy", "trim:4+state")
    assert out.count("target:") == 4 and "stale-as-current" in out


def test_recovery_benchmark_runs_and_reports_seconds_after_a_sigkill():
    out = run_script("benchmarks/bench_recovery.py", "--backends", "sqlite", "--repeat", "1")
    row = next(line for line in out.splitlines() if line.startswith("sqlite"))
    fastest = float(row.split()[1])
    assert fastest < 30 and row.split()[-1] == "True"  # recovered inside the lease TTL


def load_run_script():
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("ctxlab_run_script", str(ROOT / "run"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_run_lab_serves_the_repository_root_and_opens_the_first_lesson(monkeypatch, capsys):
    script = load_run_script()
    monkeypatch.setattr(script.os, "geteuid", lambda: 1000)
    args = script.lab_command(["--port", "9999"])
    assert f"--ServerApp.root_dir={ROOT}" in args
    assert "--LabApp.default_url=/lab/tree/notebooks/00_quickstart.ipynb" in args
    assert "--allow-root" not in args and args[-2:] == ["--port", "9999"]
    assert (ROOT / script.FIRST_LESSON).exists()
    monkeypatch.setattr(script.os, "geteuid", lambda: 0)
    args = script.lab_command([])
    assert "--allow-root" in args and "running as root" in capsys.readouterr().out


def test_setup_writes_the_packages_bytecode_even_when_python_is_told_not_to(
        tmp_path, monkeypatch):
    import importlib.util

    script = load_run_script()
    module = tmp_path / "ctxlab" / "sub" / "mod.py"
    module.parent.mkdir(parents=True)
    module.write_text("X = 1\n")
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "PY", Path(sys.executable))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    script.compile_package()
    assert Path(importlib.util.cache_from_source(str(module))).is_file()


def test_run_lab_turns_off_jupyterlabs_news_and_keeps_other_overrides(tmp_path, capsys):
    script = load_run_script()
    assert "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate" in \
        script.lab_command([])
    path = script.quiet_lab_settings(tmp_path)
    assert path == tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    news = json.loads(path.read_text())["@jupyterlab/apputils-extension:notification"]
    assert news == {"fetchNews": "false", "checkForUpdates": False}
    # the same values the browser test runs JupyterLab with (no toast over the lesson)
    from viz.test_browser import SETTINGS_OVERRIDES

    assert news == SETTINGS_OVERRIDES["@jupyterlab/apputils-extension:notification"]
    # a learner's own overrides survive, and running twice changes nothing
    path.write_text(json.dumps({"@jupyterlab/apputils-extension:themes": {"theme": "dark"},
                                "@jupyterlab/apputils-extension:notification":
                                    {"fetchNews": "true", "doNotDisturbMode": True}}))
    script.quiet_lab_settings(tmp_path)
    again = json.loads(path.read_text())
    assert again["@jupyterlab/apputils-extension:themes"] == {"theme": "dark"}
    assert again["@jupyterlab/apputils-extension:notification"] == {
        "fetchNews": "false", "checkForUpdates": False, "doNotDisturbMode": True}
    before = path.read_text()
    script.quiet_lab_settings(tmp_path)
    assert path.read_text() == before
    # a broken file is not overwritten, and the learner is told
    path.write_text("{not json")
    script.quiet_lab_settings(tmp_path)
    assert path.read_text() == "{not json" and "not a JSON object" in capsys.readouterr().out


def test_scaling_benchmark_runs_and_reports_every_target():
    out = run_script("benchmarks/bench_scaling.py", "--sizes", "200", "400", "--turns", "5",
                     "--memory-items", "400")
    for line in ("seed trim", "ctxlab trim", "ctxlab summarize", "context manager",
                 "target TrimmingSession", "target SummarizingSession", "exponent",
                 "retained memory per item"):
        assert line in out, line


def test_execute_notebooks_explains_itself_and_refuses_a_path_that_is_not_a_notebook():
    assert "Execute lesson notebooks in place" in run_script("scripts/execute_notebooks.py",
                                                            "--help")
    done = subprocess.run([sys.executable, "scripts/execute_notebooks.py",
                           "notebooks/no_such_lesson.ipynb"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "not a notebook file: notebooks/no_such_lesson.ipynb" in done.stderr
