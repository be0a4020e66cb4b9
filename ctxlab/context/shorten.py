"""Role-aware fitting of earlier turns (``ContextManager(role_aware=True)``), and which of
a long history's turns are worth reading at all.

:func:`newest_turns` reads earlier turns newest first only as long as even their smallest
form (compacted, shortened) can fit. :func:`shorten_turns` keeps the newest
``protect_recent_turns`` verbatim while older turns are shortened (:func:`~.roles.shrink_turn`:
user inputs kept, assistant replies cut, tool outputs as previews, reasoning removed),
oldest first, and then dropped, oldest first; the protected turns are shortened and dropped
only when they alone overflow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .roles import shrink_turn
from .rules import Rules
from .split import TurnSource

Item = Any


def turn_span(first: int, n: int, older: bool = False) -> str:
    """"earlier turn 1 of 4" or "earlier turns 1-3 of 4": the oldest ``first`` of ``n``; with
    ``older`` (a long history whose oldest turns were never read) "every earlier turn before
    the newest 2"."""
    if older:
        kept = n - first
        return ("every earlier turn" if kept == 0
                else f"every earlier turn before the newest {kept}")
    return f"earlier turn 1 of {n}" if first == 1 else f"earlier turns 1-{first} of {n}"


def newest_turns(source: TurnSource, room: int, rules: Rules) -> tuple[list[list[Item]], bool]:
    """The newest earlier turns that can matter under ``room`` tokens (oldest first), and
    whether older ones exist beyond them (those are dropped without being read). Turns are
    taken until even their smallest form (compacted, shortened when role-aware and not
    protected) overflows ``room``."""
    picked: list[list[Item]] = []
    used = 0
    count = rules.counter
    while True:
        turn = source.get(len(picked))
        if turn is None:
            return picked[::-1], False
        smallest = rules.compact(turn) if rules.compactor is not None else turn
        if rules.role_aware and len(picked) >= rules.protect_recent_turns:
            smallest = shrink_turn(smallest, count,
                                   assistant_max_tokens=rules.assistant_max_tokens)
        picked.append(turn)
        used += count.items(smallest)
        if used > room:
            return picked[::-1], source.get(len(picked)) is not None


def shorten_turns(turns: list[list[Item]], tokens: list[int | None], full: Callable[[int], int],
                  room: int, rules: Rules) -> tuple[int, list[int]]:
    """The role-aware steps (see the module doc). Returns the first kept turn and the
    shortened turns; ``turns`` and ``tokens`` are updated in place (kept turns get their
    sizes)."""
    n = len(turns)
    older = n - min(rules.protect_recent_turns, n)  # turns[older:] are protected
    shrink = _Shrinker(turns, rules)

    def sized(lo: int, hi: int) -> list[int]:
        for k in range(lo, hi):
            if tokens[k] is None:
                tokens[k] = full(k)
        return tokens[lo:hi]  # type: ignore[return-value]

    protected = sum(sized(older, n))
    if protected > room:  # no room for older turns at all
        return _shorten_then_drop(turns, tokens, shrink, older, n, room, sized)
    space = room - protected
    used, first = 0, older
    for i in range(older - 1, -1, -1):  # shortened older turns, newest first
        size = shrink(i)[1]
        if used + size > space:
            break
        used += size
        first = i
    if first > 0:  # even shortened, not all older turns fit: keep the newest that do
        for i in range(first, older):
            turns[i], tokens[i] = shrink(i)
        return first, list(range(first, older))
    return _shorten_then_drop(turns, tokens, shrink, 0, older, space, sized)


class _Shrinker:
    """The shortened form of each turn, computed once."""

    def __init__(self, turns: list[list[Item]], rules: Rules):
        self.turns, self.rules = turns, rules
        self.done: dict[int, tuple[list[Item], int]] = {}

    def __call__(self, i: int) -> tuple[list[Item], int]:
        if i not in self.done:
            rules = self.rules
            items = shrink_turn(self.turns[i], rules.counter,
                                assistant_max_tokens=rules.assistant_max_tokens)
            self.done[i] = (items, rules.counter.items(items))
        return self.done[i]


def _shorten_then_drop(turns: list[list[Item]], tokens: list[int | None], shrink: _Shrinker,
                       lo: int, hi: int, space: int,
                       sized: Callable[[int, int], list[int]]) -> tuple[int, list[int]]:
    """Shorten turns[lo:hi] oldest first until they fit ``space``, then drop the oldest."""
    total, done = sum(sized(lo, hi)), []
    for i in range(lo, hi):
        if total <= space:
            break
        items, size = shrink(i)
        if size < tokens[i]:  # type: ignore[operator]
            total -= tokens[i] - size  # type: ignore[operator]
            turns[i], tokens[i] = items, size
            done.append(i)
    first = lo
    while total > space and first < hi:
        total -= tokens[first]  # type: ignore[operator]
        first += 1
    return first, [i for i in done if i >= first]
