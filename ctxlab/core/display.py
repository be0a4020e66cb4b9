"""Text laid out for a fixed-width screen, measured in display columns, not characters.

A terminal or a notebook's monospaced output gives a Chinese (or Japanese, Korean) character
two columns and a Latin letter one (Unicode's East Asian Width: *Wide* and *Fullwidth*
characters take two; combining marks none). Padding or cutting by ``len()`` makes a
Chinese row twice as wide as an English one and breaks every table that mixes them. Every
place ctxlab pads, truncates or wraps text for display uses these functions:

* :func:`display_width`: the columns a text takes;
* :func:`pad`: a text padded to a width (left, right or centred), by columns;
* :func:`clip`: a text cut to at most a width, with an ellipsis;
* :func:`grid`: a table's lines, every column padded by display width, headings wrapped at
  spaces (and after hyphens) so a table fits :data:`NOTEBOOK_COLUMNS`;
* :func:`wrap`: a text broken into lines of at most a width. Latin words and values
  (``TCK-50821``, ``a@x.com``, ``v1.0.3``) are never split; Chinese may break between any
  two characters, but a line never starts with closing punctuation (，。、；：！？）」』”)
  nor ends with an opening one (（「『“), as Chinese typesetting requires.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["NOTEBOOK_COLUMNS", "clip", "display_width", "grid", "pad", "wrap", "wrap_lines"]

#: The widest printed line a notebook shows whole: JupyterLab's output area fits about 107
#: columns at a 1280 px window and breaks a longer line anywhere, even inside a word
#: ("superse|ded"), so printed tables fit this width and legends and reports are wrapped
#: at spaces to it (tests/test_output_width.py checks every committed lesson's output).
NOTEBOOK_COLUMNS = 100
#: Punctuation a line must not start with (it belongs to the end of the previous line).
NO_LINE_START = frozenset("，。、；：！？）」』”’》〉】〕…,.;:!?)]}%")
#: Punctuation a line must not end with (it belongs to the start of the next line).
NO_LINE_END = frozenset("（「『“‘《〈【〔([{")

# A unit of wrapping: a run of spaces, a run of non-space characters none of which is wide
# or Chinese punctuation (a Latin word or a value), or a single such character.
_WIDE = ("\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
         "\uffe0-\uffe6\U00020000-\U0003fffd\u2018\u2019\u201c\u201d\u2026")
_UNITS = re.compile(rf"\s+|[^\s{_WIDE}]+|\S")


@lru_cache(maxsize=8192)
def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The columns ``text`` takes on a monospaced screen (a Chinese character takes two)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(ch) for ch in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``width`` columns: ``"<"`` left-aligned, ``">"``
    right-aligned, ``"^"`` centred (as ``format`` would, but by display width). Text wider
    than ``width`` is returned as it is."""
    if align not in ("<", ">", "^"):
        raise ValueError(f"align must be '<', '>' or '^', got {align!r}")
    gap = width - display_width(text)
    if gap <= 0:
        return text
    if align == "<":
        return text + " " * gap
    if align == ">":
        return " " * gap + text
    left = gap // 2
    return " " * left + text + " " * (gap - left)


def clip(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to at most ``width`` columns, ending in ``ellipsis`` when cut."""
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    if display_width(text) <= width:
        return text
    room = width - display_width(ellipsis)
    out, used = [], 0
    for ch in text:
        w = _char_width(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + ellipsis


def _split_wide(unit: str, room: int, width: int) -> list[str]:
    """A Latin unit wider than a whole line, cut by columns (the only case a word is split)."""
    pieces = []
    while display_width(unit) > room:
        cut = clip(unit, max(1, room), "")
        pieces.append(cut)
        unit = unit[len(cut):]
        room = width
    return [*pieces, unit]


def _group(units: list[str], i: int) -> list[str]:
    """The units from ``i`` that must stay on one line: a unit with the closing punctuation
    after it (even after a space), and an opening punctuation with what follows it."""
    group = [units[i]]
    while True:
        j = i + len(group)
        if j < len(units) and units[j] in NO_LINE_START:
            group.append(units[j])
        elif j + 1 < len(units) and units[j].isspace() and units[j + 1] in NO_LINE_START:
            group += [units[j], units[j + 1]]
        elif group[-1] in NO_LINE_END and j < len(units) and not units[j].isspace():
            group.append(units[j])
        elif group[-1] in NO_LINE_END and j + 1 < len(units) and units[j].isspace():
            group += [units[j], units[j + 1]]
        else:
            return group


def wrap(text: str, width: int, *, indent: str = "", first_indent: str = "") -> list[str]:
    """``text`` (one paragraph) as lines of at most ``width`` columns (see the module
    docstring); continuation lines start with ``indent``, the first with ``first_indent``.
    A single word wider than the line is the only thing ever split."""
    if width < 4:
        raise ValueError(f"width must be >= 4, got {width}")
    lines: list[str] = []
    line = first_indent
    units = _UNITS.findall(text)
    i = 0
    while i < len(units):
        if units[i].isspace():
            if line.strip():
                line += " "
            i += 1
            continue
        group = _group(units, i)
        i += len(group)
        chunk = "".join(group)
        if display_width(line + chunk) > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        if display_width(line + chunk) > width:  # one word wider than a whole line
            *full, chunk = _split_wide(chunk, width - display_width(line),
                                       width - display_width(indent))
            for piece in full:
                lines.append((line + piece).rstrip())
                line = indent
        line += chunk
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def wrap_lines(text: str, width: int = NOTEBOOK_COLUMNS, indent: str = "  ") -> str:
    """``text`` with every line wider than ``width`` wrapped at spaces (:func:`wrap`), its
    continuation lines indented by ``indent`` plus the line's own leading spaces (inside a
    wrapped line a run of spaces becomes one); lines that fit are left as they are."""
    out: list[str] = []
    for line in text.split("\n"):
        if display_width(line) <= width:
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip(" "))]
        out += wrap(line.strip(" "), width, indent=lead + indent, first_indent=lead)
    return "\n".join(out)


def _heading_pieces(text: str) -> list[str]:
    """A heading's pieces: its words, a hyphenated word cut after each hyphen."""
    return [piece for word in text.split() for piece in re.findall(r"[^-]+-?|-", word)]


def heading_lines(text: str, width: int) -> list[str]:
    """A column heading as lines of at most ``width`` columns, broken at spaces and after
    hyphens ("stale-as-current" -> "stale-as-", "current"); a piece wider than ``width``
    stays whole."""
    lines: list[str] = []
    for piece in _heading_pieces(text):
        if lines:
            joined = lines[-1] + ("" if lines[-1].endswith("-") else " ") + piece
            if display_width(joined) <= width:
                lines[-1] = joined
                continue
        lines.append(piece)
    return lines or [""]


def _two_line_width(head: str, width: int) -> int:
    """The narrowest width from ``width`` up at which ``head`` takes at most two lines."""
    while len(heading_lines(head, width)) > 2:
        width += 1
    return width


def _column_sizes(heads: list[str], rows: list[list[str]], widths: list[int] | None,
                  gap: int, fit: int) -> list[int]:
    """Each column's width: its widest cell and heading; when the table is wider than
    ``fit``, headings are narrowed to two lines, the most-saving first, until it fits."""
    least = [max([0, *(display_width(row[n]) for row in rows)]) for n in range(len(heads))]
    if widths is not None:
        least = [max(size, wanted) for size, wanted in zip(least, widths, strict=True)]
    sizes = [max(size, display_width(h)) for size, h in zip(least, heads, strict=True)]
    narrow = [_two_line_width(h, max(size, *(display_width(p) for p in _heading_pieces(h) or [""])))
              for size, h in zip(least, heads, strict=True)]
    for n in sorted(range(len(heads)), key=lambda n: narrow[n] - sizes[n]):
        if sum(sizes) + gap * (len(sizes) - 1) <= fit:
            break
        sizes[n] = min(sizes[n], narrow[n])
    return sizes


def grid(heads: list[str], rows: list[list[str]], align: str | list[str] = "<", *,
         gap: int = 2, widths: list[int] | None = None, rule: bool = True,
         fit: int = NOTEBOOK_COLUMNS) -> list[str]:
    """A table's lines: ``heads`` over ``rows`` (cells as text), every cell padded by
    display width (a Chinese cell lines up with a Latin one). A column is as wide as its
    widest cell and its heading (or ``widths``, when wider). When the table is wider than
    ``fit`` columns, the headings wider than their cells are wrapped (:func:`heading_lines`,
    at spaces and after hyphens, on at most two lines), the most-saving first, until it
    fits or none is left; the headings are aligned at the bottom. ``align`` is one of
    ``"<" ">" "^"`` per column, or one for all; ``rule`` adds a line of dashes under the
    headings."""
    aligns = [align] * len(heads) if isinstance(align, str) else list(align)
    if len(aligns) != len(heads) or any(len(row) != len(heads) for row in rows):
        raise ValueError(f"grid needs {len(heads)} cells and aligns per row")
    sizes = _column_sizes(heads, rows, widths, gap, fit)
    stacked = [heading_lines(h, size) if display_width(h) > size else [h]
               for h, size in zip(heads, sizes, strict=True)]
    depth = max(len(s) for s in stacked)
    stacked = [[""] * (depth - len(s)) + s for s in stacked]
    sep = " " * gap

    def line(cells: list[str]) -> str:
        return sep.join(pad(cell, size, a) for cell, size, a in
                        zip(cells, sizes, aligns, strict=True)).rstrip()

    lines = [line([s[k] for s in stacked]) for k in range(depth)]
    if rule:
        lines.append("-" * (sum(sizes) + gap * (len(sizes) - 1)))
    return lines + [line(row) for row in rows]
