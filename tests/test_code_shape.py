"""The library's shape, measured with radon: no function above cyclomatic complexity C (over
20) or longer than 80 lines, and no class over 300 lines, anywhere in ``ctxlab`` (library,
eval, course, viz and cli alike). There is no allow-list: the complexity sweep of issue 22
emptied it, and a new offender fails the test with what to split.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class

ROOT = Path(__file__).resolve().parent.parent
MAX_COMPLEXITY = 20  # radon grade C is 11-20
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 300
def offenders_in(source: str, path: str) -> dict[str, str]:
    """``{"path:qualified name": what offends}`` for one module's source."""
    found: dict[str, str] = {}
    todo = [(block, "") for block in cc_visit(source)]
    while todo:
        block, parent = todo.pop()
        name = f"{parent}{block.fullname}"
        lines = block.endline - block.lineno + 1
        if isinstance(block, Class):
            if lines > MAX_CLASS_LINES:
                found[f"{path}:{name}"] = f"class of {lines} lines"
            continue
        todo += [(closure, f"{name}.") for closure in block.closures]
        why = []
        if block.complexity > MAX_COMPLEXITY:
            why.append(f"complexity {block.complexity}")
        if lines > MAX_FUNCTION_LINES:
            why.append(f"{lines} lines")
        if why:
            found[f"{path}:{name}"] = ", ".join(why)
    return found


def library_offenders() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted((ROOT / "ctxlab").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found.update(offenders_in(path.read_text(encoding="utf-8"), rel))
    return found


def test_no_function_or_class_is_too_complex_or_too_long():
    found = library_offenders()
    assert found == {}, ("split these (radon complexity <= 20, functions <= 80 lines, "
                         f"classes <= 300 lines): {found}")


def test_the_checker_catches_a_complex_function_a_long_one_and_a_large_class():
    branches = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(21))
    long_body = "".join(f"    y{n} = {n}\n" for n in range(81))
    methods = "".join(f"    def m{n}(self):\n" + "        return 1\n" * 3 for n in range(80))
    source = (f"def tangled(x):\n{branches}    return -1\n\n"
              f"def simple(x):\n{textwrap.indent('return x', '    ')}\n\n"
              f"def long_one():\n{long_body}    return 0\n\n"
              f"class Big:\n{methods}")
    found = offenders_in(source, "m.py")
    assert found == {"m.py:tangled": "complexity 22", "m.py:long_one": "83 lines",
                     "m.py:Big": "class of 321 lines"}
