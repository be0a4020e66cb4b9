"""OfflineTeamModel: the offline support model, able to hand off and to use the team's tools.

Still a teaching simulator, not a language model: a few keyword rules run first, and
everything else is answered by :class:`~ctxlab.course.offline.OfflineSupportModel`.

1. the current turn ends with outputs of the team's tools (``delete_my_data``,
   ``lookup_order``, ``get_return_policy``) -> answer from them;
2. the agent has just received a handoff and may check warranties -> call
   ``check_warranty`` with the latest serial in its view (what a repair desk does first; on
   a view that mixes two devices, "the latest serial" may be the wrong device's);
3. the message asks to be passed on (:func:`.rules.route_for`) and a matching handoff is
   offered -> call that handoff;
4. the message asks to delete the customer's data and ``delete_my_data`` is offered -> call
   it (instead of the plain model's honest "I can't do that here");
5. the message asks to return something and the order tools are offered -> call
   ``lookup_order`` (the latest order number in view) and ``get_return_policy``;
6. the message refers to something said before ("that shop I mentioned") and is not one
   of the plain model's recall questions (an identifier, "what did I ask you to keep in
   mind?") -> quote the earlier customer statement that shares the most words with it, or
   say it is not there.

Handoff calls and their outputs are removed from what the plain model reads: they are
routing, not conversation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from ...core.items import item_text, item_type
from ...core.tokens import count_request_tokens, get_token_counter
from ...core.turns import starts_turn
from ...facts.typed import ALL_FACT_KINDS, FACT_KINDS, find_facts, latest_fact
from ..offline.intents import normalize, read_intent
from ..offline.memory import classify
from ..offline.model import OfflineResult, OfflineSupportModel, _digest, _output_items
from ..offline.responder import Plan, PlannedCall, reply_language, tool_specs
from . import rules

#: The handoffs offered to the call being answered (the SDK passes them beside the tools).
_HANDOFFS: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("ctxlab_team_handoffs",
                                                                default=())
#: The team's own tools, whose outputs this model answers itself.
TEAM_TOOLS = ("delete_my_data", "lookup_order", "get_return_policy")
TEAM_MODEL_NAME = "ctxlab-offline-team"


def _is_handoff_call(item: Mapping[str, Any], names: set[str]) -> bool:
    name = item.get("name")
    return isinstance(name, str) and (name in names or name.startswith("transfer_to_"))


def strip_handoffs(items: Sequence[Mapping[str, Any]],
                   names: set[str] | None = None) -> list[Mapping[str, Any]]:
    """``items`` without handoff calls and their outputs."""
    calls = {i.get("call_id") for i in items
             if item_type(i) == "function_call" and _is_handoff_call(i, names or set())}
    return [i for i in items if not (i.get("call_id") in calls and item_type(i) in (
        "function_call", "function_call_output"))]


class OfflineTeamModel(OfflineSupportModel):
    """The offline model with handoffs and the team's tools (see the module docstring)."""

    def __init__(self, model_name: str = TEAM_MODEL_NAME, **options: Any):
        super().__init__(model_name, **options)

    @property
    def _handoffs(self) -> tuple[tuple[str, str], ...]:
        return _HANDOFFS.get()

    def respond(self, system_instructions: str | None, input: Any, tools: Sequence[Any] = (),
                *, allow_tools: bool = True) -> OfflineResult:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        plan = self._team_plan(system_instructions, items, tools, allow_tools)
        names = {tool for tool, _ in self._handoffs}
        if plan is None:
            return super().respond(system_instructions, strip_handoffs(items, names), tools,
                                   allow_tools=allow_tools)
        digest = _digest(system_instructions, items)
        output = _output_items(plan, digest)
        counter = get_token_counter(self.encoding)
        return OfflineResult(
            output=output, response_id=f"resp_{digest[:32]}",
            input_tokens=count_request_tokens(system_instructions, items, list(tools),
                                              encoding=self.encoding)["total"],
            output_tokens=sum(counter.count(item_text(item)) for item in output))

    # the SDK passes handoffs separately from tools: keep them for this call (a context
    # variable: one model instance serves concurrent runs)
    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                           **kwargs: Any) -> Any:
        _HANDOFFS.set(tuple((h.tool_name, h.agent_name) for h in handoffs or []))
        return await super().get_response(system_instructions, input, model_settings, tools,
                                          output_schema, handoffs, tracing, **kwargs)

    async def stream_response(self, system_instructions: Any, input: Any, model_settings: Any,
                              tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                              **kwargs: Any) -> Any:
        _HANDOFFS.set(tuple((h.tool_name, h.agent_name) for h in handoffs or []))
        async for event in super().stream_response(system_instructions, input, model_settings,
                                                   tools, output_schema, handoffs, tracing,
                                                   **kwargs):
            yield event

    def _team_plan(self, instructions: str | None, items: list[Mapping[str, Any]],
                   tools: Sequence[Any], allow_tools: bool) -> Plan | None:
        last = next((i for i in range(len(items) - 1, -1, -1) if starts_turn(items[i])),
                    None)
        if last is None:
            return None
        text = normalize(item_text(items[last]))
        language = reply_language(text, items)
        specs = tool_specs(tools) if allow_tools else {}
        turn = items[last + 1:]
        if turn:
            return self._within_turn(instructions, items, turn, specs, language)
        target = rules.route_for(text, self._handoffs) if allow_tools else None
        if target is not None:
            return _call(target, {})
        return _new_message(instructions, items, last, text, specs, language)

    def _within_turn(self, instructions: str | None, items: Sequence[Mapping[str, Any]],
                     turn: Sequence[Mapping[str, Any]], specs: Mapping[str, Any],
                     language: str) -> Plan | None:
        """Rules 1 and 2: the turn already has tool calls or a handoff in it."""
        answered = _answer_team_outputs(turn, language)
        if answered is not None:
            return Plan(text=answered)
        names = {tool for tool, _ in self._handoffs}
        calls = [i for i in turn if item_type(i) == "function_call"]
        if item_type(turn[-1]) == "function_call_output" and not any(
                _is_handoff_call(i, names) for i in calls):
            return None  # other tools' outputs: the plain model answers them
        if "check_warranty" in specs and all(i.get("name") != "check_warranty" for i in calls):
            serial = _latest(instructions, items, "serial", language)
            if serial:  # just received a handoff: check the device first
                return _call("check_warranty", {"serial": serial})
        return None


def _new_message(instructions: str | None, items: Sequence[Mapping[str, Any]], last: int,
                 text: str, specs: Mapping[str, Any], language: str) -> Plan | None:
    """Rules 4 to 6, for a message nothing has answered yet."""
    intent = read_intent(text)
    if "delete_my_data" in specs and intent.data_request:
        return _call("delete_my_data", {})
    if rules.wants_return(text) and {"lookup_order", "get_return_policy"} <= specs.keys():
        return _return_calls(instructions, items, language)
    if rules.refers_back(text) and not (intent.constraints or intent.commitments
                                        or intent.recall):
        return Plan(text=rules.mention_reply(rules.mentioned(text, items[:last]), language))
    return None


def _call(name: str, arguments: Mapping[str, Any]) -> Plan:
    return Plan(calls=(PlannedCall(name, json.dumps(dict(arguments), ensure_ascii=False)),))


def _latest(instructions: str | None, items: Sequence[Mapping[str, Any]], kind: str,
            language: str) -> str | None:
    kinds = ALL_FACT_KINDS if language == "zh" else FACT_KINDS
    facts = classify(items, find_facts(items, instructions=instructions, kinds=kinds))
    found = latest_fact(facts.get(kind, []))
    return found.value if found else None


def _return_calls(instructions: str | None, items: Sequence[Mapping[str, Any]],
                  language: str) -> Plan:
    from ...handoffs.issues import devices_in

    order = _latest(instructions, items, "order", language)
    if order is None:
        return Plan(text="您的订单号是多少？（格式像 ORD-12345）" if language == "zh" else
                    "Which order is it? Please give me the order number (like ORD-12345).")
    texts = [item_text(i) for i in items if starts_turn(i)]
    devices = [d for t in reversed(texts) for d in devices_in(t)]
    category = devices[0] if devices else "other"
    return Plan(calls=(PlannedCall("lookup_order", json.dumps({"order_id": order})),
                       PlannedCall("get_return_policy", json.dumps({"category": category}))))


def _answer_team_outputs(turn: Sequence[Mapping[str, Any]], language: str) -> str | None:
    """A reply from the team tools' outputs at the end of the turn (None if there are none)."""
    if not turn or item_type(turn[-1]) != "function_call_output":
        return None
    names = {i.get("call_id"): i.get("name") for i in turn if item_type(i) == "function_call"}
    outputs = {names.get(i.get("call_id")): item_text(i) for i in turn
               if item_type(i) == "function_call_output"}
    if "delete_my_data" in outputs:
        return rules.deleted_reply(outputs["delete_my_data"], language)
    if "lookup_order" in outputs:
        return rules.order_reply(outputs["lookup_order"], outputs.get("get_return_policy", "{}"),
                                 language)
    return None
