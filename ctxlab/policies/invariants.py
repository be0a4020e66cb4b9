"""What every window must be, whatever the strategy: checked, not repaired.

:func:`ctxlab.sessions.view.build_view` makes any window valid for the API (late outputs,
pending calls, junk), so a policy bug would never show as an invalid request: it would
silently show the model half a turn or blow a budget. :func:`window_violations` checks a
window against the strategy's :class:`~ctxlab.policies.spec.Invariants` before any repair:

* raw slots in ascending order, each once, inside the log;
* whole turns (unless the spec says otherwise): a run of raw slots starts and ends only at
  turn boundaries (the preamble counts as one block), or where a synthetic slot's
  ``covers`` ends;
* a declared token budget is respected, or the window carries a note saying why;
* the newest turn is never dropped (each of its items is kept, summarized or pending);
* no synthetic slot unless the spec allows them.

Sessions check every view they build (:meth:`ctxlab.MemorySession._view`), once per change
of the log or the settings (a view is cached by their versions). In *strict* mode (on in the
test suite: ``CTXLAB_STRICT=1`` or :func:`set_strict`) every window gets the full check and a
violation raises :class:`PolicyViolation` naming the policy. Outside strict mode a violation
is logged, warned about (:class:`PolicyWarning`) and the view is repaired as before, so users
never get a request the API rejects; and a *proven* policy (ctxlab's own, which the property
suite holds to the full check in strict mode: :func:`mark_proven`) gets only the cheap part
(raw slots in order and inside the log, the newest turn kept), while every other policy (a
new or changed one, a test's mutant) still gets the full check on every view.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from bisect import bisect_left
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

from ..core.ledger import DROPPED
from .base import LogView, Synthetic, Window
from .spec import Invariants, StrategySpec

logger = logging.getLogger("ctxlab.sessions")
_STRICT = os.environ.get("CTXLAB_STRICT", "").lower() in ("1", "true", "yes")


class PolicyViolation(AssertionError):
    """A policy returned a window that breaks its strategy's invariants (strict mode)."""


class PolicyWarning(UserWarning):
    """A policy's window broke an invariant; the view was repaired (non-strict mode)."""


def strict() -> bool:
    """True when violations raise (:class:`PolicyViolation`) instead of warning."""
    return _STRICT


def set_strict(on: bool) -> bool:
    """Turn strict mode on or off for this process; returns the previous setting."""
    global _STRICT
    previous, _STRICT = _STRICT, bool(on)
    return previous


#: Policies (and session ``_window`` methods) whose windows the property suite holds to the
#: full check in strict mode: outside strict mode they get the cheap check only.
_PROVEN: set[Any] = set()


def mark_proven(*functions: Any) -> None:
    """Declare policies (or ``_window`` methods) proven: outside strict mode their windows
    get only the cheap check. Only for code the strict property suite covers; a policy
    replaced or wrapped is a different function, so it is checked in full again."""
    _PROVEN.update(functions)


def is_proven(*functions: Any) -> bool:
    """True when every one of ``functions`` (None ignored) was marked proven."""
    return _PROVEN.issuperset(functions) or (  # (the first test: no generator, every read)
        None in functions and _PROVEN.issuperset(f for f in functions if f is not None))


@contextlib.contextmanager
def strict_mode(on: bool = True) -> Iterator[None]:
    """``with strict_mode():`` violations raise inside the block."""
    previous = set_strict(on)
    try:
        yield
    finally:
        set_strict(previous)


#: What a window promises when its session has no registered strategy (its own _window).
NO_SPEC = Invariants(synthetic=True)


def enforce(log: LogView, window: Window, spec: StrategySpec | None, params: Any,
            who: str | Callable[[], str], *, proven: bool = False) -> None:
    """Check ``window`` against ``spec``'s invariants (:data:`NO_SPEC` without one): in
    strict mode a violation raises :class:`PolicyViolation` naming the policy and ``who``
    asked (a string, or a function giving it: called only then); otherwise it is logged and
    warned about (:class:`PolicyWarning`). A ``proven`` policy outside strict mode gets the
    cheap check only (see the module doc)."""
    invariants = spec.invariants if spec is not None else NO_SPEC
    problems = window_violations(log, window, invariants, params,
                                 cheap=proven and not _STRICT)
    if not problems:
        return
    if callable(who):
        who = who()
    policy = getattr(spec.policy, "__qualname__", spec.name) if spec is not None else "_window"
    message = (f"{who}: the window of policy {policy!r} breaks its invariants: "
               f"{'; '.join(problems)}")
    if _STRICT:
        raise PolicyViolation(message)
    logger.warning("%s; the view is repaired", message)
    warnings.warn(message, PolicyWarning, stacklevel=5)


def window_violations(log: LogView, window: Window, invariants: Invariants,
                      params: Any = None, *, cheap: bool = False) -> list[str]:
    """What is wrong with ``window`` (empty when nothing): see the module doc. ``cheap``
    checks only slot order and bounds and the newest turn (what a proven policy gets
    outside strict mode)."""
    if cheap and _one_run_to_the_end(log, window):
        return []
    runs, synthetic, problems = _runs(log, window)
    if problems:
        return problems
    if cheap:
        return _newest_turn_dropped(log, window, runs)
    if synthetic and not invariants.synthetic:
        problems.append(f"it injects {len(synthetic)} synthetic item(s), which its strategy "
                        "does not declare")
    if invariants.whole_turns:
        problems += _split_turns(log, runs, synthetic)
    if invariants.budget is not None:
        budget = invariants.budget(params)
        if budget is not None:
            used = sum(log.tokens_between(r.start, r.stop) for r in runs)
            used += sum(s.tokens for s in synthetic)
            if used > budget and not window.notes:
                problems.append(f"it holds {used} tokens, over its max_tokens budget of "
                                f"{budget}, and no note says why")
    problems += _newest_turn_dropped(log, window, runs)
    return problems


def _one_run_to_the_end(log: LogView, window: Window) -> bool:
    """True for the commonest window: one run of raw items that ends with the log (in
    order and inside the log, and the newest turn shown whole: all the cheap check asks)."""
    runs = window.runs
    if runs is None or len(runs) != 1:
        return False
    run, slots, starts = runs[0], window.slots, log.turn_starts
    return (0 <= run.start < run.stop == len(log) and len(slots) == len(run)
            and slots[0] == run.start and slots[-1] == run.stop - 1
            and (not starts or run.start <= starts[-1]))


def _runs(log: LogView, window: Window) -> tuple[list[range], list[Synthetic], list[str]]:
    """The raw slots as ascending runs, the synthetic slots, and order problems."""
    plain = window.plain_runs()
    split = (plain, []) if plain is not None else window.split_runs()
    runs, synthetic, problem = _loose_runs(window) if split is None else (*split, None)
    if problem is None:
        for before, run in pairwise(runs):
            if run.start < before.stop or not run:
                problem = (f"raw items {run.start}-{run.stop - 1} after "
                           f"{before.start}-{before.stop - 1}")
                break
    if problem is not None:
        return [], [], [f"its raw slots are not in ascending order, each once ({problem})"]
    if runs and (runs[0].start < 0 or runs[-1].stop > len(log)):
        return [], [], [f"it names raw items outside the log (0..{len(log) - 1})"]
    return runs, synthetic, []


def _loose_runs(window: Window) -> tuple[list[range], list[Synthetic], str | None]:
    """The runs of a window whose slots were not all added as ranges, read slot by slot
    (with what is out of order, if anything)."""
    raw = [s for s in window.slots if type(s) is int]
    synthetic = [s for s in window.slots if isinstance(s, Synthetic)]
    if len(raw) + len(synthetic) != len(window.slots):
        return [], [], "slots that are neither raw indices nor synthetic items"
    runs: list[range] = []
    if raw:
        start = previous = raw[0]
        for slot in raw[1:]:
            if slot != previous + 1:
                if slot <= previous:
                    return [], [], f"slot {slot} after {previous}"
                runs.append(range(start, previous + 1))
                start = slot
            previous = slot
        runs.append(range(start, previous + 1))
    return runs, synthetic, None


def _split_turns(log: LogView, runs: list[range], synthetic: list[Synthetic]) -> list[str]:
    starts = log.turn_starts
    n, count = len(log), len(starts)
    covers_end = {s.covers[1] for s in synthetic if s.covers is not None} if synthetic else ()
    problems = []
    for run in runs:
        for edge in (run.start, run.stop):
            if edge == 0 or edge == n or edge in covers_end:
                continue
            k = bisect_left(starts, edge)  # the 1-based number of the turn `edge` is in
            if k < count and starts[k] == edge:
                continue
            part = "the preamble" if k == 0 else f"turn {k}"
            where = "starts" if edge == run.start else "ends"
            problems.append(f"it {where} inside {part} at raw item {edge} (half a turn: a "
                            "turn must be shown whole or not at all)")
    return problems


def _newest_turn_dropped(log: LogView, window: Window, runs: list[range]) -> list[str]:
    starts = log.turn_starts
    if not starts:
        return []
    newest, n = starts[-1], len(log)
    if runs and runs[-1].start <= newest and runs[-1].stop == n:
        return []
    shown = {i for r in runs for i in r if i >= newest}
    for index in range(newest, n):
        if index not in shown and window.excluded(index)[0] == DROPPED:
            return [f"it drops raw item {index} of the newest turn ({len(starts)})"]
    return []
