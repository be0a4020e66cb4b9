"""A deterministic stand-in for the LLM: the service's cost is then the sessions', not a
model's (a real model takes seconds per reply; see the README's real-model section).

Each turn it calls the ``lookup_ticket`` tool once with the ticket number in the user's
message, then answers from the tool's output, as a support agent would. No network, no key.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

_TICKET = re.compile(r"TCK-\d+")


def _text(item: Any) -> str:
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class TicketDeskModel(Model):
    """Tool call first, then a reply that quotes the tool's output (see the module doc)."""

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                           **_: Any) -> ModelResponse:
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        last = items[-1] if items else {}
        n = sum(1 for i in items if isinstance(i, dict) and i.get("role") == "user")
        if isinstance(last, dict) and last.get("type") == "function_call_output":
            status = json.loads(last.get("output") or "{}")
            text = (f"Ticket {status.get('ticket', '?')} is {status.get('status', '?')}; "
                    f"message {n} noted.")
            output: Any = ResponseOutputMessage(
                id=f"msg_{last.get('call_id', 'x')}", type="message", role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=text, annotations=[],
                                            logprobs=[])])
        else:
            found = _TICKET.findall(_text(last))
            call_id = "call_" + hashlib.sha1(f"{n}:{_text(last)}".encode()).hexdigest()[:16]
            output = ResponseFunctionToolCall(
                type="function_call", call_id=call_id, name="lookup_ticket",
                arguments=json.dumps({"ticket": found[-1] if found else "TCK-0"}))
        return ModelResponse(output=[output], usage=Usage(requests=1), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the example service does not stream")
        yield  # pragma: no cover
