"""The notes in force, as recall shows them: this session's first, then standing ones, and
the standing notes a session note sets aside for now (so "usually home, this time the hotel"
reads as such). In the customer's language:

    Notes the customer asked us to keep (this conversation's override standing ones):
    - (this conversation) Ship it to the hotel, this time only.
    - (standing, 2026-03-02) From now on, email only, never call.
    Standing, set aside for this conversation only:
    - (standing, 2026-03-02) Ship everything to my office from now on.

    客户要求记住的事（本次对话里说的优先于长期的）：
    - （本次对话）只是这次寄到酒店。
    ...
"""

from __future__ import annotations

from ..facts.instructions import flag_line
from .notebook import InForce, MemoryNote

_WORDS = {
    "en": {"head": "Notes the customer asked us to keep (this conversation's override "
                   "standing ones):",
           "session": "(this conversation) ", "durable": "(standing, {at}) ",
           "aside": "Standing, set aside for this conversation only:"},
    "zh": {"head": "客户要求记住的事（本次对话里说的优先于长期的）：",
           "session": "（本次对话）", "durable": "（长期，{at}）",
           "aside": "长期要求，本次对话暂不适用："},
}
#: The headings, in every language (for readers of views and tests).
HEADERS = tuple(w["head"] for w in _WORDS.values())


def render_in_force(notes: InForce, language: str = "en") -> str:
    """The notes in force under their heading ("" when there are none)."""
    if not notes and not notes.set_aside:
        return ""
    words = _WORDS[language if language in _WORDS else "en"]
    lines = [words["head"]]
    lines += [_line(f"- {words['session']}{n.text}", n, language) for n in notes.session]
    lines += [_line(f"- {words['durable'].format(at=n.at[:10])}{n.text}", n, language)
              for n in notes.durable]
    if notes.set_aside:
        lines.append(words["aside"])
        lines += [_line(f"- {words['durable'].format(at=n.at[:10])}{n.text}", n, language)
                  for n in notes.set_aside]
    return "\n".join(lines)


def _line(line: str, note: MemoryNote, language: str) -> str:
    """A note's line, flagged when the note was flagged at capture or consolidation."""
    return flag_line(line, language, flagged=note.flagged)


__all__ = ["HEADERS", "render_in_force"]
