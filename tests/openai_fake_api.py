"""FakeOpenAI: an ``httpx.MockTransport`` handler that answers like the OpenAI API.

It stands in for the servers the tests cannot run: the OpenAI API, and, with
``rules=LLAMA_CPP_PYTHON`` (:mod:`openai_server_rules`), the real
``llama-cpp-python[server]`` 0.3.36 serving SmolLM2-135M, whose rules it follows as they
were seen on that server (tools dropped unless ``tool_choice`` is sent; a streamed request
with ``tool_choice="auto"`` answered 200 with an empty event stream; ``finish_reason``
``"length"`` when ``max_tokens`` cuts the reply; ``owned_by: "me"`` in ``GET /models``).
The real server and its model file are not available where the tests run, so every
"works on llama-cpp-python" claim in ctxlab's tests is a claim about this stand-in, kept
true to the server by the captured answers quoted in :mod:`openai_server_rules`.

It exists so that the Agents SDK's real model classes (``OpenAIResponsesModel``,
``OpenAIChatCompletionsModel``) run end to end: their converters build real request
bodies, and real JSON or server-sent-event replies are parsed. It serves

* ``POST /responses`` and ``POST /chat/completions``, streamed (``"stream": true``) or not;
  a streamed Chat Completions reply carries usage only when ``stream_options.include_usage``
  asks for it, as the API does;
* ``GET /models``, listing :attr:`FakeOpenAI.models`;
* anything else: 404 with an API-style error body.

Every request body is checked against the ``openai`` package's request types
(:mod:`openai_schema`) and against the sequence rules the API enforces (a tool output
needs its call, a call its output); a violation is answered with a 400 naming it and kept
in :attr:`FakeOpenAI.rejections`. A model that is not listed is answered with a 404, as
OpenAI, Ollama and vLLM do (``serve_unknown_models=True``: served anyway, as llama.cpp does).
With ``rules`` (:mod:`openai_server_rules`) it also enforces what one real server refuses
or leaves out (roles and content forms, response formats, the context window, usage in
streams, tools), answering with that server's status and error body.

What is said comes from a *brain*: by default the course's offline support model (which
calls the course's tools when asked and repeats identifiers it sees), or, when the
request asks for JSON that follows a schema (``json_schema``, or ``json_object`` with the
schema in the system prompt), the smallest JSON value that fits it.

:func:`serve_http` serves a fake on a loopback port, for clients that cannot take a
transport (a notebook kernel).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from openai import AsyncOpenAI, OpenAI
from openai.types.responses import Response
from openai_server_rules import ServerRules

from ctxlab.core.tokens import count_tokens
from ctxlab.core.validate import validate_items
from ctxlab.course.corpora import chat_to_responses
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.offline.model import stream_events, text_deltas

from openai_schema import request_problem

FAKE_BASE_URL = "http://fake-openai.test/v1"


@dataclass(frozen=True)
class BrainInput:
    """One request, API-neutral: instructions, Responses items, tool dicts, JSON schema."""

    endpoint: str
    model: str
    instructions: str | None
    items: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    json_schema: dict[str, Any] | None


@dataclass(frozen=True)
class Reply:
    """What the model says: text, or tool calls as ``(name, arguments JSON)`` pairs."""

    text: str = ""
    calls: tuple[tuple[str, str], ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None  # None: "tool_calls" or "stop", as the reply implies


def cut_at(reply: Reply, max_tokens: int | None) -> Reply:
    """``reply`` as a server sends it under a reply cap: text longer than ``max_tokens``
    (o200k_base) is cut there and ends with ``finish_reason`` ``"length"``."""
    if not max_tokens or reply.calls or count_tokens(reply.text) <= max_tokens:
        return reply
    words = reply.text.split(" ")
    low, high = 0, len(words)  # the longest run of whole words within the cap
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(" ".join(words[:middle])) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    text = " ".join(words[:low])
    return replace(reply, text=text, output_tokens=count_tokens(text), finish_reason="length")


Brain = Callable[[BrainInput], Reply]


# ---------------------------------------------------------------------------- brains


def schema_example(schema: Mapping[str, Any], defs: Mapping[str, Any] | None = None) -> Any:
    """A small JSON value that fits ``schema``: objects with every required key, empty
    arrays, minimum numbers, the first enum value or union member, strings ``"example"``."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return schema_example(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return schema_example(schema[key][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: schema_example(properties[name], defs)
                for name in schema.get("required", list(properties))}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "example"


_OFFLINE = OfflineSupportModel()


def support_brain(request: BrainInput) -> Reply:
    """The course's offline support model, or a schema example for structured output."""
    if request.json_schema is not None:
        text = json.dumps(schema_example(request.json_schema))
        return Reply(text=text, input_tokens=100, output_tokens=len(text) // 4)
    result = _OFFLINE.respond(request.instructions, request.items, request.tools)
    calls = tuple((item["name"], item["arguments"]) for item in result.output
                  if item.get("type") == "function_call")
    return Reply(result.text, calls, result.input_tokens, result.output_tokens)


# ---------------------------------------------------------------------------- the server


@dataclass
class Recorded:
    """One request the fake received: method, path, JSON body (None for GET)."""

    method: str
    path: str
    body: Any
    status: int = 200


class FakeOpenAI:
    """The handler of an ``httpx.MockTransport`` (see the module docstring).

    Args:
        models: model names the server lists and serves.
        brain: what the model says (default :func:`support_brain`).
        serve_unknown_models: serve any model name (as llama.cpp's servers do) instead of
            answering 404.
        check_schema: check request bodies against the ``openai`` request types.
    """

    def __init__(self, models: Iterable[str] = ("gpt-4.1-mini",), *, brain: Brain = support_brain,
                 serve_unknown_models: bool = False, check_schema: bool = True,
                 rules: ServerRules | None = None):
        self.models = list(models)
        self.brain = brain
        self.rules = rules
        self.serve_unknown_models = serve_unknown_models or bool(rules and rules.serves_any_model)
        self.check_schema = check_schema
        self.requests: list[Recorded] = []
        self.rejections: list[str] = []

    # -- clients on this transport --------------------------------------------------
    def async_client(self, base_url: str = FAKE_BASE_URL, api_key: str = "sk-test") -> AsyncOpenAI:
        return AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                           http_client=httpx.AsyncClient(transport=httpx.MockTransport(self)))

    def sync_client(self, base_url: str = FAKE_BASE_URL, api_key: str = "sk-test") -> OpenAI:
        return OpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                      http_client=httpx.Client(transport=httpx.MockTransport(self)))

    def bodies(self, endpoint: str) -> list[dict[str, Any]]:
        """The JSON bodies sent to ``responses`` or ``chat/completions``."""
        return [r.body for r in self.requests if r.path.endswith("/" + endpoint)]

    # -- the handler ----------------------------------------------------------------
    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        body = json.loads(request.content) if request.content else None
        record = Recorded(request.method, path, body)
        self.requests.append(record)
        response = self._route(request.method, path, body)
        record.status = response.status_code
        return response

    def _route(self, method: str, path: str, body: Any) -> httpx.Response:
        if method == "GET" and path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [
                {"id": m, "object": "model", "created": 0,
                 "owned_by": self.rules.owned_by if self.rules else "fake"}
                for m in self.models]})
        if method == "POST" and path.endswith("/responses"):
            return self._answer("responses", body)
        if method == "POST" and path.endswith("/chat/completions"):
            return self._answer("chat", body)
        return _error(404, f"Invalid URL ({method} {path})", "invalid_request_error")

    def _reject(self, status: int, message: str, code: str | None = None) -> httpx.Response:
        self.rejections.append(message)
        return _error(status, message, "invalid_request_error", code)

    def _answer(self, endpoint: str, body: Any) -> httpx.Response:
        if self.check_schema:
            problem = request_problem(endpoint, body)
            if problem is not None:
                return self._reject(400, problem)
        if endpoint == "chat" and self.rules is not None:
            refused = self.rules.problem(body)
            if refused is not None:
                status, error = refused
                self.rejections.append(error["error"]["message"])
                return httpx.Response(status, json=error)
        model = body.get("model")
        if model not in self.models and not self.serve_unknown_models:
            return _error(404, f"The model `{model}` does not exist or you do not have access "
                          "to it.", "invalid_request_error", "model_not_found")
        try:
            brain_input = (_responses_input(body) if endpoint == "responses"
                           else _chat_input(body))
        except ValueError as exc:
            return self._reject(400, str(exc))
        if endpoint == "chat" and self.rules is not None and self.rules.drops_tools(body):
            brain_input = replace(brain_input, tools=[])
        if endpoint == "chat" and self.rules is not None and self.rules.empty_stream(body):
            return httpx.Response(200, content=b"",  # llama-cpp-python: HTTP 200, no events
                                  headers={"content-type": "text/event-stream"})
        reply = self.brain(brain_input)
        if endpoint == "chat":
            reply = cut_at(reply, body.get("max_completion_tokens") or body.get("max_tokens"))
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:24]
        if endpoint == "responses":
            response = _responses_json(model, reply, digest)
            if body.get("stream"):
                events = stream_events(Response.model_validate(response))
                return _sse([(e.type, e.model_dump(mode="json", by_alias=True, exclude_unset=True))
                             for e in events], done=False)
            return httpx.Response(200, json=response)
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            usage = usage and (self.rules is None or self.rules.usage_in_stream)
            return _sse([(None, c) for c in _chat_chunks(model, reply, digest, usage)],
                        done=True)
        return httpx.Response(200, json=_chat_json(model, reply, digest))


# ---------------------------------------------------------------------------- requests


def _sequence_problem(items: Sequence[Mapping[str, Any]]) -> str | None:
    problems = [p for p in validate_items(items, check_keys=False)
                if p.code in ("orphan_output", "call_without_output", "reasoning_without_follower",
                              "duplicate_call_id", "bad_item")]
    return "; ".join(str(p) for p in problems) or None


def _responses_input(body: Mapping[str, Any]) -> BrainInput:
    raw = body.get("input", [])
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw)
    problem = _sequence_problem(items)
    if problem:
        raise ValueError(f"input is not a valid item sequence: {problem}")
    text_format = ((body.get("text") or {}).get("format") or {})
    schema = text_format.get("schema") if text_format.get("type") == "json_schema" else None
    tools = [t for t in body.get("tools", []) if t.get("type") == "function"]
    return BrainInput("responses", body["model"], body.get("instructions"), items, tools, schema)


def _chat_input(body: Mapping[str, Any]) -> BrainInput:
    messages = list(body.get("messages", []))
    instructions = None
    if messages and messages[0].get("role") == "system":
        instructions = _text(messages[0].get("content"))
        messages = messages[1:]
    items = chat_to_responses(messages, keep_system=True)
    problem = _sequence_problem(items)
    if problem:
        raise ValueError("An assistant message with 'tool_calls' must be followed by tool "
                         f"messages responding to each 'tool_call_id' ({problem})")
    response_format = body.get("response_format") or {}
    schema = ((response_format.get("json_schema") or {}).get("schema")
              if response_format.get("type") == "json_schema" else None)
    if response_format.get("type") == "json_object":  # a model that follows the prompt
        schema = _schema_in_prompt(instructions or "")
    tools = [{"type": "function", **t["function"]} for t in body.get("tools", [])
             if t.get("type") == "function"]
    return BrainInput("chat", body["model"], instructions, items, tools, schema)


def _schema_in_prompt(text: str) -> dict[str, Any] | None:
    """The JSON schema a prompt asks the reply to follow (after "JSON schema"), if any."""
    at = text.find("JSON schema")
    start = text.find("{", at) if at >= 0 else -1
    if start < 0:
        return None
    try:
        schema, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, Mapping))


# ---------------------------------------------------------------------------- replies


def _error(status: int, message: str, kind: str, code: str | None = None) -> httpx.Response:
    return httpx.Response(status, json={"error": {"message": message, "type": kind,
                                                  "param": None, "code": code}})


def _sse(events: list[tuple[str | None, Any]], *, done: bool) -> httpx.Response:
    lines = []
    for name, data in events:
        if name:
            lines.append(f"event: {name}")
        lines.append(f"data: {json.dumps(data)}")
        lines.append("")
    if done:
        lines += ["data: [DONE]", ""]
    return httpx.Response(200, content=("\n".join(lines) + "\n").encode(),
                          headers={"content-type": "text/event-stream"})


def _responses_json(model: str, reply: Reply, digest: str) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    for n, (name, arguments) in enumerate(reply.calls):
        output.append({"id": f"fc_{digest}_{n}", "type": "function_call", "status": "completed",
                       "call_id": f"call_{digest}_{n}", "name": name, "arguments": arguments})
    if not reply.calls:
        output.append({"id": f"msg_{digest}", "type": "message", "role": "assistant",
                       "status": "completed", "content": [
                           {"type": "output_text", "text": reply.text, "annotations": [],
                            "logprobs": []}]})
    return {
        "id": f"resp_{digest}", "object": "response", "created_at": 0, "model": model,
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": output,
        "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
                  "total_tokens": reply.input_tokens + reply.output_tokens,
                  "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def _chat_usage(reply: Reply) -> dict[str, int]:
    return {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens}


def _tool_calls(reply: Reply, digest: str) -> list[dict[str, Any]]:
    return [{"id": f"call_{digest}_{n}", "type": "function",
             "function": {"name": name, "arguments": arguments}}
            for n, (name, arguments) in enumerate(reply.calls)]


def _finish(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.calls else "stop")


def _chat_json(model: str, reply: Reply, digest: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = _tool_calls(reply, digest)
    return {
        "id": f"chatcmpl-{digest}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": _finish(reply)}],
        "usage": _chat_usage(reply),
    }


def _chat_chunks(model: str, reply: Reply, digest: str, usage: bool) -> list[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": f"chatcmpl-{digest}", "object": "chat.completion.chunk", "created": 0,
                "model": model, "choices": [{"index": 0, "delta": delta,
                                             "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in text_deltas(reply.text)]
    for n, call in enumerate(_tool_calls(reply, digest)):
        chunks.append(chunk({"tool_calls": [{"index": n, **call}]}))
    chunks.append(chunk({}, _finish(reply)))
    if usage:
        chunks.append({"id": f"chatcmpl-{digest}", "object": "chat.completion.chunk",
                       "created": 0, "model": model, "choices": [],
                       "usage": _chat_usage(reply)})
    return chunks


@dataclass
class ScriptedBrain:
    """A brain that says the given replies in order (then repeats the last one)."""

    replies: list[Reply]
    seen: list[BrainInput] = field(default_factory=list)

    def __call__(self, request: BrainInput) -> Reply:
        self.seen.append(request)
        return self.replies[min(len(self.seen), len(self.replies)) - 1]


# ---------------------------------------------------------------------------- over HTTP


@contextlib.contextmanager
def serve_http(fake: FakeOpenAI, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``fake`` on a free loopback port for as long as the block runs; yields its
    base URL (``http://127.0.0.1:PORT/v1``). For clients that cannot take a transport: a
    notebook's kernel, another process."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = httpx.Request(self.command, f"http://{host}{self.path}",
                                    headers=dict(self.headers.items()),
                                    content=self.rfile.read(length) if length else b"")
            response = fake(request)
            body = response.content
            self.send_response(response.status_code)
            self.send_header("content-type",
                             response.headers.get("content-type", "application/json"))
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
