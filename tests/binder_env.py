"""What Binder would install, and a venv made the way Binder makes it.

Binder (repo2docker) reads only ``binder/``: a Python of ``binder/runtime.txt`` and
``pip install -r binder/requirements.txt`` run from the repository root (the file ends with
``-e .``). Nothing else of the course's requirements exists there. Two ways to check that
every lesson runs on it:

* :func:`binder_misses` (cheap, static): every module a lesson can import, read from its
  code cells and from every ctxlab module they reach (imports inside functions included,
  since they run when the lesson calls the function), against the distributions the file
  installs with their dependencies (read from the installed metadata). An import guarded by
  ``try: ... except ImportError`` is optional and not counted.
* :func:`binder_venv` + :func:`run_lessons` (real): a fresh venv of the runtime's Python
  from that file alone (+ JupyterLab and nbclient, which the Binder image has), every
  lesson executed with nbclient. The venv is cached under
  ``~/.cache/ctxlab/binder-venv-<hash>`` by the hash of everything that decides its
  contents, so a clean CI machine builds it once and a developer's machine reuses it.
  The lessons import ctxlab from this checkout (``PYTHONPATH``), not from the checkout that
  built the cached venv.

``python tests/binder_env.py [notebook ...]`` builds (or reuses) the venv and runs the
lessons, printing one line per lesson.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import importlib.metadata as metadata
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
#: What the Binder image brings besides the file (jupyterlab pulls nbclient and ipykernel
#: in; nbclient is named because the test executes with it).
IMAGE_PACKAGES = ("jupyterlab", "nbclient")


# ------------------------------------------------------------------------ static check

@dataclass(frozen=True)
class Miss:
    """A module a lesson can import that the Binder file does not install."""

    lesson: str
    module: str  # the top-level module, e.g. "redis"
    distribution: str  # the distribution that provides it here
    where: str  # the import that needs it: "ctxlab/course/scaling.py:24" or "cell 22"

    def __str__(self) -> str:
        return (f"{self.lesson}: {self.where} imports {self.module} "
                f"({self.distribution}, not installed by binder/requirements.txt)")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(text: str) -> list[tuple[str, frozenset[str]]]:
    """The distributions (with extras) a requirements file names; ``-e .`` is ctxlab."""
    from packaging.requirements import Requirement

    found = []
    for raw in text.splitlines():
        line = raw.split("#")[0].strip()
        if not line:
            continue
        if line in ("-e .", "."):
            found.append(("ctxlab", frozenset()))
            continue
        if line.startswith("-"):
            raise ValueError(f"binder/requirements.txt: unsupported line {line!r}")
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(_marker_env()):
            found.append((_normal(req.name), frozenset(req.extras)))
    return found


def _marker_env() -> dict[str, str]:
    version = runtime_version()
    return {"python_version": version, "python_full_version": f"{version}.0"}


def runtime_version() -> str:
    """The Python version ``binder/runtime.txt`` asks for, e.g. ``"3.12"``."""
    text = (BINDER / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(3\.\d+)", text)
    if match is None:
        raise ValueError(f"binder/runtime.txt: expected python-3.X, got {text!r}")
    return match.group(1)


def installed_by(requirements_text: str, extra: Iterable[str] = IMAGE_PACKAGES) -> set[str]:
    """Every distribution that ``pip install -r`` of this text (plus ``extra``) installs:
    the named ones and their dependencies, read from this environment's metadata."""
    from packaging.requirements import Requirement

    todo = [*_requirement_names(requirements_text), *((_normal(e), frozenset()) for e in extra)]
    seen: set[str] = set()
    while todo:
        name, extras = todo.pop()
        key = f"{name}[{','.join(sorted(extras))}]"
        if key in seen:
            continue
        seen.add(key)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # named but not installed here: it brings nothing we can see
        for spec in requires:
            req = Requirement(spec)
            wanted = [{**_marker_env(), "extra": e} for e in (extras or {""})]
            if req.marker is None or any(req.marker.evaluate(env) for env in wanted):
                todo.append((_normal(req.name), frozenset(req.extras)))
    return {key.split("[")[0] for key in seen}


def _module_path(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _guarded(parents: list[ast.AST]) -> bool:
    """Never runs or may fail: inside ``if TYPE_CHECKING:``, or inside ``try`` with an
    ``except ImportError`` (or ModuleNotFoundError): an optional import."""
    for node in parents:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                if handler.type is not None and re.search(
                        r"\b(ImportError|ModuleNotFoundError)\b", ast.unparse(handler.type)):
                    return True
    return False


def _imports(tree: ast.AST, package: str) -> list[tuple[str, int, bool]]:
    """(absolute module name, line, at module level) of every import in ``tree`` that
    runs, inside functions too; ``from x import y`` also yields ``x.y`` (it may be a
    submodule), and ``ctxlab.<lazy name>`` resolves to the module that defines the name."""
    lazy = _lazy_names()
    found = []
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        for child in ast.iter_child_nodes(node):
            stack.append((child, [*parents, node]))
        if _guarded(parents) or not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        eager = not any(isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                        for p in parents)
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, eager) for alias in node.names]
            continue
        if node.level:
            parts = package.split(".")
            base = parts[: len(parts) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        found.append((module, node.lineno, eager))
        for alias in node.names:
            name = (lazy[alias.name] if module == "ctxlab" and alias.name in lazy
                    else f"{module}.{alias.name}")
            found.append((name, node.lineno, eager))
    return found


@functools.cache
def _lazy_names() -> dict[str, str]:
    """ctxlab's names that load on first use -> the module that defines them."""
    ctxlab = importlib.import_module("ctxlab")
    return {name: spec[0] for name, spec in ctxlab._LAZY.items()}


@functools.cache
def _module_imports(module: str) -> tuple[str, tuple[tuple[str, int, bool], ...]] | None:
    """A ctxlab module's file (relative) and its imports, or None if it is not a module."""
    file = _module_path(module)
    if file is None:
        return None
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    return str(file.relative_to(ROOT)), tuple(_imports(ast.parse(file.read_text()), package))


def _cell_sources(path: Path) -> Iterator[tuple[int, str]]:
    for number, cell in enumerate(json.loads(path.read_text())["cells"]):
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            yield number, "\n".join(line for line in source.splitlines()
                                    if not line.lstrip().startswith(("%", "!")))


def lesson_imports(path: Path) -> dict[str, str]:
    """Every top-level module outside the standard library that the lesson ``path``
    imports -> where (a cell, or a ctxlab module and line).

    Counted: the cells' imports; every import (inside functions too: they run when the
    lesson calls them) of each ctxlab module a cell names (``from ctxlab import x``
    resolves ``x`` to its module); the module-level imports of every ctxlab module those
    load in turn. A function-level import deeper down (a store's driver, imported when
    that store is opened) is not counted: the execution test sees those."""
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    todo: list[tuple[str, str, bool]] = []
    for number, source in _cell_sources(path):
        tree = compile(source, f"{path.name} cell {number}", "exec", flags=flags)
        todo += [(name, f"cell {number}", True) for name, _, _ in _imports(tree, "")]
    found: dict[str, str] = {}
    seen: dict[str, bool] = {}
    while todo:
        name, where, named = todo.pop()
        top = name.split(".")[0]
        if top != "ctxlab":
            if top and top not in sys.stdlib_module_names and top != "__future__":
                found.setdefault(top, where)
            continue
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            module = ".".join(parts[:depth])
            full = named and depth == len(parts)
            parsed = _module_imports(module)
            if parsed is None or seen.get(module, False) >= full:
                continue
            seen[module] = full or seen.get(module, False)
            rel, imports = parsed
            todo += [(n, f"{rel}:{line}", False) for n, line, eager in imports
                     if eager or full]
    return found


def binder_misses(requirements_text: str, lessons: Iterable[Path] = NOTEBOOKS) -> list[Miss]:
    """What each lesson can import that a venv made from ``requirements_text`` lacks."""
    provides = metadata.packages_distributions()
    have = installed_by(requirements_text)
    misses = []
    for path in lessons:
        for module, where in sorted(lesson_imports(path).items()):
            dists = [_normal(d) for d in provides.get(module, [])]
            if not dists:
                misses.append(Miss(path.stem, module, "not installed here either", where))
            elif not set(dists) & have:
                misses.append(Miss(path.stem, module, dists[0], where))
    return misses


# ------------------------------------------------------------------------ the real venv

def find_python(version: str) -> Path | None:
    """An interpreter of ``version`` ("3.12") that runs: one pyenv installed, or on PATH
    (a pyenv shim on PATH fails when that version is not selected, so each is tried)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(pyenv.glob(f"{version}.*/bin/python{version}"), reverse=True)
    on_path = shutil.which(f"python{version}")
    candidates += [Path(on_path)] if on_path else []
    candidates.append(Path(f"/usr/bin/python{version}"))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            try:
                found = _python_version(candidate)
            except (OSError, subprocess.CalledProcessError):
                continue
            if found.startswith(f"{version}."):
                return candidate
    return None


def _python_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import sys; print(sys.version.split()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()


def venv_key(python: Path) -> str:
    """The hash of everything that decides the venv's contents: the two Binder files,
    pyproject.toml (``-e .`` installs its dependencies), the image's extra packages, the
    interpreter's exact version."""
    digest = hashlib.sha256()
    for path in (BINDER / "requirements.txt", BINDER / "runtime.txt", ROOT / "pyproject.toml"):
        digest.update(path.read_bytes())
    digest.update(" ".join(_image_pins()).encode())
    digest.update(_python_version(python).encode())
    return digest.hexdigest()[:16]


def _image_pins() -> list[str]:
    """JupyterLab at the course's pin (the Binder image has a JupyterLab 4), and nbclient."""
    pins = re.findall(r"^(jupyterlab==\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    return [*pins, *(p for p in IMAGE_PACKAGES if not any(q.startswith(p + "==") for q in pins))]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxlab"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # another test process may be building it
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def binder_venv(python: Path, log=print) -> tuple[Path, bool]:
    """The venv's directory, built if the cache has none for this key, and whether it was
    built now. A build that did not finish (no ``.complete`` stamp) is thrown away."""
    venv = cache_dir() / f"binder-venv-{venv_key(python)}"
    stamp = venv / ".complete"
    with _locked(venv.with_name(venv.name + ".lock")):
        if stamp.is_file():
            return venv, False
        shutil.rmtree(venv, ignore_errors=True)
        began = time.perf_counter()
        subprocess.run([str(python), "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
               "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", "binder/requirements.txt", *_image_pins()], cwd=ROOT,
                       check=True, env=_clean_env())
        stamp.write_text(f"built in {time.perf_counter() - began:.0f} s\n")
        log(f"binder venv built in {time.perf_counter() - began:.0f} s: {venv}")
        return venv, True


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment of a Binder session: no API key or backend choice, no other
    Python's paths."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONNOUSERSITE")
    env = {k: v for k, v in os.environ.items()
           if k not in drop and not k.startswith(("OPENAI_", "CTXLAB_"))}
    return {**env, **extra}


RUNNER = r'''
import json, sys, time
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

for name in sys.argv[1:]:
    nb = nbformat.read(name, as_version=4)
    probe = nbformat.v4.new_code_cell(
        "import sys, ctxlab; print(sys.prefix); print(ctxlab.__file__)")
    nb.cells.append(probe)
    began = time.perf_counter()
    result = {"lesson": name.rsplit("/", 1)[-1].removesuffix(".ipynb")}
    try:
        NotebookClient(nb, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": "notebooks"}}).execute()
        text = "".join(o.get("text", "") for o in probe.outputs).split()
        result.update(ok=True, prefix=text[0], ctxlab=text[1])
    except CellExecutionError as exc:
        cell = next((n for n, c in enumerate(nb.cells) if any(
            o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        result.update(ok=False, cell=cell, error=f"{exc.ename}: {exc.evalue}")
    except Exception as exc:
        result.update(ok=False, cell=None, error=f"{type(exc).__name__}: {exc}")
    result["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(result), flush=True)
'''


def run_lessons(venv: Path, lessons: Iterable[Path] = NOTEBOOKS,
                blocked: Iterable[str] = ()) -> list[dict]:
    """Execute each lesson in ``venv`` with nbclient, as a Binder user would (no key, the
    offline model); one result per lesson: ok, seconds, the failing cell and its error, and
    where the kernel found Python and ctxlab. ``blocked`` modules are made unimportable in
    the kernel (a way to try the check on a venv that lacks them, without building one)."""
    env = _clean_env(PYTHONPATH=str(ROOT), JUPYTER_PLATFORM_DIRS="1")
    with _scratch_jupyter_dirs(env, blocked):
        done = subprocess.run([str(venv / "bin" / "python"), "-c", RUNNER,
                               *(str(p.relative_to(ROOT)) for p in lessons)],
                              cwd=ROOT, env=env, capture_output=True, text=True)
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not results:
        raise RuntimeError(f"the lesson runner failed (exit {done.returncode}): "
                           f"{done.stderr[-2000:]}")
    return results


@contextlib.contextmanager
def _scratch_jupyter_dirs(env: dict[str, str], blocked: Iterable[str]) -> Iterator[None]:
    """Jupyter's data and runtime dirs in a temp folder (a kernelspec the user installed
    must not pick another Python); ``blocked`` modules fail to import, via a
    ``sitecustomize`` placed first on the kernel's path."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ctxlab-binder-") as folder:
        env.update(JUPYTER_DATA_DIR=f"{folder}/data", JUPYTER_RUNTIME_DIR=f"{folder}/run",
                   JUPYTER_CONFIG_DIR=f"{folder}/config", IPYTHONDIR=f"{folder}/ipython",
                   MPLCONFIGDIR=f"{folder}/mpl")
        names = sorted(blocked)
        if names:
            Path(folder, "sitecustomize.py").write_text(
                "import sys\n"
                "class _Blocked:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                f"        if name.split('.')[0] in {names!r}:\n"
                "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
                "sys.meta_path.insert(0, _Blocked())\n")
            env["PYTHONPATH"] = f"{folder}{os.pathsep}{env['PYTHONPATH']}"
        yield


def main(argv: list[str]) -> int:
    version = runtime_version()
    python = find_python(version)
    if python is None:
        print(f"no Python {version} found (binder/runtime.txt asks for it)", file=sys.stderr)
        return 2
    venv, built = binder_venv(python)
    print(f"venv: {venv} ({'built now' if built else 'cached'})")
    lessons = [Path(a).resolve() for a in argv] or NOTEBOOKS
    failed = 0
    for result in run_lessons(venv, lessons):
        failed += not result["ok"]
        status = "ok" if result["ok"] else f"FAILED at cell {result['cell']}: {result['error']}"
        print(f"{result['lesson']}: {status} ({result['seconds']} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
