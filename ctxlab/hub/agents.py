"""Connect Agents SDK agents to a :class:`~ctxlab.hub.MemoryHub`.

* :func:`hub_input_filter`: a ``RunConfig(call_model_input_filter=...)`` that puts the run's
  user's shared state in front of the model input, read fresh before every model call, so
  the sales agent sees what support recorded a minute ago. What one agent recorded quotes
  the customer and tools, so it travels as a memory block (a user message under the memory
  heading, its instruction-like lines flagged: :func:`~ctxlab.context.sources.context_message`),
  never in an agent's instructions;
* :func:`hub_instructions`: dynamic instructions (``Agent(instructions=...)``): the agent's
  own, plus the operator's :data:`~ctxlab.core.memory_frame.MEMORY_NOTICE` once the user
  has a shared state (the state itself is never put there);
* :func:`record_run`: after ``Runner.run``, extract what the turn established (the offline
  :class:`~ctxlab.RuleBasedStateExtractor` by default) and merge it into the user's shared
  state with compare-and-swap, marked with the agent's name.

The user comes from the run context (:class:`~ctxlab.records.users.UserContext`), never
from the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..context.sources import context_message
from ..core.memory_frame import with_memory_notice
from ..facts.instructions import flag_line
from ..facts.language import language_of
from ..memory.extract import RuleBasedStateExtractor
from ..memory.render import render_state
from ..memory.state_memory import StateExtractor
from ..records.users import user_id_of
from .hub import HubSnapshot, MemoryHub


def hub_instructions(hub: MemoryHub, base: str, *, heading: str = "") -> Any:
    """Dynamic instructions: ``base``, plus the memory notice once the user has a shared
    state (which :func:`hub_input_filter` shows, as data). ``heading`` is accepted for the
    callers of earlier releases and no longer used: the state is never put in the
    instructions, and the memory block's first line names its version and writers."""
    if not isinstance(heading, str):
        raise TypeError(f"heading must be a str, got {type(heading).__name__}")
    if not isinstance(hub, MemoryHub):
        raise TypeError(f"hub must be a MemoryHub, got {type(hub).__name__}")
    if not isinstance(base, str):
        raise TypeError(f"base must be the agent's instructions (a str), got {type(base).__name__}")

    async def instructions(context: Any, agent: Any) -> str:
        snapshot = await hub.read(user_id_of(context))
        if snapshot.state.is_empty():
            return base
        return with_memory_notice(base, language_of(render_state(snapshot.state)))

    return instructions


_SOURCE = {"en": "shared state, version {v}, recorded by {who}",
           "zh": "共享状态（第 {v} 版），记录者：{who}"}


async def hub_message(hub: MemoryHub, user_id: str) -> dict[str, Any] | None:
    """The user's shared state as a memory block (None while it is empty), attributed to
    the agents that wrote it."""
    snapshot = await hub.read(user_id)
    if snapshot.state.is_empty():
        return None
    text = render_state(snapshot.state, width=None)  # one line per entry, as a model reads
    language = language_of(text)
    if snapshot.flagged:  # flagged when written: flagged when shown, whatever the detector
        text = "\n".join(flag_line(line, language, flagged=any(
            entry in line for entry in snapshot.flagged)) for line in text.split("\n"))
    who = ", ".join(dict.fromkeys(agent for agent, _ in snapshot.writers)) or "-"
    source = _SOURCE.get(language, _SOURCE["en"]).format(v=snapshot.version, who=who)
    return context_message(text, source=source, language=language)


def hub_input_filter(hub: MemoryHub) -> Any:
    """A ``call_model_input_filter`` that puts the run's user's shared state (a memory
    block) first and the memory notice in the instructions."""
    if not isinstance(hub, MemoryHub):
        raise TypeError(f"hub must be a MemoryHub, got {type(hub).__name__}")

    async def inject(data: Any) -> Any:
        from agents.run_config import ModelInputData

        model_data = data.model_data
        message = await hub_message(hub, user_id_of(data.context))
        if message is None:
            return model_data
        language = language_of(str(message["content"]))
        return ModelInputData(input=[message, *model_data.input],
                              instructions=with_memory_notice(model_data.instructions, language))

    return inject


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
