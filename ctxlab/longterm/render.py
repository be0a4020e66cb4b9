"""Show a user's long-term memory to the model: structured part first, recalled notes after.

The text is written in the user's language (the language of their latest session):

    Long-term memory of this customer, from 2 earlier conversations (latest values):
    profile: name Dana Whitfield | email dana@example.com
    preferences: contact (said 2025-03-02): Please reach me by email only, never call.
    open commitments: (2025-03-02) I'll send the replacement label by Friday.
    devices and cases: (2025-03-02) device Aurora 14 | serial C02XK7ML9Q4 | ticket TCK-48213
    Earlier, the customer said (found for this message):
    - (2025-03-02) I dropped the laptop off at the FixIt shop on Park Row.

    这位客户以前的对话里留下的信息（长期记忆，共2次对话，以最新为准）：
    资料：姓名 张伟 | 手机号 13912345678
    要求：联系方式（2025-03-02说的）：只用短信联系，别打电话。
    ...
    这位客户之前说过的相关的话：
    - （2025-03-02）我把电脑送到了文三路的快修堂维修店。
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import cues
from .record import Case, Note, Remembered, UserMemory

_WORDS = {
    "en": {
        "head": "Long-term memory of this customer, from {n} earlier conversation{s} "
                "(latest values):",
        "profile": "profile: ", "preferences": "preferences: ",
        "commitments": "open commitments: ", "cases": "devices and cases: ",
        "notes": "Earlier, the customer said (found for this message):",
        "said": "{topic} (said {at}): {text}", "when": "({at}) ",
        "name": "name", "email": "email", "phone": "phone", "member_level": "member level",
        "user_id": "user id",
        "device_model": "device", "category": "issue", "serial": "serial",
        "ticket_id": "ticket", "rma": "RMA", "order_id": "order", "error_codes": "error",
        "firmware": "firmware", "status": "status",
    },
    "zh": {
        "head": "这位客户以前的对话里留下的信息（长期记忆，共{n}次对话，以最新为准）：",
        "profile": "资料：", "preferences": "要求：", "commitments": "还没兑现的承诺：",
        "cases": "设备和工单：", "notes": "这位客户之前说过的相关的话：",
        "said": "{topic}（{at}说的）：{text}", "when": "（{at}）",
        "name": "姓名", "email": "邮箱", "phone": "手机号", "member_level": "会员等级",
        "user_id": "用户ID",
        "device_model": "型号", "category": "问题", "serial": "序列号", "ticket_id": "工单号",
        "rma": "返修单号", "order_id": "订单号", "error_codes": "错误代码",
        "firmware": "固件版本", "status": "状态",
    },
}
_PROFILE = ("name", "email", "phone", "member_level", "user_id")
_CASE = ("device_model", "category", "serial", "ticket_id", "rma", "order_id", "error_codes",
         "firmware", "status")
#: Every header line the rendered memory can start a section with (for readers of views).
HEADERS = tuple(w["head"].split("{")[0] for w in _WORDS.values())


def _topic(topic: str, language: str) -> str:
    return cues.CONSTRAINT_TOPICS_ZH.get(topic, topic) if language == "zh" else topic


def _case(case: Case, words: dict[str, str]) -> str:
    parts = []
    for name in _CASE:
        value = getattr(case, name)
        if name == "error_codes":
            parts += [f"{words[name]} {code}" for code in value]
        elif value:
            parts.append(f"{words[name]} {value}")
    return words["when"].format(at=case.at) + " | ".join(parts)


def render_structured(memory: UserMemory, *, max_cases: int = 3) -> str:
    """The structured part: profile, preferences, open commitments, recent cases."""
    if memory.is_empty() and not memory.sessions:
        return ""
    language = memory.language if memory.language in _WORDS else "en"
    words = _WORDS[language]
    n = len(memory.sessions)
    lines = [words["head"].format(n=n, s="" if n == 1 else "s")]
    profile = " | ".join(f"{words[f]} {getattr(memory.profile, f)}" for f in _PROFILE
                         if getattr(memory.profile, f))
    if profile:
        lines.append(words["profile"] + profile)
    sep = "；" if language == "zh" else " | "

    def said(items: Sequence[Remembered]) -> str:
        return sep.join(words["said"].format(topic=_topic(r.topic, language), at=r.at,
                                             text=r.text) for r in items)

    if memory.preferences:
        lines.append(words["preferences"] + said(memory.preferences))
    if memory.commitments:
        lines.append(words["commitments"] + sep.join(
            words["when"].format(at=c.at) + c.text for c in memory.commitments))
    cases = memory.cases[-max_cases:] if max_cases else []
    if cases:
        lines.append(words["cases"] + sep.join(_case(c, words) for c in cases))
    return "\n".join(lines)


def render_notes(notes: Sequence[Note], language: str) -> str:
    """Recalled notes under their heading ("" when there are none)."""
    if not notes:
        return ""
    words = _WORDS[language if language in _WORDS else "en"]
    return "\n".join([words["notes"], *(f"- {words['when'].format(at=n.at)}{n.text}"
                                        for n in notes)])
