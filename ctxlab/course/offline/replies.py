"""The sentences the offline model writes: recall answers, tool-result summaries, small talk.

Every function here is pure: it takes values that are already in the model's input and
returns text. Nothing in this module may introduce an identifier of its own: a value in a
reply is always copied from a fact or a tool output that the caller passes in.

Every reply exists in English and in Chinese (``language="zh"``): the model answers in the
language of the question ("您的工单号是 TCK-50821。", "我这边没看到您提供的型号，方便再发
一下吗？"). The Chinese replies are written the way a Chinese support agent writes, not
translated from the English ones: a device is named as the customer names it ("您的冰箱
型号是 BCD-123。"), and a value in a Chinese sentence stands between spaces or punctuation,
so it is read back exactly as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.items import preview
from ...facts.typed import FACT_LABELS, Found, distinct_values, fact_label, latest_fact
from ...memory.playbook import SymptomMatch

GREETING = "Hello! I'm the IT support assistant. What device or app is giving you trouble today?"
THANKS = "You're welcome! Is the issue solved now, or should we keep going?"
FALLBACK_QUESTION = "Could you tell me which device you are using and what you see on screen?"
NO_USER_MESSAGE = "Hello! I'm the IT support assistant. How can I help you today?"

GREETING_ZH = "您好！我是在线客服，请问遇到什么问题了？是哪台设备，还是哪个软件？"
THANKS_ZH = "不客气！问题解决了吗？还没解决的话，我们接着排查。"
# Honest about what the agent cannot do: no tool offered here deletes data.
DATA_REQUEST = (
    "I can't delete your ticket or personal data from this chat. Please send the request "
    "through the privacy form on our website: the privacy team handles deletions and "
    "confirms by email. Is there anything else I can help with in the meantime?"
)
DATA_REQUEST_ZH = (
    "在聊天里我没办法直接删除您的工单和个人信息。麻烦您到官网填写隐私申请表，提交删除申请，"
    "隐私团队处理完会发邮件告诉您。还有其他需要我帮忙的吗？"
)
FALLBACK_QUESTION_ZH = "能再具体说说吗？是哪台设备出了问题，屏幕上有没有什么提示或者故障码？"

_RECALL_SENTENCE = {
    "ticket": "Your ticket number is {value}.",
    "serial": "Your device's serial number is {value}.",
    "firmware": "Your firmware version is {value}.",
    "error_code": "The most recent error code in our conversation is {value}.",
    "email": "Your email address is {value}.",
    "order": "Your order number is {value}.",
    "rma": "Your RMA number is {value}.",
    "reservation": "Your reservation code is {value}.",
}

#: ``{owner}`` is the customer's device as they call it ("您的冰箱"), or "您的设备".
_RECALL_SENTENCE_ZH = {
    "ticket": "您的工单号是 {value}。",
    "serial": "{owner}序列号是 {value}。",
    "firmware": "{owner}固件版本是 {value}。",
    "error_code": "最近一次出现的错误代码是 {value}。",
    "email": "您的邮箱是 {value}。",
    "order": "您的订单号是 {value}。",
    "rma": "您的返修单号是 {value}。",
    "reservation": "您的预约号是 {value}。",
    "model": "{owner}型号是 {value}。",
    "phone": "您留的手机号是 {value}。",
    "date": "跟您约好的日期是 {value}。",
}

_SHORT_LABELS = {
    "ticket": "ticket",
    "serial": "serial",
    "firmware": "firmware",
    "error_code": "error code",
    "email": "email",
    "order": "order",
    "rma": "RMA",
    "reservation": "reservation",
}

#: What each tool argument identifies, for "could you double-check the ...?".
_ARGUMENT_LABELS = {"serial": "serial number", "ticket_id": "ticket number"}
_ARGUMENT_LABELS_ZH = {"serial": "序列号", "ticket_id": "工单号"}


def join_words(words: Sequence[str], conjunction: str = "and") -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def join_words_zh(words: Sequence[str], conjunction: str = "和") -> str:
    """``["a", "b", "c"]`` -> ``"a、b和c"`` (with a space between a Latin letter or digit
    and a Chinese character: ``故障码 E4 和漏水``)."""
    if len(words) <= 1:
        return "".join(words)
    return spaced("、".join(words[:-1]), conjunction.strip(), words[-1])


_ASCII_END = re.compile(r"[A-Za-z0-9%]$")
_ASCII_START = re.compile(r"^[A-Za-z0-9]")
_CJK_START = re.compile(r"^[\u3400-\u9fff]")
_CJK_END = re.compile(r"[\u3400-\u9fff]$")


def spaced(*parts: str) -> str:
    """``parts`` joined, with a space where a Latin letter or digit meets a Chinese
    character (``故障码 E4`` + ``的问题`` -> ``故障码 E4 的问题``), as Chinese technical text
    separates a code from the words around it."""
    out = ""
    for part in parts:
        if not part:
            continue
        if out and ((_ASCII_END.search(out) and _CJK_START.search(part))
                    or (_CJK_END.search(out) and _ASCII_START.search(part))):
            out += " "
        out += part
    return out


#: The answer for a value a memory note marks uncertain: named, not stated, and checked.
UNSURE = ("My notes have {value} as your {label}, but marked as uncertain; could you confirm "
          "it?")
UNSURE_ZH = "我这边记的{label}是 {value}，但标了待确认，麻烦您再核对一下。"


def recall_answer(
    kinds: Sequence[str],
    facts: Mapping[str, Sequence[Found]],
    tool_names: Mapping[int, str] | None = None,
    language: str = "en",
    device: str | None = None,
    *,
    doubtful: Collection[str] = (),
) -> str:
    """Answer "what was my ...?" for each kind, from ``facts`` only.

    A value in ``doubtful`` (a memory note marks it uncertain) is not stated as fact: the
    answer names it and asks the customer to confirm it.

    A kind with no fact gets the honest answer: the model does not see it and asks for it
    again. ``tool_names`` maps item indices of tool outputs to the tool's name, so a value
    found only in a tool result can say where it came from. ``language`` is the language
    of the answer (``"en"`` or ``"zh"``); ``device`` is the customer's device as they call it
    (a Chinese answer names it: "您的冰箱型号是 BCD-123。").
    """
    if language == "zh":
        return _recall_answer_zh(kinds, facts, tool_names or {}, device, doubtful)
    sentences: list[str] = []
    missing: list[str] = []
    for kind in kinds:
        found = list(facts.get(kind, ()))
        fact = latest_fact(found)
        if fact is None:
            missing.append(FACT_LABELS[kind])
            continue
        if fact.value in doubtful:
            sentences.append(UNSURE.format(value=fact.value, label=FACT_LABELS[kind]))
            continue
        sentence = _RECALL_SENTENCE[kind].format(value=fact.value)
        if not fact.in_message:
            tool = (tool_names or {}).get(fact.index)
            part = "request" if fact.source == "tool_call" else "result"
            where = f"the {tool} {part}" if tool else f"an earlier tool {part}"
            sentence = sentence[:-1] + f" (I found it in {where})."
        if kind == "error_code":
            earlier = [v for v in distinct_values(found) if v != fact.value][:3]
            if earlier:
                sentence += f" Before that: {join_words(earlier)}."
        sentences.append(sentence)
    if missing:
        them = "it" if len(missing) == 1 else "them"
        sentences.append(
            f"I don't see your {join_words(missing)} in our conversation; could you repeat {them}?"
        )
    return " ".join(sentences)


def _recall_answer_zh(kinds: Sequence[str], facts: Mapping[str, Sequence[Found]],
                      tool_names: Mapping[int, str], device: str | None,
                      doubtful: Collection[str] = ()) -> str:
    sentences: list[str] = []
    missing: list[str] = []
    owner = f"您的{device}" if device else "您的设备"
    for kind in kinds:
        found = list(facts.get(kind, ()))
        fact = latest_fact(found)
        if fact is None:
            missing.append(fact_label(kind, "zh"))
            continue
        if fact.value in doubtful:
            sentences.append(UNSURE_ZH.format(value=fact.value, label=fact_label(kind, "zh")))
            continue
        sentence = _RECALL_SENTENCE_ZH[kind].format(value=fact.value, owner=owner)
        if not fact.in_message:
            tool = tool_names.get(fact.index)
            if fact.source == "tool_call":
                where = f"{tool} 查询时用的" if tool else "之前查询时用的"
            else:
                where = f"从 {tool} 的查询结果里看到的" if tool else "从之前的查询结果里看到的"
            sentence = sentence[:-1] + f"（这是{where}）。"
        if kind == "error_code":
            earlier = [v for v in distinct_values(found) if v != fact.value][:3]
            if earlier:
                sentence += f"之前还出现过 {'、'.join(earlier)}。"
        sentences.append(sentence)
    if missing:
        sentences.append(f"我这边没看到您提供的{join_words_zh(missing)}，方便再发一下吗？")
    return "".join(sentences)


def statements_answer(constraints: Sequence[str] | None,
                      commitments: Sequence[str] | None, language: str = "en") -> str:
    """Answer "what did I ask you to keep in mind?" / "what did you promise?" from the
    sentences still in force (None: not asked), in ``language``."""
    if language == "zh":
        return _statements_answer_zh(constraints, commitments)
    parts = []
    if constraints is not None:
        if constraints:
            parts.append("You asked us to keep in mind: " + " ".join(
                _sentence(s) for s in constraints))
        else:
            parts.append("I don't see any constraint or preference you set in our "
                         "conversation; is there something I should keep in mind?")
    if commitments is not None:
        if commitments:
            parts.append("I committed to this: " + " ".join(_sentence(s) for s in commitments))
        else:
            parts.append("I don't see a promise from me in our conversation that is still "
                         "open.")
    return " ".join(parts)


def _statements_answer_zh(constraints: Sequence[str] | None,
                          commitments: Sequence[str] | None) -> str:
    parts = []
    if constraints is not None:
        parts.append(_quoted("您{when}特别交代过", constraints) if constraints else
                     "我这边没看到您提过什么特别的要求。有什么需要我们注意的，您随时说。")
    if commitments is not None:
        parts.append(_quoted("我们{when}答应过您", commitments) if commitments else
                     "我这边没查到我们答应过、还没办完的事。")
    return "\n".join(parts)


#: A remembered sentence's date, as long-term memory writes it: "（3月2日）请只用短信联系我。"
_DATED_ZH = re.compile(r"^[(（]([^)）]{1,20})[)）]\s*")


def _quoted(lead: str, said: Sequence[str]) -> str:
    """``lead：“…”`` for one sentence, a numbered list under ``lead`` for several. ``lead``
    has a ``{when}`` slot: a dated sentence's date goes there, out of the quote
    ("您3月2日特别交代过：“…”"); without a date it reads 之前."""
    if len(said) == 1:
        dated = _DATED_ZH.match(said[0])
        when, text = (dated.group(1), said[0][dated.end():]) if dated else ("之前", said[0])
        return f"{lead.format(when=when)}：“{_sentence_zh(text)}”"
    return "\n".join([f"{lead.format(when='之前')}这几点：",
                      *(f"{n}. {_sentence_zh(s)}" for n, s in enumerate(said, 1))])


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _sentence_zh(text: str) -> str:
    text = text.strip()
    return text if text.endswith(("。", "！", "？", "…", ".", "!", "?")) else text + "。"


def noted(facts: Sequence[Found], language: str = "en") -> str:
    """Acknowledge the facts of the latest message, as in ``Noted: ticket TCK-48213.``
    (``好的，已记下您的工单号 TCK-48213。`` in Chinese)."""
    if not facts:
        return ""
    seen: dict[tuple[str, str], None] = {}
    for fact in facts:
        seen.setdefault((fact.kind, fact.value), None)
    if language == "zh":
        return "好的，已记下您的" + join_words_zh(
            [f"{fact_label(k, 'zh')} {v}" for k, v in seen]) + "。"
    parts = [f"{_SHORT_LABELS[kind]} {value}" for kind, value in seen]
    return f"Noted: {', '.join(parts)}."


def symptom_reply(
    symptom: SymptomMatch,
    also: Sequence[str],
    ack: str = "",
    language: str = "en",
) -> str:
    """Steps for ``symptom`` and its one clarifying question; ``also`` lists open issues."""
    steps, question = symptom.symptom.render(symptom.code)
    lines = [ack] if ack else []
    if language == "zh":
        lines.append(spaced("我们先解决", symptom.title, "的问题，您可以按下面的步骤试一下："))
        lines.extend(steps)
        if also:
            lines.append(spaced(join_words_zh(list(also)), "的问题我先记下了，这个处理完再看。"))
        lines.append(question)
        return "\n".join(lines)
    lines.append(f"Let's work on the {symptom.title} first. Please try these steps:")
    lines.extend(steps)
    if also:
        noun, pronoun = ("issue", "it") if len(also) == 1 else ("issues", "them")
        lines.append(
            f"I'm keeping the {join_words(list(also))} {noun} open; we'll get to {pronoun} next."
        )
    lines.append(question)
    return "\n".join(lines)


def closure_reply(closed: str | None, remaining: Sequence[str], language: str = "en") -> str:
    """Confirm the current issue is closed, then offer the next open one."""
    if language == "zh":
        first = (spaced("好的，", closed, "的问题我这边记为已解决。") if closed
                 else "太好了，问题解决了就好。")
        if remaining:
            return first + spaced("您之前还提到", remaining[0], "的问题，要不要现在一起看看？")
        return f"{first}还有其他需要帮忙的吗？"
    if closed:
        first = f"Great, I'll mark the {closed} issue as closed."
    else:
        first = "Great, glad it's sorted."
    if remaining:
        return f"{first} You also mentioned the {remaining[0]} issue: shall we look at it now?"
    return f"{first} Is there anything else I can help you with?"


def missing_identifier_reply(needs: Sequence[str], language: str = "en") -> str:
    """Ask for the identifiers a lookup needs (one question)."""
    if language == "zh":
        what_zh = join_words_zh([fact_label(kind, "zh") for kind in needs])
        return f"好的，麻烦您先发一下{what_zh}，我马上帮您查。"
    what = join_words([FACT_LABELS[kind] for kind in needs])
    return f"I can look that up, but I need your {what} first. Could you share it?"


def unavailable_reply(actions: Sequence[str], language: str = "en") -> str:
    """Say which lookups cannot be made because the tool is not offered."""
    if language == "zh":
        return (f"抱歉，我这边暂时没法{join_words_zh(list(actions), '或')}，当前对话没有接入"
                "相应的查询工具。设备方面还有其他我能帮上忙的吗？")
    return (
        f"I can't {join_words(list(actions), 'or')} here: that tool isn't available in this "
        "chat. Is there something else about the device I can help with?"
    )


# ---------------------------------------------------------------------------- tool results


def tool_result_reply(name: str, arguments: str, output: str,
                      language: str = "en") -> tuple[str, str]:
    """A summary of one tool result and a follow-up question, quoting the output's values.

    The output is read the same way in every language (a JSON object with an ``error``, a
    warranty, a ticket, a device record, or other fields); only the wording differs
    (:data:`_WORDING`)."""
    words = _WORDING["zh" if language == "zh" else "en"]
    data = _json_object(output)
    if data is None:
        return words.raw(name, preview(output, 300) if output.strip() else "")
    if "error" in data:
        args = _json_object(arguments) or {}
        return words.error(name, str(data["error"]), next(
            (words.arguments[k] for k in args if k in words.arguments), ""))
    if {"status", "end_date"} <= data.keys():
        return words.warranty(data)
    if {"ticket_id", "status"} <= data.keys():
        return words.ticket(data)
    if {"model", "firmware"} <= data.keys():
        return words.device(data)
    pairs = [(k, v) for k, v in data.items() if _is_scalar(v)][:8]
    return words.fields(name, [words.field.format(k, v) for k, v in pairs],
                        preview(output, 300))


def _raw(name: str, text: str) -> tuple[str, str]:
    return f"The {name} tool returned: {text or 'nothing'}", "What would you like to do next?"


def _error(name: str, error: str, label: str) -> tuple[str, str]:
    return (f"The {name} lookup did not work: {error}.",
            f"Could you double-check the {label or 'details'} and send it again?")


def _fields(name: str, fields: list[str], fallback: str) -> tuple[str, str]:
    body = "; ".join(fields) if fields else fallback
    return f"The {name} tool returned {body}.", "What would you like to do next?"


def _warranty(data: Mapping[str, Any]) -> tuple[str, str]:
    subject = _subject(data)
    plan = str(data.get("plan") or "")
    cover = plan if "warrant" in plan.lower() else f"{plan} warranty".strip()
    if data.get("status") == "covered":
        text = f"Good news: the {cover} for {subject} is covered until {data['end_date']}."
        if data.get("rma"):
            text += f" I've opened a repair authorisation for you: {data['rma']}."
        return text, "Would you like the steps to send the device in for repair?"
    text = (
        f"The {cover} for {subject} is {data['status']} (end date "
        f"{data['end_date']}), so a repair would be charged."
    )
    return text, "Would you like me to request a quote for a paid repair?"


def _ticket(data: Mapping[str, Any]) -> tuple[str, str]:
    text = f"Ticket {data['ticket_id']} is {data['status']}"
    if data.get("owner"):
        text += f"; it is assigned to {data['owner']}"
    if data.get("last_update"):
        text += f" and was last updated {data['last_update']}"
    text += "."
    if data.get("latest_note"):
        text += f" Latest note: {data['latest_note']}"
    return text, "Is there anything you'd like me to add to the ticket?"


def _event_log(data: Mapping[str, Any]) -> tuple[int, list[str]]:
    """How many entries a device record's event log has, and its warnings' messages."""
    diagnostics = data.get("diagnostics")
    log = diagnostics.get("event_log") if isinstance(diagnostics, Mapping) else None
    if not isinstance(log, list):
        return 0, []
    return len(log), [str(e.get("message", "")) for e in log
                      if isinstance(e, Mapping) and e.get("level") == "warning"]


def _device(data: Mapping[str, Any]) -> tuple[str, str]:
    model = str(data["model"])
    article = "an" if model[:1].lower() in "aeiou" else "a"
    return _device_reply(data, f"{_subject(data)} is {article} {model}", _DEVICE_EN)


def _device_reply(data: Mapping[str, Any], lead: str, words: Mapping[str, str]
                  ) -> tuple[str, str]:
    """A device record as one sentence after ``lead``, then its event log, in ``words``."""
    parts = [lead]
    for key in ("purchase_date", "firmware", "os", "owner_email"):
        if data.get(key) or key == "firmware":
            parts.append(words[key].format(data[key]))
    text = words["sep"].join(parts) + words["end"]
    entries, warnings = _event_log(data)
    if entries:
        text += words["log"].format(entries=entries, warnings=len(warnings))
        if warnings:
            text += words["latest"].format(warnings[-1])
        text += words["end"]
    return text, words["question"]


_DEVICE_EN = {
    "purchase_date": "bought {}", "firmware": "firmware {}", "os": "running {}",
    "owner_email": "assigned to {}", "sep": ", ", "end": ".",
    "log": " Its event log has {entries} entries, {warnings} of them warnings",
    "latest": "; the latest says: {}", "question": "Does that match the device you are using?",
}
_DEVICE_ZH = {
    "purchase_date": "{} 购买", "firmware": "固件版本 {}", "os": "系统为 {}",
    "owner_email": "登记邮箱 {}", "sep": "，", "end": "。",
    "log": "事件日志共 {entries} 条，其中警告 {warnings} 条",
    "latest": "，最近一条警告是“{}”", "question": "这是您现在用的这台设备吗？",
}


def _subject(data: Mapping[str, Any]) -> str:
    serial = data.get("serial")
    model = data.get("model")
    if serial and model and "firmware" not in data:
        return f"your {model} ({serial})"
    return str(serial or model or "the device")


def _raw_zh(name: str, text: str) -> tuple[str, str]:
    return f"{name} 返回的结果是：{text or '空'}", "接下来您希望怎么处理？"


def _error_zh(name: str, error: str, label: str) -> tuple[str, str]:
    return (f"{name} 没有查到结果：{error}。",
            f"麻烦您核对一下{label or '信息'}，再发我一次。")


def _fields_zh(name: str, fields: list[str], fallback: str) -> tuple[str, str]:
    body = "；".join(fields) if fields else fallback
    return f"{name} 的查询结果：{body}。", "接下来您希望怎么处理？"


def _warranty_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    subject = _subject_zh(data)
    plan = str(data.get("plan") or "").strip()
    cover = f" {plan} 保修" if plan and "warrant" not in plan.lower() else (
        f" {plan} " if plan else "保修")
    if data.get("status") == "covered":
        text = f"好消息：{subject}还在{cover}期内，有效期到 {data['end_date']}。"
        if data.get("rma"):
            text += f"我已经帮您申请了返修，返修单号 {data['rma']}。"
        return text, "需要我把寄修步骤发给您吗？"
    return (f"{subject}的{cover}状态为 {data['status']}（{data['end_date']} 到期），"
            "维修需要收费。", "需要我帮您申请一份付费维修报价吗？")


def _ticket_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    text = f"工单 {data['ticket_id']} 目前的状态是 {data['status']}"
    if data.get("owner"):
        text += f"，负责人是 {data['owner']}"
    if data.get("last_update"):
        text += f"，最近更新于 {data['last_update']}"
    text += "。"
    if data.get("latest_note"):
        text += f"最新备注：{data['latest_note']}"
    return text, "需要我在工单里补充点什么吗？"


def _device_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    return _device_reply(data, f"{_subject_zh(data)}的型号是 {data['model']}", _DEVICE_ZH)


def _subject_zh(data: Mapping[str, Any]) -> str:
    serial = data.get("serial")
    model = data.get("model")
    if serial and model and "firmware" not in data:
        return f"您的 {model}（{serial}）"
    return f"设备 {serial or model} " if serial or model else "这台设备"


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


@dataclass(frozen=True)
class _Wording:
    """How one language words each kind of tool result (see :func:`tool_result_reply`)."""

    raw: Callable[[str, str], tuple[str, str]]
    error: Callable[[str, str, str], tuple[str, str]]
    warranty: Callable[[Mapping[str, Any]], tuple[str, str]]
    ticket: Callable[[Mapping[str, Any]], tuple[str, str]]
    device: Callable[[Mapping[str, Any]], tuple[str, str]]
    fields: Callable[[str, list[str], str], tuple[str, str]]
    arguments: Mapping[str, str]
    field: str  # one "key: value" of a generic result


_WORDING = {
    "en": _Wording(_raw, _error, _warranty, _ticket, _device, _fields, _ARGUMENT_LABELS,
                   "{}: {}"),
    "zh": _Wording(_raw_zh, _error_zh, _warranty_zh, _ticket_zh, _device_zh, _fields_zh,
                   _ARGUMENT_LABELS_ZH, "{}：{}"),
}
