"""The memory strategies ctxlab knows, by name: one registry that evaluation (the
``trim:8`` spec syntax, ``python -m ctxlab strategies``) and the shared property tests read.

Registering a strategy::

    register_strategy(StrategySpec(
        name="firstlast", syntax="firstlast:F/N",
        help="FirstLastSession: pin the first F turns and keep the last N",
        parse=lambda arg: {"first_turns": ..., "last_turns": ...},
        session=FirstLastSession,
        params={"first_turns": range(1, 4), "last_turns": range(1, 6)},
    ))

``parse(arg)`` turns the text after ``name:`` into constructor keyword arguments (raising
ValueError naming what is wrong); ``params`` gives the ranges the property tests draw from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .first_last import FirstLastSession
from .summarizing import SummarizingSession
from .trimming import TrimmingSession


@dataclass(frozen=True)
class StrategySpec:
    """A named memory strategy: how its spec is written and which session implements it."""

    name: str
    syntax: str
    help: str
    parse: Callable[[str | None], dict[str, Any]]
    session: Callable[..., Any]
    params: Mapping[str, range] = field(default_factory=dict)
    label: Callable[[dict[str, Any]], str] | None = None
    spell: Callable[[dict[str, Any]], str] | None = None

    def make(self, session_id: str | None = None, **kwargs: Any) -> Any:
        """A new session of this strategy."""
        return self.session(session_id=session_id, **kwargs)

    def canonical(self, kwargs: Mapping[str, Any]) -> str:
        """The canonical spec of ``kwargs`` (what results are named by)."""
        if self.spell is not None:
            return self.spell(dict(kwargs))
        values = [str(v) for v in kwargs.values() if v is not None]
        return f"{self.name}:{'/'.join(values)}" if values else self.name

    def title(self, kwargs: dict[str, Any]) -> str:
        """A short human label (``"trim 8"``)."""
        if self.label is not None:
            return self.label(kwargs)
        return self.canonical(kwargs).replace(":", " ")


_STRATEGIES: dict[str, StrategySpec] = {}


def register_strategy(spec: StrategySpec, *, replace: bool = False) -> None:
    """Make a strategy available by name (to evaluation, the CLI and the property tests)."""
    if not isinstance(spec, StrategySpec):
        raise ValueError(f"expected a StrategySpec, got {type(spec).__name__}")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", spec.name):
        raise ValueError(f"strategy name {spec.name!r} must be a lowercase word")
    if spec.name in _STRATEGIES and not replace:
        raise ValueError(f"a strategy named {spec.name!r} is already registered; "
                         "pass replace=True to override it")
    _STRATEGIES[spec.name] = spec


def strategies() -> list[StrategySpec]:
    """Every registered strategy, in registration order."""
    return list(_STRATEGIES.values())


def get_strategy(name: str) -> StrategySpec:
    try:
        return _STRATEGIES[name]
    except KeyError:
        known = ", ".join(_STRATEGIES)
        raise ValueError(f"unknown strategy {name!r}; known: {known}") from None


def whole_number(spec: str, text: str | None, what: str, minimum: int = 1) -> int:
    """``text`` as a whole number >= ``minimum``, or a ValueError naming the spec part."""
    if text is None or not re.fullmatch(r"\s*\d+\s*", text):
        raise ValueError(f"strategy part {spec!r}: {what} must be a whole number >= "
                         f"{minimum}, got {text!r}")
    value = int(text)
    if value < minimum:
        raise ValueError(f"strategy part {spec!r}: {what} must be >= {minimum}, got {value}")
    return value


def _two(name: str, arg: str | None, first: str, second: str,
         minimum: int = 1) -> tuple[int, int]:
    spec = f"{name}:{arg}"
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", arg or "")
    if match is None:
        raise ValueError(f"strategy part {spec!r}: expected {name}:{first}/{second}")
    return (whole_number(spec, match.group(1), first, minimum),
            whole_number(spec, match.group(2), second))


def _parse_trim(arg: str | None) -> dict[str, Any]:
    if arg is None:
        raise ValueError("strategy part 'trim' needs a turn count: trim:N, trim:N@TOKENS or "
                         "trim:N/STEP")
    head, at, tokens_text = arg.partition("@")
    turns_text, slash, step_text = head.partition("/")
    spec = f"trim:{arg}"
    out: dict[str, Any] = {"max_turns": whole_number(spec, turns_text, "N (turns)"),
                           "max_tokens": whole_number(spec, tokens_text, "TOKENS") if at else None}
    if slash:
        out["step"] = whole_number(spec, step_text, "STEP")
    return out


def _parse_summarize(arg: str | None) -> dict[str, Any]:
    keep, limit = _two("summarize", arg, "K", "L", minimum=0)
    if keep > limit:
        raise ValueError(f"strategy part 'summarize:{arg}': need 0 <= K <= L and L >= 1 "
                         f"(got K={keep}, L={limit})")
    return {"keep_last_n_turns": keep, "context_limit": limit}


def _parse_first_last(arg: str | None) -> dict[str, Any]:
    first, last = _two("firstlast", arg, "F", "N")
    return {"first_turns": first, "last_turns": last}


def _trim_label(kw: dict[str, Any]) -> str:
    step = f" step {kw['step']}" if kw.get("step", 1) > 1 else ""
    return (f"trim {kw['max_turns']}{step}"
            + (f" ≤{kw['max_tokens']} tok" if kw["max_tokens"] else ""))


for _spec in (
    StrategySpec("trim", "trim:N[/S][@T]",
                 "TrimmingSession: the last N user turns (dropped S at a time for the prompt "
                 "cache; at most T tokens)",
                 _parse_trim, TrimmingSession,
                 {"max_turns": range(1, 7), "max_tokens": range(60, 2000), "step": range(1, 4)},
                 _trim_label,
                 lambda kw: f"trim:{kw['max_turns']}"
                 + (f"/{kw['step']}" if kw.get("step", 1) > 1 else "")
                 + (f"@{kw['max_tokens']}" if kw["max_tokens"] else "")),
    StrategySpec("summarize", "summarize:K/L",
                 "SummarizingSession: past L turns fold all but the last K into a summary",
                 _parse_summarize, SummarizingSession,
                 {"keep_last_n_turns": range(0, 4), "context_limit": range(1, 5)},
                 lambda kw: f"summarize {kw['keep_last_n_turns']}/{kw['context_limit']}"),
    StrategySpec("firstlast", "firstlast:F/N",
                 "FirstLastSession: pin the first F turns and keep the last N",
                 _parse_first_last, FirstLastSession,
                 {"first_turns": range(1, 4), "last_turns": range(1, 6)},
                 lambda kw: f"first {kw['first_turns']} + last {kw['last_turns']}"),
):
    register_strategy(_spec)
