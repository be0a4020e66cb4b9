"""Wire agents together by name, with one decision per route: what the receiver sees.

    team = connect(
        {"support": support, "repair": repair, "human": human_agent(queue)},
        {"support": ["repair", "human"], "repair": ["human"]},
        input_filter=IssueHandover(),
    )
    await Runner.run(team["support"], text, session=session)

:func:`connect` sets each agent's ``handoffs`` to SDK ``handoff(target, input_filter=...)``
objects. A route to an agent that does not exist raises :class:`UnknownAgentError` naming
it and the agents that do, before any agent is changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class UnknownAgentError(KeyError):
    """A route names an agent the team does not have."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def connect(agents: Mapping[str, Any], routes: Mapping[str, Sequence[str]], *,
            input_filter: Any = None,
            filters: Mapping[tuple[str, str], Any] | None = None) -> dict[str, Any]:
    """Give each agent in ``routes`` handoffs to the agents it lists (see the module doc).

    ``input_filter`` applies to every route; ``filters[(from, to)]`` overrides it for one.
    Returns ``agents`` as a dict (the same agent objects, their ``handoffs`` replaced).
    """
    from agents import Agent, handoff

    team = dict(agents)
    for name, agent in team.items():
        if not isinstance(agent, Agent):
            raise TypeError(f"agent {name!r} must be an agents.Agent, got {type(agent).__name__}")
    known = ", ".join(sorted(team)) or "none"
    for source, targets in routes.items():
        if source not in team:
            raise UnknownAgentError(f"route from {source!r}: no agent named {source!r} in the "
                                    f"team (agents: {known}); nothing was connected")
        if isinstance(targets, str):
            raise TypeError(f"routes[{source!r}] must be a list of agent names, got a str")
        for target in targets:
            if target not in team:
                raise UnknownAgentError(
                    f"route {source!r} -> {target!r}: no agent named {target!r} in the team "
                    f"(agents: {known}); nothing was connected")
            if target == source:
                raise ValueError(f"route {source!r} -> {target!r}: an agent cannot hand off to "
                                 "itself")
    overrides = dict(filters or {})
    for pair in overrides:
        if pair[0] not in routes or pair[1] not in routes[pair[0]]:
            raise UnknownAgentError(f"filters names route {pair[0]!r} -> {pair[1]!r}, which "
                                    "routes does not have; nothing was connected")
    for source, targets in routes.items():
        team[source].handoffs = [
            handoff(team[target], input_filter=overrides.get((source, target), input_filter))
            for target in targets]
    return team
