"""Every lesson runs on Binder, where only ``binder/requirements.txt`` is installed.

Two checks (see tests/binder_env.py): a static one, cheap, that reads every import a lesson
can make and compares it with what the file installs; and the real one, that builds a venv
from the file alone with the Python ``binder/runtime.txt`` names (cached by the files'
hash) and executes every lesson in it. Each is shown failing on a broken variant: the file
without ``redis`` (lesson 07 computes Redis Cluster key slots with ``redis.crc``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from binder_env import (
    BINDER,
    NOTEBOOKS,
    binder_misses,
    binder_venv,
    find_python,
    installed_by,
    lesson_imports,
    run_lessons,
    runtime_version,
)

REQUIREMENTS = (BINDER / "requirements.txt").read_text()
LESSON_07 = next(p for p in NOTEBOOKS if p.stem == "07_production")


def without(text: str, name: str) -> str:
    kept = [line for line in text.splitlines() if not line.strip().startswith(f"{name}==")]
    assert len(kept) < len(text.splitlines()), f"{name} is not pinned in the file"
    return "\n".join(kept)


def test_the_binder_file_installs_every_module_every_lesson_imports():
    assert binder_misses(REQUIREMENTS) == []


def scaling_redis_import() -> str:
    """Where ctxlab.course.scaling imports redis inside a function (file:line)."""
    path = Path(__file__).resolve().parents[1] / "ctxlab" / "course" / "scaling.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [n for n, line in enumerate(lines, 1)
             if line.startswith((" ", "\t")) and line.strip().startswith(("import redis",
                                                                            "from redis"))]
    assert found, "ctxlab/course/scaling.py no longer imports redis in a function"
    return f"ctxlab/course/scaling.py:{found[0]}"


def test_the_static_check_sees_a_lazy_import_the_file_lacks():
    """The broken variant: the file as it was before issue 31 (no redis). Lesson 07 imports
    redis only inside a function of ctxlab.course.scaling, and the check still finds it."""
    misses = binder_misses(without(REQUIREMENTS, "redis"), [LESSON_07])
    assert [(m.lesson, m.module, m.where) for m in misses] == [
        ("07_production", "redis", scaling_redis_import())]
    assert "not installed by binder/requirements.txt" in str(misses[0])


def test_the_static_check_follows_dependencies_and_the_editable_package():
    have = installed_by(REQUIREMENTS)
    assert {"ctxlab", "openai-agents", "pydantic-core", "jupyterlab", "redis"} <= have
    assert "sqlalchemy" not in have and "psycopg" not in have
    # -e . brings ctxlab's own dependencies: without the line, tiktoken's regex goes too
    assert "regex" in installed_by(REQUIREMENTS) and "ctxlab" not in installed_by(
        without_editable(REQUIREMENTS))


def without_editable(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() != "-e .")


def test_lesson_imports_reads_cells_lazy_names_and_the_modules_they_name():
    found = lesson_imports(LESSON_07)
    assert found["redis"] == scaling_redis_import()  # a function-level import
    assert "agents" in found
    assert "sqlalchemy" not in found  # a store's driver, only when that store is opened


def binder_python() -> Path:
    python = find_python(runtime_version())
    if python is None:
        message = (f"no Python {runtime_version()} (binder/runtime.txt) on PATH or in pyenv: "
                   "Binder runs the lessons on it")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return python


@pytest.fixture(scope="module")
def venv() -> Path:
    path, _ = binder_venv(binder_python())
    return path


@pytest.mark.binder
def test_every_lesson_runs_in_a_venv_made_from_the_binder_file_alone(venv):
    results = run_lessons(venv)
    failed = [f"{r['lesson']} at cell {r['cell']}: {r['error']}" for r in results if not r["ok"]]
    assert failed == []
    assert [r["lesson"] for r in results] == [p.stem for p in NOTEBOOKS]
    root = Path(__file__).resolve().parent.parent
    for result in results:  # the venv's Python, this checkout's ctxlab
        assert Path(result["prefix"]).resolve() == venv.resolve(), result
        assert Path(result["ctxlab"]).resolve().is_relative_to(root / "ctxlab"), result


@pytest.mark.binder
def test_the_execution_test_fails_on_a_venv_without_redis(venv):
    """The broken variant, run for real: lesson 07 in the Binder venv with ``redis`` made
    unimportable (as in a venv from the file without it) fails at the cell that needs it."""
    [result] = run_lessons(venv, [LESSON_07], blocked=["redis"])
    assert result["ok"] is False
    assert result["error"].startswith("ModuleNotFoundError: No module named 'redis")
    assert "from ctxlab.course.scaling import" in "".join(
        json.loads(LESSON_07.read_text())["cells"][result["cell"]]["source"])
