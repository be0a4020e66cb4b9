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
If they alone exceed the budget the call is sent anyway with nothing else, and a
:class:`~ctxlab.context.ContextBudgetWarning` says so.

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
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.checks import check_int
from ..core.items import is_output, is_user_message, model_safe
from ..core.tokens import TokenCounter
from ..core.validate import repair
from ..summarizers.base import SUMMARY_SHADOW_PROMPT
from .assembled import AssembledContext, empty_sections
from .compaction import ToolOutputCompactor
from .counting import RequestCounter
from .roles import shrink_turn
from .sources import (
    RetrievalSource,
    RetrievedBlock,
    RetrievedValue,
    StateSource,
    StateValue,
    as_blocks,
    resolve,
    retrieved_message,
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
from .warnings import ContextBudgetWarning

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
    messages: the form both SDK model classes accept)."""
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": text}]


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


def _turn_span(first: int, n: int, older: bool = False) -> str:
    """"earlier turn 1 of 4" or "earlier turns 1-3 of 4": the oldest ``first`` of ``n``; with
    ``older`` (a long history whose oldest turns were never read) "every earlier turn before
    the newest 2"."""
    if older:
        kept = n - first
        return ("every earlier turn" if kept == 0
                else f"every earlier turn before the newest {kept}")
    return f"earlier turn 1 of {n}" if first == 1 else f"earlier turns 1-{first} of {n}"


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

    def _shorten(
        self,
        turns: list[list[Item]],
        tokens: list[int | None],
        full: Callable[[int], int],
        room: int,
    ) -> tuple[int, list[int]]:
        """The role-aware steps. The newest ``protect_recent_turns`` earlier turns stay
        verbatim while older turns are shortened (oldest first) and then dropped (oldest
        first); only when the protected turns alone overflow are they shortened and dropped
        too, in the same order. Returns the first kept turn and the shortened turns;
        ``turns`` and ``tokens`` are updated in place (kept turns get their sizes).
        """
        n = len(turns)
        older = n - min(self.protect_recent_turns, n)  # turns[older:] are protected
        short: dict[int, tuple[list[Item], int]] = {}

        def shrink(i: int) -> tuple[list[Item], int]:
            if i not in short:
                items = shrink_turn(
                    turns[i], self.counter, assistant_max_tokens=self.assistant_max_tokens
                )
                short[i] = (items, self.counter.items(items))
            return short[i]

        def shorten_then_drop(lo: int, hi: int, space: int) -> tuple[int, list[int]]:
            """Shorten turns[lo:hi] oldest first until they fit ``space``, then drop."""
            sizes = [t if t is not None else full(lo + k) for k, t in enumerate(tokens[lo:hi])]
            tokens[lo:hi] = sizes
            total, done = sum(sizes), []
            for i in range(lo, hi):
                if total <= space:
                    break
                items, size = shrink(i)
                if size < tokens[i]:  # type: ignore[operator]
                    total -= tokens[i] - size  # type: ignore[operator]
                    turns[i], tokens[i] = items, size
                    done.append(i)
            first = lo
            while total > space and first < hi:
                total -= tokens[first]  # type: ignore[operator]
                first += 1
            return first, [i for i in done if i >= first]

        protected = sum(
            t if t is not None else full(older + k) for k, t in enumerate(tokens[older:])
        )
        if protected > room:  # no room for older turns at all
            for k in range(older, n):
                tokens[k] = tokens[k] if tokens[k] is not None else full(k)
            return shorten_then_drop(older, n, room)
        space = room - protected
        used, first = 0, older
        for i in range(older - 1, -1, -1):  # shortened older turns, newest first
            size = shrink(i)[1]
            if used + size > space:
                break
            used += size
            first = i
        if first > 0:  # even shortened, not all older turns fit: keep the newest that do
            for i in range(first, older):
                turns[i], tokens[i] = short[i]
            for k in range(older, n):
                tokens[k] = tokens[k] if tokens[k] is not None else full(k)
            return first, list(range(first, older))
        for k in range(older, n):
            tokens[k] = tokens[k] if tokens[k] is not None else full(k)
        return shorten_then_drop(0, older, space)

    def _compact(self, items: list[Item]) -> list[Item]:
        if self.compactor is None or not items:
            return items
        return self.compactor.compact(items, keep_recent_turns=0).items  # type: ignore[return-value]

    def _newest_turns(self, source: TurnSource, room: int) -> tuple[list[list[Item]], bool]:
        """The newest earlier turns that can matter under ``room`` tokens (oldest first),
        and whether older ones exist beyond them (those are dropped without being read).
        Turns are taken until even their smallest form (compacted, shortened when
        role-aware and not protected) overflows ``room``."""
        picked: list[list[Item]] = []
        used = 0
        count = self.counter
        while True:
            turn = source.get(len(picked))
            if turn is None:
                return picked[::-1], False
            smallest = self._compact(turn) if self.compactor is not None else turn
            if self.role_aware and len(picked) >= self.protect_recent_turns:
                smallest = shrink_turn(smallest, count,
                                       assistant_max_tokens=self.assistant_max_tokens)
            picked.append(turn)
            used += count.items(smallest)
            if used > room:
                return picked[::-1], source.get(len(picked)) is not None

    def _build(
        self,
        parts: ModelInputParts,
        instructions: str | None,
        tools: list[Any],
        state: dict[str, Any] | None,
        blocks: list[RetrievedBlock],
        source: TurnSource | None = None,
    ) -> AssembledContext:
        count = self.counter
        budget = self.max_tokens
        preamble = self._compact(list(parts.preamble))
        current = list(parts.current)
        if self.compactor is not None and self.compactor.keep_recent_turns == 0:
            current = self._compact(current)
        tool_tokens = count.tools(tools)
        preamble_tokens = count.items(preamble)
        floor = (
            count.instructions(instructions) + tool_tokens + preamble_tokens + count.items(current)
        )
        state_tokens = count.item(state) if state is not None else 0
        summary = list(parts.summary)
        summary_tokens = count.items(summary)
        fixed = floor + state_tokens + summary_tokens
        room = budget - fixed  # what the earlier turns and retrieved memory may use
        dropped: list[str] = []
        if source is None:
            source = ListTurns(parts.turns)
        turns, older = self._newest_turns(source, room)
        n = len(turns)
        # Tool-output compaction, turn by turn (only turns that are counted are compacted):
        # the newest ``keep_recent_turns`` turns, the current one included, stay untouched.
        compact_before = n
        if self.compactor is not None:
            keep = self.compactor.keep_recent_turns
            compact_before = n if keep == 0 else max(0, n - (keep - 1))

        def full(i: int) -> int:
            if i < compact_before:
                turns[i] = self._compact(turns[i])
            return count.items(turns[i])

        # The turns' tokens, newest first, until they no longer fit: older ones need not be
        # counted (they are shortened or dropped anyway).
        tokens: list[int | None] = [None] * n
        fits_from, used = n, 0
        for i in range(n - 1, -1, -1):
            size = tokens[i] = full(i)
            if used + size > room:
                break
            used += size
            fits_from = i
        overflow = fits_from > 0 or older

        # 1. retrieved memory, least relevant block first
        blocks = list(blocks)
        retrieved = retrieved_message(blocks)
        retrieved_tokens = count.item(retrieved) if retrieved else 0
        while blocks and (overflow or used + retrieved_tokens > room):
            worst = min(range(len(blocks)), key=lambda i: (blocks[i].score, -i))
            gone = blocks.pop(worst)
            dropped.append(f"retrieved {gone.label or 'block'} (score {gone.score:.2f})")
            retrieved = retrieved_message(blocks)
            retrieved_tokens = count.item(retrieved) if retrieved else 0

        # 2. role-aware: shorten older turns (oldest first, the protected newest ones last);
        # 3. drop the oldest turns, whole.
        first, shortened = fits_from, []
        if overflow and self.role_aware:
            first, shortened = self._shorten(turns, tokens, full, room)
            if first or older:
                dropped.append(f"{_turn_span(first, n, older)} (oldest first, after "
                               "shortening)")
        elif overflow:
            dropped.append(f"{_turn_span(first, n, older)} (oldest first)")
        total = fixed + retrieved_tokens + sum(t for t in tokens[first:] if t is not None)

        # 4. the summary, then the structured state
        if total > budget and summary:
            total -= summary_tokens
            dropped.append(f"summary ({summary_tokens} tokens)")
            summary, summary_tokens = [], 0
        if total > budget and state is not None:
            total -= state_tokens
            dropped.append(f"structured state ({state_tokens} tokens)")
            state, state_tokens = None, 0

        # assemble in order, label every item
        labelled: list[tuple[Item, str]] = [(it, "instructions") for it in preamble]
        if state is not None:
            labelled.append((state, "structured_state"))
        labelled += [(it, "summary") for it in summary]
        for turn in turns[first:]:
            labelled += [(it, "tool_outputs" if is_output(it) else "recent_turns") for it in turn]
        if retrieved is not None:
            labelled.append((retrieved, "retrieved_memory"))
        for pos, it in enumerate(current):
            if pos == 0 and is_user_message(it):
                labelled.append((it, "new_input"))
            else:
                labelled.append((it, "tool_outputs" if is_output(it) else "recent_turns"))

        bad = repair([it for it, _ in labelled])
        if bad:
            labelled = [pair for n, pair in enumerate(labelled) if n not in bad]
        items = [model_safe(it) for it, _ in labelled]
        item_tokens = tuple(count.item(it) for it in items)
        sections = empty_sections()
        sections["instructions"] = count.instructions(instructions) + tool_tokens
        for (_, section), tokens in zip(labelled, item_tokens, strict=True):
            sections[section] += tokens

        warning = None
        result_total = sum(sections.values())
        if result_total > budget:
            warning = (
                f"the part of this model call that is never dropped needs {result_total} tokens "
                f"(instructions and tool schemas {sections['instructions']}, new input "
                f"{sections['new_input']}, the rest of the current turn "
                f"{result_total - sections['instructions'] - sections['new_input']}), over the "
                f"max_tokens budget of {budget}; it is sent anyway, with nothing else"
            )
            warnings.warn(warning, ContextBudgetWarning, stacklevel=3)
        result = AssembledContext(
            instructions=instructions,
            items=items,
            item_sections=tuple(section for _, section in labelled),
            sections=sections,
            budget=budget,
            floor=floor,
            tool_tokens=tool_tokens,
            preamble_tokens=preamble_tokens,
            dropped=tuple(dropped),
            shortened=tuple(sorted(n - 1 - i for i in shortened)),
            repaired=len(bad),
            warning=warning,
            item_tokens=item_tokens,
        )
        self.calls.append(result)
        if self.on_assemble is not None:
            self.on_assemble(result)
        return result
