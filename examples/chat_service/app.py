"""The service: Starlette, run by uvicorn with several worker processes.

    POST /chat            {"user": "user-42", "message": "..."}
                          -> {"reply", "worker", "session_ms": {"get_items": [...],
                              "add_items": [...]}}
    GET  /history/{user}  every stored item of that user's conversation
    GET  /health

One session per user (:class:`ctxlab.SessionRegistry`), so no user ever reads another's
conversation. Configured by environment variables (``serve.py`` sets them):

* ``CHAT_STORE``: ``postgres`` (``CHAT_POSTGRES_URL``), ``redis-cluster``
  (``CHAT_REDIS_URL``, a node of the cluster) or ``redis`` (a standalone server);
* ``CHAT_LAYER``: ``ctxlab`` (a ``SummarizingSession`` over the store: the default) or
  ``sdk`` (the Agents SDK's own session on the same server, for comparison: its
  ``SQLAlchemySession``, or its ``RedisSession``, which cannot use a cluster);
* ``CHAT_KEEP`` / ``CHAT_LIMIT``: the summarizing session's ``keep_last_n_turns`` and
  ``context_limit`` (4 and 8). Folds run in the background (``background=True``): a reply
  never waits for a summary.

``session_ms`` is the time this request spent inside the session's own methods: what the
memory layer costs per turn, apart from the model (a background fold is not in it).
"""

from __future__ import annotations

import contextvars
import json
import os
import time
from contextlib import asynccontextmanager
from typing import Any

from agents import Agent, Runner, function_tool, set_tracing_disabled
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ctxlab import SessionRegistry, SummarizingSession

from .model import TicketDeskModel

set_tracing_disabled(True)  # no trace exporter: nothing leaves the machine

_timings: contextvars.ContextVar[dict[str, list[float]] | None] = contextvars.ContextVar(
    "session_timings", default=None)


class TimedSession:
    """A session that adds the time each of its methods took to the current request's
    timings (a context variable: concurrent requests never mix)."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.session_id = inner.session_id

    @property
    def session_settings(self) -> Any:
        return self.inner.session_settings

    async def _timed(self, name: str, call: Any) -> Any:
        began = time.perf_counter()
        try:
            return await call
        finally:
            found = _timings.get()
            if found is not None:
                found.setdefault(name, []).append(1000 * (time.perf_counter() - began))

    async def get_items(self, limit: int | None = None) -> Any:
        return await self._timed("get_items", self.inner.get_items(limit))

    async def add_items(self, items: Any) -> None:
        await self._timed("add_items", self.inner.add_items(items))

    async def pop_item(self) -> Any:
        return await self._timed("pop_item", self.inner.pop_item())

    async def clear_session(self) -> None:
        await self._timed("clear_session", self.inner.clear_session())


@function_tool
def lookup_ticket(ticket: str) -> str:
    """The status of a support ticket."""
    return json.dumps({"ticket": ticket, "status": "open", "queue": "hardware"})


class Backend:
    """The store clients of one worker process, made in its own event loop."""

    def __init__(self) -> None:
        self.store = os.environ.get("CHAT_STORE", "postgres")
        self.layer = os.environ.get("CHAT_LAYER", "ctxlab")
        self.keep = int(os.environ.get("CHAT_KEEP", "4"))
        self.limit = int(os.environ.get("CHAT_LIMIT", "8"))
        self.engine: Any = None
        self.client: Any = None
        if self.store == "postgres":
            from sqlalchemy.ext.asyncio import create_async_engine

            url = os.environ["CHAT_POSTGRES_URL"].replace("postgresql://",
                                                          "postgresql+asyncpg://", 1)
            self.engine = create_async_engine(url, pool_size=20, max_overflow=20)
        elif self.store == "redis-cluster":
            from redis.asyncio.cluster import RedisCluster

            self.client = RedisCluster.from_url(os.environ["CHAT_REDIS_URL"])
        elif self.store == "redis":
            import redis.asyncio as aioredis

            self.client = aioredis.from_url(os.environ["CHAT_REDIS_URL"])
        else:
            raise ValueError(f"CHAT_STORE must be postgres, redis-cluster or redis, got "
                             f"{self.store!r}")
        if self.layer not in ("ctxlab", "sdk"):
            raise ValueError(f"CHAT_LAYER must be ctxlab or sdk, got {self.layer!r}")
        if self.layer == "sdk" and self.store == "redis-cluster":
            raise ValueError("the SDK's RedisSession cannot run on a Redis Cluster (it needs "
                             "MULTI across keys); use ctxlab's RedisStore")

    def store_for(self, session_id: str) -> Any:
        """The SDK-style session that keeps ``session_id``'s items."""
        if self.store == "postgres":
            from agents.extensions.memory.sqlalchemy_session import SQLAlchemySession

            return SQLAlchemySession(session_id, engine=self.engine)  # tables: serve.py
        if self.layer == "sdk":
            from agents.extensions.memory import RedisSession

            return RedisSession(session_id, redis_client=self.client, key_prefix="chat-sdk")
        from ctxlab.stores import RedisStore

        return RedisStore(session_id, client=self.client, key_prefix="chat")

    def session_for(self, session_id: str) -> Any:
        store = self.store_for(session_id)
        if self.layer == "sdk":
            return TimedSession(store)
        return TimedSession(SummarizingSession(self.keep, self.limit, store=store,
                                               background=True))

    async def start(self) -> None:
        """Get ready before the first request: load the tokenizer (seconds, once per
        process) and connect (a burst of first requests on a cluster client that has not
        read the cluster's topology yet races inside redis-py)."""
        from ctxlab.core.tokens import get_token_counter

        get_token_counter()
        if self.client is not None:
            if hasattr(self.client, "initialize"):
                await self.client.initialize()
            await self.client.ping()

    async def aclose(self) -> None:
        if self.engine is not None:
            await self.engine.dispose()
        if self.client is not None:
            await self.client.aclose()


def create_app() -> Starlette:
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette):
        backend = Backend()
        await backend.start()
        state["backend"] = backend
        state["registry"] = SessionRegistry(backend.session_for, prefix="chat-",
                                            max_sessions=5000)
        state["agent"] = Agent(name="ticket desk", model=TicketDeskModel(),
                               instructions="Look tickets up, then answer briefly.",
                               tools=[lookup_ticket])
        yield
        await backend.aclose()

    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        user, message = body.get("user"), body.get("message")
        if not isinstance(user, str) or not isinstance(message, str) or not message:
            return JSONResponse({"error": "send {'user': str, 'message': str}"}, 400)
        try:
            session = state["registry"].session_for(user)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        timings: dict[str, list[float]] = {}
        token = _timings.set(timings)
        try:
            result = await Runner.run(state["agent"], message, session=session)
        finally:
            _timings.reset(token)
        return JSONResponse({"reply": str(result.final_output), "worker": os.getpid(),
                             "session_ms": timings})

    async def history(request: Request) -> JSONResponse:
        session = state["registry"].session_for(request.path_params["user"]).inner
        raw = getattr(session, "raw_items", None)
        items = await raw() if raw is not None else await session.get_items()
        return JSONResponse({"items": items})

    async def health(request: Request) -> JSONResponse:
        backend = state["backend"]
        return JSONResponse({"store": backend.store, "layer": backend.layer,
                             "worker": os.getpid()})

    return Starlette(routes=[Route("/chat", chat, methods=["POST"]),
                             Route("/history/{user}", history),
                             Route("/health", health)], lifespan=lifespan)


app = create_app()
