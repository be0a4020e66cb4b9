"""The last step of a :class:`~ctxlab.context.ContextManager` call: a fitted
:class:`~ctxlab.context.budget.Draft` in the order the model reads it, every item labelled
with its section and counted, and a warning when even the floor is over the budget."""

from __future__ import annotations

import warnings
from typing import Any

from ..core.items import is_output, is_user_message, model_safe
from ..core.validate import repair
from .assembled import AssembledContext, empty_sections
from .budget import Draft, Rules
from .sources import retrieved_message
from .warnings import ContextBudgetWarning

Item = Any


def labelled_items(draft: Draft) -> list[tuple[Item, str]]:
    """The call's items in order, each with its section: preamble (counted with the
    instructions), structured state, summary, earlier turns, retrieved memory, then the
    current turn (its first user message is the new input)."""
    labelled: list[tuple[Item, str]] = [(it, "instructions") for it in draft.preamble]
    if draft.state is not None:
        labelled.append((draft.state, "structured_state"))
    labelled += [(it, "summary") for it in draft.summary]
    for turn in draft.turns[draft.first:]:
        labelled += [(it, "tool_outputs" if is_output(it) else "recent_turns") for it in turn]
    retrieved = retrieved_message(draft.blocks)
    if retrieved is not None:
        labelled.append((retrieved, "retrieved_memory"))
    for pos, it in enumerate(draft.current):
        if pos == 0 and is_user_message(it):
            labelled.append((it, "new_input"))
        else:
            labelled.append((it, "tool_outputs" if is_output(it) else "recent_turns"))
    return labelled


def assemble_call(draft: Draft, rules: Rules) -> AssembledContext:
    """The :class:`AssembledContext` of ``draft`` (items the API would reject are removed
    and counted in ``repaired``; a :class:`ContextBudgetWarning` when over the budget)."""
    count = rules.counter
    labelled = labelled_items(draft)
    bad = repair([it for it, _ in labelled])
    if bad:
        labelled = [pair for n, pair in enumerate(labelled) if n not in bad]
    items = [model_safe(it) for it, _ in labelled]
    item_tokens = tuple(count.item(it) for it in items)
    sections = empty_sections()
    sections["instructions"] = count.instructions(draft.instructions) + draft.tool_tokens
    for (_, section), tokens in zip(labelled, item_tokens, strict=True):
        sections[section] += tokens
    warning = over_budget_warning(draft, sections, rules.max_tokens)
    if warning is not None:
        warnings.warn(warning, ContextBudgetWarning, stacklevel=4)
    return AssembledContext(
        instructions=draft.instructions, items=items,
        item_sections=tuple(section for _, section in labelled), sections=sections,
        budget=rules.max_tokens, floor=draft.floor, tool_tokens=draft.tool_tokens,
        preamble_tokens=count.items(draft.preamble), dropped=draft.dropped,
        shortened=draft.shortened, repaired=len(bad), warning=warning,
        item_tokens=item_tokens)


def over_budget_warning(draft: Draft, sections: dict[str, int], budget: int) -> str | None:
    """Why the call is over ``budget`` (None when it is not): what the floor holds."""
    total = sum(sections.values())
    if total <= budget:
        return None
    rest = total - sections["instructions"] - sections["new_input"]
    compacted = ", its tool outputs compacted already" if draft.current_compacted else ""
    return (f"the part of this model call that is never dropped needs {total} tokens "
            f"(instructions and tool schemas {sections['instructions']}, new input "
            f"{sections['new_input']}, the rest of the current turn {rest}{compacted}), over "
            f"the max_tokens budget of {budget}; it is sent anyway, with nothing else")
