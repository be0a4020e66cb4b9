"""The memory strategies ctxlab knows, by name: the one registry that sessions, evaluation
(the ``trim:8`` spec syntax, ``python -m ctxlab strategies``), plots and the shared property
tests read.

A strategy is a policy file that ends with its :class:`~ctxlab.policies.spec.StrategySpec`
(``ctxlab/policies/token_tail.py`` is a complete one), plus its registration: one entry in
:data:`BUILTIN` below, or, from your own package::

    from ctxlab.sessions import register_strategy
    register_strategy(my_policy.SPEC)

Registering makes the session class (a :class:`~ctxlab.sessions.policy.PolicySession`
built from the spec, named ``spec.session_name``), exported from ``ctxlab`` and
``ctxlab.sessions`` under that name. A strategy whose session needs more than its policy
(trimming's setters, summarizing's fold engine) passes its own class: ``session=``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..core.checks import check_registration
from ..policies import first_last, summarize, token_tail, trim
from ..policies.invariants import mark_proven
from ..policies.spec import StrategySpec, whole_number
from .base import MemorySession
from .policy import PolicySession, policy_session_class
from .summarizing import SummarizingSession
from .trimming import TrimmingSession

__all__ = ["StrategySpec", "get_strategy", "params_from_spec", "read_strategy",
           "register_strategy", "session_classes", "strategies", "unregister_strategy",
           "whole_number"]

_STRATEGIES: dict[str, StrategySpec] = {}


def register_strategy(spec: StrategySpec, *, session: Any = None,
                      replace: bool = False) -> StrategySpec:
    """Make a strategy available by name (to sessions, evaluation, the CLI, plots and the
    property tests); returns the registered spec, whose ``session`` is its session class:
    ``session`` if given, else one built from the spec's policy."""
    check_registration(spec, StrategySpec, noun="strategy", name=getattr(spec, "name", ""),
                       taken=_STRATEGIES, replace=replace, name_label="strategy name")
    cls = session or spec.session or policy_session_class(spec)
    if not callable(cls):
        raise ValueError(f"strategy {spec.name!r}: session must be a class, got {cls!r}")
    registered = dataclasses.replace(spec, session=cls,
                                     session_name=spec.session_name or cls.__name__)
    if isinstance(cls, type) and issubclass(cls, MemorySession):
        cls.strategy = registered  # type: ignore[attr-defined]
    _STRATEGIES[spec.name] = registered
    return registered


def unregister_strategy(name: str) -> StrategySpec:
    """Remove a registered strategy (a plugin's, a test's); returns its spec."""
    spec = get_strategy(name)
    del _STRATEGIES[name]
    return spec


def strategies() -> list[StrategySpec]:
    """Every registered strategy, in registration order."""
    return list(_STRATEGIES.values())


def get_strategy(name: str) -> StrategySpec:
    try:
        return _STRATEGIES[name]
    except KeyError:
        known = ", ".join(_STRATEGIES)
        raise ValueError(f"unknown strategy {name!r}; known: {known}") from None


def read_strategy(text: str) -> tuple[StrategySpec, dict[str, Any]] | None:
    """The registered strategy and keyword arguments a spec part (``trim:8``) or a label
    (``trim 8``, ``first 1 + last 4``) names, or None (lower-case, single-spaced text)."""
    for spec in _STRATEGIES.values():
        found = spec.read(text)
        if found is not None:
            return spec, found
    return None


def params_from_spec(text: str) -> Any:
    """The params of a registered strategy's spec part: ``"trim:8"`` -> ``TrimParams(8)``,
    ``"tokentail:60%/16k"`` -> ``TokenTailParams(9830)`` (a ValueError names what is
    wrong: an unknown strategy, a bad value)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a strategy spec is a string like 'trim:8', got {text!r}")
    return get_strategy(text.strip().partition(":")[0].strip()).from_spec(text)


def session_classes() -> dict[str, type]:
    """Public name -> session class of every registered strategy (``TrimmingSession``,
    ``FirstLastSession``, ...): what ``ctxlab`` and ``ctxlab.sessions`` export."""
    return {spec.session_name: spec.session for spec in _STRATEGIES.values()
            if isinstance(spec.session, type) and spec.session_name}


#: The built-in strategies: (spec, hand-written session class or None).
BUILTIN: tuple[tuple[StrategySpec, Any], ...] = (
    (trim.SPEC, TrimmingSession),
    (summarize.SPEC, SummarizingSession),
    (first_last.SPEC, None),
    (token_tail.SPEC, None),
)
for _spec, _session in BUILTIN:
    register_strategy(_spec, session=_session)
# ctxlab's own policies: the strict property suite (tests/policies/test_every_strategy.py)
# holds them to the full invariant check; outside strict mode they get the cheap one.
mark_proven(trim.trim_window, first_last.first_last_window, token_tail.token_tail_window,
            PolicySession._window, TrimmingSession._window, SummarizingSession._window)
