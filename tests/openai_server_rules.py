"""The request rules a real OpenAI-compatible server enforces beyond the ``openai`` types.

:class:`FakeOpenAI` checks every body against the ``openai`` request types, which accept
more than some servers do. Where ctxlab claims compatibility with a server, the fake must
also follow that server's rules: :data:`LLAMA_CPP_PYTHON` is ``llama-cpp-python[server]``
0.3.36, as seen running it here (serving SmolLM2-135M-Instruct, see the field notes):

* messages: roles ``system``, ``user``, ``assistant``, ``tool``, ``function`` only, and a
  ``system`` message's content must be a string (``developer`` or list content: HTTP 500
  with the pydantic validation errors as the message);
* ``response_format``: ``text`` or ``json_object`` only (``json_schema``: HTTP 500);
* an assistant message with ``tool_calls`` and ``content: null``: HTTP 500;
* streams carry no usage chunk, even with ``stream_options.include_usage``;
* a request whose prompt plus ``max_tokens`` exceeds the context window (8,192 tokens
  here): HTTP 400 "This model's maximum context length is 8192 tokens, however you
  requested N tokens ...";
* tools are ignored unless ``tool_choice`` names one function;
* any model name is served (the loaded model answers).

The fake counts the prompt with o200k_base (plus the reply cap), not the server's
tokenizer and chat template: the limit is the same kind, the exact figure differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxlab.core.tokens import count_tokens


@dataclass(frozen=True)
class ServerRules:
    """What one server refuses or leaves out (see the module docstring)."""

    name: str
    roles: tuple[str, ...]
    string_content_roles: tuple[str, ...]
    response_formats: tuple[str, ...]
    usage_in_stream: bool
    context_window: int | None
    tools_need_named_choice: bool
    null_content_with_tool_calls: bool
    serves_any_model: bool

    def problem(self, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]] | None:
        """``(status, error body)`` the server answers ``body`` (a Chat Completions
        request) with, or None when it serves it."""
        errors = self._validation_errors(body)
        if errors:
            return 500, {"error": {"message": _validation_message(errors),
                                   "type": "internal_server_error", "param": None,
                                   "code": None}}
        if self.context_window is not None:
            requested = prompt_tokens(body) + int(body.get("max_tokens") or 16)
            if requested > self.context_window:
                prompt = requested - int(body.get("max_tokens") or 16)
                return 400, {"error": {"message": (
                    f"This model's maximum context length is {self.context_window} tokens, "
                    f"however you requested {requested} tokens ({prompt} in the messages, "
                    f"{requested - prompt} in the completion). Please reduce the length of "
                    "the messages or completion."), "type": "invalid_request_error",
                    "param": "messages", "code": "context_length_exceeded"}}
        return None

    def _validation_errors(self, body: Mapping[str, Any]) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        for n, message in enumerate(body.get("messages") or []):
            role = message.get("role")
            if role not in self.roles:
                allowed = _choices(self.roles)
                errors.append((f"body.messages.{n}.role", f"Input should be {allowed}"))
            if role in self.string_content_roles and not isinstance(message.get("content"),
                                                                    str):
                errors.append((f"body.messages.{n}.content", "Input should be a valid string"))
            if (role == "assistant" and message.get("tool_calls")
                    and message.get("content") is None and not self.null_content_with_tool_calls):
                errors.append((f"body.messages.{n}.content", "Input should be a valid string"))
        kind = (body.get("response_format") or {}).get("type")
        if kind is not None and kind not in self.response_formats:
            allowed = _choices(self.response_formats)
            errors.append(("body.response_format.type", f"Input should be {allowed}"))
        return errors

    def drops_tools(self, body: Mapping[str, Any]) -> bool:
        """True when the server ignores the request's tools."""
        choice = body.get("tool_choice")
        named = isinstance(choice, Mapping) and choice.get("type") == "function"
        return self.tools_need_named_choice and not named


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


def _choices(values: tuple[str, ...]) -> str:
    quoted = [f"'{v}'" for v in values]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _validation_message(errors: list[tuple[str, str]]) -> str:
    lines = [f"{len(errors)} validation error{'s' if len(errors) > 1 else ''}:"]
    for location, text in errors:
        lines.append(f"  {location}\n    {text}")
    return "\n".join(lines)


LLAMA_CPP_PYTHON = ServerRules(
    name="llama-cpp-python[server] 0.3.36",
    roles=("system", "user", "assistant", "tool", "function"),
    string_content_roles=("system",),
    response_formats=("text", "json_object"),
    usage_in_stream=False,
    context_window=8192,
    tools_need_named_choice=True,
    null_content_with_tool_calls=False,
    serves_any_model=True,
)

#: Rules by the name ``scripts/real_server_smoke.py --mock-rules`` takes.
RULES: dict[str, ServerRules] = {"llama-cpp-python": LLAMA_CPP_PYTHON}
