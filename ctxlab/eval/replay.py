"""Replay a conversation the way the Agents SDK Runner writes it, without a model.

For each real user turn the Runner (1) reads the session once (``get_items``), (2) sends that
history plus the new input to the model, (3) stores the input, (4) stores each tool round
as one batch (reasoning, calls, outputs), and (5) stores the final assistant message.

* :func:`replay` does exactly that with recorded items and records a :class:`Snapshot` of
  what the model would have been sent at every turn; widgets scrub through these snapshots.
* :class:`StrategyReplay` also reproduces the model calls inside a turn's tool loop, applies
  a strategy's transform (a ``call_model_input_filter``) and asks recall probes, yielding one
  :class:`ModelCall` per model call: what the session returned, what the transform made of
  it, and what the full history would have sent. Evaluation measures these.

A probe at turn ``t`` is a model call with the probe's question as the new input, made just
before turn ``t``'s input is stored, and never stored itself. Session operations
(``get_items``, ``add_items``) and the transform are timed.
"""

from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..context import ContextBudgetWarning, RequestCounter
from ..core.items import clone, is_output, is_user_message, item_text, item_type
from ..core.ledger import Ledger
from ..core.tokens import ITEM_OVERHEAD_TOKENS
from ..core.turns import segment_turns
from ..sessions import TokenBudgetWarning
from .cases import EvalCase, RecallProbe
from .strategies import Strategy, Transform, parse_strategy, shared_counter


@dataclass(frozen=True)
class Snapshot:
    """What the model was sent at the start of user turn ``turn`` (1-based).

    ``history`` is what the session returned, ``new_input`` the turn's user message, and
    ``ledger`` the session's ledger at that moment (before the new input was stored).
    ``turn`` is 0 for a final snapshot taken after the last turn (``new_input`` empty).
    """

    turn: int
    history: list[dict[str, Any]]
    new_input: list[dict[str, Any]]
    ledger: Ledger

    @property
    def model_input(self) -> list[dict[str, Any]]:
        return [*self.history, *self.new_input]


def runner_batches(items: Sequence[Mapping[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split a conversation into the ``add_items`` batches the Runner would have made.

    Each user message is a batch; a tool round (reasoning, calls, outputs) is a batch that
    ends after its last output; an assistant message closes a batch together with any
    reasoning before it. Items before the first user message form one batch.
    """
    batches: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []

    def close() -> None:
        nonlocal current
        if current:
            batches.append(current)
            current = []

    seg = segment_turns(items)
    starts = {t.start for t in seg.turns}
    for index, item in enumerate(items):
        if index in starts:
            close()
            batches.append([clone(item)])
            continue
        if current and is_output(current[-1]) and not is_output(item):
            close()
        current.append(clone(item))
        if item_type(item) == "message" and item.get("role") == "assistant":
            close()
    close()
    return batches


async def replay(
    items: Sequence[Mapping[str, Any]],
    session: Any,
    *,
    limit: int | None = None,
    final_snapshot: bool = True,
    on_snapshot: Callable[[Snapshot], Awaitable[None] | None] | None = None,
) -> list[Snapshot]:
    """Feed ``items`` into ``session`` turn by turn and snapshot each model call.

    ``session`` is any Agents SDK session; a ledger is recorded when it has a ``ledger()``
    method (every ctxlab strategy does), otherwise an empty one. ``limit`` is passed to
    ``get_items`` as the Runner would pass ``SessionSettings.limit``.
    """
    snapshots: list[Snapshot] = []
    turn = 0

    async def snap(number: int, new_input: list[dict[str, Any]]) -> None:
        history = await session.get_items(limit) if limit is not None else await session.get_items()
        ledger = await session.ledger() if hasattr(session, "ledger") else Ledger([])
        shot = Snapshot(number, history, [clone(i) for i in new_input], ledger)
        snapshots.append(shot)
        if on_snapshot is not None:
            result = on_snapshot(shot)
            if result is not None:
                await result

    for batch in runner_batches(items):
        first = batch[0]
        if len(batch) == 1 and item_type(first) == "message" and first.get("role") == "user":
            turn += 1
            await snap(turn, batch)
        await session.add_items(batch)
    if final_snapshot:
        await snap(0, [])
    return snapshots


#: The timed operations, in report order.
OPERATIONS: tuple[str, ...] = ("get_items", "add_items", "transform")


@dataclass(frozen=True)
class ModelCall:
    """One model call the Runner would make.

    ``turn`` is the user turn (1-based); ``step`` 0 is the turn's first call and ``k`` the
    call after its ``k``-th tool round; a probe call has ``probe`` set and step 0.
    ``items`` is what the model is sent after the transform, ``session_items`` what the
    session returned plus the new input (and run items), ``full_count`` how many items of
    the conversation the full history holds at this call. Token counts are whole requests
    (instructions and tool schemas included): ``tokens`` for ``items``,
    ``session_tokens`` before the transform, ``full_tokens`` for the full history.
    ``ledger`` is the session's ledger at the start of the turn (None when the session
    keeps none); ``dropped`` and ``warning`` come from the transform.
    """

    turn: int
    step: int
    items: list[dict[str, Any]]
    session_items: list[dict[str, Any]]
    full_count: int
    tokens: int
    session_tokens: int
    full_tokens: int
    ledger: Ledger | None = None
    dropped: tuple[str, ...] = ()
    warning: str | None = None
    probe: RecallProbe | None = None
    known_text: str | None = field(default=None, repr=False, compare=False)
    known_session_text: str | None = field(default=None, repr=False, compare=False)

    @property
    def is_probe(self) -> bool:
        return self.probe is not None

    @cached_property
    def text(self) -> str:
        """The text of what the model is sent (facts are searched in it)."""
        return self.known_text if self.known_text is not None else items_text(self.items)

    @cached_property
    def session_text(self) -> str:
        """The text of what the session returned plus the new input."""
        if self.known_session_text is not None:
            return self.known_session_text
        return items_text(self.session_items)


def items_text(items: Sequence[Mapping[str, Any]]) -> str:
    """The text of a list of items, one item per line (:func:`ctxlab.core.items.item_text`)."""
    return "\n".join(item_text(item) for item in items)


class _History:
    """What the session returned at the start of a turn, with its text and tokens computed
    once (every call of the turn, probes included, starts with it)."""

    def __init__(self, items: list[dict[str, Any]], counter: RequestCounter):
        self.items = items
        texts = [item_text(item) for item in items]
        self.text = "\n".join(texts)
        self.tokens = sum(counter.text(t) for t in texts) + ITEM_OVERHEAD_TOKENS * len(items)


@dataclass
class Timings:
    """Seconds spent in each operation (see :data:`OPERATIONS`), one entry per call."""

    samples: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in OPERATIONS})

    def add(self, op: str, seconds: float) -> None:
        self.samples.setdefault(op, []).append(seconds)


async def _quietly(awaitable: Any) -> Any:
    """Await without budget warnings: they are expected while evaluating, and reported in
    :attr:`ModelCall.warning` (the transform) and the ledger's reasons (the session)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ContextBudgetWarning)
        warnings.simplefilter("ignore", TokenBudgetWarning)
        return await awaitable


def _question(probe: RecallProbe) -> dict[str, Any]:
    return {"role": "user", "content": probe.question}


class StrategyReplay:
    """Replay ``items`` through ``strategy`` (a :class:`Strategy` or a spec string).

    Args:
        items: the conversation (Responses items, as a session stores them).
        strategy: the memory strategy.
        instructions: the agent's instructions (counted in every request, and passed to the
            transform).
        tools: the tool schemas the agent offers (counted in every request).
        probes: recall probes to ask (see the module docstring).
        session_id: the id of the fresh session.
        counter: token counter (memoized by text; shared across replays if you like).
        ledgers: read the session's ledger at the start of every turn (for sessions that
            have one); False saves that work when nobody reads :attr:`ModelCall.ledger`.

    Use ``async for call in replay.calls(): ...``; afterwards :attr:`session` holds the
    session (for its summary, ledger, ...) and :attr:`timings` the timings. Call
    :meth:`close` when done (``calls`` does it when the iteration completes).
    """

    def __init__(
        self,
        items: Sequence[Mapping[str, Any]],
        strategy: Strategy | str,
        *,
        instructions: str | None = None,
        tools: Sequence[Any] = (),
        probes: Sequence[RecallProbe] = (),
        session_id: str = "eval",
        counter: RequestCounter | None = None,
        ledgers: bool = True,
    ):
        self.items = [dict(it) for it in items]
        self.strategy = parse_strategy(strategy)
        self.instructions = instructions
        self.tools = list(tools)
        self.counter = counter or shared_counter()
        self.session: Any = self.strategy.make_session(session_id)
        self.transform: Transform | None = (
            self.strategy.make_transform(self.session, self.tools)
            if self.strategy.make_transform is not None else None
        )
        self.timings = Timings()
        self.ledgers = bool(ledgers)
        self._probes: dict[int, list[RecallProbe]] = {}
        for probe in probes:
            self._probes.setdefault(probe.turn, []).append(probe)
        self._base = self.counter.instructions(instructions) + self.counter.tools(self.tools)
        self._prefix = [0]
        for item in self.items:
            self._prefix.append(self._prefix[-1] + self.counter.item(item))

    @classmethod
    def for_case(cls, case: EvalCase, strategy: Strategy | str, **options: Any
                 ) -> StrategyReplay:
        """A replay of ``case`` that asks the case's probes."""
        options.setdefault("probes", case.probes)
        options.setdefault("session_id", f"eval-{case.id}")
        return cls(case.items, strategy, **options)

    def request_tokens(self, items: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of a request with these items (plus instructions and tool schemas)."""
        return self._base + self.counter.items(items)

    async def _timed(self, op: str, awaitable: Any) -> Any:
        began = time.perf_counter()
        result = await _quietly(awaitable)
        self.timings.add(op, time.perf_counter() - began)
        return result

    async def _ledger(self) -> Ledger | None:
        reader = getattr(self.session, "ledger", None) if self.ledgers else None
        return await _quietly(reader()) if callable(reader) else None

    async def _call(self, turn: int, step: int, history: _History,
                    new: list[dict[str, Any]], full_count: int, ledger: Ledger | None,
                    probe: RecallProbe | None = None) -> ModelCall:
        session_items = [*history.items, *new]
        session_text = "\n".join([history.text, items_text(new)] if history.items
                                 else [items_text(new)])
        session_tokens = self._base + history.tokens + self.counter.items(new)
        items, dropped, warning = session_items, (), None
        tokens, text = session_tokens, session_text
        if self.transform is not None:
            result = await self._timed("transform", self.transform(self.instructions,
                                                                   list(session_items)))
            items, dropped, warning = result.items, result.dropped, result.warning
            tokens, text = self.request_tokens(items), None
        extra = [_question(probe)] if probe is not None else []
        return ModelCall(
            turn=turn, step=step, items=items, session_items=session_items,
            full_count=full_count, tokens=tokens, session_tokens=session_tokens,
            full_tokens=self._base + self._prefix[full_count] + self.counter.items(extra),
            ledger=ledger, dropped=tuple(dropped), warning=warning, probe=probe,
            known_text=text, known_session_text=session_text,
        )

    async def calls(self) -> AsyncIterator[ModelCall]:
        """Every model call, in order (probe calls just before their turn's first call)."""
        try:
            async for call in self._calls():
                yield call
        finally:
            await self.close()

    async def _calls(self) -> AsyncIterator[ModelCall]:
        session = self.session
        consumed = 0
        turn = 0
        step = 0
        history = _History([], self.counter)
        turn_items: list[dict[str, Any]] = []
        ledger: Ledger | None = None
        for batch in runner_batches(self.items):
            opens_turn = len(batch) == 1 and is_user_message(batch[0])
            if opens_turn:
                turn += 1
                step = 0
                history = _History(list(await self._timed("get_items", session.get_items())),
                                   self.counter)
                ledger = await self._ledger()
                for probe in self._probes.get(turn, ()):
                    yield await self._call(turn, 0, history, [_question(probe)], consumed,
                                           ledger, probe)
                await self._timed("add_items", session.add_items(batch))
                consumed += 1
                turn_items = list(batch)
                yield await self._call(turn, 0, history, turn_items, consumed, ledger)
                continue
            await self._timed("add_items", session.add_items(batch))
            consumed += len(batch)
            if turn == 0:
                continue  # the preamble: stored, no model call
            turn_items = [*turn_items, *batch]
            if is_output(batch[-1]):
                step += 1
                yield await self._call(turn, step, history, turn_items, consumed, ledger)
        after = turn + 1
        late = [p for t, ps in sorted(self._probes.items()) if t >= after for p in ps]
        if late:
            history = _History(list(await self._timed("get_items", session.get_items())),
                               self.counter)
            ledger = await self._ledger()
            for probe in late:
                yield await self._call(after, 0, history, [_question(probe)], consumed,
                                       ledger, probe)

    async def close(self) -> None:
        """Release what the session holds (SQLite connections, background folds)."""
        session = self.session
        flush = getattr(session, "flush", None)
        if callable(flush):
            await flush()
        for name in ("aclose", "close"):
            closer = getattr(session, name, None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result
                break
