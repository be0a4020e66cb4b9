"""The check of lesson 11's exercise: a forgetting policy for standing notes.

The learner writes a :class:`~ctxlab.longterm.DecayPolicy`. The check replays a year of a
busy customer (:data:`EXERCISE_SCENARIO`: 5 one-off notes a week, 8 notes that are used 15
days after they were written and then every 60 days: not the lesson's customer) and asks:

* every note in use is still kept at the end of the year (:data:`USED_KEPT`);
* a note never used again is gone within :data:`ONE_OFF_DAYS` days (what nobody needs
  should not linger in the customer's memory);
* the cap is at most :data:`MAX_CAP` notes (what recall shows every turn stays small).

It measures by simulating the policy itself (:func:`~ctxlab.longterm.simulate`), so a policy
that states numbers it does not keep is caught; anything that is not a plain
``DecayPolicy`` (a subclass that changes how it decays, a look-alike object) is refused
first. The lesson's own policies all fail (tests check each), as do the degenerate ones:
nothing forgotten, everything forgotten, no reinforcement, a cap of one.
"""

from __future__ import annotations

from typing import Any

from ..longterm.decay import DecayPolicy, Scenario, simulate, steady_scenario
from .exercises import CheckResult

#: A year of a busy customer (see the module docstring).
FIRST_USE, EVERY = 15, 60
EXERCISE_SCENARIO: Scenario = steady_scenario(12, new_per_week=5, reused=8,
                                              first_use=FIRST_USE, every=EVERY)
#: Notes in use that must be kept to the end.
USED_KEPT = tuple(f"kept-{k}" for k in range(8))
#: A note never used again must be gone within this many days.
ONE_OFF_DAYS = 45
#: The largest cap allowed.
MAX_CAP = 40


def _one_off_days(timeline: Any) -> int:
    """The longest any one-off note was kept, in days."""
    longest = 0
    for name, days in timeline.alive.items():
        if name.startswith("once-"):
            longest = max(longest, days[-1] - days[0] + 1)
    return longest


def _why(policy: DecayPolicy) -> str:
    """Why notes in use were lost: they faded before a use, or the cap evicted them."""
    if policy.lifetime_days(0) < FIRST_USE:
        return (f"unused, a note lasts {policy.lifetime_days(0):.0f} days, and these are "
                f"first used {FIRST_USE} days after they were written")
    if policy.lifetime_days(1) < EVERY:
        return (f"after a use a note lasts {policy.lifetime_days(1):.0f} days, and these are "
                f"used every {EVERY} days: a use must buy more time (reinforcement)")
    return (f"the cap of {policy.cap} evicted them: the one-off notes crowd them out (forget "
            "those sooner, or allow more notes)")


def check_decay_policy(policy: Any) -> CheckResult:
    """Lesson 11: a DecayPolicy that meets the targets of the module docstring."""
    if policy is None:
        return CheckResult(None, "fill in `my_policy` in the cell above, run it, then run "
                                 "this check")
    if type(policy) is not DecayPolicy:
        return CheckResult(False, f"expected a DecayPolicy(half_life_days=..., reinforcement="
                                  f"..., keep_above=..., cap=...), got {type(policy).__name__}")
    if policy.cap > MAX_CAP:
        return CheckResult(False, f"cap={policy.cap}: at most {MAX_CAP} standing notes, so "
                                  "what recall shows stays small")
    timeline = simulate(policy, EXERCISE_SCENARIO)
    last = EXERCISE_SCENARIO.days - 1
    lost = [name for name in USED_KEPT if timeline.kept_until(name) != last]
    if lost:
        first = min(timeline.kept_until(n) or 0 for n in lost)
        return CheckResult(False, f"{len(lost)} of the {len(USED_KEPT)} notes in use were "
                                  f"forgotten (the first on day {first}): {_why(policy)}")
    lingering = _one_off_days(timeline)
    if lingering > ONE_OFF_DAYS:
        return CheckResult(False, f"a note never used again was kept {lingering} days; forget "
                                  f"it within {ONE_OFF_DAYS}")
    return CheckResult(True, f"all {len(USED_KEPT)} notes in use kept for the year, one-off "
                             f"notes gone within {lingering} days, at most "
                             f"{max(timeline.kept)} notes kept (cap {policy.cap})")


__all__ = ["EXERCISE_SCENARIO", "MAX_CAP", "ONE_OFF_DAYS", "check_decay_policy"]
