"""What one summarizer call reads: the span of a fold cut into chunks within a token bound.

A fold may cover far more than a summarizer can read (a first fold of a long history, a
periodic rebuild, a day of tool output). :class:`~ctxlab.policies.summarize.SummarizeParams`
``max_input_tokens`` bounds every call: the engine folds the span chunk by chunk, each
call reading the summary so far plus the next chunk (like langmem's bounded
``summarize_messages``). Chunks end at turn boundaries when a turn fits, else at an item
boundary; an item that alone does not fit is shortened (its head and tail kept, with a
marker saying how much was cut). These functions are pure: token counts come in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate
from typing import Any

from ..core.items import item_text

#: The marker put where a shortened item's text was cut (``{n}``: tokens left out).
CUT_MARK = " […{n} tokens cut to fit the summarizer's input…] "


def next_chunk(tokens: Sequence[int], boundaries: Sequence[int], start: int, room: int) -> int:
    """The end (exclusive) of the chunk that starts at ``start``: the furthest turn boundary
    (an entry of ``boundaries``, or ``len(tokens)``) whose items fit ``room`` tokens; when
    not even the next turn fits, the furthest item that does; at least one item."""
    if start >= len(tokens):
        return start
    total = list(accumulate(tokens[start:], initial=0))
    fits = [end for end in (*boundaries, len(tokens))
            if end > start and total[end - start] <= room]
    if fits:
        return max(fits)
    end = start + 1
    while end < len(tokens) and total[end + 1 - start] <= room:
        end += 1
    return end


def cut_text(text: str, limit: int, count: Callable[[str], int]) -> str:
    """``text`` within ``limit`` tokens: its head and tail around :data:`CUT_MARK`."""
    total = count(text)
    if total <= limit:
        return text
    keep = len(text) * max(limit - 16, 1) // total  # characters, at this text's density
    while True:
        head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3:] if keep >= 3 else ""
        cut = head + CUT_MARK.format(n=max(total - count(head) - count(tail), 1)) + tail
        if count(cut) <= limit or keep == 0:
            return cut
        keep = keep * 4 // 5


def fit_item(item: Mapping[str, Any], limit: int, count: Callable[[str], int]
             ) -> dict[str, Any]:
    """A copy of ``item`` whose text (:func:`~ctxlab.core.items.item_text`) fits ``limit``
    tokens: its output, content or a call's arguments shortened with :func:`cut_text`
    (list content becomes one plain text); an item with none of these is copied as is."""
    copy = dict(item)
    key = next((k for k in ("output", "content", "arguments", "input")
                if isinstance(copy.get(k), (str, list))), None)
    if key is None:
        return copy
    value = copy[key]
    if isinstance(value, list):
        value = "\n".join(str(p.get("text", "")) for p in value if isinstance(p, Mapping))
        copy.pop("type", None)  # the plain {"role": ..., "content": text} form
    budget = limit
    for _ in range(4):  # the rest of the item's text (a call's name) counts too
        copy[key] = cut_text(value, max(budget, 1), count)
        over = count(item_text(copy)) - limit
        if over <= 0:
            break
        budget -= over
    return copy
