"""The request rules a real OpenAI-compatible server enforces beyond the ``openai`` types.

:class:`FakeOpenAI` checks every body against the ``openai`` request types, which accept
more than some servers do. Where ctxlab claims compatibility with a server, the fake must
also follow that server's rules. :data:`LLAMA_CPP_PYTHON` is ``llama-cpp-python[server]``
0.3.36 as it answered here (serving SmolLM2-135M-Instruct, ``--n_ctx 8192``; the answers
quoted below were captured from it):

* the body is validated against the server's own request types (mirrored below from
  ``llama_cpp/llama_types.py``): messages ``system`` / ``user`` / ``assistant`` / ``tool``
  / ``function``, string content except a user message's (text or image parts), an
  assistant message's content a string when present (``null`` next to ``tool_calls`` is
  refused); ``response_format`` ``text`` or ``json_object``. A body that does not fit is
  answered with HTTP 500 ``internal_server_error`` whose message lists pydantic's errors
  ("11 validation errors: {'type': 'literal_error', 'loc': ('body', 'messages', 1,
  'ChatCompletionRequestSystemMessage', 'role'), 'msg': "Input should be 'system'", ...}");
* a prompt of ``n_ctx`` tokens or more (the reply cap is then cut to what is left, not
  refused) is answered with HTTP 400 ``context_length_exceeded``: "This model's maximum
  context length is 8192 tokens. However, you requested 10055 tokens (9031 in the
  messages, 1024 in the completion). Please reduce the length of the messages or
  completion.";
* streams carry no usage chunk, even with ``stream_options.include_usage``;
* with its default chat format, tools are used only when ``tool_choice`` names one
  function (then the reply is a tool call with ``content: null``); ``auto`` gets text;
  with ``chatml-function-calling``, ``auto`` works too; without a ``tool_choice`` (what
  the Agents SDK sends) the tools are dropped in both;
* a streamed request with ``tool_choice`` ``"auto"`` is answered HTTP 200 with an *empty*
  event stream: no chunk, no text, no tool call, no error (the server's log says
  "ValueError: Automatic streaming tool choice is not supported");
* a reply cut by ``max_tokens`` ends with ``finish_reason`` ``"length"`` (the fake does that
  for every server, as the OpenAI API does);
* ``GET /models`` lists the loaded model with ``owned_by`` ``"me"`` (how ctxlab recognises
  this server: :func:`ctxlab.course.server_limits.server_kind`);
* any model name is served (the loaded model answers).

The fake counts the prompt with o200k_base, not the server's tokenizer and chat template:
the limit is the same kind, the exact figure differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError
from typing_extensions import NotRequired, TypedDict

from ctxlab.core.tokens import count_tokens

# ---------------------------------------------------------------------------- the server's types
# llama-cpp-python 0.3.36's request types (llama_cpp/llama_types.py), as the server
# validates them (its request model is a pydantic model over these TypedDicts).


class ChatCompletionRequestMessageContentPartText(TypedDict):
    type: Literal["text"]
    text: str


class ChatCompletionRequestMessageContentPartImageImageUrl(TypedDict):
    url: str
    detail: NotRequired[Literal["auto", "low", "high"]]


class ChatCompletionRequestMessageContentPartImage(TypedDict):
    type: Literal["image_url"]
    image_url: str | ChatCompletionRequestMessageContentPartImageImageUrl


ContentPart = (ChatCompletionRequestMessageContentPartText
               | ChatCompletionRequestMessageContentPartImage)


class ChatCompletionRequestSystemMessage(TypedDict):
    role: Literal["system"]
    content: str | None


class ChatCompletionRequestUserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[ContentPart] | None


class ChatCompletionMessageToolCallFunction(TypedDict):
    name: str
    arguments: str


class ChatCompletionMessageToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: ChatCompletionMessageToolCallFunction


class ChatCompletionRequestAssistantMessageFunctionCall(TypedDict):
    name: str
    arguments: str


class ChatCompletionRequestAssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: NotRequired[str]
    tool_calls: NotRequired[list[ChatCompletionMessageToolCall]]
    function_call: NotRequired[ChatCompletionRequestAssistantMessageFunctionCall]


class ChatCompletionRequestToolMessage(TypedDict):
    role: Literal["tool"]
    content: str | None
    tool_call_id: str


class ChatCompletionRequestFunctionMessage(TypedDict):
    role: Literal["function"]
    content: str | None
    name: str


ChatCompletionRequestMessage = (
    ChatCompletionRequestSystemMessage
    | ChatCompletionRequestUserMessage
    | ChatCompletionRequestAssistantMessage
    | ChatCompletionRequestToolMessage
    | ChatCompletionRequestFunctionMessage
)


class ChatCompletionRequestResponseFormat(TypedDict):
    type: Literal["text", "json_object"]
    schema: NotRequired[Any]


class _Body(TypedDict, total=False):
    """The fields of the server's ``CreateChatCompletionRequest`` that ctxlab's requests
    can get wrong (the others are plain numbers, strings and flags)."""

    messages: list[ChatCompletionRequestMessage]
    response_format: ChatCompletionRequestResponseFormat | None


@cache
def _body_type() -> TypeAdapter[Any]:
    return TypeAdapter(_Body)


# ---------------------------------------------------------------------------- the rules


@dataclass(frozen=True)
class ServerRules:
    """What one server refuses or leaves out (see the module docstring).

    ``response_formats`` narrows what the mirrored types accept (a server variant with
    less); ``context_window`` is in o200k_base tokens of the prompt; ``tool_choices`` are
    the ``tool_choice`` kinds (``"omitted"``, ``"auto"``, ``"required"``, ``"named"``) with
    which the server uses a request's tools (with any other it ignores them).
    """

    name: str
    response_formats: tuple[str, ...]
    usage_in_stream: bool
    context_window: int | None
    tool_choices: tuple[str, ...]
    serves_any_model: bool
    streams_auto_tool_choice: bool = True
    owned_by: str = "fake"

    def problem(self, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """``(status, error body)`` the server answers ``body`` (a Chat Completions
        request) with, or None when it serves it."""
        errors = validation_errors(body, self.response_formats)
        if errors:
            return 500, {"error": {"message": _validation_message(errors),
                                   "type": "internal_server_error", "param": None,
                                   "code": None}}
        if self.context_window is not None:
            prompt = prompt_tokens(body)
            if prompt >= self.context_window:
                cap = body.get("max_tokens")
                return 400, {"error": {"message": (
                    f"This model's maximum context length is {self.context_window} tokens. "
                    f"However, you requested {prompt + (cap or 0)} tokens ({prompt} in the "
                    f"messages, {cap} in the completion). Please reduce the length of the "
                    "messages or completion."), "type": "invalid_request_error",
                    "param": "messages", "code": "context_length_exceeded"}}
        return None

    def drops_tools(self, body: Mapping[str, Any]) -> bool:
        """True when the server ignores the request's tools."""
        choice = body.get("tool_choice")
        kind = ("omitted" if choice is None else "named" if isinstance(choice, Mapping)
                else str(choice))
        return kind not in self.tool_choices

    def empty_stream(self, body: Mapping[str, Any]) -> bool:
        """True when the server answers ``body`` with an empty event stream (a streamed
        request with ``tool_choice`` ``"auto"`` on a server that cannot stream it)."""
        return (bool(body.get("stream")) and body.get("tool_choice") == "auto"
                and not self.streams_auto_tool_choice)


def validation_errors(body: Mapping[str, Any],
                      response_formats: tuple[str, ...] = ("text", "json_object"),
                      ) -> list[dict[str, Any]]:
    """pydantic's errors for ``body`` under the server's request types, as the server
    reports them (``loc`` starting with ``"body"``)."""
    fields = {k: body[k] for k in ("messages", "response_format") if k in body}
    errors: list[dict[str, Any]] = []
    try:
        _body_type().validate_python(fields)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            found = {k: error[k] for k in ("type", "loc", "msg", "input", "ctx") if k in error}
            found["loc"] = ("body", *error["loc"])
            errors.append(found)
    kind = (body.get("response_format") or {}).get("type")
    if not errors and kind is not None and kind not in response_formats:
        expected = " or ".join(f"'{f}'" for f in response_formats)
        errors.append({"type": "literal_error", "loc": ("body", "response_format", "type"),
                       "msg": f"Input should be {expected}", "input": kind,
                       "ctx": {"expected": expected}})
    return errors


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """The prompt's o200k_base tokens: every message's text, plus 4 per message."""
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        total += count_tokens(str(content or "")) + 4
        for call in message.get("tool_calls") or []:
            total += count_tokens(str(call.get("function", {}).get("arguments", "")))
    for tool in body.get("tools") or []:
        total += count_tokens(str(tool))
    return total


def _validation_message(errors: list[dict[str, Any]]) -> str:
    """The server's message for a body that fails validation (its traceback line kept)."""
    lines = [f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}:"]
    lines += [f"  {error}" for error in errors]
    lines += ["", '  File ".../llama_cpp/server/app.py", line 376, in create_chat_completion',
              "    POST /v1/chat/completions"]
    return "\n".join(lines)


LLAMA_CPP_PYTHON = ServerRules(
    name="llama-cpp-python[server] 0.3.36",
    response_formats=("text", "json_object"),
    usage_in_stream=False,
    context_window=8192,
    tool_choices=("named",),
    serves_any_model=True,
    streams_auto_tool_choice=False,
    owned_by="me",
)

#: The same server started with ``--chat_format chatml-function-calling``: a tool call
#: comes back with ``tool_choice`` ``auto`` too (but not without a ``tool_choice``, which is
#: what the Agents SDK sends), and the next request, carrying the call with ``content:
#: null``, is refused like any other.
LLAMA_CPP_PYTHON_FUNCTION_CALLING = replace(
    LLAMA_CPP_PYTHON, name="llama-cpp-python[server] 0.3.36 --chat_format "
    "chatml-function-calling", tool_choices=("auto", "required", "named"))

#: Rules by the name ``scripts/real_server_smoke.py --mock-rules`` takes.
RULES: dict[str, ServerRules] = {
    "llama-cpp-python": LLAMA_CPP_PYTHON,
    "llama-cpp-python-function-calling": LLAMA_CPP_PYTHON_FUNCTION_CALLING,
}
