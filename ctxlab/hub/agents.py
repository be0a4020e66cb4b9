"""Connect Agents SDK agents to a :class:`~ctxlab.hub.MemoryHub`.

* :func:`hub_instructions`: dynamic instructions (``Agent(instructions=...)``) that append the
  run's user's shared state to an agent's own instructions, read fresh before every model
  call, so the sales agent sees what support recorded a minute ago;
* :func:`record_run`: after ``Runner.run``, extract what the turn established (the offline
  :class:`~ctxlab.RuleBasedStateExtractor` by default) and merge it into the user's shared
  state with compare-and-swap, marked with the agent's name.

The user comes from the run context (:class:`~ctxlab.records.users.UserContext`), never
from the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..memory.extract import RuleBasedStateExtractor
from ..memory.render import render_state
from ..memory.state_memory import StateExtractor
from ..records.users import user_id_of
from .hub import HubSnapshot, MemoryHub


def hub_instructions(hub: MemoryHub, base: str, *, heading: str = "") -> Any:
    """Dynamic instructions: ``base``, then the user's shared state when there is one."""
    if not isinstance(hub, MemoryHub):
        raise TypeError(f"hub must be a MemoryHub, got {type(hub).__name__}")
    if not isinstance(base, str):
        raise TypeError(f"base must be the agent's instructions (a str), got {type(base).__name__}")

    async def instructions(context: Any, agent: Any) -> str:
        snapshot = await hub.read(user_id_of(context))
        if snapshot.state.is_empty():
            return base
        shared = render_state(snapshot.state)
        label = heading or (f"Shared customer state (version {snapshot.version}, kept by "
                            "every agent that serves this customer):")
        return f"{base}\n\n{label}\n{shared}"

    return instructions


def run_items(result: Any) -> list[dict[str, Any]]:
    """The items one ``Runner.run`` added: the new input, then every generated item."""
    given = result.input
    items: list[dict[str, Any]] = ([{"role": "user", "content": given}]
                                   if isinstance(given, str) else [dict(i) for i in given])
    return items + [dict(item.to_input_item()) for item in result.new_items]


async def record_run(hub: MemoryHub, result: Any, *, agent: str,
                     extractor: StateExtractor | None = None,
                     user_id: str | None = None) -> HubSnapshot:
    """Merge what one run established into its user's shared state (see the module doc).

    ``user_id`` defaults to the run context's (``result.context_wrapper``).
    """
    user = user_id or user_id_of(result.context_wrapper)
    return await record_items(hub, user, _last_turn(run_items(result)), agent=agent,
                              extractor=extractor)


async def record_items(hub: MemoryHub, user_id: str, items: Sequence[dict[str, Any]], *,
                       agent: str, extractor: StateExtractor | None = None) -> HubSnapshot:
    """Merge what ``items`` (one turn) established into the user's shared state."""
    extractor = extractor or RuleBasedStateExtractor()
    snapshot = await hub.read(user_id)
    patch = await extractor.extract(list(items), state=snapshot.state.clone(),
                                    turn=snapshot.state.turn + 1)
    return await hub.apply(user_id, patch, agent=agent)


def _last_turn(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A run's input may carry earlier history (no session): keep its last user turn on."""
    starts = [n for n, item in enumerate(items) if item.get("role") == "user"]
    return items[starts[-1]:] if starts else items
