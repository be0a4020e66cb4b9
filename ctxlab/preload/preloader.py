"""Proactive preloading: fetch what the next tool call will need before the model asks.

When a customer writes "I want to return it", the agent will look up the order and the
return policy: two tool calls, so two extra model calls (one to ask for the tools, one to
answer from their results), each re-sending the whole context. A :class:`Preloader` reads
the new user message first, and when a :class:`PreloadRule` matches it runs those tools
itself (the agent's own ``FunctionTool`` s, with arguments taken from the conversation) and
puts their calls and outputs into the model input, as if the model had already made them:
the model answers in one call.

It is a ``RunConfig(call_model_input_filter=...)``: it acts on the first model call of a
turn only (when the input ends with the user's message), changes what that call is sent and
never what the session stores. A rule whose arguments are not in the conversation yet (no
order number) preloads nothing; a tool that raises preloads nothing (an SDK function tool
with its default error handling answers with an error message instead, which is preloaded
as the model's own call would have received it); neither breaks the run.
The counters (:attr:`Preloader.stats`) say how many turns were preloaded and how many tool
calls that made.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.error_text import cause_text
from ..core.items import is_user_message, item_text
from ..facts.typed import ALL_FACT_KINDS, find_facts, latest_fact

logger = logging.getLogger("ctxlab.preload")

Item = Mapping[str, Any]


@dataclass(frozen=True)
class Planned:
    """A tool call to preload: the tool's name and its JSON arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class PreloadRule:
    """When the new message ``matches``, preload the calls ``plan`` makes from the view.

    ``plan(items, text)`` returns the calls (an empty list when an argument is missing);
    :func:`fact_argument` builds the usual "latest value of this kind" arguments.
    """

    name: str
    matches: Callable[[str], bool]
    plan: Callable[[Sequence[Item], str], list[Planned]]


def latest_value(items: Sequence[Item], kind: str) -> str | None:
    """The latest value of fact ``kind`` (serial, order, ticket, ...) in ``items``."""
    found = latest_fact(find_facts(list(items), kinds=ALL_FACT_KINDS).get(kind, []))
    return found.value if found else None


def fact_argument(tool: str, argument: str, kind: str) -> Callable[[Sequence[Item], str],
                                                                    list[Planned]]:
    """A plan that calls ``tool`` with ``argument`` = the latest ``kind`` value in view."""
    def plan(items: Sequence[Item], text: str) -> list[Planned]:
        value = latest_value(items, kind)
        return [Planned(tool, {argument: value})] if value else []
    return plan


@dataclass
class PreloadStats:
    """What a preloader did: turns seen and preloaded, calls made, calls that failed."""

    turns: int = 0
    preloaded_turns: int = 0
    calls: int = 0
    failed: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)


class Preloader:
    """Runs :class:`PreloadRule` s before the first model call of each turn (see the module
    docstring). ``tools`` are the agent's function tools the rules may call."""

    def __init__(self, tools: Sequence[Any], rules: Sequence[PreloadRule]):
        self.tools = {getattr(t, "name", None): t for t in tools}
        if None in self.tools:
            raise TypeError("every tool must be an agents FunctionTool (with a name)")
        for rule in rules:
            if not isinstance(rule, PreloadRule):
                raise TypeError(f"rules must be PreloadRule objects, got {type(rule).__name__}")
        self.rules = list(rules)
        self.stats = PreloadStats()

    def plan(self, items: Sequence[Item]) -> tuple[str, list[Planned]] | None:
        """The rule that matches the input's last user message and its calls (None when the
        turn already started, nothing matches, or an argument is missing)."""
        if not items or not is_user_message(items[-1]):
            return None
        text = item_text(items[-1])
        for rule in self.rules:
            if rule.matches(text):
                calls = [c for c in rule.plan(items, text) if c.tool in self.tools]
                if calls:
                    return rule.name, calls
        return None

    async def preload(self, items: Sequence[Item], context: Any = None) -> list[dict[str, Any]]:
        """The call and output items to add after the user message ([] when none)."""
        planned = self.plan(items)
        if planned is None:
            return []
        rule, calls = planned
        from agents.tool_context import ToolContext

        added: list[dict[str, Any]] = []
        for call in calls:
            arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            call_id = "call_preload_" + hashlib.sha256(
                f"{len(items)}:{item_text(items[-1])}:{call.tool}:{arguments}".encode()
            ).hexdigest()[:20]
            try:
                output = await self.tools[call.tool].on_invoke_tool(ToolContext(
                    context=context, tool_name=call.tool, tool_call_id=call_id,
                    tool_arguments=arguments), arguments)
            except Exception as exc:  # a failed preload is no worse than none: the model asks
                # itself. The cause only: a tool's error may quote its arguments
                logger.error("preloading %s failed: %s", call.tool, cause_text(exc))
                self.stats.failed += 1
                continue
            added += [{"type": "function_call", "call_id": call_id, "name": call.tool,
                       "arguments": arguments},
                      {"type": "function_call_output", "call_id": call_id,
                       "output": output if isinstance(output, str) else json.dumps(output)}]
        if added:
            self.stats.preloaded_turns += 1
            self.stats.calls += len(added) // 2
            self.stats.by_rule[rule] = self.stats.by_rule.get(rule, 0) + 1
        return added

    def input_filter(self) -> Callable[[Any], Any]:
        """The ``call_model_input_filter`` that preloads (see the module docstring)."""

        async def preload(data: Any) -> Any:
            from agents.run_config import ModelInputData

            items = list(data.model_data.input)
            if items and is_user_message(items[-1]):
                self.stats.turns += 1
            added = await self.preload(items, data.context)
            if not added:
                return data.model_data
            return ModelInputData(input=[*items, *added],
                                  instructions=data.model_data.instructions)

        return preload
