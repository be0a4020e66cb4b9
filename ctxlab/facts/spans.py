"""Non-overlapping spans claimed pattern by pattern, in O(n log n).

Identifier and fact finders run several regular expressions over one text, most specific
first, and a later pattern may not claim characters an earlier one took. Checking each new
match against every claimed span is quadratic in the number of matches (a long chat folded
into one text has thousands). :func:`claim_in_order` does the same job with a merge: the
spans claimed so far are kept sorted and non-overlapping, each pattern's matches arrive
left to right (as ``re.finditer`` yields them), so one sweep per pattern decides every
match, and one final sort orders the result.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


class ClaimedSpans:
    """Sorted, non-overlapping half-open ``[start, end)`` spans.

    :meth:`free` asks whether a span overlaps none of them in O(log n); :meth:`add_sorted`
    merges a batch of new spans (sorted by start, overlapping neither each other nor the
    claimed ones) in O(n + m).
    """

    __slots__ = ("_ends", "_starts")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def __len__(self) -> int:
        return len(self._starts)

    def free(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` overlaps no claimed span."""
        i = bisect_right(self._starts, start)
        if i > 0 and self._ends[i - 1] > start:
            return False
        return not (i < len(self._starts) and self._starts[i] < end)

    def add_sorted(self, spans: list[tuple[int, int]]) -> None:
        """Merge ``spans`` (sorted by start; no overlaps) into the claimed ones."""
        if not spans:
            return
        starts, ends = self._starts, self._ends
        merged_s: list[int] = []
        merged_e: list[int] = []
        i = j = 0
        while i < len(starts) or j < len(spans):
            if j >= len(spans) or (i < len(starts) and starts[i] <= spans[j][0]):
                merged_s.append(starts[i])
                merged_e.append(ends[i])
                i += 1
            else:
                merged_s.append(spans[j][0])
                merged_e.append(spans[j][1])
                j += 1
        self._starts, self._ends = merged_s, merged_e


def claim_in_order(
    groups: Iterable[Iterable[tuple[int, int, T]]],
) -> Iterator[tuple[int, int, T]]:
    """Claim spans group by group (earlier groups win overlaps).

    Each group yields ``(start, end, payload)`` with starts ascending and no overlaps within
    the group (the matches of one pattern). A span is accepted when it overlaps nothing an
    earlier group accepted; accepted spans are yielded group by group, in their group's
    order. Spans of one group never reject each other.
    """
    claimed = ClaimedSpans()
    for group in groups:
        accepted: list[tuple[int, int]] = []
        for start, end, payload in group:
            if claimed.free(start, end):
                accepted.append((start, end))
                yield start, end, payload
        claimed.add_sorted(accepted)
