"""Read a committed lesson notebook the way a learner reads it: prose and the output under it.

Claim tests use this to check that a number or a statement in a lesson's markdown is true of
the output it comes from (the executed cell above it), so re-executing a lesson after a library
change cannot leave stale prose behind. Cells are addressed by their nbformat ``id``.

    lesson = Lesson.load("02_trimming")
    prose = lesson.markdown("af98440f")
    shown = lesson.output_above("af98440f")   # text the code cell right above printed
    assert number_in(prose, "tokens saved") == numbers(shown)[0]
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
_NUMBER = re.compile(
    r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"  # 1,954 and 12,345.5
    r"|(?<![\w.])-?\d+(?:\.\d+)?(?!\d)"  # 1954, 12.5
)
_TAG = re.compile(r"<[^>]+>")


def numbers(text: str) -> list[float]:
    """Every number in ``text`` in order ("1,954" -> 1954.0, "12.5%" -> 12.5)."""
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def number_after(text: str, label: str) -> float:
    """The first number that follows ``label`` in ``text`` (ValueError if none)."""
    at = text.find(label)
    if at < 0:
        raise ValueError(f"{label!r} not found in {text[:200]!r}")
    found = numbers(text[at + len(label):])
    if not found:
        raise ValueError(f"no number after {label!r}")
    return found[0]


def _output_text(output: dict[str, Any]) -> str:
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    data = output.get("data", {})
    if "text/html" in data:
        return html.unescape(_TAG.sub(" ", "".join(data["text/html"])))
    if "text/markdown" in data:
        return "".join(data["text/markdown"])
    return "".join(data.get("text/plain", ""))


@dataclass
class Lesson:
    name: str
    cells: list[dict[str, Any]]

    @classmethod
    def load(cls, name: str) -> Lesson:
        path = NOTEBOOKS / (name if name.endswith(".ipynb") else f"{name}.ipynb")
        return cls(path.stem, json.loads(path.read_text())["cells"])

    def _index(self, cell_id: str) -> int:
        for index, cell in enumerate(self.cells):
            if cell.get("id") == cell_id:
                return index
        raise KeyError(f"{self.name}: no cell with id {cell_id!r}")

    def source(self, cell_id: str) -> str:
        return "".join(self.cells[self._index(cell_id)]["source"])

    def markdown(self, cell_id: str) -> str:
        cell = self.cells[self._index(cell_id)]
        assert cell["cell_type"] == "markdown", f"{self.name} {cell_id} is not markdown"
        return "".join(cell["source"])

    def output(self, cell_id: str) -> str:
        """All text a code cell showed (streams, HTML with tags removed, plain reprs)."""
        cell = self.cells[self._index(cell_id)]
        assert cell["cell_type"] == "code", f"{self.name} {cell_id} is not code"
        parts: list[str] = []
        previous = None
        for output in cell.get("outputs", []):
            # a stream continues across chunks (one print may arrive in several): join them
            # as Jupyter shows them; other outputs start on a line of their own
            stream = output.get("name") if output.get("output_type") == "stream" else None
            if parts and not (stream and stream == previous):
                parts.append("\n")
            parts.append(_output_text(output))
            previous = stream
        return "".join(parts)

    def output_above(self, cell_id: str) -> str:
        """What the nearest code cell above ``cell_id`` showed."""
        for index in range(self._index(cell_id) - 1, -1, -1):
            if self.cells[index]["cell_type"] == "code":
                return self.output(self.cells[index]["id"])
        raise KeyError(f"{self.name}: no code cell above {cell_id!r}")

    def find(self, text: str, kind: str = "markdown") -> str:
        """The id of the first ``kind`` cell whose source contains ``text``."""
        for cell in self.cells:
            if cell["cell_type"] == kind and text in "".join(cell["source"]):
                return cell["id"]
        raise KeyError(f"{self.name}: no {kind} cell contains {text!r}")


_ROW = re.compile(r"^(\S.*?)\s{2,}(?=\d)")


def table_rows(text: str) -> dict[str, list[float]]:
    """label -> the numbers of each row of a printed table whose label is followed by two or
    more spaces and a number ("summarize 2/4   23.4%  89.7% | ..." -> [23.4, 89.7, ...])."""
    rows: dict[str, list[float]] = {}
    for line in text.splitlines():
        match = _ROW.match(line)
        if match:
            rows[match.group(1).strip()] = numbers(line[match.end():])
    return rows


def blocks(text: str) -> dict[str, dict[str, list[float]]]:
    """The tables of an output printed one after another with a blank line between them,
    keyed by the first word of their title line ("sgd:report:6: ..." -> "sgd")."""
    out = {}
    for block in text.strip().split("\n\n"):
        title = block.strip().splitlines()[0]
        out[re.split(r"[:\s]", title)[0]] = table_rows(block)
    return out


def percents(text: str) -> list[float]:
    """Every percentage in ``text`` ("23.4%" -> 23.4), in order."""
    return [float(m) for m in re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)%", text)]
