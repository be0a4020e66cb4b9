"""Which parts of a text present a value as *no longer current*.

A memory that keeps an old value next to its replacement must say which one is current,
and every reader of that memory must read it the same way: the offline model answering
"which email do you have for me?", the evaluation deciding whether a view presents a stale
value as current, the summarizer reading a note it did not write. :func:`stale_marks`
finds the regions of a text that mark values as superseded, with the cues of
:mod:`ctxlab.facts.cues`:

* a label and what follows it, to the end of its bracket, sentence or line:
  ``earlier: a@x, b@x)``, ``此前：15800001111）``,
  ``Superseded: v1 -> v2`` (the part before the arrow);
* whatever comes before an arrow in its clause: ``user.email a@x (t1) -> b@x``;
* a value within two words after a word such as *old*, *previous*, *instead of*, *not*:
  ``my old address a@x``, ``instead of the Porto office`` (but ``back to my old address
  a@x`` makes it current again);
* a value right before a phrase such as *was merged*, *is being shut down*,
  ``[superseded by ...]``.

The rule for a reader (:func:`current_mention`): among the mentions of a fact's values, the
latest one that is **not** in a stale region is the value presented as current.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from . import cues

_FLAGS = re.IGNORECASE


def _alt(fragments: Iterable[str]) -> str:
    return "|".join(f"(?:{f})" for f in fragments)


_LABEL = re.compile(cues.words(cues.STALE_LABELS, end=False) + r"\s*[:：]", _FLAGS)
_ARROW = re.compile(_alt(cues.ARROWS))
_BEFORE = re.compile(cues.words(cues.STALE_BEFORE), _FLAGS)
_AGAIN = re.compile(r"(?:" + _alt(cues.CURRENT_AGAIN) + r")\s+(?:(?:my|the|our)\s+)?$", _FLAGS)
_AFTER = re.compile(cues.words(cues.STALE_AFTER, start=False), _FLAGS)
# A label's region ends at a closing bracket, a "|" separator, an arrow, a line end or the
# end of a sentence (not at ";", which sentences use inside themselves).
_LABEL_END = re.compile(r"[)\]|\n）。！？]|->|→|=>|\.(?:\s|$)")
# Back from an arrow, the clause starts after one of these.
_CLAUSE_START = re.compile(r"[|;,\n:，；：。]|->|→|=>|\.\s")
# Up to three words after a stale-before cue (not across a separator).
_REACH = re.compile(r"(?:[\s\"':=]*[^\s,;|()\[\]，；：。！？（）]+){1,3}")
# The word right before a stale-after cue.
_PREVIOUS_WORD = re.compile(r"[^\s\"'(\[]+[\"']?\s*$")


@dataclass(frozen=True)
class StaleMarks:
    """Sorted, merged ``[start, end)`` regions of a text that mark values as stale."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def covers(self, start: int, end: int | None = None) -> bool:
        """True when the span ``[start, end)`` (or the position ``start``) lies in a region."""
        end = start + 1 if end is None else max(end, start + 1)
        i = bisect_right(self.starts, start) - 1
        return i >= 0 and self.ends[i] >= end

    def __bool__(self) -> bool:
        return bool(self.starts)

    def __len__(self) -> int:
        return len(self.starts)

    def regions(self) -> list[tuple[int, int]]:
        return list(zip(self.starts, self.ends, strict=True))


NO_MARKS = StaleMarks((), ())


def _merge(regions: list[tuple[int, int]]) -> StaleMarks:
    if not regions:
        return NO_MARKS
    regions.sort()
    starts: list[int] = []
    ends: list[int] = []
    for start, end in regions:
        if end <= start:
            continue
        if starts and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return StaleMarks(tuple(starts), tuple(ends))


def _regions(text: str) -> list[tuple[int, int]]:
    regions: list[tuple[int, int]] = []
    for match in _LABEL.finditer(text):
        stop = _LABEL_END.search(text, match.end())
        regions.append((match.end(), stop.start() if stop else len(text)))
    for match in _ARROW.finditer(text):
        head = text[max(0, match.start() - 200):match.start()]
        starts = [m.end() for m in _CLAUSE_START.finditer(head)]
        begin = match.start() - len(head) + (starts[-1] if starts else 0)
        regions.append((begin, match.start()))
    for match in _BEFORE.finditer(text):
        if _AGAIN.search(text, max(0, match.start() - 40), match.start()):
            continue
        reach = _REACH.match(text, match.end())
        if reach:
            arrow = _ARROW.search(text, match.end(), reach.end())
            regions.append((match.end(), arrow.start() if arrow else reach.end()))
    for match in _AFTER.finditer(text):
        word = _PREVIOUS_WORD.search(text, max(0, match.start() - 120), match.start())
        if word:
            regions.append((word.start(), match.start()))
    return regions


@lru_cache(maxsize=8192)
def _line_regions(line: str) -> tuple[tuple[int, int], ...]:
    return tuple(_regions(line))


def _by_line(text: str) -> StaleMarks:
    """Regions line by line (every cue ends at a line end), each line memoized: a view is
    read again at every model call, mostly the same lines."""
    regions: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        if line:
            regions += [(offset + a, offset + b) for a, b in _line_regions(line)]
        offset += len(line) + 1
    return _merge(regions)


@lru_cache(maxsize=512)
def _cached(text: str) -> StaleMarks:
    return _by_line(text)


def stale_marks(text: str) -> StaleMarks:
    """The stale regions of ``text`` (see the module docstring), read line by line: a cue
    never reaches into the next line. Cached for short texts."""
    if not isinstance(text, str):
        raise TypeError(f"stale_marks expects a str, got {type(text).__name__}")
    if not text:
        return NO_MARKS
    if len(text) <= 20_000:
        return _cached(text)
    return _by_line(text)


def is_stale_at(text: str, start: int, end: int | None = None) -> bool:
    """True when ``text[start:end]`` is presented as no longer current."""
    return stale_marks(text).covers(start, end)


@dataclass(frozen=True)
class Mention:
    """One occurrence of a value in a text, and whether it is marked stale there."""

    value: str
    start: int
    end: int
    stale: bool


def current_mention(mentions: Sequence[Mention]) -> Mention | None:
    """The mention a reader takes as current: the latest one not marked stale."""
    for mention in sorted(mentions, key=lambda m: m.start, reverse=True):
        if not mention.stale:
            return mention
    return None
