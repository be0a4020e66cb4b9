#!/usr/bin/env python3
"""Execute lesson notebooks in place, top to bottom, and strip widget state.

    .venv/bin/python scripts/execute_notebooks.py                 # every notebook
    .venv/bin/python scripts/execute_notebooks.py notebooks/02_trimming.ipynb

Runs with the offline backend forced (CTXLAB_BACKEND=offline, no API key), so committed
outputs are the deterministic offline ones that nbval compares. Widget state is not
saved (it gets new ids on every run), so ``metadata.widgets`` and the outputs' widget-view
references are removed: a committed notebook shows each widget's static HTML rendering
(on GitHub, in nbconvert, and in JupyterLab until the cell is run again). Prints how long
each notebook took.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def execute(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    began = time.perf_counter()
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    elapsed = time.perf_counter() - began
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    nbformat.write(nb, path)
    return elapsed


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__)
        return 0
    missing = [arg for arg in argv if not Path(arg).is_file()]
    if missing:
        print(f"not a notebook file: {', '.join(missing)}", file=sys.stderr)
        return 2
    os.environ["CTXLAB_BACKEND"] = "offline"
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("OPENAI_BASE_URL", None)
    paths = [Path(p) for p in argv] or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    for path in paths:
        seconds = execute(path)
        print(f"{path.name}: executed in {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
