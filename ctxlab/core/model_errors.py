"""One translation for every model call ctxlab makes: an ``openai`` error becomes an error
that names the URL, the model, the server's limit and what to do.

The agent (:class:`~ctxlab.course.server_check.CompatibleChatModel`), ``LLMSummarizer``,
``LLMStateExtractor`` and ``SummaryJudge`` all pass what the ``openai`` client raised
through :func:`translate_error`:

* no answer (connection refused, DNS, timeout): the URL, the reason, and "is the server
  running? does the URL end in /v1?";
* 404: the model is not served (Ollama and vLLM answer 404 for an unknown name) or the URL
  lacks ``/v1``;
* 401/403: the server wants an API key;
* a request that does not fit the model's context window (OpenAI, vLLM and
  ``llama-cpp-python``: "maximum context length is 8192 tokens ... requested 9238";
  llama.cpp's ``llama-server``: "request (9238 tokens) exceeds the available context size
  (8192 tokens)"): a :class:`ContextOverflowError` with both figures and
  :data:`CONTEXT_ADVICE`;
* a ``response_format`` or a message form the server does not support (read from the
  refused request: ``content: null`` next to ``tool_calls``, a ``developer`` message, list
  content in a ``system`` message), and any other 4xx/5xx answer: the status, the server's
  own words (shortened) and what it means.

Every translated error is a :class:`ModelCallError` (``CompatibleServerError`` is its old
name); the ``openai`` error stays reachable as ``__cause__``. ``limit`` names the server's
limit when the answer reveals one, so a caller (the smoke script, a lesson) can tell "the
server cannot do this" from a bug.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlparse

#: The two questions to ask first when a compatible server cannot be reached.
REACH_HINT = "is the server running? does the URL end in /v1?"

#: What to do when a request does not fit the model's context window (the README's advice).
CONTEXT_ADVICE = (
    "give the model at least 16k tokens of context (llama.cpp: llama-server -c 16384; "
    "llama-cpp-python: --n_ctx 16384; vLLM: --max-model-len 16384; Ollama: "
    "OLLAMA_CONTEXT_LENGTH=16384 ollama serve), or send less: keep the history short with "
    "a memory strategy (TrimmingSession, SummarizingSession, or ContextManager(max_tokens=...) "
    "below the window), or lower the reply cap (CTXLAB_MAX_TOKENS)"
)

#: Paths people paste instead of the API root, and what they are.
_ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/responses", "/models")


class ModelCallError(RuntimeError):
    """A model call failed; the message says where, with which model, and what to check.

    Attributes:
        url: the endpoint that failed (``.../chat/completions`` or ``.../responses``).
        hints: the checks suggested, in order.
        model: the model name sent (None when unknown).
        status: the HTTP status of the answer (None when none came back).
        limit: the server's limit the answer revealed (None when it revealed none).
        caller: what made the call (``"agent"``, ``"LLMSummarizer"``, ...).
    """

    def __init__(self, message: str, url: str, hints: tuple[str, ...] = (), *,
                 model: str | None = None, status: int | None = None,
                 limit: str | None = None, caller: str | None = None):
        super().__init__(message)
        self.url = url
        self.hints = tuple(hints)
        self.model = model
        self.status = status
        self.limit = limit
        self.caller = caller


#: The name this error had before every model call was translated (kept working).
CompatibleServerError = ModelCallError


class ContextOverflowError(ModelCallError):
    """The request did not fit the model's context window.

    ``context_window`` is the server's limit in tokens and ``requested`` what the request
    needed (its prompt plus the reply cap), each None when the server did not say.
    """

    def __init__(self, message: str, url: str, hints: tuple[str, ...] = (), *,
                 context_window: int | None = None, requested: int | None = None,
                 **kwargs: Any):
        super().__init__(message, url, hints, **kwargs)
        self.context_window = context_window
        self.requested = requested


# ---------------------------------------------------------------------------- URLs


def url_problem(base_url: str) -> str | None:
    """Why ``base_url`` cannot be a server's API root, or None when it can."""
    if not isinstance(base_url, str) or not base_url.strip():
        return f"the base URL must be a non-empty string, got {base_url!r}"
    parsed = urlparse(base_url.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return (f"OPENAI_BASE_URL={base_url!r} has no http:// or https:// scheme; write it "
                f"in full, e.g. http://{base_url.strip().lstrip('/')}")
    path = parsed.path.rstrip("/")
    for suffix in _ENDPOINT_SUFFIXES:
        if path.endswith(suffix):
            root = base_url.strip().rstrip("/")[: -len(suffix)]
            return (f"OPENAI_BASE_URL={base_url!r} ends in {suffix}, an endpoint; give the API "
                    f"root instead ({root}): the client adds {suffix} itself")
    return None


def url_hints(base_url: str) -> tuple[str, ...]:
    """The checks worth suggesting for ``base_url`` when a request to it fails."""
    hints = ["is the server running?"]
    problem = url_problem(base_url)
    if problem is not None:
        hints.append(problem)
    elif not urlparse(base_url.strip()).path.rstrip("/").endswith("/v1"):
        hints.append(f"does the URL end in /v1? {base_url!r} does not; most servers serve "
                     "the API under /v1 (Ollama: http://localhost:11434/v1)")
    else:
        hints.append("does the URL end in /v1? it does")
    return tuple(hints)


def endpoint_url(client: Any, api: str) -> str:
    """The URL a call of ``api`` (``"responses"`` or ``"chat"``) on ``client`` goes to."""
    base = str(getattr(client, "base_url", "") or "").rstrip("/")
    return f"{base}/{'responses' if api == 'responses' else 'chat/completions'}"


def _base_of(url: str) -> str:
    for suffix in ("/chat/completions", "/responses"):
        if url.endswith(suffix):
            return url[: -len(suffix)]
    return url


# ---------------------------------------------------------------------------- reading answers


def exception_reason(exc: BaseException) -> str:
    """The first useful line of ``exc`` (a bare "Connection error." gives its cause's)."""
    while exc.__cause__ is not None and str(exc) in ("", "Connection error."):
        exc = exc.__cause__
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


def _error_body(exc: Any) -> dict[str, Any]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            return error
        if isinstance(error, str):
            return {"message": error}
    return {}


def api_message(exc: Any, width: int = 300) -> str:
    """What the server said in an error answer (its ``error.message`` or ``detail``),
    on one line and at most ``width`` characters."""
    error = _error_body(exc)
    text = error.get("message") or error.get("detail") or str(exc)
    if not isinstance(text, str):
        text = str(text)
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


_WINDOW_PATTERNS = (
    # OpenAI, vLLM, llama-cpp-python: "maximum context length is 8192 tokens, however you
    # requested 9238 tokens" / "... However, your messages resulted in 9238 tokens"
    re.compile(r"maximum context length is (?P<window>\d+) tokens.*?"
               r"(?:requested|resulted in) (?P<requested>\d+) tokens", re.I | re.S),
    # llama.cpp llama-server: "request (9238 tokens) exceeds the available context size
    # (8192 tokens)"
    re.compile(r"request \((?P<requested>\d+) tokens\) exceeds the available context size "
               r"\((?P<window>\d+) tokens\)", re.I),
    # llama-cpp-python's own wording before its server rewrites it
    re.compile(r"Requested tokens \((?P<requested>\d+)\) exceed context window of "
               r"(?P<window>\d+)", re.I),
    re.compile(r"maximum context length is (?P<window>\d+) tokens", re.I),
)
_OVERFLOW_CODES = ("context_length_exceeded", "exceed_context_size_error")
_OVERFLOW_WORDS = re.compile(
    r"context (?:length|window|size)[^.]{0,40}exceed|exceeds? (?:the )?(?:available )?"
    r"context|maximum context length|context_length_exceeded|too many tokens", re.I)


def context_overflow(exc: Any) -> tuple[int | None, int | None] | None:
    """``(context window, requested tokens)`` when ``exc`` says the request did not fit the
    model's context window (either figure None when the server did not give it), else None."""
    error = _error_body(exc)
    text = api_message(exc, width=2000)
    for pattern in _WINDOW_PATTERNS:
        found = pattern.search(text)
        if found:
            fields = found.groupdict()
            requested = fields.get("requested")
            return int(fields["window"]), int(requested) if requested else None
    window = error.get("n_ctx")
    requested = error.get("n_prompt_tokens")
    if error.get("code") in _OVERFLOW_CODES or error.get("type") in _OVERFLOW_CODES or \
            _OVERFLOW_WORDS.search(text):
        return (window if isinstance(window, int) else None,
                requested if isinstance(requested, int) else None)
    return None


def rejects_response_format(exc: Any) -> bool:
    """True when ``exc`` is a server's refusal of the request's ``response_format`` (for
    example ``llama-cpp-python[server]``: HTTP 500, "Input should be 'text' or
    'json_object'"), as opposed to a failure of the request itself."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422, 500, 501):
        return False
    text = api_message(exc, width=4000).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _request_body(exc: Any) -> dict[str, Any]:
    request = getattr(exc, "request", None)
    try:
        body = json.loads(request.content) if request is not None else None
    except (ValueError, TypeError, AttributeError):
        return {}
    return body if isinstance(body, dict) else {}


#: Message forms some servers refuse, the limit each names, and what it means.
TOOL_HISTORY_LIMIT = "no tool-call history (an assistant message with content null and tool_calls)"


def request_form_limit(exc: Any) -> tuple[str, str] | None:
    """``(limit, what)`` when ``exc`` is a server's refusal of a message form the request
    holds (its answer reads like a validation error: "Input should be ..."): an assistant
    message with ``content: null`` next to ``tool_calls`` (what the Agents SDK sends after
    every tool call), a ``developer`` message, or list content in a ``system`` message."""
    if getattr(exc, "status_code", None) not in (400, 422, 500):
        return None
    text = api_message(exc, width=10_000)
    if "Input should be" not in text and "validation error" not in text:
        return None
    messages = [m for m in _request_body(exc).get("messages") or [] if isinstance(m, dict)]
    if any(m.get("role") == "assistant" and m.get("tool_calls") and m.get("content") is None
           for m in messages):
        return (TOOL_HISTORY_LIMIT,
                "an assistant message with content null and tool_calls, which the Agents SDK "
                "sends after every tool call, so the agent cannot use tools on this server; "
                "use a server that takes it (Ollama, vLLM, llama-server --jinja)")
    if any(m.get("role") == "developer" for m in messages):
        return ("no developer role", "a message with the developer role; send such notes as "
                "a system message with string content")
    if any(m.get("role") == "system" and not isinstance(m.get("content"), str)
           for m in messages):
        return ("system content must be a string", "a system message whose content is a "
                "list of parts; send it as one string")
    return None


# ---------------------------------------------------------------------------- translating


def translate_error(exc: BaseException, *, url: str, model: str | None,
                    caller: str = "model call") -> ModelCallError | None:
    """The :class:`ModelCallError` to raise instead of ``exc``, an error the ``openai``
    client raised for a request to ``url`` (an endpoint) with ``model``; None when ``exc``
    is not an API error (a bug stays a bug)."""
    import openai

    base = _base_of(url)
    who = f"{caller} ({model})" if model else caller
    common = {"model": model, "caller": caller}
    if isinstance(exc, openai.APITimeoutError):
        return ModelCallError(
            f"{who}: {url} did not answer in time ({exception_reason(exc)}); a model on a "
            "CPU can take minutes for a long request: raise the client's timeout, lower the "
            "reply cap (CTXLAB_MAX_TOKENS) or send less history", url,
            ("is the server busy or the model too slow for this request?",), **common)
    if isinstance(exc, openai.APIConnectionError):
        hints = url_hints(base)
        return ModelCallError(f"cannot reach {url} ({exception_reason(exc)}): "
                              f"{'; '.join(hints)}", url, hints, **common)
    if not isinstance(exc, openai.APIStatusError):
        return None
    status = exc.status_code
    detail = api_message(exc)
    overflow = context_overflow(exc)
    if overflow is not None:
        return _overflow_error(url, who, status, detail, overflow, common)
    if status == 404:
        hints = url_hints(base)
        return ModelCallError(
            f"{url} answered 404 Not Found ({detail}). Check that the server serves "
            f"CTXLAB_MODEL={model!r} (GET {base}/models lists what it serves) and: "
            f"{'; '.join(hints[1:])}", url, hints, status=status, **common)
    if status in (401, 403):
        return ModelCallError(
            f"{url} answered {status} to {who} ({detail}): the server wants an API key; set "
            "OPENAI_API_KEY to it", url, ("set OPENAI_API_KEY",), status=status, **common)
    if status == 429:
        return ModelCallError(
            f"{url} answered 429 to {who} ({detail}): rate limit or quota reached; wait and "
            "run again, or make fewer calls at once", url, ("wait and retry",), status=status,
            **common)
    if rejects_response_format(exc):
        limit = "no structured output (response_format json_schema)"
        return ModelCallError(
            f"{url} answered {status} to {who}: the server does not support this "
            f"response_format (server limit: {limit}). It said: {detail}", url,
            ("use a server that supports response_format json_schema (vLLM, Ollama 0.5+, "
             "llama-server)",), status=status, limit=limit, **common)
    form = request_form_limit(exc)
    if form is not None:
        limit, what = form
        return ModelCallError(
            f"{url} answered {status} to {who}: the server refuses {what} (server limit: "
            f"{limit}). It said: {detail}", url, (what,), status=status, limit=limit, **common)
    if status >= 500:
        return ModelCallError(
            f"{url} answered {status} to {who}: the server failed on this request. Local "
            "servers answer 500 to requests they cannot read (a message role, a content "
            "form or an option they do not support; see the README, 'Using a real model'). "
            f"It said: {detail}", url, ("read the server's log",), status=status, **common)
    return ModelCallError(f"{url} rejected the request of {who} with {status}: {detail}", url,
                          ("read the server's message",), status=status, **common)


def _overflow_error(url: str, who: str, status: int, detail: str,
                    overflow: tuple[int | None, int | None],
                    common: dict[str, Any]) -> ContextOverflowError:
    window, requested = overflow
    sizes = (f"the server's context window is {window:,} tokens" if window
             else "the server's context window is smaller than this request")
    if requested:
        sizes += f" and this request needs {requested:,} (its prompt plus the reply cap)"
    limit = f"context window of {window:,} tokens" if window else "context window"
    return ContextOverflowError(
        f"{who}: the request does not fit the model's context window ({url} answered "
        f"{status}; server limit: {limit}): {sizes}. What to do: {CONTEXT_ADVICE}. "
        f"The server said: {detail}", url, (CONTEXT_ADVICE,), context_window=window,
        requested=requested, status=status, limit=limit, **common)
