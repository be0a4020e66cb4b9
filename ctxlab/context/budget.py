"""How a :class:`~ctxlab.context.ContextManager` fits one model call into its budget: a
:class:`Draft` of the call goes through ordered, pure steps, each testable alone.

1. :func:`draft_call`: the sections, counted; the part that is never dropped (the *floor*:
   instructions, tool schemas, preamble, current turn) and, only when the floor alone is
   over the budget, its tool outputs compacted as a last resort (:func:`compact_current`);
   then the newest earlier turns that can matter, counted newest first until they overflow
   (older ones are never read);
2. :func:`drop_retrieved`: retrieved memory, least relevant block first;
3. :func:`fit_turns`: role-aware shortening (:mod:`.shorten`), then the oldest turns, whole;
4. :func:`drop_summary`, then :func:`drop_state`.

:data:`STEPS` lists 2-4 in order; :func:`ctxlab.context.assemble.assemble_call` turns the
final draft into the :class:`~ctxlab.context.AssembledContext`. Every step returns a new
draft and says what it left out in ``dropped``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .compaction import ToolOutputCompactor
from .rules import Rules
from .shorten import newest_turns, shorten_turns, turn_span
from .sources import RetrievedBlock, retrieved_message
from .split import ListTurns, ModelInputParts, TurnSource

Item = Any
__all__ = ["STEPS", "Draft", "Rules", "compact_current", "count_turns", "draft_call",
           "drop_retrieved", "drop_state", "drop_summary", "fit", "fit_turns"]


@dataclass(frozen=True)
class Draft:
    """One model call while it is being fitted (sections and their token counts).

    ``turns`` are the earlier turns that can matter (oldest first) and ``tokens`` their
    sizes (None: not counted, it cannot fit anyway); ``first`` is the oldest kept turn,
    ``older`` says that turns before ``turns`` exist (never read: they are dropped);
    ``compacted_from`` is the first turn whose outputs stay untouched by the compactor.
    """

    instructions: str | None
    tool_tokens: int
    preamble: tuple[Item, ...]
    state: Item | None
    summary: tuple[Item, ...]
    turns: tuple[tuple[Item, ...], ...]
    tokens: tuple[int | None, ...]
    current: tuple[Item, ...]
    blocks: tuple[RetrievedBlock, ...] = ()
    first: int = 0
    older: bool = False
    compacted_from: int = 0
    shortened: tuple[int, ...] = ()
    dropped: tuple[str, ...] = ()
    current_compacted: bool = False
    state_tokens: int = 0
    summary_tokens: int = 0
    retrieved_tokens: int = 0
    floor: int = 0

    @property
    def fixed(self) -> int:
        """What the earlier turns and retrieved memory do not change."""
        return self.floor + self.state_tokens + self.summary_tokens

    @property
    def turn_tokens(self) -> int:
        return sum(t for t in self.tokens[self.first:] if t is not None)

    @property
    def total(self) -> int:
        return self.fixed + self.retrieved_tokens + self.turn_tokens



# ---------------------------------------------------------------------------- step 1


def draft_call(parts: ModelInputParts, instructions: str | None, tools: Sequence[Any],
               state: Item | None, blocks: Sequence[RetrievedBlock],
               source: TurnSource | None, rules: Rules) -> Draft:
    """The call's sections counted, the floor fitted (:func:`compact_current`), and the
    earlier turns that can matter counted newest first (:func:`count_turns`)."""
    count = rules.counter
    current = list(parts.current)
    if rules.compactor is not None and rules.compactor.keep_recent_turns == 0:
        current = rules.compact(current)
    preamble = rules.compact(list(parts.preamble))
    tool_tokens = count.tools(tools)
    fixed = count.instructions(instructions) + tool_tokens + count.items(preamble)
    current, said = _fit_current(current, fixed, rules)
    retrieved = retrieved_message(blocks)
    draft = Draft(
        instructions=instructions, tool_tokens=tool_tokens, preamble=tuple(preamble),
        state=state, summary=tuple(parts.summary), turns=(), tokens=(),
        current=tuple(current), blocks=tuple(blocks),
        state_tokens=count.item(state) if state is not None else 0,
        summary_tokens=count.items(parts.summary), current_compacted=bool(said),
        dropped=tuple(said), floor=fixed + count.items(current),
        retrieved_tokens=count.item(retrieved) if retrieved else 0)
    return count_turns(draft, source or ListTurns(parts.turns), rules)


def _fit_current(current: list[Item], fixed: int, rules: Rules) -> tuple[list[Item], list[str]]:
    """The current turn, its bulky tool outputs compacted when the floor (``fixed`` plus
    the current turn) is over the budget; and what was compacted, in words."""
    if fixed + rules.counter.items(current) <= rules.max_tokens:
        return current, []
    compactor = rules.compactor or rules.last_resort or ToolOutputCompactor(
        counter=rules.counter.counter)
    result = compactor.compact(current, keep_recent_turns=0)
    said = [f"the current turn's {c.tool} output compacted ({c.tokens_before} -> "
            f"{c.tokens_after} tokens): the part never dropped was over the budget"
            for c in result.compacted]
    return list(result.items), said


def compact_current(draft: Draft, rules: Rules) -> Draft:
    """The last resort (part of :func:`draft_call`): when the floor alone is over the
    budget, the current turn's bulky tool outputs are shown as previews (this call only;
    the stored items keep them whole), with a line in ``dropped`` saying which and by how
    much."""
    if draft.current_compacted:
        return draft
    count = rules.counter
    fixed = draft.floor - count.items(draft.current)
    current, said = _fit_current(list(draft.current), fixed, rules)
    if not said:
        return draft
    return dataclasses.replace(draft, current=tuple(current), current_compacted=True,
                               dropped=(*draft.dropped, *said),
                               floor=fixed + count.items(current))


def count_turns(draft: Draft, source: TurnSource, rules: Rules) -> Draft:
    """The newest earlier turns that can matter under the room left, compacted (all but
    the compactor's ``keep_recent_turns``) and counted newest first until they overflow."""
    room = rules.max_tokens - draft.fixed
    picked, older = newest_turns(source, room, rules)
    n = len(picked)
    compacted_from = n
    if rules.compactor is not None:
        keep = rules.compactor.keep_recent_turns
        compacted_from = n if keep == 0 else max(0, n - (keep - 1))
    turns = [tuple(t) for t in picked]
    tokens: list[int | None] = [None] * n
    first, used = n, 0
    for i in range(n - 1, -1, -1):
        if i < compacted_from:
            turns[i] = tuple(rules.compact(list(turns[i])))
        size = tokens[i] = rules.counter.items(turns[i])
        if used + size > room:
            break
        used += size
        first = i
    return dataclasses.replace(draft, turns=tuple(turns), tokens=tuple(tokens), first=first,
                               older=older, compacted_from=compacted_from)


# ------------------------------------------------------------------------- steps 2-4


def drop_retrieved(draft: Draft, rules: Rules) -> Draft:
    """Retrieved memory, least relevant block first, until it fits beside the turns (all
    of it when the turns alone overflow)."""
    if not draft.blocks:
        return draft
    blocks, dropped = list(draft.blocks), list(draft.dropped)
    count = rules.counter
    tokens = draft.retrieved_tokens
    overflow = draft.first > 0 or draft.older
    room = rules.max_tokens - draft.fixed - draft.turn_tokens
    if not (overflow or tokens > room):
        return draft
    while blocks and (overflow or tokens > room):
        worst = min(range(len(blocks)), key=lambda i: (blocks[i].score, -i))
        gone = blocks.pop(worst)
        dropped.append(f"retrieved {gone.label or 'block'} (score {gone.score:.2f})")
        message = retrieved_message(blocks)
        tokens = count.item(message) if message else 0
    return dataclasses.replace(draft, blocks=tuple(blocks), retrieved_tokens=tokens,
                               dropped=tuple(dropped))


def fit_turns(draft: Draft, rules: Rules) -> Draft:
    """When the earlier turns overflow: role-aware, shorten older turns (oldest first, the
    protected newest ones last) and then drop; otherwise drop the oldest turns, whole."""
    n = len(draft.turns)
    if not (draft.first > 0 or draft.older):
        return draft
    if not rules.role_aware:
        said = f"{turn_span(draft.first, n, draft.older)} (oldest first)"
        return dataclasses.replace(draft, dropped=(*draft.dropped, said))
    room = rules.max_tokens - draft.fixed
    turns, tokens = list(map(list, draft.turns)), list(draft.tokens)
    first, shortened = shorten_turns(turns, tokens, _sizer(draft, rules, turns), room, rules)
    dropped = draft.dropped
    if first or draft.older:
        dropped = (*dropped, f"{turn_span(first, n, draft.older)} (oldest first, after "
                             "shortening)")
    return dataclasses.replace(
        draft, turns=tuple(map(tuple, turns)), tokens=tuple(tokens), first=first,
        shortened=tuple(sorted(n - 1 - i for i in shortened)), dropped=dropped)


def _sizer(draft: Draft, rules: Rules, turns: list[list[Item]]) -> Callable[[int], int]:
    """The size of turn ``i`` in full (compacted first when it is old enough)."""
    def full(i: int) -> int:
        if i < draft.compacted_from and draft.tokens[i] is None:
            turns[i] = rules.compact(turns[i])
        return rules.counter.items(turns[i])

    return full


def drop_summary(draft: Draft, rules: Rules) -> Draft:
    """The early summary, when the call is still over the budget."""
    if draft.total <= rules.max_tokens or not draft.summary:
        return draft
    return dataclasses.replace(draft, summary=(), summary_tokens=0, dropped=(
        *draft.dropped, f"summary ({draft.summary_tokens} tokens)"))


def drop_state(draft: Draft, rules: Rules) -> Draft:
    """The structured state, when the call is still over the budget."""
    if draft.total <= rules.max_tokens or draft.state is None:
        return draft
    return dataclasses.replace(draft, state=None, state_tokens=0, dropped=(
        *draft.dropped, f"structured state ({draft.state_tokens} tokens)"))


#: The budget steps after :func:`draft_call`, in the order they give things up.
STEPS: tuple[Callable[[Draft, Rules], Draft], ...] = (
    drop_retrieved, fit_turns, drop_summary, drop_state)


def fit(parts: ModelInputParts, instructions: str | None, tools: Sequence[Any],
        state: Item | None, blocks: Sequence[RetrievedBlock], source: TurnSource | None,
        rules: Rules) -> Draft:
    """:func:`draft_call`, then every step of :data:`STEPS` in order."""
    draft = draft_call(parts, instructions, tools, state, blocks, source, rules)
    for step in STEPS:
        draft = step(draft, rules)
    return draft
