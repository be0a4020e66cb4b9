"""Read a model input as the sections a context is built from.

Before each model call the Runner sends the session's history, the new user input and, in
a tool loop, the calls and outputs the run has produced since. :func:`split_model_input`
recovers the structure from that flat list:

* ``preamble``: items before the first real user message (developer notes a caller stored);
* ``summary``: a summary pair a :class:`~ctxlab.SummarizingSession` put into its view (a
  user message holding a known summary request, then the assistant's summary);
* ``turns``: the earlier turns, oldest first, each a real user message plus what followed;
* ``current``: the current turn, from the last real user message to the end (the new input
  and, inside a tool loop, the run's calls and outputs). It is never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import content_text, is_user_message, item_type
from ..summarizers.base import SUMMARY_SHADOW_PROMPT

Item = Mapping[str, Any]


@dataclass(frozen=True)
class ModelInputParts:
    """A model input split into preamble, summary pair, earlier turns and current turn."""

    preamble: list[Item] = field(default_factory=list)
    summary: list[Item] = field(default_factory=list)
    turns: list[list[Item]] = field(default_factory=list)
    current: list[Item] = field(default_factory=list)

    @property
    def new_input(self) -> list[Item]:
        """The user message that opened the current turn (empty when there is none)."""
        return self.current[:1] if self.current and is_user_message(self.current[0]) else []

    @property
    def new_input_text(self) -> str:
        return "\n".join(content_text(item.get("content")) for item in self.new_input)


def _is_assistant(item: Item) -> bool:
    return item_type(item) == "message" and item.get("role") == "assistant"


def find_summary_pair(items: Sequence[Item], prompts: Iterable[str]) -> int | None:
    """Index of a summary request (a user message whose text is one of ``prompts``)
    that is directly followed by an assistant message, or None."""
    wanted = {p.strip() for p in prompts if isinstance(p, str) and p.strip()}
    if not wanted:
        return None
    for index in range(len(items) - 1):
        item = items[index]
        if (
            is_user_message(item)
            and content_text(item.get("content")).strip() in wanted
            and _is_assistant(items[index + 1])
        ):
            return index
    return None


def split_model_input(
    items: Sequence[Item],
    *,
    summary_prompts: Iterable[str] = (SUMMARY_SHADOW_PROMPT,),
    has_new_input: bool = True,
) -> ModelInputParts:
    """Split ``items`` (what the Runner would send) into :class:`ModelInputParts`.

    ``summary_prompts`` are the texts that mark a summary request (by default the one
    ctxlab's summarizers use; pass a session's ``summary.shadow`` when it differs).
    With ``has_new_input=False`` every turn counts as an earlier turn and ``current`` is
    empty (for a stored history without a new message).
    """
    rest = list(items)
    summary: list[Item] = []
    pair = find_summary_pair(rest, summary_prompts)
    if pair is not None:
        summary = rest[pair : pair + 2]
        del rest[pair : pair + 2]
    starts = [i for i, item in enumerate(rest) if is_user_message(item)]
    if not starts:
        return ModelInputParts(preamble=rest, summary=summary)
    preamble = rest[: starts[0]]
    bounds = [*starts, len(rest)]
    turns = [rest[bounds[n] : bounds[n + 1]] for n in range(len(starts))]
    current: list[Item] = turns.pop() if has_new_input else []
    return ModelInputParts(preamble=preamble, summary=summary, turns=turns, current=current)
