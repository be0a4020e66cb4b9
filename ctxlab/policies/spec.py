"""How a memory strategy describes itself: a :class:`StrategySpec` at the end of its policy file.

A strategy is one policy file, ``ctxlab/policies/<name>.py``, holding

* a frozen params dataclass (validated in ``__post_init__`` with :mod:`ctxlab.core.checks`),
* the policy, ``def <name>_window(log: LogView, params) -> Window`` (pure, see :mod:`.base`),
* ``SPEC = StrategySpec(...)``: everything else ctxlab needs to know about it, in one place:

  - ``name``/``syntax``/``help``/``parse``/``spell``/``label``/``read_label``: the spec word
    (``trim:8``) and how it is written, read back and labelled (evaluation, the CLI, plots);
  - ``hints`` (:class:`PropertyHints`): what the shared property suite draws;
  - ``invariants`` (:class:`Invariants`): what every window of it promises (whole turns, a
    token budget), checked on every view (:mod:`.invariants`);
  - ``plot`` (:class:`PlotHints`): the palette family and shade (:mod:`ctxlab.viz.palette`);
  - ``session_name``: the public class name of its session (``FirstLastSession``).

Registering the spec (:func:`ctxlab.sessions.strategies.register_strategy`, or one entry in
that module's ``BUILTIN`` tuple) makes the session class (a
:class:`~ctxlab.sessions.policy.PolicySession` built from the spec), the top-level export,
the spec syntax, the plot style and the property tests follow from it.

This module is pure data and small helpers: it imports nothing above the policies layer.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .base import LogView, Window

Params = Any
Policy = Callable[[LogView, Any], Window]


@dataclass(frozen=True)
class PropertyHints:
    """What the shared property suite (``tests/policies/test_every_strategy.py``) draws.

    ``ranges``: per parameter, the values drawn from (indexable: a ``range`` or a tuple);
    ``optional``: parameters also drawn as None (an optional token cap); ``options``: session
    constructor options that are not policy parameters, drawn too (``background``);
    ``summarizer``: the session takes a ``summarizer`` (the suite passes a recording one).
    """

    ranges: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    optional: tuple[str, ...] = ()
    options: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    summarizer: bool = False


@dataclass(frozen=True)
class Invariants:
    """What every window of a strategy promises, whatever the log (checked on every view).

    ``whole_turns``: every turn is in the window whole or not at all (a window may also
    start where a synthetic item's ``covers`` ends: the rest of a turn a fold ended in);
    ``budget(params)``: the token budget the parameters declare (None: no budget); a
    window over it must carry a note saying why (the newest turn alone is over it);
    ``synthetic``: the policy may inject synthetic items (a summary pair).
    The newest turn is never dropped (kept, folded into a summary, or pending): that holds
    for every strategy.
    """

    whole_turns: bool = True
    budget: Callable[[Params], int | None] | None = None
    synthetic: bool = False


@dataclass(frozen=True)
class PlotHints:
    """How plots draw the strategy (:func:`ctxlab.viz.palette.strategy_style`).

    ``family``: the hue (a key of :data:`ctxlab.viz.palette.STRATEGY_FAMILIES`: a new
    strategy picks the family it resembles); ``size(params)``: how much it keeps, 0.0
    (least) to 1.0 (everything), for the shade; ``marks(params)``: marker modifiers such as
    ``("cap",)`` (a token cap) or ``("step",)``; ``step(params)``: a cache-friendly step.
    """

    family: str = "other"
    size: Callable[[Params], float] | None = None
    marks: Callable[[Params], tuple[str, ...]] | None = None
    step: Callable[[Params], int] | None = None


@dataclass(frozen=True)
class StrategySpec:
    """A named memory strategy: its parameters, policy, spec syntax, hints and session.

    ``parse(arg)`` turns the text after ``name:`` into the params dataclass's keyword
    arguments (raising ValueError naming what is wrong); without one, the default parser of
    the params dataclass is used (:func:`default_parser`: its whole-number fields in order,
    separated by ``/``, token fields also as a share of a model window, ``60%/16k``);
    ``spell(kwargs)`` writes the canonical spec back and ``label(kwargs)`` a short human
    label, which ``read_label`` reads back (plots draw a label and its spec alike).
    ``session`` is set by the registry (:mod:`ctxlab.sessions.strategies`); ``policy`` is
    None only for a strategy whose session computes its window itself (summarizing: it also
    needs its summary).
    """

    name: str
    syntax: str
    help: str
    parse: Callable[[str | None], dict[str, Any]] = None  # type: ignore[assignment]
    params_type: type | None = None
    policy: Policy | None = None
    session_name: str = ""
    hints: PropertyHints = field(default_factory=PropertyHints)
    invariants: Invariants = field(default_factory=Invariants)
    plot: PlotHints = field(default_factory=PlotHints)
    label: Callable[[dict[str, Any]], str] | None = None
    spell: Callable[[dict[str, Any]], str] | None = None
    read_label: Callable[[str], dict[str, Any] | None] | None = None
    session: Any = None
    #: ``tail_read(params)`` is True when the window depends only on the first and the
    #: newest whole turns, not on how many turns lie between: a session's first read may
    #: then load the log's two ends only (:mod:`ctxlab.sessions.first_read`). None: always
    #: load everything (the safe default for a new strategy).
    tail_read: Callable[[Any], bool] | None = None

    def __post_init__(self) -> None:
        if self.parse is None:
            if self.params_type is None:
                raise ValueError(f"strategy {self.name!r} needs a parse function or a "
                                 "params_type to build the default parser from")
            object.__setattr__(self, "parse", default_parser(self.name, self.params_type))

    def from_spec(self, text: str) -> Params:
        """The params dataclass a spec part names: ``"trim:8"`` -> ``TrimParams(8)`` (a
        ValueError names what is wrong)."""
        if not isinstance(text, str):
            raise ValueError(f"a strategy spec is a string like {self.syntax!r}, got "
                             f"{type(text).__name__}")
        word, colon, arg = text.strip().partition(":")
        if word.strip() != self.name:
            raise ValueError(f"spec {text!r} is not one of strategy {self.name!r} (expected "
                             f"{self.syntax!r})")
        return self.make_params(self.parse(arg if colon else None))

    @property
    def params(self) -> Mapping[str, Sequence[Any]]:
        """The property suite's parameter ranges (``hints.ranges``)."""
        return self.hints.ranges

    def make(self, session_id: str | None = None, **kwargs: Any) -> Any:
        """A new session of this strategy (the spec must be registered)."""
        if self.session is None:
            raise ValueError(f"strategy {self.name!r} has no session: register it first "
                             "(ctxlab.sessions.register_strategy)")
        return self.session(session_id=session_id, **kwargs)

    def make_params(self, kwargs: Mapping[str, Any]) -> Params:
        """The params dataclass for ``kwargs`` (what :attr:`parse` returned)."""
        if self.params_type is None:
            raise ValueError(f"strategy {self.name!r} declares no params_type")
        names = {f.name for f in dataclasses.fields(self.params_type)}
        unknown = sorted(set(kwargs) - names)
        if unknown:
            raise ValueError(f"strategy {self.name!r} has no parameter {', '.join(unknown)}; "
                             f"it has: {', '.join(sorted(names))}")
        return self.params_type(**kwargs)

    def canonical(self, kwargs: Mapping[str, Any]) -> str:
        """The canonical spec of ``kwargs`` (what results are named by)."""
        if self.spell is not None:
            return self.spell(dict(kwargs))
        values = [str(v) for v in kwargs.values() if v is not None]
        return f"{self.name}:{'/'.join(values)}" if values else self.name

    def title(self, kwargs: Mapping[str, Any]) -> str:
        """A short human label (``"trim 8"``)."""
        if self.label is not None:
            return self.label(dict(kwargs))
        return self.canonical(kwargs).replace(":", " ", 1)

    def read(self, text: str) -> dict[str, Any] | None:
        """The keyword arguments of a spec part (``trim:8``) or a label (``trim 8``) of this
        strategy, or None when ``text`` is neither."""
        word, colon, arg = text.partition(":")
        if colon and word.strip() == self.name:
            try:
                return self.parse(arg)
            except ValueError:
                return None
        if self.read_label is not None:
            return self.read_label(text)
        word, space, arg = text.partition(" ")
        if word == self.name:
            try:
                return self.parse(arg.replace(" ", "") if space else None)
            except ValueError:
                return None
        return None


# ---------------------------------------------------------------- helpers for parsers


def whole_number(spec: str, text: str | None, what: str, minimum: int = 1) -> int:
    """``text`` as a whole number >= ``minimum``, or a ValueError naming the spec part."""
    if text is None or not re.fullmatch(r"\s*\d+\s*", text):
        raise ValueError(f"strategy part {spec!r}: {what} must be a whole number >= "
                         f"{minimum}, got {text!r}")
    value = int(text)
    if value < minimum:
        raise ValueError(f"strategy part {spec!r}: {what} must be >= {minimum}, got {value}")
    return value


_WINDOW = re.compile(r"\s*(\d+)\s*([kK]?)\s*")
_SHARE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*/\s*(.*)")


def window_tokens(spec: str, text: str) -> int:
    """A model window: ``16k`` = 16,384 tokens (as local servers count a context), or a plain
    number of tokens; a ValueError names the spec part otherwise."""
    match = _WINDOW.fullmatch(text)
    if match is None or int(match[1]) < 1:
        raise ValueError(f"strategy part {spec!r}: the window W must be a whole number of "
                         f"tokens >= 1 or like 16k (16,384), got {text!r}")
    return int(match[1]) * (1024 if match[2] else 1)


def token_budget(spec: str, text: str | None, what: str) -> int:
    """A token budget: ``T`` tokens, or ``P%/W``, P percent (0 < P <= 100) of a W-token
    model window (``60%/16k`` = 9,830 tokens); a ValueError names the spec part."""
    if text is None or "%" not in text:
        try:
            return whole_number(spec, text, what)
        except ValueError as exc:
            raise ValueError(f"{exc} (or P%/W: P percent of a W-token model window, like "
                             "60%/16k)") from None
    match = _SHARE.fullmatch(text)
    if match is None:
        raise ValueError(f"strategy part {spec!r}: {what} as a share of a model window "
                         f"reads P%/W (like 60%/16k), got {text!r}")
    percent = float(match[1])
    if not 0 < percent <= 100:
        raise ValueError(f"strategy part {spec!r}: P must be a percentage in (0, 100], "
                         f"got {match[1]}")
    return max(1, int(percent / 100 * window_tokens(spec, match[2])))


def _int_field(f: dataclasses.Field[Any]) -> bool:
    return f.type in (int, "int", "int | None", "Optional[int]")


def default_parser(name: str, params_type: type, labels: Mapping[str, str] | None = None
                   ) -> Callable[[str | None], dict[str, Any]]:
    """The spec parser of a params dataclass: its whole-number fields in order, separated by
    ``/`` (``firstlast:1/4``; fewer values keep the later fields' defaults: ``firstlast:3``),
    a field whose name mentions tokens also as a share of a model window
    (``tokentail:60%/16k``). ``labels`` names fields in errors (default: the field name)."""
    numeric = [f for f in dataclasses.fields(params_type) if _int_field(f)]
    if not numeric:
        raise ValueError(f"strategy {name!r}: {params_type.__name__} has no integer fields "
                         "for a default spec parser; pass parse=...")
    labels = dict(labels or {})
    names = "/".join(labels.get(f.name, f.name) for f in numeric)

    def parse(arg: str | None) -> dict[str, Any]:
        spec = f"{name}:{arg}" if arg is not None else name
        parts = _values(arg)
        if not parts:
            raise ValueError(f"strategy part {spec!r}: expected {name}:{names} (at least "
                             f"the first value)")
        if len(parts) > len(numeric):
            raise ValueError(f"strategy part {spec!r}: {name} takes at most {len(numeric)} "
                             f"value(s), {names}; got {len(parts)}")
        out: dict[str, Any] = {}
        for f in numeric:
            label = labels.get(f.name, f.name)
            if parts:
                text = parts.pop(0)
                out[f.name] = (token_budget(spec, text, label) if "tokens" in f.name
                               else whole_number(spec, text, label))
            elif f.default is not dataclasses.MISSING and f.default is not None:
                out[f.name] = f.default
        return out

    parse.__doc__ = f"``{names}`` -> the fields of {params_type.__name__} (default parser)."
    return parse


def _values(arg: str | None) -> list[str]:
    """``arg`` split at ``/``, a share ``P%/W`` kept whole."""
    if arg is None or not arg.strip():
        return []
    parts: list[str] = []
    for piece in arg.split("/"):
        if parts and parts[-1].rstrip().endswith("%"):
            parts[-1] += "/" + piece
        else:
            parts.append(piece)
    return parts


def two_numbers(name: str, arg: str | None, first: str, second: str,
                minimum: int = 1) -> tuple[int, int]:
    """``A/B`` as two whole numbers (``first`` >= ``minimum``, ``second`` >= 1)."""
    spec = f"{name}:{arg}"
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", arg or "")
    if match is None:
        raise ValueError(f"strategy part {spec!r}: expected {name}:{first}/{second}")
    return (whole_number(spec, match.group(1), first, minimum),
            whole_number(spec, match.group(2), second))


def log_scale(value: float, low: float, high: float) -> float:
    """``value`` on a log scale from ``low`` (0.0) to ``high`` (1.0), clamped (for
    :attr:`PlotHints.size`)."""
    if value <= low:
        return 0.0
    return min(1.0, math.log(value / low) / math.log(high / low))
