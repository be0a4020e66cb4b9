"""A lesson's first cell imports its plot functions by name; matplotlib loads when the first
plot is drawn, not then (issue 31, section 8: cut what a learner waits for first). Each
check runs in a fresh interpreter, as a kernel does, and is tried on an eager import too."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys

import pytest

import ctxlab
from ctxlab.viz import plots

from conftest import ROOT

HEAVY = ("matplotlib",)


def loaded_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter has loaded after running ``code``."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_code_cell(name: str) -> str:
    cells = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_importing_every_plot_name_does_not_load_matplotlib():
    names = sorted(plots.SOURCES)
    top = [n for n in names if n in ctxlab._LAZY]
    code = (f"from ctxlab import {', '.join(top)}\n"
            f"from ctxlab.viz.plots import {', '.join(names)}\n"
            "from ctxlab.viz.plots.views import memory_input_parts, plot_views as views\n")
    assert loaded_after(code) == []
    # ... and drawing one loads it
    assert loaded_after(code + "plot_tokens_per_turn({'full': [1, 2, 3]})") == ["matplotlib"]


def test_the_check_sees_an_eager_import():
    """The broken variant: importing a plot module itself (what the package did before)."""
    assert loaded_after("from ctxlab.viz.plots.lessons import plot_tokens_per_turn") == [
        "matplotlib"]


@pytest.mark.parametrize("lesson", ["01_support_agent.ipynb", "03_summarizing.ipynb",
                                    "10_memory_across_sessions.ipynb"])
def test_lesson_first_cells_leave_matplotlib_for_the_first_plot(lesson):
    code = "import os\nos.environ['CTXLAB_BACKEND'] = 'offline'\n" + first_code_cell(lesson)
    assert "plot_" in code
    assert loaded_after(code) == []


def test_a_deferred_plot_is_the_function_it_stands_for():
    for name, module in plots.SOURCES.items():
        deferred = getattr(plots, name)
        real = getattr(importlib.import_module(f"ctxlab.viz.plots.{module}"), name)
        assert deferred.function is real
        assert deferred.__doc__ == real.__doc__ and deferred.__name__ == name
        assert inspect.signature(deferred) == inspect.signature(real)
        assert getattr(ctxlab, name, deferred) in (deferred, real)
    assert sorted(plots.__all__) == sorted(plots.SOURCES)
