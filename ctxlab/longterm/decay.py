"""Forgetting: standing notes fade with age, come back with use, and never exceed a cap.

A note's *strength* halves every ``half_life_days`` since it was last used (or written);
each use stretches its half-life by ``reinforcement`` (a note used 3 times with
``reinforcement=1`` fades 4 times slower), the way spaced repetition works:

    strength = 0.5 ** (days since last use / (half_life_days * (1 + reinforcement * uses)))

:func:`prune` keeps the notes whose strength is at least ``keep_above`` and, of those, the
``cap`` strongest (a tie goes to the newer note). It runs when a session is consolidated,
so forgetting costs nothing on the hot path. :func:`simulate` replays months of notes and
uses day by day and reports what is kept: the data behind the lesson's plot and the
exercise's check.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.checks import check_int, check_range
from .notebook import MemoryNote, parse_time


@dataclass(frozen=True)
class DecayPolicy:
    """How standing notes are forgotten (see the module docstring)."""

    half_life_days: float = 30.0
    reinforcement: float = 1.0
    keep_above: float = 0.2
    cap: int = 50

    def __post_init__(self) -> None:
        check_range("half_life_days", self.half_life_days, low=0, low_open=True)
        check_range("reinforcement", self.reinforcement, low=0)
        check_range("keep_above", self.keep_above, low=0, high=1)
        check_int("cap", self.cap, minimum=1)

    def lifetime_days(self, uses: int = 0) -> float:
        """How long a note used ``uses`` times survives without another use."""
        if self.keep_above <= 0:
            return math.inf
        return (self.half_life_days * (1 + self.reinforcement * uses)
                * math.log2(1 / self.keep_above))


def strength(note: MemoryNote, now: datetime.datetime, policy: DecayPolicy) -> float:
    """The note's strength at ``now`` (1.0 when just written or used)."""
    since = parse_time(note.last_used or note.at)
    days = max((now - since).total_seconds() / 86400, 0.0)
    return 0.5 ** (days / (policy.half_life_days * (1 + policy.reinforcement * note.uses)))


def prune(notes: Sequence[MemoryNote], now: datetime.datetime | str, policy: DecayPolicy
          ) -> tuple[list[MemoryNote], list[MemoryNote]]:
    """(kept, forgotten): the notes strong enough, at most ``cap`` of them, in their order."""
    moment = parse_time(now) if isinstance(now, str) else now
    scored = [(strength(n, moment, policy), k, n) for k, n in enumerate(notes)]
    strong = [s for s in scored if s[0] >= policy.keep_above]
    best = sorted(strong, key=lambda s: (-s[0], -s[1]))[:policy.cap]
    keep = {k for _, k, _ in best}
    return ([n for _, k, n in scored if k in keep], [n for _, k, n in scored if k not in keep])


def used(note: MemoryNote, at: str) -> MemoryNote:
    """The note after one more use at ``at`` (reinforcement)."""
    return note.model_copy(update={"uses": note.uses + 1, "last_used": at})


# ----------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class Scenario:
    """Notes written and used over ``days`` days: ``writes`` maps a day to the names of the
    notes written that day, ``uses`` maps a note name to the days it is used."""

    days: int
    writes: Mapping[int, tuple[str, ...]]
    uses: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def written_on(self, name: str) -> int:
        return next(day for day, names in self.writes.items() if name in names)


def steady_scenario(months: int = 12, *, new_per_week: int = 3, reused: int = 6,
                    first_use: int = 20, every: int = 90, start: int = 0) -> Scenario:
    """A customer over ``months`` months: ``new_per_week`` one-off notes a week (never used
    again) and ``reused`` notes written in the first weeks, first used ``first_use`` days
    after they were written and then every ``every`` days."""
    days = months * 30
    writes: dict[int, list[str]] = {}
    for k in range(reused):
        writes.setdefault(start + 2 * k, []).append(f"kept-{k}")
    for day in range(start, days, 7):
        writes.setdefault(day, []).extend(f"once-{day}-{j}" for j in range(new_per_week))
    uses = {f"kept-{k}": tuple(range(start + 2 * k + first_use, days, every))
            for k in range(reused)}
    return Scenario(days, {d: tuple(n) for d, n in writes.items()}, uses)


@dataclass(frozen=True)
class Timeline:
    """What :func:`simulate` saw: notes kept per day, and per note the days it was kept."""

    days: tuple[int, ...]
    kept: tuple[int, ...]
    alive: Mapping[str, tuple[int, ...]]
    strengths: Mapping[str, tuple[float, ...]]

    def kept_until(self, name: str) -> int | None:
        """The last day ``name`` was kept (None: never)."""
        days = self.alive.get(name, ())
        return days[-1] if days else None


_DAY0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def _day(n: int) -> str:
    return (_DAY0 + datetime.timedelta(days=n)).strftime("%Y-%m-%d")


def _step(notes: dict[str, MemoryNote], scenario: Scenario, day: int) -> None:
    for name in scenario.writes.get(day, ()):
        notes[name] = MemoryNote(id=name, text=name, scope="durable", session=f"d{day}",
                                 at=_day(day))
    for name, days in scenario.uses.items():
        if day in days and name in notes:  # a forgotten note cannot be used any more
            notes[name] = used(notes[name], _day(day))


def simulate(policy: DecayPolicy, scenario: Scenario, *, track: Sequence[str] = ()
             ) -> Timeline:
    """Replay ``scenario`` day by day, pruning with ``policy`` at the end of each day."""
    notes: dict[str, MemoryNote] = {}
    kept: list[int] = []
    alive: dict[str, list[int]] = {}
    curves: dict[str, list[float]] = {name: [] for name in track}
    for day in range(scenario.days):
        _step(notes, scenario, day)
        now = parse_time(_day(day)) + datetime.timedelta(hours=23)
        survivors, _ = prune(list(notes.values()), now, policy)
        notes = {n.id: n for n in survivors}
        kept.append(len(notes))
        for name in notes:
            alive.setdefault(name, []).append(day)
        for name, curve in curves.items():
            curve.append(strength(notes[name], now, policy) if name in notes else 0.0)
    return Timeline(tuple(range(scenario.days)), tuple(kept),
                    {k: tuple(v) for k, v in alive.items()},
                    {k: tuple(v) for k, v in curves.items()})


__all__ = ["DecayPolicy", "Scenario", "Timeline", "prune", "simulate", "steady_scenario",
           "strength", "used"]
