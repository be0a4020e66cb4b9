"""Public names: what ``ctxlab.__all__`` lists resolves, once, and every name the README, the
docs and the lessons import from a library submodule is importable from ``ctxlab`` itself
(the lessons may keep course helpers in ``ctxlab.course``, exercise checks and internals,
listed below with the reason)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import ctxlab

ROOT = Path(__file__).resolve().parent.parent

#: Submodules whose names stay where they are, with why.
NOT_PUBLIC_MODULES = {
    "ctxlab.course": "the course's teaching helpers (tables, runs, pitfalls wrong on purpose)",
    "ctxlab.eval.exercises": "exercise checks of one lesson",
    "ctxlab.eval.exercise_redaction": "exercise data",
    "ctxlab.summarizers.testing": "test doubles, kept under a testing namespace",
}
#: Single names that stay in their module: helpers of one lesson's explanation.
NOT_PUBLIC_NAMES = {
    ("ctxlab.core.display", "pad"), ("ctxlab.core.display", "wrap"),  # table layout
    ("ctxlab.core.tokens", "tool_schema_text"),  # what count_request_tokens counts
    ("ctxlab.context.compaction", "compare_with_sdk_trimmer"),  # lesson 04's comparison
    ("ctxlab.memory", "query_terms"), ("ctxlab.memory", "tokenize"),  # recall's internals
    ("ctxlab.longterm", "burst_endings"),  # lesson 11's reflection demo
    ("ctxlab.longterm", "simulate"),  # exported as simulate_forgetting
    ("ctxlab.longterm.session_input", "stored_copies"),  # lesson 11's count
    ("ctxlab.eval.drift", "drift_over_folds"), ("ctxlab.eval.drift", "wrong_in_summary"),
    ("ctxlab.eval.seeds", "load_seed_spreads"),  # lesson 06's stored seeds
    ("ctxlab.eval.preload_eval", "run_last_turn"),  # one run of preload_corpus' scoring
    ("ctxlab.viz.plots.views", "handoff_view_parts"),  # plot_views' data
    ("ctxlab.viz.plots.views", "memory_input_parts"),
}
_IMPORT = re.compile(r"from\s+(ctxlab\.[\w.]+)\s+import\s+(\([^)]*\)|[^\n]+)")


def documented_imports() -> dict[tuple[str, str], str]:
    """``(module, name) -> where`` for every ``from ctxlab.<sub> import ...`` in the README,
    the docs and the lessons' cells."""
    texts = [(p.name, p.read_text(encoding="utf-8"))
             for p in [*ROOT.glob("README*.md"), *ROOT.glob("docs/**/*.md")]]
    for nb in sorted(ROOT.glob("notebooks/*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        texts += [(nb.name, "".join(c["source"])) for c in cells]
    found: dict[tuple[str, str], str] = {}
    for where, text in texts:
        for module, names in _IMPORT.findall(text):
            for part in names.strip("()").split(","):
                name = part.split(" as ")[0].strip().strip("()\\ \n")
                if re.fullmatch(r"\w+", name):
                    found.setdefault((module, name), where)
    return found


def not_top_level(imports: dict[tuple[str, str], str]) -> list[str]:
    return sorted(f"{module}.{name} ({where})" for (module, name), where in imports.items()
                  if not hasattr(ctxlab, name) and (module, name) not in NOT_PUBLIC_NAMES
                  and not any(module == m or module.startswith(m + ".")
                              for m in NOT_PUBLIC_MODULES))


def test_every_public_name_resolves_once():
    assert [n for n, c in Counter(ctxlab.__all__).items() if c > 1] == []
    assert sorted(set(ctxlab._LAZY) - set(ctxlab.__all__)) == []
    assert [n for n in ctxlab.__all__ if getattr(ctxlab, n, None) is None] == []


def test_names_the_docs_and_lessons_import_are_top_level():
    imports = documented_imports()
    assert len(imports) > 100  # the scan reads the lessons' imports
    assert not_top_level(imports) == []


def test_the_check_sees_a_name_missing_from_the_top_level():
    """Broken variant: a lesson importing a library name that ctxlab does not export."""
    imports = {**documented_imports(), ("ctxlab.hub.hub", "_check_agent"): "lesson"}
    assert not_top_level(imports) == ["ctxlab.hub.hub._check_agent (lesson)"]
    assert ctxlab.instruction_lines is ctxlab.hub.instruction_lines
