"""Call an ``openai`` client's create method the right way, sync or async.

``AsyncOpenAI``'s methods are wrapped, so ``inspect.iscoroutinefunction`` cannot tell them
from a sync client's: decide by the client's type, run a sync client in a worker thread
(so the event loop keeps serving other sessions), and await whatever is awaitable.

:class:`ModelCaller` is what ``LLMSummarizer``, ``LLMStateExtractor`` and ``SummaryJudge``
share: :meth:`ModelCaller.call` translates every API error
(:func:`~ctxlab.core.model_errors.translate_error`), and :meth:`ModelCaller.ask_json` asks
for structured output, falling back from ``json_schema`` to ``json_object`` with the schema
in the prompt on a server that supports only the latter (``llama-cpp-python[server]``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlparse

from .model_errors import ModelCallError, endpoint_url, rejects_response_format, translate_error


def is_async_client(client: Any) -> bool:
    """True for ``openai.AsyncOpenAI`` (and subclasses such as ``AsyncAzureOpenAI``)."""
    try:
        from openai import AsyncOpenAI
    except ImportError:  # pragma: no cover - openai is a dependency
        return False
    return isinstance(client, AsyncOpenAI)


async def call_create(client: Any, create: Callable[..., Any], **kwargs: Any) -> Any:
    """``create(**kwargs)`` for ``client``'s create method, awaited when needed."""
    if is_async_client(client) or inspect.iscoroutinefunction(create):
        response = create(**kwargs)
    else:
        response = await asyncio.to_thread(create, **kwargs)
    if inspect.isawaitable(response):
        response = await response
    return response


Api = Literal["auto", "responses", "chat"]
JsonMode = Literal["json_schema", "json_object"]

#: Appended to the system prompt when the schema travels in the prompt (``json_object``).
SCHEMA_IN_PROMPT = (
    "\n\nReply with one JSON object and nothing else: no prose, no code fence. It must follow "
    "this JSON schema exactly (every listed key present, no other keys):\n{schema}"
)

#: The server limit named when a structured reply could only be asked for in the prompt.
JSON_OBJECT_LIMIT = ("no response_format json_schema (the schema travelled in the prompt "
                     "with json_object, and the reply was checked here)")


#: Named when a structured reply was cut at the token cap, not malformed by the model.
CUT_AT_MAX_TOKENS = "the reply was cut at max_tokens (finish_reason \"length\")"


def finish_reason(response: Any) -> str | None:
    """Why a reply ended: Chat Completions' first choice's ``finish_reason``; a Responses
    reply that stopped at ``max_output_tokens`` counts as ``"length"``."""
    choices = getattr(response, "choices", None)
    if choices:
        return getattr(choices[0], "finish_reason", None)
    details = getattr(response, "incomplete_details", None)
    if getattr(details, "reason", None) == "max_output_tokens":
        return "length"
    return None


class StructuredOutputError(ValueError):
    """A structured reply that is not what the schema asks for.

    ``limit`` names the server's limit when the server could not be made to follow the
    schema (it supports only ``json_object``), None when it was asked with ``json_schema``.
    """

    def __init__(self, message: str, *, limit: str | None = None):
        super().__init__(message)
        self.limit = limit


def _positive(label: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{label} must be a positive integer, got {value!r}")
    return value


class ModelCaller:
    """What LLMSummarizer, LLMStateExtractor and SummaryJudge share: an ``openai`` client,
    a model, an output-token cap, a tool-output trim limit, and which API to speak.

    ``api="auto"`` speaks the Responses API to api.openai.com and Chat Completions to any
    other ``base_url`` (which is what OpenAI-compatible servers implement).
    """

    def __init__(self, client: Any, model: str, *, api: Api, max_tokens: int,
                 tool_trim_limit: int, json_mode: JsonMode = "json_schema"):
        if client is None:
            raise ValueError(f"{type(self).__name__} needs an openai client "
                             "(OpenAI() or AsyncOpenAI())")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must be a non-empty string, got {model!r}")
        if api not in ("auto", "responses", "chat"):
            raise ValueError(f"api must be 'auto', 'responses' or 'chat', got {api!r}")
        self.client = client
        self.model = model
        self.api: Api = api
        self.max_tokens = _positive("max_tokens", max_tokens)
        self.tool_trim_limit = _positive("tool_trim_limit", tool_trim_limit)
        if json_mode not in ("json_schema", "json_object"):
            raise ValueError(f"json_mode must be 'json_schema' or 'json_object', got {json_mode!r}")
        #: How structured output is asked for over Chat Completions: ``"json_schema"`` (the
        #: server constrains the reply) or ``"json_object"`` (the schema travels in the
        #: prompt and the reply is validated here). It turns to ``"json_object"`` by itself
        #: when a server refuses ``json_schema`` and accepts ``json_object``.
        self.json_mode: JsonMode = json_mode
        #: Why the last reply ended (``"length"``: cut at :attr:`max_tokens`), when known.
        self.last_finish_reason: str | None = None

    def resolved_api(self) -> Literal["responses", "chat"]:
        """The API this caller speaks (see the class docstring for ``"auto"``)."""
        if self.api != "auto":
            return self.api
        host = urlparse(str(getattr(self.client, "base_url", "") or "")).hostname or ""
        return "responses" if host in ("", "api.openai.com") else "chat"

    def create_method(self) -> Callable[..., Any]:
        """The client's create method for :meth:`resolved_api`."""
        if self.resolved_api() == "responses":
            return self.client.responses.create
        return self.client.chat.completions.create

    # -- calls ----------------------------------------------------------------------
    def endpoint(self) -> str:
        """The URL this caller's requests go to."""
        return endpoint_url(self.client, self.resolved_api())

    async def call(self, **kwargs: Any) -> Any:
        """``create(**kwargs)`` on the client; an API error is raised as a
        :class:`~ctxlab.core.model_errors.ModelCallError` naming the URL, the model and
        what to do (its ``__cause__`` is the ``openai`` error)."""
        try:
            return await call_create(self.client, self.create_method(), **kwargs)
        except Exception as exc:
            error = translate_error(exc, url=self.endpoint(), model=self.model,
                                    caller=type(self).__name__)
            if error is None:
                raise
            raise error from exc

    def json_request(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                     name: str, *, mode: JsonMode | None = None) -> dict[str, Any]:
        """The keyword arguments of a structured-output call (no call is made): Responses
        ``text.format`` json_schema; Chat Completions ``response_format`` json_schema, or
        in ``json_object`` mode (default: :attr:`json_mode`) json_object with the schema
        appended to the system message (string content: every server takes it)."""
        if self.resolved_api() == "responses":
            return {"model": self.model, "input": messages, "max_output_tokens": self.max_tokens,
                    "text": {"format": {"type": "json_schema", "name": name, "schema": schema,
                                        "strict": True}}}
        if (mode or self.json_mode) == "json_schema":
            return {"model": self.model, "messages": messages, "max_tokens": self.max_tokens,
                    "response_format": {"type": "json_schema", "json_schema": {
                        "name": name, "schema": schema, "strict": True}}}
        text = SCHEMA_IN_PROMPT.format(schema=json.dumps(schema, ensure_ascii=False))
        first, rest = messages[0], messages[1:]
        if first.get("role") == "system" and isinstance(first.get("content"), str):
            prompted = [{"role": "system", "content": first["content"] + text}, *rest]
        else:
            prompted = [{"role": "system", "content": text.strip()}, *messages]
        return {"model": self.model, "messages": prompted, "max_tokens": self.max_tokens,
                "response_format": {"type": "json_object"}}

    async def ask_json(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                       name: str) -> str:
        """The text of a structured reply. Over Chat Completions a server that refuses
        ``json_schema`` (and accepts ``json_object``) is asked again with the schema in the
        prompt, and :attr:`json_mode` remembers that; a server that refuses both raises a
        :class:`~ctxlab.core.model_errors.ModelCallError` naming that limit."""
        try:
            response = await self.call(**self.json_request(messages, schema, name))
        except ModelCallError as exc:
            if (self.resolved_api() != "chat" or self.json_mode != "json_schema"
                    or not rejects_response_format(exc.__cause__)):
                raise
            try:
                response = await self.call(**self.json_request(messages, schema, name,
                                                               mode="json_object"))
            except ModelCallError as again:
                if not rejects_response_format(again.__cause__):
                    raise
                limit = "no structured output (neither json_schema nor json_object)"
                raise ModelCallError(
                    f"{self.endpoint()} refuses both response_format json_schema and "
                    f"json_object (server limit: {limit}); {type(self).__name__} needs one of "
                    "them: use a server that supports structured output (vLLM, Ollama 0.5+, "
                    "llama-server)", self.endpoint(), model=self.model, status=again.status,
                    limit=limit, caller=type(self).__name__) from again
            self.json_mode = "json_object"
        return self.reply_text(response)

    def reply_text(self, response: Any) -> str:
        """The text of a reply (Responses ``output_text``, or the first choice's content);
        a refusal or a reply with no choices raises a ValueError naming this caller."""
        self.last_finish_reason = finish_reason(response)
        if self.resolved_api() == "responses":
            return getattr(response, "output_text", "") or ""
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise ValueError(f"{type(self).__name__} ({self.model}): the model returned no "
                             "choices")
        message = choices[0].message
        if getattr(message, "refusal", None):
            raise ValueError(f"{type(self).__name__} ({self.model}): the model refused: "
                             f"{message.refusal}")
        return message.content or ""

    def invalid_reply(self, what: str, problem: str) -> StructuredOutputError:
        """The error for a reply that is not a valid ``what``; in ``json_object`` mode it
        names the server's limit (the schema could only be asked for in the prompt). A reply
        cut at the token cap (``finish_reason`` ``"length"``) says so, and how to raise it:
        the model may well have followed the schema."""
        if self.last_finish_reason == "length":
            return StructuredOutputError(
                f"{type(self).__name__} ({self.model}): the reply was cut at max_tokens="
                f"{self.max_tokens} (finish_reason \"length\") before the {what} was complete; "
                f"raise the cap: {type(self).__name__}(..., max_tokens=N) with N above "
                f"{self.max_tokens}, or send less so that a shorter reply fits: {problem}",
                limit=CUT_AT_MAX_TOKENS)
        if self.resolved_api() == "chat" and self.json_mode == "json_object":
            return StructuredOutputError(
                f"{type(self).__name__} ({self.model}): the reply is not a valid {what} "
                f"(server limit: {JSON_OBJECT_LIMIT}; the model did not follow the schema: "
                "a 7B-or-larger instruct model usually does, or use a server that supports "
                f"json_schema): {problem}", limit=JSON_OBJECT_LIMIT)
        return StructuredOutputError(f"{type(self).__name__} ({self.model}): the reply is "
                                     f"not a valid {what}: {problem}")


def json_text(text: str) -> str:
    """``text`` without surrounding whitespace or a Markdown code fence (```json ... ```),
    which models asked for JSON in the prompt often add."""
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        if text.rstrip().endswith("```"):
            text = text.rstrip()[:-3]
    return text.strip()
