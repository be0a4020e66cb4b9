"""ContextManager: assemble every model call under a hard token budget.

Order of what the model sees (the instructions travel separately, first):

1. the stored **preamble** (developer notes before the first user message), if any;
2. **structured state** (one developer message, from a state source);
3. the **early summary** (a summary pair a summarizing session put in its view, or one
   passed in);
4. the **recent turns**, oldest first, whole;
5. **retrieved memory** (one developer message of recalled history);
6. the **new user input** last, followed inside a tool loop by the calls and outputs the
   run has produced since (the *current turn*).

When the request is over budget, things go in this order until it fits:

1. retrieved memory, least relevant block first;
2. with ``role_aware=True``: turns older than the newest ``protect_recent_turns`` are
   shortened, oldest first (user inputs kept, assistant replies cut to their first
   sentences, tool outputs as structured previews, reasoning removed), and then dropped,
   oldest first; the protected turns are shortened (and dropped) only if they alone
   overflow;
3. the oldest recent turns, whole (a tool call never loses its output);
4. the early summary, then the structured state.

The instructions, the tool schemas, the preamble and the current turn are never dropped.
If they alone exceed the budget, the current turn's bulky tool outputs are shown as
previews (this call only) as a last resort, and ``dropped`` says so; if that is not enough,
the call is sent anyway with nothing else, and a
:class:`~ctxlab.context.ContextBudgetWarning` says why.

These are ordered, pure steps over a draft of the call (:mod:`ctxlab.context.budget`);
:mod:`ctxlab.context.assemble` puts the result in order and counts it.

Token counts are exact (o200k_base) and honest: the instructions (plus per-item overhead)
and the JSON schema of every tool offered count too, exactly as
:func:`ctxlab.core.tokens.count_request_tokens` counts a request.

A state or retrieval source that raises does not fail the call: it goes without that
section, and the error is logged and kept in :attr:`ContextManager.source_errors`.

Use :meth:`ContextManager.assemble` on plain lists, or pass the manager as
``RunConfig(call_model_input_filter=manager)`` so it runs before **every** model call,
including the calls inside one run's tool loop.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.checks import check_int
from ..core.items import content_text
from ..core.memory_frame import is_memory_block, with_memory_notice
from ..core.tokens import TokenCounter
from ..facts.instructions import flag_text
from ..facts.language import language_of
from ..summarizers.base import SUMMARY_SHADOW_PROMPT
from .assemble import assemble_call, labelled_items
from .assembled import AssembledContext
from .budget import Rules, fit
from .compaction import ToolOutputCompactor
from .counting import RequestCounter
from .sources import (
    RetrievalSource,
    RetrievedBlock,
    RetrievedValue,
    StateSource,
    StateValue,
    as_blocks,
    resolve,
    state_item,
)
from .split import (
    ListTurns,
    ModelInputParts,
    TurnSource,
    split_by_layout,
    split_model_input,
    split_tail,
)

if TYPE_CHECKING:
    from agents import RunConfig
    from agents.run_config import CallModelData, ModelInputData

Item = Mapping[str, Any]

logger = logging.getLogger("ctxlab.context")


def _as_items(value: Any, label: str) -> list[Item]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, Mapping):
        return [value]
    if isinstance(value, bytes) or not isinstance(value, Sequence):
        raise ValueError(
            f"{label} must be a str, an item or a list of items, got {type(value).__name__}"
        )
    for n, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise ValueError(f"{label} item {n} must be a dict, got {type(item).__name__}")
    return list(value)


def summary_pair(text: str, prompt: str = SUMMARY_SHADOW_PROMPT) -> list[dict[str, Any]]:
    """A summary as the user -> assistant pair a summarizing session shows (plain-text
    messages: the form both SDK model classes accept), its instruction-like lines flagged."""
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": flag_text(text)}]


async def agent_tools(agent: Any, context: Any = None) -> list[Any]:
    """The tools a model call for ``agent`` offers: its tools (MCP included) and handoffs.

    Handoffs are sent to the model as function tools, so they count; each is described
    by its tool name, description and input schema.
    """
    from agents import Agent, Handoff, RunContextWrapper, handoff

    tools: list[Any] = list(await agent.get_all_tools(RunContextWrapper(context=context)))
    for entry in getattr(agent, "handoffs", []) or []:
        spec = (
            entry
            if isinstance(entry, Handoff)
            else handoff(entry)
            if isinstance(entry, Agent)
            else None
        )
        if spec is not None:
            tools.append(
                {
                    "type": "function",
                    "name": spec.tool_name,
                    "description": spec.tool_description,
                    "parameters": spec.input_json_schema,
                }
            )
    return tools


class ContextManager:
    """Build each model call from its sections and keep it under ``max_tokens``.

    Args:
        max_tokens: the hard budget for the whole request (instructions, tool schemas,
            items), in exact o200k_base tokens.
        state: a state source (a callable returning a message, a text or None; may be
            async), such as a :class:`~ctxlab.memory.StateMemory`; called before each call.
        retriever: a retrieval source (a callable taking the new input's text and returning
            :class:`~ctxlab.context.RetrievedBlock` s, most relevant first; may be async),
            such as a :class:`~ctxlab.memory.Recall`.
        compactor: a :class:`~ctxlab.context.compaction.ToolOutputCompactor`: older bulky tool
            outputs become previews (in this call only), turn by turn as turns are counted.
        role_aware: shorten older turns (see the module docstring) before dropping them.
        protect_recent_turns: with ``role_aware``, how many of the newest earlier turns stay
            verbatim while older ones are shortened or dropped.
        assistant_max_tokens: with ``role_aware``, the length an older assistant reply is
            cut to.
        tools: the tool schemas to count; None (the default) asks the agent in filter mode
            and counts none in :meth:`assemble` unless given there.
        summary_prompts: texts that mark a summary request in input that does not come
            from a ctxlab session (see :func:`~ctxlab.context.split_model_input`).
        session: the ctxlab session the Runner reads history from: its served layout
            (:meth:`~ctxlab.MemorySession.served_layout`) says which items are the
            preamble, the summary pair and which turn, so nothing is re-parsed.
        counter: the token counter (o200k_base by default).
        on_assemble: called with every :class:`AssembledContext` (for logs and plots).
        keep_last: how many results :attr:`calls` remembers.
    """

    def __init__(
        self,
        max_tokens: int,
        *,
        state: StateSource | None = None,
        retriever: RetrievalSource | None = None,
        compactor: ToolOutputCompactor | None = None,
        role_aware: bool = False,
        protect_recent_turns: int = 1,
        assistant_max_tokens: int = 60,
        tools: Sequence[Any] | None = None,
        summary_prompts: Iterable[str] = (),
        session: Any = None,
        counter: TokenCounter | None = None,
        on_assemble: Callable[[AssembledContext], Any] | None = None,
        keep_last: int = 256,
    ):
        self.max_tokens = check_int("max_tokens", max_tokens)
        for label, source in (
            ("state", state),
            ("retriever", retriever),
            ("on_assemble", on_assemble),
        ):
            if source is not None and not callable(source):
                raise ValueError(f"{label} must be callable or None, got {type(source).__name__}")
        if compactor is not None and not isinstance(compactor, ToolOutputCompactor):
            raise ValueError(f"compactor must be a ToolOutputCompactor or None, got {compactor!r}")
        self.state = state
        self.retriever = retriever
        self.compactor = compactor
        self.role_aware = bool(role_aware)
        self.protect_recent_turns = check_int("protect_recent_turns", protect_recent_turns,
                                              minimum=0)
        self.assistant_max_tokens = check_int("assistant_max_tokens", assistant_max_tokens)
        if tools is not None and (
            isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence)
        ):
            raise ValueError(f"tools must be a list of tools or None, got {type(tools).__name__}")
        self.tools = None if tools is None else list(tools)
        self.summary_prompts = tuple(summary_prompts)
        self.session = session
        self.counter = RequestCounter(counter)
        self.on_assemble = on_assemble
        self.calls: deque[AssembledContext] = deque(maxlen=check_int("keep_last", keep_last))
        #: Errors raised by the state or retrieval source (the call went on without it).
        self.source_errors: deque[str] = deque(maxlen=100)
        self._last_resort: ToolOutputCompactor | None = None

    def __repr__(self) -> str:
        extras = [f"max_tokens={self.max_tokens}"]
        if self.role_aware:
            extras.append("role_aware=True")
        for label in ("state", "retriever", "compactor"):
            if getattr(self, label) is not None:
                extras.append(f"{label}={getattr(self, label)!r}")
        return f"ContextManager({', '.join(extras)})"

    @property
    def last(self) -> AssembledContext | None:
        """The most recent assembled call, if any."""
        return self.calls[-1] if self.calls else None

    # -- the SDK filter ---------------------------------------------------------------
    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """``RunConfig.call_model_input_filter``: assemble the model input of this call."""
        model_data = data.model_data
        tools = (
            self.tools if self.tools is not None else await agent_tools(data.agent, data.context)
        )
        result = await self.assemble_input(
            model_data.input,
            instructions=model_data.instructions,
            tools=tools,  # type: ignore[arg-type]
        )
        return result.model_input()

    def run_config(self, **kwargs: Any) -> RunConfig:
        """A ``RunConfig`` with this manager as its ``call_model_input_filter``."""
        from agents import RunConfig

        if "call_model_input_filter" in kwargs:
            raise ValueError(
                "run_config sets call_model_input_filter itself; compose filters first"
            )
        return RunConfig(call_model_input_filter=self, **kwargs)

    async def assemble_input(
        self,
        items: Sequence[Item],
        *,
        instructions: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> AssembledContext:
        """Assemble a model input as the Runner passes it (history + new input + run items),
        pulling structured state and retrieved memory from the configured sources."""
        if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
            raise ValueError(f"items must be a list of items, got {type(items).__name__}")
        parts, source = self._split(items)
        state = await self._state(parts.current)
        blocks = await self._retrieve(parts.new_input_text)
        return self._build(parts, instructions, self._tools(tools), state, blocks, source)

    # -- plain use --------------------------------------------------------------------
    def assemble(
        self,
        new_input: str | Item | Sequence[Item] | None = None,
        *,
        history: Sequence[Item] = (),
        instructions: str | None = None,
        tools: Sequence[Any] | None = None,
        state: StateValue = None,
        summary: str | Sequence[Item] | None = None,
        retrieved: RetrievedValue = None,
    ) -> AssembledContext:
        """Assemble one call from explicit parts (no sources are called).

        ``new_input`` is the user's message (a string, an item, or the items of the current
        turn); ``history`` the earlier items (a preamble and a summary pair in it are
        recognized); ``summary`` a summary text (shown as a summary pair) or pair;
        ``state`` a message, a text or None; ``retrieved`` blocks or texts, most relevant
        first.
        """
        hist = _as_items(history, "history")
        current = _as_items(new_input, "new_input")
        parts = split_model_input(
            hist, summary_prompts=self.summary_prompts, has_new_input=False
        )
        summary_items = parts.summary
        if summary is not None:
            summary_items = (
                summary_pair(summary) if isinstance(summary, str) else _as_items(summary, "summary")
            )
        parts = ModelInputParts(parts.preamble, summary_items, parts.turns, current)
        return self._build(
            parts, instructions, self._tools(tools), state_item(state), as_blocks(retrieved)
        )

    # -- internals --------------------------------------------------------------------
    def _tools(self, tools: Sequence[Any] | None) -> list[Any]:
        if tools is None:
            return list(self.tools or [])
        if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
            raise ValueError(f"tools must be a list of tools, got {type(tools).__name__}")
        return list(tools)

    def _split(self, items: Sequence[Item]) -> tuple[ModelInputParts, TurnSource]:
        """The input's sections: from the session's served layout when the input starts
        with what it served, else by turns (and the explicit ``summary_prompts``), reading
        only the ends of a long history (:func:`~ctxlab.context.split.split_tail`)."""
        served = getattr(self.session, "served_layout", None)
        if callable(served):
            found = served()
            if found is not None:
                parts = split_by_layout(items, *found)
                if parts is not None:
                    return parts, ListTurns(parts.turns)
                logger.debug("model input does not start with the session's view; "
                             "splitting by turns")
        preamble, summary, source, current = split_tail(items,
                                                        summary_prompts=self.summary_prompts)
        return ModelInputParts(preamble, summary, [], current), source

    async def _state(self, current: Sequence[Item]) -> dict[str, Any] | None:
        """The state source's message; a source with ``message_for`` (a
        :class:`~ctxlab.memory.StateMemory`) also gets the input's current turn, which the
        Runner may not have stored yet (streamed runs store it after the first call)."""
        if self.state is None:
            return None
        try:
            message_for = getattr(self.state, "message_for", None)
            if callable(message_for):
                return state_item(await resolve(message_for(current)))
            return state_item(await resolve(self.state()))
        except Exception as exc:  # a memory source must not take the user's request down
            self.source_errors.append(f"state: {type(exc).__name__}: {exc}")
            logger.warning("state source failed; this call goes without it: %s", exc)
            return None

    async def _retrieve(self, query: str) -> list[RetrievedBlock]:
        if self.retriever is None or not query.strip():
            return []
        try:
            return as_blocks(await resolve(self.retriever(query)))
        except Exception as exc:
            self.source_errors.append(f"retriever: {type(exc).__name__}: {exc}")
            logger.warning("retrieval source failed; this call goes without it: %s", exc)
            return []

    def _rules(self) -> Rules:
        if self._last_resort is None or self._last_resort.counter is not self.counter.counter:
            self._last_resort = ToolOutputCompactor(counter=self.counter.counter)
        return Rules(self.max_tokens, self.counter, self.compactor, self.role_aware,
                     self.protect_recent_turns, self.assistant_max_tokens, self._last_resort)

    def _build(
        self,
        parts: ModelInputParts,
        instructions: str | None,
        tools: list[Any],
        state: dict[str, Any] | None,
        blocks: list[RetrievedBlock],
        source: TurnSource | None = None,
    ) -> AssembledContext:
        """Fit the call (:func:`~ctxlab.context.budget.fit`: the ordered budget steps) and
        assemble it (:func:`~ctxlab.context.assemble.assemble_call`)."""
        rules = self._rules()
        draft = fit(parts, instructions, tools, state, blocks, source, rules)
        if any(is_memory_block(item) for item, _ in labelled_items(draft)):
            # memory is sent: the instructions carry the operator's notice, fitted with them
            draft = fit(parts, with_notice(instructions, state, blocks), tools, state, blocks,
                        source, rules)
        result = assemble_call(draft, rules)
        self.calls.append(result)
        if self.on_assemble is not None:
            self.on_assemble(result)
        return result


def with_notice(instructions: str | None, state: dict[str, Any] | None,
                blocks: Sequence[RetrievedBlock]) -> str:
    """``instructions`` with the operator's memory notice (in the memory's language):
    what the call injects is quoted data, not instructions."""
    text = " ".join([content_text((state or {}).get("content")), *(b.text for b in blocks)])
    return with_memory_notice(instructions, language_of(text))
