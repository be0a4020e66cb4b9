"""Changes and corrections, in English and Chinese: which value replaces which.

:func:`find_corrections` reads one message and returns :class:`Correction` s: the span of
the new value and, when the message names it, the span of the old one: "not A, it is B",
"B, not A", "actually make it B", "change it to B", "B instead of A", "改成B", "换成B",
"不是A，是B", "新的…是B（旧的A已取消）". A memory applies them with the values found in the
spans (:mod:`ctxlab.facts.values`): the new value wins, the old one is kept only as
superseded, never as current.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Correction:
    """``new`` (and ``old``, or None) as ``(start, end)`` spans of the message."""

    new: tuple[int, int]
    old: tuple[int, int] | None = None


_END = r"[^,;.!?，。；！？（）()]+"
_EN = (
    re.compile(rf"\bnot\s+(?P<old>{_END}?),?\s*(?:it(?:'s| is| was)|but|rather|make it)\s+"
               rf"(?P<new>{_END})", re.IGNORECASE),
    re.compile(rf"(?P<new>\b{_END}?),\s*not\s+(?P<old>{_END})", re.IGNORECASE),
    re.compile(rf"(?P<new>\b{_END}?)\s+instead\s+of\s+(?P<old>{_END})", re.IGNORECASE),
    re.compile(rf"\binstead\s+of\s+(?P<old>{_END}?),\s*(?P<new>{_END})", re.IGNORECASE),
    re.compile(rf"\b(?:actually|instead|sorry|wait|no|correction)\b[,\s]*(?:can you\s+|please\s+)?"
               rf"(?:make (?:it|that)|change (?:it|that) to|it's|it is|let's do|let's say|"
               rf"i meant|i mean|go with|switch to|do)\s+(?P<new>{_END})", re.IGNORECASE),
    re.compile(rf"\b(?:change|move|switch|update|push|reschedule)\s+(?:it|that|this|the\s+[\w ]+?"
               rf"|my\s+[\w ]+?)\s+to\s+(?P<new>{_END})", re.IGNORECASE),
)
_ZH_END = r"[^，。；！？,.;!?（）()]+"
_ZH = (
    re.compile(rf"不是(?P<old>{_ZH_END}?)[，,]?\s*(?:而)?是(?P<new>{_ZH_END})"),
    re.compile(rf"(?:改成|改为|改到|换成|换到|调整为|更正为|变成)(?P<new>{_ZH_END})"),
    re.compile(rf"新的{_ZH_END}?是\s*(?P<new>[^，。；！？,;!?（）()\s]+)\s*[（(]?\s*"
               rf"(?:旧的{_ZH_END}?\s*(?P<old>[^，。；！？,;!?（）()\s]+)\s*已(?:取消|作废|失效|停用))?"),
)


def find_corrections(text: str) -> list[Correction]:
    """The corrections one message makes, in text order (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"find_corrections expects a str, got {type(text).__name__}")
    found: list[Correction] = []
    for pattern in (*_EN, *_ZH):
        for match in pattern.finditer(text):
            new = match.span("new")
            old = match.span("old") if "old" in pattern.groupindex and match.group("old") \
                else None
            if not any(c.new[0] < new[1] and new[0] < c.new[1] for c in found):
                found.append(Correction(new, old))
    return sorted(found, key=lambda c: c.new[0])


#: Phrases after a value that say it no longer holds ("OLD 已取消", "the old one is cancelled").
CANCELLED = re.compile(r"^\s*(?:已取消|已作废|已失效|不要了|作废了|取消了|"
                       r"is cancell?ed|was cancell?ed)",
                       re.IGNORECASE)
