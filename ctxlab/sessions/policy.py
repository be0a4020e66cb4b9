"""PolicySession: a session whose view is its strategy's policy, built from the spec alone.

A strategy registered with :func:`ctxlab.sessions.strategies.register_strategy` gets its
session class from here: ``type(spec.session_name, (PolicySession,), {"strategy": spec})``.
The class takes the params dataclass's fields as keyword arguments (the first ones also
positionally, after ``session_id``), or a ready ``params=`` object; everything else is
:class:`~ctxlab.sessions.base.MemorySession`'s. Nothing about the parameters is written
twice: :meth:`branch` passes ``params`` on whole, ``repr`` and :meth:`set_params` read the
dataclass.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from agents.memory import SessionSettings

from ..core.tokens import TokenCounter
from ..policies.base import Window
from ..policies.spec import StrategySpec
from .base import MemorySession, StoreArg


def make_params(spec: StrategySpec, owner: str, values: tuple[Any, ...],
                fields: dict[str, Any], params: Any = None) -> Any:
    """The params dataclass of ``spec`` from positional ``values`` (its fields in order),
    keyword ``fields``, or a ready ``params`` object; errors name ``owner`` and the field."""
    kind = spec.params_type
    assert kind is not None, f"strategy {spec.name!r} declares no params_type"
    names = [f.name for f in dataclasses.fields(kind)]
    if params is not None:
        if values or fields:
            raise TypeError(f"{owner}: pass params=... or its fields "
                            f"({', '.join(names)}), not both")
        if not isinstance(params, kind):
            raise ValueError(f"{owner}: params must be a {kind.__name__}, got "
                             f"{type(params).__name__}")
        return params
    if len(values) > len(names):
        raise TypeError(f"{owner} takes at most {len(names)} positional parameters after "
                        f"session_id ({', '.join(names)}), got {len(values)}")
    given = dict(zip(names, values, strict=False))
    twice = sorted(set(given) & set(fields))
    unknown = sorted(set(fields) - set(names))
    if twice:
        raise TypeError(f"{owner} got multiple values for {', '.join(twice)}")
    if unknown:
        raise TypeError(f"{owner} got an unexpected keyword argument {unknown[0]!r}; its "
                        f"parameters are {', '.join(names)} (and store, redactor, "
                        "session_settings, token_counter)")
    return kind(**given, **fields)


class PolicySession(MemorySession):
    """A memory session whose window is ``strategy.policy(log, params)``.

    Subclasses are made from a registered :class:`~ctxlab.policies.spec.StrategySpec`
    (``ctxlab.FirstLastSession``, ``ctxlab.TokenTailSession``, ...); their constructor
    takes the strategy's parameters (``help(type(session).strategy.params_type)``) and the
    keyword arguments of :class:`~ctxlab.sessions.base.MemorySession`.
    """

    strategy: ClassVar[StrategySpec]

    def __init__(
        self,
        session_id: str | None = None,
        *values: Any,
        params: Any = None,
        store: StoreArg = None,
        session_settings: SessionSettings | None = None,
        token_counter: TokenCounter | None = None,
        redactor: Any = None,
        **fields: Any,
    ):
        self.params = make_params(self.strategy, type(self).__name__, values, fields, params)
        super().__init__(session_id, store=store, session_settings=session_settings,
                         token_counter=token_counter, redactor=redactor)

    def set_params(self, **changes: Any) -> None:
        """Change parameters from the next read on (validated before anything changes;
        nothing stored is lost, so a change can be undone)."""
        self.params = dataclasses.replace(self.params, **changes)
        self._changed()

    def _window(self) -> Window:
        policy = self.strategy.policy
        assert policy is not None, f"strategy {self.strategy.name!r} has no policy"
        return policy(self._log, self.params)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self.params, f.name)!r}"
                          for f in dataclasses.fields(self.params)
                          if getattr(self.params, f.name) != f.default)
        return (f"{type(self).__name__}(session_id={self.session_id!r}"
                f"{', ' + shown if shown else ''}, items={len(self._log)}, "
                f"turns={self._log.turn_count}{self._store_note()})")


def policy_session_class(spec: StrategySpec) -> type[PolicySession]:
    """The session class of a strategy that has no hand-written one."""
    if spec.policy is None or spec.params_type is None:
        raise ValueError(f"strategy {spec.name!r} needs a policy and a params_type, or a "
                         "session class of its own (register_strategy(spec, session=...))")
    name = spec.session_name or f"{spec.name.title().replace('_', '')}Session"
    doc = (f"{spec.help}\n\nParameters (:class:`{spec.params_type.__module__}."
           f"{spec.params_type.__qualname__}`): "
           f"{', '.join(f.name for f in dataclasses.fields(spec.params_type))}; the other "
           "keyword arguments are those of :class:`ctxlab.MemorySession`. Spec: "
           f"``{spec.syntax}``.")
    return type(name, (PolicySession,), {"strategy": spec, "__doc__": doc,
                                         "__module__": "ctxlab.sessions", "__qualname__": name})
