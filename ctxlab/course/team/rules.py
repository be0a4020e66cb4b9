"""What the offline team model reads in a message, and how it words its replies.

Keyword rules, in English and Chinese, on top of the offline support model's:

* a request to be passed on: a transfer phrase ("pass me to", "can I talk to", "转给",
  "转人工") together with a route word ("repair", "human", "sales", ...);
* a return: "I want to return it", "can I get a refund", "我想退货";
* a reference to something said before: "that shop I mentioned", "上次跟你说的那家店".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.items import is_user_message, item_kind, item_text
from ...core.memory_frame import is_memory_block
from ...memory.fts import query_terms

_TRANSFER = re.compile(
    r"\b(?:pass|transfer|put|connect|hand|send|escalate|forward)\b[^.?!]{0,24}"
    r"\b(?:me|us|this|it|my\s+case)\b|\b(?:talk|speak|chat)\s+(?:to|with)\b"
    r"|\bget\s+me\s+(?:a|the|someone)\b|\bI\s+(?:want|need)\s+(?:a|an|to\s+talk)\b"
    r"|转给|转到|转接|转人工|帮我找|我要找|找个|换个|接通|联系一下",
    re.IGNORECASE)
#: Route words: a handoff whose tool or agent name contains the key is the target.
ROUTES: dict[str, re.Pattern[str]] = {
    "human": re.compile(r"\b(?:human|real\s+person|a\s+person|someone\s+real|manager"
                        r"|supervisor|staff|colleague)\b|人工|真人|经理|主管|客服人员",
                        re.IGNORECASE),
    "repair": re.compile(r"\b(?:repair|workshop|technician)s?\b|维修|返修|修理", re.IGNORECASE),
    "sales": re.compile(r"\b(?:sales|quote|upgrade\s+offer|buy)\b|销售|报价|购买|买",
                        re.IGNORECASE),
    "billing": re.compile(r"\b(?:billing|invoice|refund\s+team)\b|账单|发票|财务",
                          re.IGNORECASE),
}
_RETURN = re.compile(
    r"\b(?:return|send)\s+(?:it|this|them|the\s+\w+(?:\s+\w+)?)(?:\s+back)?\b(?!\s+to\b)"
    r"|\breturn\s+(?:my|the|this)\b|\brefund\b|\bget\s+my\s+money\s+back\b"
    r"|退货|退掉|退回去|退款|想退",
    re.IGNORECASE)
_MENTIONED = re.compile(
    r"\b(?:I|we)\s+(?:mentioned|told\s+you\s+about|talked\s+about|spoke\s+about|said)\b"
    r"|\b(?:you|we)\s+(?:recommended|suggested)\b"
    r"|(?:上次|之前|前几天|那天|以前)[^。！？!?]{0,8}?(?:说|提|讲|聊)(?:过|到|起)?的?",
    re.IGNORECASE)
#: Words of a "that shop I mentioned" question that say nothing about *what* was mentioned.
_GENERIC = frozenset((
    "mentioned", "mention", "told", "talked", "spoke", "said", "about", "that", "earlier",
    "last", "time", "remember", "recommended", "suggested", "still", "open"))
#: Item categories as a Chinese reply names them.
CATEGORIES_ZH = {"laptop": "笔记本电脑", "printer": "打印机", "router": "路由器",
                 "monitor": "显示器", "phone": "手机", "docking station": "扩展坞"}


def wants_transfer(text: str) -> bool:
    return _TRANSFER.search(text) is not None


def route_for(text: str, targets: Sequence[tuple[str, str]]) -> str | None:
    """The handoff tool to call for ``text``: ``targets`` are (tool name, agent name)."""
    if not wants_transfer(text):
        return None
    for key, pattern in ROUTES.items():
        if not pattern.search(text):
            continue
        for tool, agent in targets:
            if key in tool.lower() or key in agent.lower():
                return tool
    return None


def wants_return(text: str) -> bool:
    return _RETURN.search(text) is not None


def refers_back(text: str) -> bool:
    return _MENTIONED.search(text) is not None


def _candidates(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the customer said before: their messages, and notes of memory messages and
    memory blocks (lines starting with "- ")."""
    found: list[str] = []
    for item in items:
        kind = item_kind(item)
        if is_user_message(item) and not is_memory_block(item):
            found.append(" ".join(item_text(item).split()))
        elif kind in ("developer", "system") or is_memory_block(item):
            found += [line[2:].strip() for line in item_text(item).splitlines()
                      if line.startswith("- ")]
    return found


def mentioned(question: str, earlier: Sequence[Mapping[str, Any]]) -> str | None:
    """The earlier customer statement that shares the most words with ``question``."""
    terms = [t for t in query_terms(question) if t not in _GENERIC]
    best, score = None, 0
    for text in _candidates(earlier):
        if refers_back(text) and text.rstrip().endswith(("?", "？")):
            continue  # another question about something mentioned, not the mention
        words = set(query_terms(text))
        hits = sum(1 for t in terms if t in words)
        if hits > score:
            best, score = text, hits
    return best


_DATED = re.compile(r"^[(（]([^)）]{1,20})[)）]\s*")


def mention_reply(found: str | None, language: str) -> str:
    """Quote what the customer mentioned (with when, if a memory note dates it)."""
    if found is None:
        if language == "zh":
            return "抱歉，之前的对话记录里我没找到您说的是哪一个，方便再说一下名称或地址吗？"
        return ("Sorry, I can't find what you mentioned in our conversation. Could you tell me "
                "the name or the address again?")
    dated = _DATED.match(found)
    when, said = (dated.group(1), found[dated.end():]) if dated else ("", found)
    if language == "zh":
        stop = "" if said.endswith(("。", "！", "？")) else "。"
        return f"您{when}提到过：“{said}”{stop}需要我帮您做点什么吗？"
    lead = f"You mentioned this on {when}" if when else "You mentioned this before"
    return f'{lead}: "{said}" What would you like me to do about it?'


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def deleted_reply(output: str, language: str) -> str:
    data = _json(output)
    if not data.get("deleted"):
        return ("我们这边没有保存您的任何信息，所以也没有需要删除的内容。" if language == "zh" else
                "We don't hold any data about you, so there was nothing to delete.")
    if language == "zh":
        return ("已经删除了。我们保存的关于您的长期记忆、各位客服共享的客户资料，还有您的"
                f"{data.get('sessions', 0)}段对话记录，都已清除，无法恢复。"
                "这次对话也不会留下记录。")
    return ("Done: I deleted everything we stored about you: your long-term memory, the "
            f"customer record our agents share and your conversation history "
            f"({data.get('sessions', 0)} conversation(s)). This cannot be undone, and "
            "nothing from this conversation will be kept.")


def order_reply(order: str, policy: str, language: str) -> str:
    o, p = _json(order), _json(policy)
    if "error" in o:
        if language == "zh":
            return "没找到这个订单，能再确认一下订单号吗？（格式像 ORD-12345）"
        return "I couldn't find that order. Could you check the order number (like ORD-12345)?"
    days = p.get("return_days", "?")
    if language == "zh":
        category = CATEGORIES_ZH.get(str(o.get("category")), "这类商品")
        return (f"订单 {o['order_id']}（{o['item']}，{o['delivered']} 签收）在 "
                f"{o['returnable_until']} 之前都可以退。{category}签收后 {days} 天内可以退货，"
                "需要原包装和全部配件齐全；我们收到货后 5 个工作日内原路退款。"
                "要我现在帮您办退货吗？")
    return (f"Order {o['order_id']} ({o['item']}, delivered {o['delivered']}) can be returned "
            f"until {o['returnable_until']}: {o.get('category', 'this kind of item')}s can be "
            f"returned within {days} days of delivery, {p.get('conditions', '')}. Shall I "
            "create the return for you?")
