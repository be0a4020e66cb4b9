"""Argument checks shared by every constructor: one wording for every error.

Each function returns the checked value, or raises a ValueError that names the argument,
what it must be and what it got.
"""

from __future__ import annotations

import re
from collections.abc import Container
from typing import Any


def check_int(name: str, value: Any, *, minimum: int = 1) -> int:
    """``value`` as an int >= ``minimum`` (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def check_optional_int(name: str, value: Any, *, minimum: int = 1) -> int | None:
    """None, or an int >= ``minimum``."""
    return None if value is None else check_int(name, value, minimum=minimum)


def check_seconds(name: str, value: Any, *, allow_none: bool = True) -> float | None:
    """A positive number of seconds (None allowed unless ``allow_none`` is False)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        allowed = "None or " if allow_none else ""
        raise ValueError(f"{name} must be {allowed}a number of seconds > 0, got {value!r}")
    return float(value)



def check_range(name: str, value: Any, *, low: float, high: float | None = None,
                low_open: bool = False) -> float:
    """A finite number from ``low`` (excluded when ``low_open``) to ``high`` (None: no upper
    bound)."""
    import math

    ok = (not isinstance(value, bool) and isinstance(value, (int, float))
          and math.isfinite(value) and (value > low if low_open else value >= low)
          and (high is None or value <= high))
    if not ok:
        lower = f"> {low:g}" if low_open else f">= {low:g}"
        upper = "" if high is None else f" and <= {high:g}"
        raise ValueError(f"{name} must be a number {lower}{upper}, got {value!r}")
    return float(value)


def check_registration(value: Any, kind: type, *, noun: str, name: str,
                       taken: Container[str], replace: bool,
                       name_label: str | None = None) -> None:
    """The checks of a ``register_*`` call: ``value`` is a ``kind``; ``name`` is a lowercase
    word (when ``name_label`` names it in the message, e.g. ``"strategy name"``); no other
    ``noun`` is registered under ``name`` unless ``replace``."""
    if not isinstance(value, kind):
        raise ValueError(f"expected a {kind.__name__}, got {type(value).__name__}")
    if name_label is not None and not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"{name_label} {name!r} must be a lowercase word")
    if name in taken and not replace:
        raise ValueError(f"a {noun} named {name!r} is already registered; "
                         "pass replace=True to override it")
