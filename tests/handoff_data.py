"""Build the SDK's ``HandoffInputData`` from plain items, as the Runner does at a handoff.

``handoff_data(history)`` gives what a handoff filter receives when the model answers the
last user message of ``history`` with a handoff call: the history as ``input_history``, no
pre-handoff items, and the handoff call with its output as real ``HandoffCallItem`` and
``HandoffOutputItem`` run items.
"""

from __future__ import annotations

import itertools
from typing import Any

from agents import Agent
from agents.handoffs import HandoffInputData
from agents.items import HandoffCallItem, HandoffOutputItem
from openai.types.responses import ResponseFunctionToolCall

_calls = itertools.count()
SENDER = Agent(name="Support", instructions="help")
RECEIVER = Agent(name="Repair desk", instructions="repair")


def handoff_data(history: list[dict[str, Any]], tool: str = "transfer_to_repair_desk"
                 ) -> HandoffInputData:
    call_id = f"call_handoff_{next(_calls)}"
    call = ResponseFunctionToolCall(type="function_call", call_id=call_id, name=tool,
                                    arguments="{}", id=f"fc_{call_id}", status="completed")
    output = {"type": "function_call_output", "call_id": call_id,
              "output": '{"assistant": "Repair desk"}'}
    return HandoffInputData(
        input_history=tuple(history), pre_handoff_items=(),
        new_items=(HandoffCallItem(agent=SENDER, raw_item=call),
                   HandoffOutputItem(agent=SENDER, raw_item=output, source_agent=SENDER,
                                     target_agent=RECEIVER)))
