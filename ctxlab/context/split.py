"""Read a model input as the sections a context is built from.

Before each model call the Runner sends the session's history, the new user input and, in
a tool loop, the calls and outputs the run has produced since. Two readers recover the
structure from that flat list:

* :func:`split_by_layout` uses what the session says it served
  (:meth:`ctxlab.MemorySession.served_layout`: which item is preamble, summary or which
  turn), so a summary pair is known by where it came from, not by its wording;
* :func:`split_model_input` segments by turns alone (:mod:`ctxlab.core.turns`), for input
  that did not come from a ctxlab session; it recognises a summary pair only by the
  explicit ``summary_prompts`` a caller passes.

Both give :class:`ModelInputParts`:

* ``preamble``: items before the first real user message (developer notes a caller stored);
* ``summary``: the summary pair, if any;
* ``turns``: the earlier turns, oldest first, each a real user message plus what followed;
* ``current``: the current turn, from the last real user message to the end (the new input
  and, inside a tool loop, the run's calls and outputs). It is never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.items import content_text, is_user_message, item_type
from ..core.turns import split_turns

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
    summary_prompts: Iterable[str] = (),
    has_new_input: bool = True,
) -> ModelInputParts:
    """Split ``items`` (what the Runner would send) into :class:`ModelInputParts` by turns.

    ``summary_prompts`` are texts that mark a summary request in history that does not come
    from a ctxlab session (a summary pair your own code inserted); none by default.
    With ``has_new_input=False`` every turn counts as an earlier turn and ``current`` is
    empty (for a stored history without a new message).
    """
    rest = list(items)
    summary: list[Item] = []
    pair = find_summary_pair(rest, summary_prompts)
    if pair is not None:
        summary = rest[pair : pair + 2]
        del rest[pair : pair + 2]
    preamble, turns = split_turns(rest)
    if not turns:
        return ModelInputParts(preamble=preamble, summary=summary)
    current: list[Item] = turns.pop() if has_new_input else []
    return ModelInputParts(preamble=preamble, summary=summary, turns=turns, current=current)


def split_by_layout(
    items: Sequence[Item], served: Sequence[Item], layout: Sequence[str]
) -> ModelInputParts | None:
    """Split ``items`` whose first ``len(served)`` items are what a session served, labelled
    by ``layout`` (see :meth:`ctxlab.MemorySession.served_layout`); None when the input does
    not start with them (the caller then falls back to :func:`split_model_input`)."""
    n = len(served)
    if len(items) < n or len(layout) != n or any(
        items[i] != served[i] for i in range(n)
    ):
        return None
    preamble: list[Item] = []
    summary: list[Item] = []
    turns: list[list[Item]] = []
    last = None
    for item, where in zip(items[:n], layout, strict=True):
        if where == "preamble":
            preamble.append(item)
        elif where == "summary":
            summary.append(item)
        else:
            if where != last or not turns:
                turns.append([])
            turns[-1].append(item)
        last = where
    rest = list(items[n:])
    if rest and is_user_message(rest[0]):
        current = rest
    elif turns:
        current = turns.pop() + rest
    else:
        current = rest
    return ModelInputParts(preamble=preamble, summary=summary, turns=turns, current=current)
