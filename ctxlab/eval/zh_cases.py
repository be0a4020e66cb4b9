"""The Chinese support corpus as evaluation cases (``--corpus zh``).

Each conversation of :func:`ctxlab.course.corpora.load_zh_support` becomes an
:class:`~ctxlab.eval.cases.EvalCase` probed after its last turn, like the other corpora, with
three differences:

* values replaced mid-chat (a new e-mail address, a firmware upgrade, a visit moved to
  another day: ``meta["updates"]``) are marked superseded from the turn the new value
  holds, so only the current value is probed and the old one counts as *stale*;
* the probe questions are Chinese ("我的工单号是多少来着？"): :data:`ZH_KIND_QUESTIONS`;
* values are matched with ASCII word boundaries (``KeyFact.whole_word``): "BCD-123" counts
  in "型号是BCD-123，" but "42" does not count inside "4200".

Facts of the kinds ``model``, ``phone`` and ``date`` carry that kind; the offline model
recalls them when asked in Chinese, so their probes are asked through it like the others
(see :mod:`ctxlab.eval.cases`).
"""

from __future__ import annotations

from dataclasses import replace

from ..core.turns import segment_turns
from ..course.corpora import Conversation, load_zh_support
from ..facts.typed import ALL_FACT_KINDS
from .cases import EvalCase, KeyFact, RecallProbe, mark_answerable, probes_at

#: The question a probe asks, in Chinese, for each fact kind.
ZH_KIND_QUESTIONS: dict[str, str] = {
    "ticket": "我的工单号是多少来着？",
    "serial": "我之前给你的序列号是多少？",
    "firmware": "设备现在的固件版本是多少？",
    "error_code": "刚才的错误代码是什么来着？",
    "email": "你们记的我的邮箱是哪个？",
    "order": "我的订单号是多少来着？",
    "rma": "我的返修单号是多少？",
    "reservation": "我的预约号是多少？",
    "model": "我这台设备的型号是什么来着？",
    "phone": "你们记的我的手机号是多少？",
    "date": "约好的日期是哪天来着？",
}

#: Questions for facts that are not identifiers, by category (the part of the name before
#: the dot: ``constraint.delivery`` -> ``constraint``).
ZH_CATEGORY_QUESTIONS: dict[str, str] = {
    "constraint": "我之前跟你说过要注意什么？",
    "commitment": "你之前答应过我什么？",
}


def zh_question(category: str, kind: str | None) -> str:
    """The Chinese question of a probe about a fact of ``category`` and ``kind``."""
    if kind in ZH_KIND_QUESTIONS:
        return ZH_KIND_QUESTIONS[kind]
    return ZH_CATEGORY_QUESTIONS.get(category, "我们之前说到的那个信息是什么来着？")


def zh_case(conversation: Conversation) -> EvalCase:
    """One conversation of the Chinese corpus as a case (see the module docstring)."""
    items = conversation.items
    seg = segment_turns(items)
    facts: list[KeyFact] = []
    for fact in conversation.facts_mentioned():
        assert fact.first_item is not None
        category = fact.name.split(".", 1)[0]
        facts.append(KeyFact(
            name=fact.name, value=fact.value, category=category,
            kind=fact.name if fact.name in ALL_FACT_KINDS else None,
            first_item=fact.first_item, first_turn=seg.turn_of(fact.first_item),
            where=fact.where, whole_word=True,
        ))
    for update in conversation.meta.get("updates", []):
        turn = seg.turn_of(update["from_item"])
        facts = [replace(f, superseded_by=update["new"], superseded_turn=turn)
                 if f.name == update["fact"] and f.value == update["old"] else f
                 for f in facts]
    probes: list[RecallProbe] = [
        replace(p, question=zh_question(p.category, p.kind))
        for p in probes_at(facts, len(seg.turns) + 1)
    ]
    starts = [t.start for t in seg.turns]
    return EvalCase(
        id=conversation.id, source=conversation.source, items=items, facts=tuple(facts),
        probes=mark_answerable(items, starts, probes, kinds=ALL_FACT_KINDS),
        meta=dict(conversation.meta),
    )


def zh_cases() -> list[EvalCase]:
    """The 14 Chinese support conversations as cases."""
    return [zh_case(c) for c in load_zh_support()]
