"""OfflineSupportModel: a deterministic stand-in for an LLM, for lessons without an API key.

This is a teaching simulator, not a language model. It plugs into the Agents SDK as an
``agents.models.interface.Model``, so the real ``Runner``, sessions, tools and streaming all
run unchanged, but its "thinking" is a short list of keyword rules
(:mod:`ctxlab.course.offline.responder`).

What it can do:

* answer "what was my ticket number / serial / firmware / error code / email / order
  number / RMA / reservation code?" with the latest such value **in its input**, and say
  plainly that it does not see one when the value is not there; this is what makes memory
  visible: trim the turn that held the ticket number and the model no longer knows it;
* call the tools it is offered (``check_warranty``, ``lookup_device``,
  ``get_ticket_status``) when the latest message asks for a warranty check, device
  details or a ticket status, then answer from the tool output (quoting status, dates
  and the RMA number);
* give short numbered troubleshooting steps and one clarifying question for about a dozen
  common symptoms (:mod:`ctxlab.memory.playbook`), and keep a simple list of open issues;
* report usage: ``input_tokens`` is the exact token count of the request it was sent
  (:func:`ctxlab.core.tokens.count_request_tokens`), so token plots are real.

What it cannot do:

* understand language: it matches patterns, so paraphrases outside its rules get a
  generic clarifying question, and it never writes a summary, follows complex
  instructions, produces structured output (``output_type``) or hands off to another agent;
* know anything that is not in its input: it reads only the system instructions and the
  input items (messages of every role, tool calls and tool outputs, and any summary a
  memory strategy injects). It never invents an identifier;
* remember: it keeps no state between calls and never touches the network. The same
  input gives the same output, byte for byte, including response, message and call ids
  (derived from a hash of the input, so they differ from turn to turn).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agents.exceptions import UserError
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.models.interface import Model, ModelTracing
from agents.tool import Tool
from agents.tracing import generation_span
from agents.usage import Usage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from ...core.items import item_text
from ...core.tokens import DEFAULT_ENCODING, count_request_tokens, get_token_counter
from .reader import Layout, RealisticReader, reader_label
from .responder import Plan, plan_reply, tool_specs

if TYPE_CHECKING:
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.model_settings import ModelSettings

#: The name the offline model reports in responses and traces.
OFFLINE_MODEL_NAME = "ctxlab-offline-support"


@dataclass(frozen=True)
class OfflineResult:
    """One offline model call, before it is wrapped for the SDK.

    ``output`` holds the output items as Responses dicts, ``response_id`` is derived from
    the input, and the token counts follow :class:`OfflineSupportModel`'s usage rules.
    """

    output: list[dict[str, Any]]
    response_id: str
    input_tokens: int
    output_tokens: int

    @property
    def text(self) -> str:
        """The assistant text of this result ("" when the model called tools)."""
        return "".join(item_text(item) for item in self.output if item.get("type") == "message")


class OfflineSupportModel(Model):
    """A deterministic offline IT-support simulator for the course. Not an LLM.

    It can: repeat back ticket numbers, serials, firmware versions, error codes, emails,
    order, RMA and reservation numbers that are in its input (and say "I don't see your
    ... in our conversation" when they are not); call ``check_warranty``,
    ``lookup_device`` and ``get_ticket_status`` when they are offered and asked for, then
    answer from their output; give playbook steps for common symptoms with one clarifying
    question; report exact input token usage; stream text deltas.

    It cannot: understand free-form language beyond its keyword rules, summarize, follow
    custom instructions, produce structured output, hand off, or know anything that is
    not in its input. It keeps no state between calls (one instance can serve any number
    of agents and conversations concurrently) and never uses the network.

    Args:
        model_name: the name reported in responses and traces.
        encoding: the tokenizer used for usage figures (``o200k_base``, as GPT-4o/4.1/5).
        words_per_delta: how many words each streamed text delta carries (>= 1).
        reader: None (the default) reads the window perfectly: any fact in the input is
            found. A :class:`~ctxlab.course.offline.reader.RealisticReader` misses facts the
            way a measured model does (by position in the window and the window's length,
            "lost in the middle"): a labelled simulation for lessons that compare windows.
    """

    def __init__(
        self,
        model_name: str = OFFLINE_MODEL_NAME,
        *,
        encoding: str = DEFAULT_ENCODING,
        words_per_delta: int = 4,
        reader: RealisticReader | None = None,
    ) -> None:
        if not isinstance(model_name, str) or not model_name.strip():
            raise ValueError(f"model_name must be a non-empty string, got {model_name!r}")
        if isinstance(words_per_delta, bool) or not isinstance(words_per_delta, int):
            raise TypeError(f"words_per_delta must be an int, got {type(words_per_delta).__name__}")
        if words_per_delta < 1:
            raise ValueError(f"words_per_delta must be >= 1, got {words_per_delta}")
        if reader is not None and not isinstance(reader, RealisticReader):
            raise TypeError("reader must be None or a RealisticReader, got "
                            f"{type(reader).__name__}")
        get_token_counter(encoding)  # fail now, with a clear message, on a bad encoding
        self.model_name = model_name
        self.reader = reader
        self.encoding = encoding
        self.words_per_delta = words_per_delta

    def __repr__(self) -> str:
        if self.reader is None:
            return f"OfflineSupportModel(model_name={self.model_name!r})"
        return f"OfflineSupportModel(model_name={self.model_name!r}, reader={self.reader!r})"

    @property
    def reader_label(self) -> str:
        """How tables name the way this model reads its window."""
        return reader_label(self.reader)

    # -- the simulator, without the SDK ---------------------------------------------
    def respond(
        self,
        system_instructions: str | None,
        input: str | Sequence[Mapping[str, Any]],
        tools: Sequence[Any] = (),
        *,
        allow_tools: bool = True,
    ) -> OfflineResult:
        """Compute the reply for one request (what ``get_response`` wraps for the SDK).

        ``input`` is a string (one user message) or a list of Responses input items;
        ``tools`` are SDK tools (or Responses tool dicts) the model may call.
        """
        items = _input_items(input)
        if system_instructions is not None and not isinstance(system_instructions, str):
            raise TypeError(
                "system_instructions must be a str or None, "
                f"got {type(system_instructions).__name__}"
            )
        tools = list(tools)
        see = None
        if self.reader is not None:
            layout = Layout.of(system_instructions, items, tools, encoding=self.encoding)
            see = self.reader.seen(items, layout)
        plan = plan_reply(system_instructions, items, tool_specs(tools), allow_tools=allow_tools,
                          see=see)
        digest = _digest(system_instructions, items)
        output = _output_items(plan, digest)
        counter = get_token_counter(self.encoding)
        return OfflineResult(
            output=output,
            response_id=f"resp_{digest[:32]}",
            input_tokens=count_request_tokens(
                system_instructions, items, tools, encoding=self.encoding
            )["total"],
            output_tokens=sum(counter.count(item_text(item)) for item in output),
        )

    # -- the SDK Model interface ----------------------------------------------------
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """Answer one request (see the class docstring for what the answer can be)."""
        result, response = self._answer(
            system_instructions, input, model_settings, tools, output_schema, tracing
        )
        return ModelResponse(
            output=list(response.output),
            usage=_usage(result),
            response_id=result.response_id,
        )

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """Stream the same answer as :meth:`get_response`, as Responses API events.

        Text arrives as ``response.output_text.delta`` events of a few words each; tool
        calls as function-call items with their arguments; the last event is a
        ``response.completed`` carrying the whole response and its usage.
        """
        _, response = self._answer(
            system_instructions, input, model_settings, tools, output_schema, tracing
        )
        for event in stream_events(response, self.words_per_delta):
            yield event

    def _answer(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        tracing: ModelTracing,
    ) -> tuple[OfflineResult, Response]:
        """Compute the answer inside a generation span (shared by both entry points)."""
        _check_output_schema(output_schema)
        with generation_span(
            model=self.model_name,
            model_config=model_settings.to_json_dict(),
            disabled=tracing.is_disabled(),
        ) as span:
            result = self.respond(
                system_instructions,
                cast(Any, input),
                tools,
                allow_tools=_tools_allowed(model_settings),
            )
            response = self._response(result)
            _record_span(span, tracing, input, result)
        return result, response

    # -- building SDK objects -------------------------------------------------------
    def _response(self, result: OfflineResult) -> Response:
        output = [_to_output_item(item) for item in result.output]
        return Response(
            id=result.response_id,
            created_at=0,
            model=self.model_name,
            object="response",
            output=cast(Any, output),
            tool_choice="auto",
            tools=[],
            top_p=None,
            parallel_tool_calls=True,
            status="completed",
            usage=ResponseUsage(
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                total_tokens=result.input_tokens + result.output_tokens,
                # cache_write_tokens is required by newer openai releases only.
                input_tokens_details=InputTokensDetails.model_validate(
                    {"cached_tokens": 0, "cache_write_tokens": 0}
                ),
                output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
            ),
        )


# ---------------------------------------------------------------------------- helpers


def _input_items(value: str | Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if not isinstance(value, Sequence):
        raise TypeError(
            f"input must be a str or a list of Responses input items, got {type(value).__name__}"
        )
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise TypeError(
                f"input item {index} must be a dict (a Responses input item), "
                f"got {type(item).__name__}"
            )
    return list(value)


def _digest(instructions: str | None, items: Sequence[Mapping[str, Any]]) -> str:
    payload = json.dumps(
        {"instructions": instructions, "input": list(items)},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _output_items(plan: Plan, digest: str) -> list[dict[str, Any]]:
    if plan.calls:
        output = []
        for position, call in enumerate(plan.calls):
            call_hash = hashlib.sha256(f"{digest}:{position}:{call.name}".encode()).hexdigest()
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call_hash[:24]}",
                    "call_id": f"call_{call_hash[:24]}",
                    "name": call.name,
                    "arguments": call.arguments,
                    "status": "completed",
                }
            )
        return output
    return [
        {
            "type": "message",
            "id": f"msg_{digest[:24]}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": plan.text, "annotations": []}],
        }
    ]


def _to_output_item(item: Mapping[str, Any]) -> ResponseOutputMessage | ResponseFunctionToolCall:
    if item["type"] == "function_call":
        return ResponseFunctionToolCall(**item)
    return ResponseOutputMessage(
        id=item["id"],
        type="message",
        role="assistant",
        status="completed",
        content=[
            ResponseOutputText(type="output_text", text=part["text"], annotations=[], logprobs=[])
            for part in item["content"]
        ],
    )


def _usage(result: OfflineResult) -> Usage:
    return Usage(
        requests=1,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        total_tokens=result.input_tokens + result.output_tokens,
    )


def _tools_allowed(model_settings: ModelSettings) -> bool:
    return model_settings.tool_choice != "none"


def _check_output_schema(output_schema: AgentOutputSchemaBase | None) -> None:
    if output_schema is not None and not output_schema.is_plain_text():
        raise UserError(
            "OfflineSupportModel writes plain text only; this agent has a structured "
            f"output_type ({output_schema.name()}). Remove output_type or use a real model "
            "backend (see ctxlab.course.backends.choose_backend)."
        )


def _record_span(span: Any, tracing: ModelTracing, input: Any, result: OfflineResult) -> None:
    data = span.span_data
    data.usage = {"input_tokens": result.input_tokens, "output_tokens": result.output_tokens}
    if tracing.include_data():
        data.input = [{"role": "user", "content": input}] if isinstance(input, str) else input
        data.output = result.output


_WORD_START = re.compile(r"(?<=\s)(?=\S)")


def text_deltas(text: str, words_per_delta: int = 4) -> list[str]:
    """Split ``text`` into pieces of ``words_per_delta`` words; they join back to ``text``."""
    words = _WORD_START.split(text)
    return (
        ["".join(words[i : i + words_per_delta]) for i in range(0, len(words), words_per_delta)]
        if text
        else []
    )


def stream_events(response: Response, words_per_delta: int = 4) -> list[TResponseStreamEvent]:
    """The Responses API event sequence for a finished ``response``.

    created, in_progress; per output item: output_item.added, then text deltas (messages)
    or argument deltas (function calls), then output_item.done; finally completed.
    """
    events: list[Any] = []

    def emit(event_type: type, **fields: Any) -> None:
        events.append(event_type(sequence_number=len(events), **fields))

    in_progress = response.model_copy(update={"output": [], "status": "in_progress", "usage": None})
    emit(ResponseCreatedEvent, type="response.created", response=in_progress)
    emit(ResponseInProgressEvent, type="response.in_progress", response=in_progress)
    for index, item in enumerate(response.output):
        if isinstance(item, ResponseFunctionToolCall):
            _call_events(events, emit, index, item)
        elif isinstance(item, ResponseOutputMessage):
            _message_events(emit, index, item, words_per_delta)
        emit(
            ResponseOutputItemDoneEvent,
            type="response.output_item.done",
            output_index=index,
            item=item,
        )
    emit(ResponseCompletedEvent, type="response.completed", response=response)
    return cast(list[TResponseStreamEvent], events)


def _call_events(
    events: list[Any], emit: Callable[..., None], index: int, item: ResponseFunctionToolCall
) -> None:
    """A function call's added event and its arguments, in one delta."""
    emit(
        ResponseOutputItemAddedEvent,
        type="response.output_item.added",
        output_index=index,
        item=item.model_copy(update={"arguments": "", "status": "in_progress"}),
    )
    item_id = item.id or item.call_id
    emit(
        ResponseFunctionCallArgumentsDeltaEvent,
        type="response.function_call_arguments.delta",
        item_id=item_id,
        output_index=index,
        delta=item.arguments,
    )
    events.append(
        ResponseFunctionCallArgumentsDoneEvent.model_validate(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": item.arguments,
                "name": item.name,
                "sequence_number": len(events),
            }
        )
    )


def _message_events(
    emit: Callable[..., None], index: int, item: ResponseOutputMessage, words_per_delta: int
) -> None:
    """A message's added event, then each text part: added, deltas, text done, part done."""
    emit(
        ResponseOutputItemAddedEvent,
        type="response.output_item.added",
        output_index=index,
        item=item.model_copy(update={"content": [], "status": "in_progress"}),
    )
    for part_index, part in enumerate(item.content):
        if not isinstance(part, ResponseOutputText):
            continue
        where = {"item_id": item.id, "output_index": index, "content_index": part_index}
        emit(
            ResponseContentPartAddedEvent,
            type="response.content_part.added",
            part=part.model_copy(update={"text": ""}),
            **where,
        )
        for delta in text_deltas(part.text, words_per_delta):
            emit(
                ResponseTextDeltaEvent,
                type="response.output_text.delta",
                delta=delta,
                logprobs=[],
                **where,
            )
        emit(
            ResponseTextDoneEvent,
            type="response.output_text.done",
            text=part.text,
            logprobs=[],
            **where,
        )
        emit(
            ResponseContentPartDoneEvent,
            type="response.content_part.done",
            part=part,
            **where,
        )
