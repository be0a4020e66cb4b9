"""Show a user's long-term memory to the model: structured part first, recalled notes after.

The text is written in the user's language (the language of their latest session):

    Long-term memory of this customer, from 2 earlier conversations (latest values):
    profile: name Dana Whitfield | email dana@example.com
    standing requests:
    - (2025-03-02) Please reach me by email only, never call.
    open promises:
    - (2025-03-02) I'll send the replacement label by Friday.
    devices and cases: (2025-03-02) device Aurora 14 | serial C02XK7ML9Q4 | ticket TCK-48213
    Earlier, the customer said (found for this message):
    - (2025-03-02) I dropped the laptop off at the FixIt repair shop on Park Row.

    该客户的长期记忆（来自此前 2 次对话，以最新信息为准）：
    基本信息：姓名 张伟 | 手机号 13912345678
    客户要求：
    - （3月2日）请只用短信联系我，别打电话。
    ...
    客户此前提到的相关内容：
    - （3月2日）我把电脑送到了文三路的快修堂维修店。
"""

from __future__ import annotations

from collections.abc import Sequence

from ..facts.instructions import flag_line
from .record import Case, Note, Remembered, UserMemory

_WORDS = {
    "en": {
        "head": "Long-term memory of this customer, from {n} earlier conversation{s} "
                "(latest values):",
        "profile": "profile: ", "preferences": "standing requests:",
        "commitments": "open promises:", "cases": "devices and cases: ",
        "notes": "Earlier, the customer said (found for this message):",
        "when": "({at}) ",
        "name": "name", "email": "email", "phone": "phone", "member_level": "member level",
        "user_id": "user id",
        "device_model": "device", "category": "issue", "serial": "serial",
        "ticket_id": "ticket", "rma": "RMA", "order_id": "order", "error_codes": "error",
        "firmware": "firmware", "status": "status",
    },
    "zh": {
        "head": "该客户的长期记忆（来自此前 {n} 次对话，以最新信息为准）：",
        "profile": "基本信息：", "preferences": "客户要求：",
        "commitments": "已答应客户、尚未办完的事：", "cases": "设备与工单：",
        "notes": "客户此前提到的相关内容：",
        "when": "（{at}）",
        "name": "姓名", "email": "邮箱", "phone": "手机号", "member_level": "会员等级",
        "user_id": "用户ID",
        "device_model": "型号", "category": "故障类型", "serial": "序列号",
        "ticket_id": "工单号", "rma": "返修单号", "order_id": "订单号",
        "error_codes": "错误代码", "firmware": "固件版本", "status": "状态",
    },
}
#: Ticket statuses as a Chinese line shows them (tools answer in English).
_STATUS_ZH = {"open": "处理中", "in progress": "处理中", "resolved": "已解决",
              "closed": "已关闭", "pending": "待处理"}
_PROFILE = ("name", "email", "phone", "member_level", "user_id")
_CASE = ("device_model", "category", "serial", "ticket_id", "rma", "order_id", "error_codes",
         "firmware", "status")
#: How the structured part starts, in every language (for readers of views).
HEADERS = tuple(w["head"].split("{")[0] for w in _WORDS.values())
#: The heading of the recalled notes, in every language.
NOTES_HEADERS = tuple(w["notes"] for w in _WORDS.values())


def _case(case: Case, words: dict[str, str], language: str) -> str:
    parts = []
    for name in _CASE:
        value = getattr(case, name)
        if name == "category" and value and any(code in value for code in case.error_codes):
            continue  # "error E4805" as the category says what the error code line says
        if name == "error_codes":
            parts += [f"{words[name]} {code}" for code in value]
        elif value:
            if name == "status" and language == "zh":
                value = _STATUS_ZH.get(str(value).lower(), value)
            parts.append(f"{words[name]} {value}")
    return words["when"].format(at=case.at) + " | ".join(parts)


def _listed(head: str, items: Sequence[Remembered], words: dict[str, str]) -> list[str]:
    """A heading, then one "- (when) sentence" line per item (a sentence per line, so a
    reader quotes it whole)."""
    return [head, *(f"- {words['when'].format(at=r.at)}{r.text}" for r in items)]


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
    if memory.preferences:
        lines += _listed(words["preferences"], memory.preferences, words)
    if memory.commitments:
        lines += _listed(words["commitments"], memory.commitments, words)
    cases = memory.cases[-max_cases:] if max_cases else []
    if cases:
        sep = "；" if language == "zh" else " | "
        lines.append(words["cases"] + sep.join(_case(c, words, language) for c in cases))
    return "\n".join(lines)


def render_notes(notes: Sequence[Note], language: str) -> str:
    """Recalled notes under their heading ("" when there are none); a note flagged when it
    was captured is shown flagged (:func:`~ctxlab.facts.instructions.flag_line`)."""
    if not notes:
        return ""
    words = _WORDS[language if language in _WORDS else "en"]
    return "\n".join([words["notes"], *(
        flag_line(f"- {words['when'].format(at=n.at)}{n.text}", language, flagged=n.flagged)
        for n in notes)])
