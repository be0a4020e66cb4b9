"""Replay a stored conversation into a session the way the Agents SDK Runner writes it.

For each real user turn the Runner (1) reads the session once (``get_items``), (2) sends that
history plus the new input to the model, (3) stores the input, (4) stores each tool round
as one batch (reasoning, calls, outputs), and (5) stores the final assistant message.
:func:`replay` does exactly that with recorded items instead of a model, and records a
:class:`Snapshot` of what the model would have been sent at every turn. Widgets scrub
through these snapshots, and evaluation measures them, without calling any model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.items import clone, is_output, item_type
from ..core.ledger import Ledger
from ..core.turns import segment_turns


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
