"""The course's diagrams: every lesson shows one near its goals, every file under
docs/diagrams/ is a valid SVG that a lesson or a README shows, text is readable at notebook
width, and the committed files are what scripts/make_diagrams.py draws (nothing is drawn or
fetched when a lesson runs). Each check is tried on a broken input too."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIAGRAMS = ROOT / "docs" / "diagrams"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
READMES = (ROOT / "README.md", ROOT / "README.zh-CN.md")
SVG = "{http://www.w3.org/2000/svg}svg"
#: A markdown image of a diagram: ![alt](../docs/diagrams/name.svg) in a lesson.
IMAGE = re.compile(r"!\[([^\]]+)\]\(((?:\.\./)?docs/diagrams/[^)\s]+\.svg)\)")
#: How many cells after the first a lesson's diagram may sit ("near the goals").
NEAR_GOALS = 2


def _load_script():
    spec = importlib.util.spec_from_file_location("make_diagrams",
                                                  ROOT / "scripts" / "make_diagrams.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


make_diagrams = _load_script()


def lesson_problems(cells: list[dict], folder: Path = DIAGRAMS) -> list[str]:
    """What is wrong with a lesson's diagram (empty: one near its goals, and it exists)."""
    for n, cell in enumerate(cells[: NEAR_GOALS + 1]):
        if cell["cell_type"] != "markdown":
            continue
        for _alt, target in IMAGE.findall("".join(cell["source"])):
            if not (folder / Path(target).name).is_file():
                return [f"cell {n} shows {target}, which does not exist"]
            return []
    return [f"no diagram in the first {NEAR_GOALS + 1} cells"]


def svg_problems(data: bytes) -> list[str]:
    """What makes ``data`` an invalid or unfitting SVG (empty: a valid one, notebook-wide)."""
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        return [f"not XML: {exc}"]
    if root.tag != SVG:
        return [f"root element is {root.tag}, not svg"]
    problems = []
    if len((root.get("viewBox") or "").split()) != 4:
        problems.append("no viewBox")
    width = root.get("width", "")
    match = re.fullmatch(r"([\d.]+)pt", width)
    if not match:
        problems.append(f"width {width!r} is not in points")
    elif float(match.group(1)) > make_diagrams.WIDTH_IN * 72 + 0.5:
        problems.append(f"{width} wide: more than a notebook's {make_diagrams.WIDTH_IN} in")
    outside = [value for element in root.iter() for name, value in element.attrib.items()
               if name.endswith("href") and not value.startswith("#")]
    if outside or any(e.tag.rsplit("}", 1)[-1] in ("image", "script") for e in root.iter()):
        problems.append(f"refers to something outside the file {outside}")
    return problems


def referenced() -> dict[str, list[str]]:
    """Diagram file name -> where it is shown (lessons and READMEs)."""
    shown: dict[str, list[str]] = {}
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for _alt, target in IMAGE.findall("".join(cell["source"])):
                    shown.setdefault(Path(target).name, []).append(path.stem)
                for target in re.findall(r"\]\((\.\./docs/diagrams/[^)]+\.svg)\)",
                                         "".join(cell["source"])):
                    shown.setdefault(Path(target).name, []).append(path.stem)
    for readme in READMES:
        for target in re.findall(r"\((docs/diagrams/[^)\s]+\.svg)\)", readme.read_text()):
            shown.setdefault(Path(target).name, []).append(readme.name)
    return shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_lesson_shows_its_diagram_near_the_goals(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert lesson_problems(cells) == []


def test_every_diagram_is_a_valid_svg_that_is_shown_somewhere():
    files = sorted(DIAGRAMS.glob("*"))
    assert len(files) == len(make_diagrams.DIAGRAMS) >= len(NOTEBOOKS) + 1
    shown = referenced()
    for path in files:
        assert path.suffix == ".svg", path.name
        assert svg_problems(path.read_bytes()) == [], path.name
        assert shown.get(path.name), f"{path.name} is shown by no lesson and no README"
    assert "README.md" in shown["which_memory.svg"]
    assert "README.zh-CN.md" in shown["which_memory.zh-CN.svg"]


def test_chinese_lesson_and_readme_show_chinese_diagrams():
    chinese = {d.name + ".svg" for d in make_diagrams.DIAGRAMS if d.language == "zh"}
    shown = referenced()
    assert {"05b_fridge.svg", "which_memory.zh-CN.svg"} <= chinese
    assert "05b_chinese_conversations" in shown["05b_fridge.svg"]
    for diagram in make_diagrams.DIAGRAMS:
        text = " ".join(getattr(p, "text", "") for p in diagram.parts)
        has_chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
        assert has_chinese == (diagram.language == "zh"), diagram.name


def test_text_is_readable_at_notebook_width():
    for diagram in make_diagrams.DIAGRAMS:
        assert make_diagrams.problems(diagram) == [], diagram.name
        assert min(diagram.text_sizes()) >= make_diagrams.MIN_POINTS


def test_committed_diagrams_are_what_the_script_draws():
    """Drawn again from the data, byte for byte (the check fails on a stale file)."""
    zh_font = any("CJK" in f.name for f in __import__(
        "matplotlib.font_manager", fromlist=["fontManager"]).fontManager.ttflist)
    for diagram in make_diagrams.DIAGRAMS:
        if diagram.language == "zh" and not zh_font:
            pytest.skip("no CJK font for matplotlib (apt-get install fonts-noto-cjk)")
        assert make_diagrams.render(diagram) == make_diagrams.path_of(diagram).read_bytes(), (
            f"{diagram.name}.svg is stale: run scripts/make_diagrams.py")


# ------------------------------------------------------------------------- broken inputs


def test_the_checks_catch_broken_lessons_and_files(tmp_path):
    goals = {"cell_type": "markdown", "source": ["# 02 · Trimming\n", "In this lesson you will"]}
    image = {"cell_type": "markdown", "source": ["![a picture](../docs/diagrams/x.svg)"]}
    code = {"cell_type": "code", "source": ["print(1)"]}
    (tmp_path / "x.svg").write_bytes((DIAGRAMS / "02_trimming.svg").read_bytes())
    assert lesson_problems([goals, image], tmp_path) == []
    assert lesson_problems([goals], tmp_path) == ["no diagram in the first 3 cells"]
    assert lesson_problems([goals, code, code, image], tmp_path) == [
        "no diagram in the first 3 cells"]  # far from the goals
    assert "does not exist" in lesson_problems([goals, image], tmp_path / "empty")[0]
    no_alt = {"cell_type": "markdown", "source": ["![](../docs/diagrams/x.svg)"]}
    assert lesson_problems([goals, no_alt], tmp_path) != []  # an image needs alt text

    assert svg_problems(b"<svg") and "not XML" in svg_problems(b"<svg")[0]
    assert svg_problems(b"<html xmlns='http://www.w3.org/1999/xhtml'/>")[0].startswith("root")
    wide = (b"<svg xmlns='http://www.w3.org/2000/svg' width='900pt' height='100pt' "
            b"viewBox='0 0 900 100'/>")
    assert "more than a notebook" in svg_problems(wide)[0]
    remote = (b"<svg xmlns='http://www.w3.org/2000/svg' width='600pt' height='100pt' "
              b"viewBox='0 0 600 100'><image href='http://example.com/a.png'/></svg>")
    assert "outside the file" in svg_problems(remote)[0]

    small = make_diagrams.Diagram("tiny", "tiny text", 10, (
        make_diagrams.Label(1, 1, "too small", size=8),))
    assert "8 pt" in make_diagrams.problems(small)[0]
    outside = make_diagrams.Diagram("wide", "a box past the edge", 10, (
        make_diagrams.Box(80, 1, 20, 5, "wide"),))
    assert "outside the drawing" in make_diagrams.problems(outside)[0]
    with pytest.raises(ValueError, match="8 pt"):
        make_diagrams.render(small)


def test_check_mode_fails_on_a_stale_file(tmp_path, monkeypatch):
    monkeypatch.setattr(make_diagrams, "OUT", tmp_path)
    first = make_diagrams.DIAGRAMS[0]
    monkeypatch.setattr(make_diagrams, "DIAGRAMS", (first,))
    assert make_diagrams.main([]) == 0 and make_diagrams.main(["--check"]) == 0
    path = tmp_path / f"{first.name}.svg"
    path.write_bytes(path.read_bytes().replace(b"</svg>", b"<!-- edited --></svg>"))
    assert make_diagrams.main(["--check"]) == 1
