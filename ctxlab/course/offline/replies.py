"""The sentences the offline model writes: recall answers, tool-result summaries, small talk.

Every function here is pure: it takes values that are already in the model's input and
returns text. Nothing in this module may introduce an identifier of its own: a value in a
reply is always copied from a fact or a tool output that the caller passes in.

Every reply exists in English and in Chinese (``language="zh"``): the model answers in the
language of the question ("您的工单号是 TCK-50821。", "我在我们的对话里没有看到您的型号，
能再告诉我一次吗？"). A value in a Chinese sentence stands between spaces or punctuation, so
it is read back exactly as written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.facts import FACT_LABELS, Found, distinct_values, fact_label, latest_fact
from ...core.items import preview
from ...memory.playbook import SymptomMatch

GREETING = "Hello! I'm the IT support assistant. What device or app is giving you trouble today?"
THANKS = "You're welcome! Is the issue solved now, or should we keep going?"
FALLBACK_QUESTION = "Could you tell me which device you are using and what you see on screen?"
NO_USER_MESSAGE = "Hello! I'm the IT support assistant. How can I help you today?"

GREETING_ZH = "您好！我是 IT 支持助手。请问是哪台设备或哪个应用出了问题？"
THANKS_ZH = "不客气！问题解决了吗，还是我们继续排查？"
# Honest about what the agent cannot do: no tool offered here deletes data.
DATA_REQUEST = (
    "I can't delete your ticket or personal data from this chat. Please send the request "
    "through the privacy form on our website: the privacy team handles deletions and "
    "confirms by email. Is there anything else I can help with in the meantime?"
)
DATA_REQUEST_ZH = (
    "我无法在聊天中直接删除您的工单或个人信息。请通过官网的隐私申请表提交删除请求，"
    "隐私团队处理后会发邮件确认。在此期间还有什么可以帮您的吗？"
)
FALLBACK_QUESTION_ZH = "能再说说具体情况吗？是哪台设备，屏幕上有没有显示什么提示或故障码？"

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

_RECALL_SENTENCE_ZH = {
    "ticket": "您的工单号是 {value}。",
    "serial": "您设备的序列号是 {value}。",
    "firmware": "您设备的固件版本是 {value}。",
    "error_code": "我们对话里最近的错误代码是 {value}。",
    "email": "您的邮箱是 {value}。",
    "order": "您的订单号是 {value}。",
    "rma": "您的返修单号是 {value}。",
    "reservation": "您的预约号是 {value}。",
    "model": "您设备的型号是 {value}。",
    "phone": "您的手机号是 {value}。",
    "date": "约好的日期是 {value}。",
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
    """``["a", "b", "c"]`` -> ``"a、b和c"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{'、'.join(words[:-1])}{conjunction}{words[-1]}"


#: The answer for a value a memory note marks uncertain: named, not stated, and checked.
UNSURE = ("My notes have {value} as your {label}, but marked as uncertain; could you confirm "
          "it?")
UNSURE_ZH = "我这边记的{label}是 {value}，但标了待确认，麻烦您再核对一下。"


def recall_answer(
    kinds: Sequence[str],
    facts: Mapping[str, Sequence[Found]],
    tool_names: Mapping[int, str] | None = None,
    language: str = "en",
    *,
    doubtful: Collection[str] = (),
) -> str:
    """Answer "what was my ...?" for each kind, from ``facts`` only.

    A value in ``doubtful`` (a memory note marks it uncertain) is not stated as fact: the
    answer names it and asks the customer to confirm it.

    A kind with no fact gets the honest answer: the model does not see it and asks for it
    again. ``tool_names`` maps item indices of tool outputs to the tool's name, so a value
    found only in a tool result can say where it came from. ``language`` is the language
    of the answer (``"en"`` or ``"zh"``).
    """
    if language == "zh":
        return _recall_answer_zh(kinds, facts, tool_names or {}, doubtful)
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
                      tool_names: Mapping[int, str], doubtful: Collection[str] = ()) -> str:
    sentences: list[str] = []
    missing: list[str] = []
    for kind in kinds:
        found = list(facts.get(kind, ()))
        fact = latest_fact(found)
        if fact is None:
            missing.append(fact_label(kind, "zh"))
            continue
        if fact.value in doubtful:
            sentences.append(UNSURE_ZH.format(value=fact.value, label=fact_label(kind, "zh")))
            continue
        sentence = _RECALL_SENTENCE_ZH[kind].format(value=fact.value)
        if not fact.in_message:
            tool = tool_names.get(fact.index)
            part = "请求" if fact.source == "tool_call" else "结果"
            where = f" {tool} 的{part}" if tool else f"之前一次工具调用的{part}"
            sentence = sentence[:-1] + f"（我是在{where}里找到的）。"
        if kind == "error_code":
            earlier = [v for v in distinct_values(found) if v != fact.value][:3]
            if earlier:
                sentence += f"在那之前：{'、'.join(earlier)}。"
        sentences.append(sentence)
    if missing:
        sentences.append(f"我在我们的对话里没有看到您的{join_words_zh(missing)}，"
                         "能再告诉我一次吗？")
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
        if constraints:
            parts.append("您之前请我们注意：" + "".join(_sentence_zh(s) for s in constraints))
        else:
            parts.append("我在我们的对话里没有看到您提过的要求或偏好；有什么需要我注意的吗？")
    if commitments is not None:
        if commitments:
            parts.append("我答应过您：" + "".join(_sentence_zh(s) for s in commitments))
        else:
            parts.append("我在我们的对话里没有看到我做过、而且还没兑现的承诺。")
    return "".join(parts)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _sentence_zh(text: str) -> str:
    text = text.strip()
    return text if text.endswith(("。", "！", "？", "…", ".", "!", "?")) else text + "。"


def noted(facts: Sequence[Found], language: str = "en") -> str:
    """Acknowledge the facts of the latest message, as in ``Noted: ticket TCK-48213.``
    (``已记下：工单号 TCK-48213。`` in Chinese)."""
    if not facts:
        return ""
    seen: dict[tuple[str, str], None] = {}
    for fact in facts:
        seen.setdefault((fact.kind, fact.value), None)
    if language == "zh":
        return "已记下：" + "、".join(f"{fact_label(k, 'zh')} {v}" for k, v in seen) + "。"
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
        lines.append(f"我们先处理{symptom.title}的问题，请按下面的步骤试试：")
        lines.extend(steps)
        if also:
            lines.append(f"{join_words_zh(list(also))}的问题我先记下，接下来再处理。")
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
        first = (f"好的，我会把{closed}的问题标记为已解决。" if closed
                 else "好的，很高兴问题解决了。")
        if remaining:
            return f"{first}您还提到过{remaining[0]}的问题，要现在看一下吗？"
        return f"{first}还有什么可以帮您的吗？"
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
        return f"我可以帮您查，但需要先知道您的{what_zh}。能发给我吗？"
    what = join_words([FACT_LABELS[kind] for kind in needs])
    return f"I can look that up, but I need your {what} first. Could you share it?"


def unavailable_reply(actions: Sequence[str], language: str = "en") -> str:
    """Say which lookups cannot be made because the tool is not offered."""
    if language == "zh":
        return (f"这里没法{join_words_zh(list(actions), '或')}：这个对话里没有提供这个工具。"
                "关于设备还有其他我能帮忙的吗？")
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
    fields = [f"{k}: {v}" for k, v in data.items() if _is_scalar(v)][:8]
    return words.fields(name, fields, preview(output, 300))


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
    "purchase_date": "购买于 {}", "firmware": "固件版本 {}", "os": "系统是 {}",
    "owner_email": "登记邮箱 {}", "sep": "，", "end": "。",
    "log": "它的事件日志有 {entries} 条记录，其中 {warnings} 条是警告",
    "latest": "；最新一条警告：{}", "question": "这和您正在用的设备一致吗？",
}


def _subject(data: Mapping[str, Any]) -> str:
    serial = data.get("serial")
    model = data.get("model")
    if serial and model and "firmware" not in data:
        return f"your {model} ({serial})"
    return str(serial or model or "the device")


def _raw_zh(name: str, text: str) -> tuple[str, str]:
    return f"{name} 工具返回：{text or '空结果'}", "接下来您想怎么做？"


def _error_zh(name: str, error: str, label: str) -> tuple[str, str]:
    return f"{name} 查询没有成功：{error}。", f"能核对一下{label or '信息'}再发一次吗？"


def _fields_zh(name: str, fields: list[str], fallback: str) -> tuple[str, str]:
    body = "；".join(fields) if fields else fallback
    return f"{name} 工具返回：{body}。", "接下来您想怎么做？"


def _warranty_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    subject = _subject_zh(data)
    plan = str(data.get("plan") or "").strip()
    cover = f"{plan} 保修" if plan and "warrant" not in plan.lower() else (plan or "保修")
    if data.get("status") == "covered":
        text = f"好消息：{subject}的{cover}仍在有效期内，到 {data['end_date']} 为止。"
        if data.get("rma"):
            text += f"我已经为您开了返修授权：{data['rma']}。"
        return text, "需要我告诉您寄修的步骤吗？"
    return (f"{subject}的{cover}状态是 {data['status']}（到期日 {data['end_date']}），"
            "所以维修需要收费。", "需要我帮您申请付费维修的报价吗？")


def _ticket_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    text = f"工单 {data['ticket_id']} 的状态是 {data['status']}"
    if data.get("owner"):
        text += f"，负责人是 {data['owner']}"
    if data.get("last_update"):
        text += f"，最近一次更新在 {data['last_update']}"
    text += "。"
    if data.get("latest_note"):
        text += f"最新备注：{data['latest_note']}"
    return text, "需要我在工单里补充什么吗？"


def _device_zh(data: Mapping[str, Any]) -> tuple[str, str]:
    return _device_reply(data, f"{_subject_zh(data)}是 {data['model']}", _DEVICE_ZH)


def _subject_zh(data: Mapping[str, Any]) -> str:
    serial = data.get("serial")
    model = data.get("model")
    if serial and model and "firmware" not in data:
        return f"您的 {model}（{serial}）"
    return f"设备 {serial or model}" if serial or model else "这台设备"


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


_WORDING = {
    "en": _Wording(_raw, _error, _warranty, _ticket, _device, _fields, _ARGUMENT_LABELS),
    "zh": _Wording(_raw_zh, _error_zh, _warranty_zh, _ticket_zh, _device_zh, _fields_zh,
                   _ARGUMENT_LABELS_ZH),
}
