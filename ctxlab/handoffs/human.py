"""Escalation to a human, through an ordinary SDK handoff.

A person is not a model, but the hand-over is the same decision: what does the receiver get
to read? :func:`human_agent` is an Agents SDK ``Agent`` whose "model" is a desk
(:class:`HumanDeskModel`): it files what it receives (after the handoff's input filter,
exactly what a model would have been sent) as an :class:`Escalation` in a
:class:`HumanQueue`, and tells the customer their case was passed on. A support agent
escalates with ``handoff(human_agent(queue), input_filter=IssueHandover())`` like any
other handoff, and the person picking the case up reads :attr:`Escalation.note`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.models.interface import Model

from ..core.items import is_user_message, item_text
from ..facts.language import language_of

#: What the desk says after filing a case ({case} is its id).
DESK_REPLY = ("I've passed your case to a member of our support staff (case {case}). They can "
              "see what we have done so far, so you won't need to repeat anything; they will "
              "contact you shortly.")
DESK_REPLY_ZH = ("我已经把您的问题转给了人工客服（案件编号 {case}）。之前处理的情况他们都能看到，"
                 "您不用再从头说一遍，稍后会有同事联系您。")


@dataclass(frozen=True)
class Escalation:
    """A case handed to a person: its id, what the desk received, and the note to read."""

    case_id: str
    items: tuple[dict[str, Any], ...]
    note: str
    request: str

    def __str__(self) -> str:
        return f"{self.case_id}: {self.request}\n{self.note}"


@dataclass
class HumanQueue:
    """The cases waiting for a person, oldest first (thread-safe)."""

    prefix: str = "ESC"
    cases: list[Escalation] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def file(self, items: Sequence[Mapping[str, Any]]) -> Escalation:
        """File what the desk received as a new case."""
        with self._lock:
            case = Escalation(f"{self.prefix}-{len(self.cases) + 1:04d}",
                              tuple(dict(i) for i in items), handover_note(items),
                              _request(items))
            self.cases.append(case)
            return case

    def __len__(self) -> int:
        return len(self.cases)


def _request(items: Sequence[Mapping[str, Any]]) -> str:
    users = [item_text(i) for i in items if is_user_message(i)]
    return users[-1] if users else ""


def handover_note(items: Sequence[Mapping[str, Any]]) -> str:
    """What the person reads: the handover summary when the view starts with one, else the
    conversation as ``role: text`` lines (tool traffic as one line per call)."""
    from .filters import HANDOVER_PROMPT, HANDOVER_PROMPT_ZH

    if (len(items) >= 2 and item_text(items[0]) in (HANDOVER_PROMPT, HANDOVER_PROMPT_ZH)
            and items[1].get("role") == "assistant"):
        return item_text(items[1])
    lines = []
    for item in items:
        role = item.get("role") or item.get("type", "item")
        text = " ".join(item_text(item).split())
        lines.append(f"{role}: {text[:200]}")
    return "\n".join(lines)


class HumanDeskModel(Model):
    """An Agents SDK ``Model`` that files cases instead of generating text (not an LLM).

    Every call files its input in ``queue`` and answers with :data:`DESK_REPLY` (in Chinese
    for a Chinese request). It reports no token usage: no model ran.
    """

    def __init__(self, queue: HumanQueue):
        if not isinstance(queue, HumanQueue):
            raise TypeError(f"queue must be a HumanQueue, got {type(queue).__name__}")
        self.queue = queue

    def _respond(self, input: str | list[Any]) -> Any:
        from agents.items import ModelResponse
        from agents.usage import Usage
        from openai.types.responses import ResponseOutputMessage, ResponseOutputText

        items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
        case = self.queue.file(items)
        zh = language_of(case.request) == "zh" if case.request else False
        text = (DESK_REPLY_ZH if zh else DESK_REPLY).format(case=case.case_id)
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, default=str)
                                .encode()).hexdigest()[:24]
        message = ResponseOutputMessage(
            id=f"msg_{digest}", type="message", role="assistant", status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[],
                                        logprobs=[])])
        return ModelResponse(output=[message], usage=Usage(), response_id=f"resp_{digest}")

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any,
                           tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                           **kwargs: Any) -> Any:
        return self._respond(input)

    async def stream_response(self, system_instructions: Any, input: Any, model_settings: Any,
                              tools: Any, output_schema: Any, handoffs: Any, tracing: Any,
                              **kwargs: Any) -> AsyncIterator[Any]:
        from openai.types.responses import Response, ResponseCompletedEvent

        result = self._respond(input)
        response = Response(id=result.response_id, created_at=0, model="human-desk",
                            object="response", output=result.output, tool_choice="auto",
                            tools=[], top_p=None, parallel_tool_calls=False,
                            status="completed")
        yield ResponseCompletedEvent(type="response.completed", response=response,
                                     sequence_number=0)


def human_agent(queue: HumanQueue, *, name: str = "Human agent",
                handoff_description: str = "a member of the support staff, for customers "
                "who ask for a person or whose case needs one") -> Any:
    """An SDK ``Agent`` that stands for the support staff (see the module docstring)."""
    from agents import Agent

    return Agent(name=name, instructions="(a person reads the handover note)",
                 model=HumanDeskModel(queue),
                 handoff_description=handoff_description)
