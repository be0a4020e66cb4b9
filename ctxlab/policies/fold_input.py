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
    """A copy of ``item`` whose text fits ``limit`` tokens (its output, its content or a
    call's arguments shortened with :func:`cut_text`); other items are copied as they are."""
    copy = dict(item)
    for key in ("output", "content", "arguments", "input"):
        value = copy.get(key)
        if isinstance(value, str):
            copy[key] = cut_text(value, limit, count)
            return copy
        if key == "content" and isinstance(value, list):
            text = "\n".join(str(p.get("text", "")) for p in value if isinstance(p, Mapping))
            copy[key] = cut_text(text, limit, count)
            copy.pop("type", None)  # plain {"role", "content": str} form
            return copy
    return copy
