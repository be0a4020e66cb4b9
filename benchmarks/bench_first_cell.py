"""What a learner waits for first: each lesson's first code cell, in a fresh interpreter.

    python benchmarks/bench_first_cell.py              # every lesson, 5 runs each
    python benchmarks/bench_first_cell.py --runs 9 03 06b
    python benchmarks/bench_first_cell.py --imports    # also `import agents`, `import ctxlab`, ...

Each run starts a new Python process (as a kernel does) and executes the lesson's first code
cell as a script (top-level ``await`` is not used in first cells; a cell that uses it is
reported, not run). Printed per lesson: the median, min and max wall seconds over ``--runs``
runs, and the three modules that took longest to import in the last run (``-X importtime``,
cumulative). Medians only mean something on a quiet machine: the header prints the load
average, so a reader can tell a busy run from a quiet one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
IMPORTS = {
    "import agents": "import agents",
    "import ctxlab": "import ctxlab",
    "import ctxlab.viz.plots": "import ctxlab.viz.plots",
    "import matplotlib.pyplot": "import matplotlib.pyplot",
}


def first_code_cell(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def slowest_imports(stderr: str, n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` top-level imports with the largest cumulative time in -X importtime output."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        if cumulative.isdigit() and not name.startswith(" ") and "." not in name:
            rows.append((name, int(cumulative) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:n]


def time_script(source: str, runs: int) -> tuple[list[float], str]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "cell.py"
        script.write_text(source, encoding="utf-8")
        env = {**os.environ, "CTXLAB_BACKEND": "offline", "MPLBACKEND": "Agg"}
        env.pop("OPENAI_API_KEY", None)
        # as on a learner's machine: compiled modules are cached (the first run writes them)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        times, stderr = [], ""
        subprocess.run([sys.executable, str(script)], cwd=NOTEBOOKS, env=env,
                       capture_output=True)  # warm-up: writes the .pyc files, not counted
        for n in range(runs):
            command = [sys.executable, *(["-X", "importtime"] if n == runs - 1 else []),
                       str(script)]
            started = time.perf_counter()
            done = subprocess.run(command, cwd=NOTEBOOKS, env=env, capture_output=True,
                                  text=True)
            elapsed = time.perf_counter() - started
            if done.returncode:
                raise SystemExit(f"{source.splitlines()[0]!r} failed:\n{done.stderr[-2000:]}")
            if n < runs - 1 or runs == 1:
                times.append(elapsed)
            stderr = done.stderr
        return times, stderr


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson prefixes (00, 03, 06b, ...)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--imports", action="store_true", help="also time bare imports")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    paths = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    if args.lessons:
        paths = [p for p in paths if any(p.name.startswith(f"{x}_") for x in args.lessons)]
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
          f"{' (busy machine)' if load[0] > (os.cpu_count() or 1) else ''}; "
          f"{args.runs} runs each (the last one under -X importtime, not counted)")
    targets = [(name, code) for name, code in IMPORTS.items() if args.imports]
    targets += [(p.stem, first_code_cell(p)) for p in paths]
    print(f"{'first cell of':<40}{'median s':>9}{'min':>7}{'max':>7}  slowest imports")
    for name, code in targets:
        if "await " in code:
            print(f"{name:<40}  (uses top-level await: not run)")
            continue
        times, stderr = time_script(code, args.runs + 1 if args.runs > 1 else 1)
        slow = ", ".join(f"{m} {s:.2f}" for m, s in slowest_imports(stderr))
        print(f"{name:<40}{statistics.median(times):>9.2f}{min(times):>7.2f}"
              f"{max(times):>7.2f}  {slow}")


if __name__ == "__main__":
    main()
