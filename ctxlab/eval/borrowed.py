"""Whether lesson 02b's answer is ctxlab's session in disguise.

The exercise is to write a session by hand. ctxlab's ``TrimmingSession`` passes every
scenario of the check, so the check first looks for it (or any of ctxlab's sessions)
wherever an answer can hide it: the class itself or a subclass; an instance returned by a
factory (a lambda, a plain function); an attribute of the instance (or a list or dict in
one); and what the answer's code reaches: the globals its methods name (a module-level dict
of sessions, a helper function), their closures and default arguments. Only values the code
names are read, so a notebook's other sessions never count against an answer.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator, Mapping
from typing import Any

from ..sessions.base import MemorySession

#: Modules whose code is not the learner's (it is never searched).
_NOT_THE_LEARNERS = ("ctxlab.", "agents.", "builtins", "typing", "collections", "asyncio")


def library_session(session_class: Any, instance: Any = None) -> str | None:
    """A sentence naming the ctxlab session behind ``session_class`` (itself, a base class,
    one it returns, or one held by ``instance`` or reached by its code), or None for a
    session written by hand."""
    name = _name(session_class)
    if isinstance(session_class, type) and issubclass(session_class, MemorySession):
        base = next(c.__name__ for c in session_class.__mro__ if c.__module__.startswith(
            "ctxlab."))
        return (f"{name} is ctxlab's {base}" if base == session_class.__name__
                else f"{name} is a subclass of ctxlab's {base}")
    if isinstance(instance, MemorySession):
        return f"{name} returns ctxlab's {type(instance).__name__}"
    held = held_session(instance)
    if held is not None:
        return (f"{type(instance).__name__} hands the work to a ctxlab "
                f"{type(held).__name__} it holds")
    for where, value in _reached(session_class, instance):
        found = _session_in(value)
        if found is not None:
            return f"{name} hands the work to ctxlab's {found} (through {where})"
    return None


def held_session(value: Any, depth: int = 0) -> MemorySession | None:
    """A ctxlab session inside ``value``'s attributes (or their lists and dicts)."""
    if isinstance(value, MemorySession) and depth:
        return value
    if depth > 2:
        return None
    if isinstance(value, Mapping):
        inner: list[Any] = list(value.values())
    elif isinstance(value, (list, tuple, set, frozenset)):
        inner = list(value)
    else:
        inner = list(getattr(value, "__dict__", {}).values())
    for child in inner:
        found = held_session(child, depth + 1)
        if found is not None:
            return found
    return None


def _session_in(value: Any) -> str | None:
    """The name of a ctxlab session class or instance ``value`` is or holds."""
    if isinstance(value, type) and issubclass(value, MemorySession):
        return value.__name__
    if isinstance(value, types.ModuleType):  # a module the code uses, not a hiding place
        return None
    found = held_session(value, 1)
    return type(found).__name__ if found is not None else None


def _name(session_class: Any) -> str:
    name = getattr(session_class, "__name__", type(session_class).__name__)
    return "the lambda" if name == "<lambda>" else name


def _reached(session_class: Any, instance: Any) -> Iterator[tuple[str, Any]]:
    """(where, value) for each value the answer's code names, through its functions."""
    functions: list[Any] = []
    for owner in {session_class, type(instance)}:
        if isinstance(owner, type):
            functions += [f for c in owner.__mro__ if _learners(c)
                          for f in map(_unwrap, vars(c).values()) if f is not None]
        elif callable(owner):
            functions.append(_unwrap(owner) or owner)
    seen: set[int] = set()
    while functions:
        function = functions.pop()
        if id(function) in seen or not isinstance(function, types.FunctionType):
            continue
        seen.add(id(function))
        for where, value in _named_by(function):
            yield where, value
            if isinstance(value, types.FunctionType) and _learners(value):
                functions.append(value)


def _named_by(function: types.FunctionType) -> Iterator[tuple[str, Any]]:
    """The globals ``function``'s code names, its closure's values and its defaults."""
    names: set[str] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    for name in sorted(names):
        if name in function.__globals__:
            yield f"the global {name}", function.__globals__[name]
    for var, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
        try:
            yield f"the variable {var}", cell.cell_contents
        except ValueError:  # an empty cell
            continue
    for value in (*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values()):
        yield "a default argument", value


def _unwrap(value: Any) -> Any:
    if isinstance(value, (staticmethod, classmethod)):
        return value.__func__
    if isinstance(value, property):
        return value.fget
    return value if isinstance(value, types.FunctionType) else None


def _learners(value: Any) -> bool:
    module = getattr(value, "__module__", "") or ""
    return not module.startswith(_NOT_THE_LEARNERS) and value is not object
