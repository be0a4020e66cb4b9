"""Small text helpers of the extractive summarizer: gists, questions, tool outcomes, scrubbing.

Chinese text has no spaces between words, so a Chinese gist is cut by characters
(:data:`ZH_CHARS_PER_WORD` per word asked for) and its sentences end at 。！？ as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ..core.items import loads_json
from ..facts.language import language_of
from ..facts.typed import Found, facts_in_text, kinds_for

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_SENTENCE_ZH = re.compile(r"(?<=[.!?。！？])\s*")
#: Characters of a Chinese gist per word of an English one.
ZH_CHARS_PER_WORD = 2
_FAILED = re.compile(r"\b(?:error|failed|not found|invalid)\b", re.I)

#: How a fact kind is named where its value is left out of a narrative line.
SCRUB_LABELS: dict[str, str] = {
    "ticket": "ticket", "serial": "serial", "firmware": "firmware", "error_code": "code",
    "email": "email", "order": "order", "rma": "RMA", "reservation": "reservation",
    "model": "model", "phone": "phone", "date": "date",
}
#: The same in a Chinese text.
SCRUB_LABELS_ZH: dict[str, str] = {
    "ticket": "工单号", "serial": "序列号", "firmware": "固件版本", "error_code": "错误代码",
    "email": "邮箱", "order": "订单号", "rma": "返修单号", "reservation": "预约号",
    "model": "型号", "phone": "手机号", "date": "日期",
}


def is_question(text: str) -> bool:
    """True when ``text`` ends with a question mark (ASCII or full-width)."""
    return text.rstrip().endswith(("?", "？"))


def gist(text: str, words: int) -> str:
    """The opening sentences of ``text`` (enough to say something), at most ``words`` words
    (a Chinese text: at most ``words * ZH_CHARS_PER_WORD`` characters)."""
    flat = " ".join(text.split())
    if flat and language_of(flat) == "zh":
        return _gist_zh(flat, words * ZH_CHARS_PER_WORD)
    taken: list[str] = []
    for sentence in _SENTENCE.split(flat) if flat else []:
        taken.extend(sentence.split())
        if len(taken) >= 6:
            break
    return " ".join(taken[:words]) + ("…" if len(taken) > words else "")


def _gist_zh(flat: str, chars: int) -> str:
    taken = ""
    for sentence in _SENTENCE_ZH.split(flat):
        taken += sentence
        if len(taken) >= 12:
            break
    return taken[:chars] + ("…" if len(taken) > chars else "")


def last_question(text: str) -> str | None:
    """The last sentence of ``text`` that ends with a question mark, if any."""
    flat = " ".join(text.split())
    splitter = _SENTENCE_ZH if flat and language_of(flat) == "zh" else _SENTENCE
    sentences = [s for s in splitter.split(flat) if s]
    for sentence in reversed(sentences):
        if is_question(sentence):
            return sentence
    return None


def tool_outcome(text: str) -> tuple[bool, str]:
    """(ok, short description) for a tool output: its status/error fields or its gist."""
    try:
        data = loads_json(text)
    except (TypeError, ValueError):
        data = None
    if isinstance(data, Mapping):
        if data.get("error"):
            return False, f"error: {gist(str(data['error']), 12)}"
        fields = [
            f"{k}={data[k]}"
            for k in ("status", "covered", "warranty", "warranty_status", "result", "state",
                      "message", "note")
            if isinstance(data.get(k), (str, int, float, bool))
        ]
        if fields:
            return True, ", ".join(fields[:3])
        return True, "ok"
    failed = bool(_FAILED.search(text))
    return not failed, gist(text, 12) or "empty"


#: The fields of :func:`tool_outcome` as a Chinese note names them.
OUTCOME_FIELDS_ZH: dict[str, str] = {
    "status": "状态", "covered": "在保", "warranty": "保修", "warranty_status": "保修状态",
    "result": "结果", "state": "状态", "message": "信息", "note": "备注",
}
_OUTCOME_FIELD = re.compile(r"^(\w+)=(.*)$")


def describe_outcome(outcome: str, language: str = "en") -> str:
    """A :func:`tool_outcome` description as a note in ``language`` writes it: unchanged in
    English; in Chinese "ok" is 成功, ``status=待派单`` is 状态 待派单, ``error: x`` is
    出错：x, "empty" is 无返回内容 (a gist of a plain-text output stays as it is)."""
    if language != "zh":
        return outcome
    if outcome == "ok":
        return "成功"
    if outcome == "empty":
        return "无返回内容"
    if outcome.startswith("error: "):
        return "出错：" + outcome[len("error: "):]
    parts = outcome.split(", ")
    fields = [_OUTCOME_FIELD.match(part) for part in parts]
    if all(m is not None and m.group(1) in OUTCOME_FIELDS_ZH for m in fields):
        return "，".join(f"{OUTCOME_FIELDS_ZH[m.group(1)]} {m.group(2)}"
                        for m in fields if m is not None)
    return outcome


def scrub(text: str, keep: Callable[[Found], bool] | None = None,
          kinds: tuple[str, ...] | None = None) -> str:
    """``text`` with typed fact values (ticket, serial, firmware, ...) replaced by their
    kind in brackets, except those ``keep`` accepts (default: none kept): a summary lists
    every value once, with its status, under Identifiers, so a narrative line must never
    present an old value as current. ``kinds`` are the fact kinds read (default: the
    text's, :func:`ctxlab.facts.typed.kinds_for`)."""
    found = [f for f in facts_in_text(text, kinds=kinds or kinds_for(text))
             if keep is None or not keep(f)]
    if not found:
        return text
    labels = SCRUB_LABELS_ZH if language_of(text) == "zh" else SCRUB_LABELS
    out: list[str] = []
    last = 0
    for fact in found:
        out.append(text[last:fact.start])
        out.append(f"[{labels.get(fact.kind, fact.kind)}]")
        last = fact.start + len(fact.value)
    out.append(text[last:])
    return "".join(out)
