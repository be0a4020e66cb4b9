"""The realistic reader: the offline model's optional "lost in the middle" mode.

By default the offline model reads its window perfectly: any fact in its input is found,
wherever it sits and however long the input is. Real models do not work that way, and the
course's argument for short, curated context depends on it. :class:`RealisticReader` makes
the offline model *miss* facts the way a measured model does: the chance that it finds one
mention of a fact falls with the mention's position in the window (the middle is worst) and
with the window's length. It is a simulation, labelled as such wherever it is used.

Where the numbers come from
    Liu, Lin, Hewitt, Paranjape, Bevilacqua, Petroni and Liang, "Lost in the Middle: How
    Language Models Use Long Contexts", *Transactions of the ACL* 12 (2024), arXiv
    2307.03172. Multi-document question answering with GPT-3.5-Turbo (0613): the answer is
    in exactly one of k retrieved passages, and its position is varied.

    * 20 passages (about 4,000 tokens), answer at position 1 / 5 / 10 / 15 / 20: accuracy
      75.8 / 57.2 / 53.8 / 55.4 / 63.2 % (Appendix G, Table 6);
    * 30 passages (about 6,000 tokens, GPT-3.5-Turbo 16K): 73.4 % at position 1, 50.5 % at
      position 10, 63.7 % at position 30 (Appendix G, Table 7);
    * oracle (only the answer passage in the input): 88.3 % (4K model), 88.6 % (16K model)
      (Table 1).

How the model is built from them
    * **Position** (``x``: where the mention sits, 0 = start of the window, 1 = end): the
      20-passage curve divided by the oracle accuracy, i.e. how much of what the model
      manages with the answer alone survives at that position (0.858 at the start, 0.609 in
      the middle, 0.716 at the end), interpolated linearly between the measured positions.
    * **Length** (``L`` tokens): the shortfall from 1 is scaled by
      ``depth(L) = ln(L / L0) / ln(4000 / L0)`` (1 at the 20-passage length, 0 at ``L0``).
      ``L0`` is fitted (least squares) so that the scaled 20-passage shortfall matches the
      30-passage one at its three measured positions; it comes out at about 110 tokens, the
      size of a single passage, which is where the oracle setting sits.
    * ``chance(x, L) = max(FLOOR, 1 - depth(L) * (1 - curve(x)))``, 1 for ``L <= L0``.

What it does to the offline model
    When the model must *find* a fact to answer a question about it ("what was my ticket
    number?", "what did I ask you to keep in mind?"), each value gets one seeded draw
    ``u`` (how hard this fact is for this model), and a mention of it is found when its
    ``chance`` is above ``u``. So the fact is found when its best-placed mention is good
    enough: saying a value three times in the middle does not make it three times as
    findable (a model that does not attend to the middle misses all three). A missed
    mention is simply not seen: the model may then answer with an older value it did see,
    or say it does not see the value. Tool arguments and the reply to a tool result are
    still read perfectly (the simulation is about recall).

    The draw depends only on the seed and the value, so the same fact is compared against
    the chance of its position in every window: a fact found in a long window is found in
    a shorter one that keeps it at a better place (common random numbers: two strategies
    differ by their windows, not by luck). The same seed gives the same answers on every
    machine; :meth:`RealisticReader.chance_of` gives the chance itself, for every seed.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.items import item_text
from ...core.tokens import (
    DEFAULT_ENCODING,
    ITEM_OVERHEAD_TOKENS,
    get_token_counter,
    tool_schema_text,
)
from ...facts.typed import Found

#: Where the figures come from (printed by lessons and tables).
LIU_2024 = ("Liu et al., \"Lost in the Middle: How Language Models Use Long Contexts\", "
            "TACL 12 (2024); GPT-3.5-Turbo, multi-document QA, Table 1 and Appendix G "
            "Tables 6-7")
#: Oracle accuracy (only the answer passage in the input), GPT-3.5-Turbo and its 16K model.
ORACLE = 88.3
ORACLE_16K = 88.6
#: 20 passages (about 4,000 tokens): (position of the answer, accuracy %).
TWENTY_PASSAGES: tuple[tuple[int, float], ...] = (
    (1, 75.8), (5, 57.2), (10, 53.8), (15, 55.4), (20, 63.2))
TWENTY_TOKENS = 4000
#: 30 passages (about 6,000 tokens), GPT-3.5-Turbo 16K: (position, accuracy %).
THIRTY_PASSAGES: tuple[tuple[int, float], ...] = ((1, 73.4), (10, 50.5), (30, 63.7))
THIRTY_TOKENS = 6000
#: The lowest chance the model gives any mention (a very long window still finds some).
FLOOR = 0.05


def _curve(points: Sequence[tuple[int, float]], passages: int,
           oracle: float) -> list[tuple[float, float]]:
    """(relative position, accuracy / oracle) for a measured curve."""
    return [((position - 1) / (passages - 1), accuracy / oracle)
            for position, accuracy in points]


#: The 20-passage curve relative to the oracle: (x, share of the oracle accuracy).
SHAPE: tuple[tuple[float, float], ...] = tuple(_curve(TWENTY_PASSAGES, 20, ORACLE))


def _interpolate(points: Sequence[tuple[float, float]], x: float) -> float:
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


def _fit_l0() -> float:
    """The length at which the position effect vanishes, fitted to the 30-passage curve."""
    thirty = _curve(THIRTY_PASSAGES, 30, ORACLE_16K)
    dips20 = [1 - _interpolate(SHAPE, x) for x, _ in thirty]
    dips30 = [1 - share for _, share in thirty]
    scale = sum(a * b for a, b in zip(dips20, dips30, strict=True)) / sum(a * a for a in dips20)
    # scale = ln(6000 / L0) / ln(4000 / L0)  =>  ln(4000 / L0) = ln(1.5) / (scale - 1)
    return TWENTY_TOKENS / math.exp(math.log(THIRTY_TOKENS / TWENTY_TOKENS) / (scale - 1))


#: Window length (tokens) at or below which position does not matter (about 110).
L0 = _fit_l0()


def chance(position: float, window_tokens: int) -> float:
    """The chance of finding one mention at ``position`` (0 = start of the window, 1 = end)
    of a window of ``window_tokens`` tokens (see the module docstring)."""
    if not 0.0 <= position <= 1.0:
        raise ValueError(f"position must be between 0 and 1, got {position!r}")
    if window_tokens <= L0:
        return 1.0
    depth = math.log(window_tokens / L0) / math.log(TWENTY_TOKENS / L0)
    return max(FLOOR, min(1.0, 1.0 - depth * (1.0 - _interpolate(SHAPE, position))))


@dataclass(frozen=True)
class Layout:
    """Where each input item sits in a request, in tokens: ``starts[i]`` and ``ends[i]``
    of item ``i`` (after the instructions and tool schemas), and the request's total."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    total: int

    @classmethod
    def of(cls, instructions: str | None, items: Sequence[Mapping[str, Any]],
           tools: Sequence[Any] = (), *, encoding: str = DEFAULT_ENCODING) -> Layout:
        counter = get_token_counter(encoding)
        offset = (counter.count(instructions) + ITEM_OVERHEAD_TOKENS) if instructions else 0
        offset += sum(counter.count(tool_schema_text(tool)) for tool in tools)
        starts, ends = [], []
        for item in items:
            starts.append(offset)
            offset += counter.count_item(item)
            ends.append(offset)
        return cls(tuple(starts), tuple(ends), max(offset, 1))

    def position(self, index: int, share: float = 0.5) -> float:
        """The relative position of a point ``share`` of the way through item ``index``."""
        start, end = self.starts[index], self.ends[index]
        return min(1.0, max(0.0, (start + share * (end - start)) / self.total))


@dataclass(frozen=True)
class RealisticReader:
    """The offline model's "lost in the middle" reading (see the module docstring).

    Args:
        seed: the seed of the draws; the same seed gives the same answers everywhere.
    """

    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise TypeError(f"seed must be an int, got {type(self.seed).__name__}")

    @property
    def label(self) -> str:
        """How tables name this reader."""
        return f"realistic reader (lost in the middle, Liu et al. 2024; seed {self.seed})"

    def draw(self, *parts: object) -> float:
        """A uniform number in [0, 1) determined by the seed and ``parts``."""
        text = "\x1f".join(str(p) for p in (self.seed, *parts))
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def finds(self, value: str, position: float, window_tokens: int) -> bool:
        """Whether a mention of ``value`` at ``position`` of a ``window_tokens`` window is
        found: the value's draw (one per value and seed) is below the mention's chance."""
        return self.draw(value) < chance(position, window_tokens)

    def seen(self, items: Sequence[Mapping[str, Any]], layout: Layout
             ) -> Callable[[int, int, str], bool]:
        """A test ``(item index, character offset, value) -> found?`` for one request."""
        texts: dict[int, str] = {}

        def test(index: int, start: int, value: str) -> bool:
            if index < 0 or index >= len(layout.starts):
                return True  # the instructions: always read
            text = texts.setdefault(index, item_text(items[index]))
            share = start / len(text) if text else 0.5
            return self.finds(value, layout.position(index, share), layout.total)

        return test

    def filter(self, facts: Mapping[str, Sequence[Found]], items: Sequence[Mapping[str, Any]],
               layout: Layout) -> dict[str, list[Found]]:
        """``facts`` without the mentions this reader misses."""
        test = self.seen(items, layout)
        return {kind: [f for f in found if test(f.index, f.start, f.value)]
                for kind, found in facts.items()}

    def chance_of(self, value: str, items: Sequence[Mapping[str, Any]], layout: Layout
                  ) -> float:
        """:func:`chance_of` (the same for every seed)."""
        return chance_of(value, items, layout)


def chance_of(value: str, items: Sequence[Mapping[str, Any]], layout: Layout) -> float:
    """The chance that a :class:`RealisticReader` finds ``value`` in these items: the best
    chance among its mentions (0.0 when it is not there), the same for every seed."""
    best = 0.0
    for index, item in enumerate(items):
        text = item_text(item)
        start = text.find(value)
        while start >= 0:
            share = start / len(text) if text else 0.5
            best = max(best, chance(layout.position(index, share), layout.total))
            start = text.find(value, start + len(value))
    return best


#: The default reading: every fact in the input is found.
PERFECT_LABEL = "perfect reader (every fact in the window is found)"


def reader_label(reader: RealisticReader | None) -> str:
    """How tables name a reader (None: the offline model's default, perfect reading)."""
    return PERFECT_LABEL if reader is None else reader.label
