"""The package's layering, read from the import statements themselves.

The library (core, facts, policies, sessions, stores, context, summarizers, memory,
observe, ...) never imports the course, visualisation or evaluation packages, so an engineer
who uses ctxlab in an agent loads none of the teaching code; and ``import ctxlab.sessions``
loads no course module in a fresh interpreter. Core is the item model and imports nothing
above it; the fact model (``ctxlab.facts``) reads items and imports only core. The old paths
of the moved fact modules (``ctxlab.core.facts``, ...) are shims that are the moved modules.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ctxlab"
LIBRARY = ("core", "facts", "policies", "sessions", "stores", "context", "summarizers", "memory",
           "observe", "records", "hub", "longterm", "handoffs", "preload")
FORBIDDEN = ("course", "viz", "eval", "cli")
#: Old core path -> the fact-model module it now is (a shim that replaces itself).
MOVED = {"cues": "cues", "facts": "typed", "identifiers": "identifiers", "language": "language",
         "spans": "spans", "staleness": "staleness", "statements": "statements",
         "tracker": "tracker"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Absolute ``ctxlab.x.y`` names imported by a module (relative imports resolved),
    including imports inside functions."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    if path.name == "__init__.py":
        package = parts[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            if node.module is None or node.level:  # `from . import x` names submodules
                found += [(node.lineno, f"{name}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in found if name.startswith("ctxlab")]


def test_the_library_never_imports_course_viz_or_eval():
    offences = []
    for layer in LIBRARY:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for line, name in imported_modules(path):
                top = name.split(".")[1] if "." in name else ""
                if top in FORBIDDEN:
                    offences.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert offences == []


def offences_outside(layer: str, allowed: tuple[str, ...], skip=()) -> list[str]:
    offences = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        if path.stem in skip and path.parent == PACKAGE / layer:
            continue
        for line, name in imported_modules(path):
            if not name.startswith(allowed):
                offences.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return offences


def test_core_is_the_item_model_and_imports_nothing_above_it():
    assert offences_outside("core", ("ctxlab.core",), skip=MOVED) == []


def test_the_fact_model_reads_items_and_imports_only_core():
    assert offences_outside("facts", ("ctxlab.core.", "ctxlab.facts")) == []


def test_the_old_core_paths_of_the_fact_model_are_the_moved_modules():
    for old, new in MOVED.items():
        shim = PACKAGE / "core" / f"{old}.py"
        assert [n for _, n in imported_modules(shim)] == ["ctxlab.facts", f"ctxlab.facts.{new}"]
        moved = importlib.import_module(f"ctxlab.facts.{new}")
        assert importlib.import_module(f"ctxlab.core.{old}") is moved
    assert offences_outside("core", ("ctxlab.core",)) != []  # the checker sees the shims


def test_the_checker_sees_relative_and_nested_imports(tmp_path):
    module = PACKAGE / "core" / "items.py"
    names = [name for _, name in imported_modules(module)]
    assert "ctxlab.core.schema" in names
    nested = PACKAGE / "sessions" / "strategies.py"
    assert "ctxlab.sessions.summarizing" in [n for _, n in imported_modules(nested)]


def test_import_ctxlab_sessions_loads_no_course_eval_or_viz_module():
    code = ("import json, sys, ctxlab.sessions, ctxlab.stores, ctxlab.context, ctxlab.memory; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('ctxlab'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    loaded = json.loads(out)
    assert "ctxlab.sessions" in loaded
    bad = [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in FORBIDDEN]
    assert bad == []


def test_import_ctxlab_is_light_and_lazy_names_still_work():
    code = ("import json, sys, ctxlab; before = sorted(m for m in sys.modules "
            "if m.startswith('ctxlab.course')); ctxlab.make_support_agent; "
            "after = sorted(m for m in sys.modules if m.startswith('ctxlab.course')); "
            "print(json.dumps([before, 'ctxlab.course.agent' in after, len(ctxlab.__all__)]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    before, loaded_later, count = json.loads(out)
    assert before == [] and loaded_later and count > 100
