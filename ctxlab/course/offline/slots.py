"""The offline model answers a question about any slot: "what was the drop-off date of my
rental car?", "Remind me, what was the pickup location again?", "酒店的电话是多少来着？".

:func:`slot_question` reads what is asked: the words of the slot ("drop-off date of my rental
car" -> cue words ``drop-off``, ``rental``, ``car``; head ``date``) and the kinds of value
that can answer it (a date for "date", a place or name for "location", ...).
:func:`slot_answer` looks for it in the model's view only: every value of those kinds
(:mod:`ctxlab.facts.values`) that is not marked as earlier (:mod:`ctxlab.facts.staleness`),
in the line or message that shares most cue words with the question, the latest first. When
none is in view it says so: "I don't see the ... in our conversation".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.items import item_kind, item_text
from ...facts.staleness import stale_marks
from ...facts.values import find_values

_EN_ASK = re.compile(
    r"(?:what|which|when|where)(?:'s|\s+(?:is|was|were|are))\s+(?:the\s+|my\s+|our\s+|your\s+)?"
    r"(?P<slot>[\w\s'-]+?)\s*(?:again|for me|you have)?\s*\??$", re.IGNORECASE)
_ZH_ASK = re.compile(r"(?:之前说的|刚才说的|我的|你们记的)?(?P<slot>[\u4e00-\u9fff\w-]{1,16}?)"
                     r"(?:是什么来着|是多少来着|是哪天来着|是几点来着|是什么|是多少|是哪个|是哪家|"
                     r"在哪|是哪天|是几点|来着)[？?。]?$")
_REMIND = re.compile(r"^(?:remind me|just checking|quick question|提醒我一下|请问)[,，:：\s]*",
                     re.IGNORECASE)

#: The kinds of value that answer a slot, by a word of its name.
HEAD_KINDS: dict[str, tuple[str, ...]] = {
    "date": ("date",), "day": ("date",), "time": ("time",), "hour": ("time",),
    "location": ("name", "place", "address"), "city": ("name", "place"),
    "place": ("name", "place", "address"), "address": ("address", "name"),
    "destination": ("name", "place"), "origin": ("name", "place"),
    "name": ("name", "category"), "hotel": ("name",), "restaurant": ("name",),
    "phone": ("phone",), "number": ("phone", "identifier", "count"),
    "price": ("amount",), "cost": ("amount",), "fare": ("amount",), "amount": ("amount",),
    "rating": ("rating",), "type": ("category", "name"), "length": ("count",),
    "travelers": ("count",), "passengers": ("count",), "people": ("count",),
    "日期": ("date",), "哪天": ("date",), "时间": ("time", "duration"), "几点": ("time",),
    "地址": ("address", "name"), "电话": ("phone",), "名称": ("name",), "名字": ("name",),
    "出发地": ("name", "address"), "目的地": ("name", "address"), "价格": ("amount",),
    "消费": ("amount",), "门票": ("amount",), "评分": ("rating",), "类型": ("category",),
}
_FILLER = frozenset((
    "the", "a", "an", "my", "our", "your", "of", "for", "to", "was", "is", "were", "again", "me",
    "i",
))


@dataclass(frozen=True)
class SlotQuestion:
    """What a question asks: its slot words as written, cue words and answering kinds."""

    slot: str
    cues: tuple[str, ...]
    kinds: tuple[str, ...]


_RECALL_WORDS = re.compile(r"\bagain\b|^remind me|来着|之前|提醒我", re.IGNORECASE)


def slot_question(text: str) -> SlotQuestion | None:
    """The slot a question asks about, or None when it asks none: a question names a slot
    whose kind of value is known ("date", "location", "电话") or asks to be reminded
    ("again", "来着")."""
    recall = bool(_RECALL_WORDS.search(text.strip()))
    text = _REMIND.sub("", text.strip())
    match = _EN_ASK.search(text) or _ZH_ASK.search(text)
    if match is None:
        return None
    slot = match.group("slot").strip()
    words = [w for w in re.split(r"[\s_的]+", slot.lower().replace("-", " ")) if w]
    cues = tuple(w for w in words if w not in _FILLER) or (slot,)
    kinds: tuple[str, ...] = ()
    for word, found in HEAD_KINDS.items():
        if word in words or (not word.isascii() and word in slot):
            kinds = found
    if not kinds and not recall:
        return None
    return SlotQuestion(slot, cues, kinds)


def _candidates(items: Sequence[Mapping[str, Any]], question: SlotQuestion
                ) -> list[tuple[int, int, str]]:
    """``(cue score, position, value)`` for every current value of the asked kinds."""
    out = []
    position = 0
    for item in items:
        if item_kind(item) not in ("user", "assistant"):
            continue
        for line in item_text(item).split("\n"):
            position += 1
            folded = line.casefold().replace("-", " ").replace("_", " ")
            joined = folded.replace(" ", "")
            score = sum(cue in folded or cue in joined for cue in question.cues)
            marks = stale_marks(line)
            for value in find_values(line):
                if question.kinds and value.kind not in question.kinds:
                    continue
                if marks.covers(value.start, value.end):
                    continue
                out.append((score, position, value.text))
    return out


def slot_answer(question: SlotQuestion, items: Sequence[Mapping[str, Any]], language: str
                ) -> str:
    """The value that answers ``question`` from ``items`` (the model's view, without the
    question itself), or an honest "I don't see it"."""
    found = _candidates(items, question)
    best = max(found, default=None)
    if best is None or (best[0] == 0 and not question.kinds):
        if language == "zh":
            return f"我们的对话里没有看到{question.slot}，能再告诉我一下吗？"
        slot = re.sub(r"\bmy\b", "your", question.slot)
        return f"I don't see the {slot} in our conversation. Could you tell me again?"
    slot = re.sub(r"\bmy\b", "your", question.slot)
    if language == "zh":
        return f"{question.slot}是{best[2]}。"
    return f"The {slot} is {best[2]}."
