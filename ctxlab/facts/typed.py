"""Find identifier-like facts (ticket ids, serials, error codes, ...) in a conversation.

An IT-support conversation is full of short values the agent must keep: the ticket id the
user gave in the first turn, the device serial, the error code on screen. This module finds
them with regular expressions so that three parts of ctxlab can share one definition of
"a fact":

* the offline model (:mod:`ctxlab.course.offline.model`) answers "what was my ticket number?" with
  the latest value it can see, and admits it when there is none;
* structured memory can pin the values a trimmed window would lose;
* evaluation can check whether a memory strategy kept what the agent needs.

What counts as a fact (:data:`FACT_KINDS`):

=============== ===================================================================
``ticket``      ``TCK-48213`` (also ``INC-``, ``REQ-``, ``TKT-``, ``CASE-``), or a number
                after the word *ticket*: "ticket #12345" gives ``12345``
``serial``      12-character Apple-style serials such as ``C02XK1ZJG8WP`` and any
                10-12 character upper-case code with at least two letters and two digits;
                shorter codes only after *serial*, *S/N* or *service tag*
``firmware``    ``v1.0.3`` anywhere, or a version after *firmware* ("firmware 14.6.1");
                not a bare version that names another component ("driver v3.1",
                "rule-engine v3.2", "iOS v17.1")
``error_code``  a code after *error* ("error 42", "error code: 0x8007045D"), or a
                common HTTP error status on its own (400, 401, 403, 404, 408, 429, 5xx)
``email``       an e-mail address
``order``       ``ORD-55120``, or a code with at least three digits after *order*
``rma``         ``RMA-601342`` (return merchandise authorisation numbers)
``reservation`` a six-character code after *reservation*, *booking* or *confirmation*
=============== ===================================================================

Chinese text
------------
Each kind is also found after its usual Chinese label, with or without a colon or 是/为
between them: 工单号 (``ticket``), 序列号 / 串号 (``serial``), 固件版本 (``firmware``, also a
``v1.0.3`` right next to Chinese characters), 错误代码 / 错误码 / 故障码 / 报错 (``error_code``,
also an HTTP status after 出现 / 提示 / 返回 or before 错误), 订单号 (``order``), 返修单号
(``rma``) and 预约号 (``reservation``). E-mail addresses and prefixed codes (``TCK-48213``)
need no label in any language.

Three more kinds are found only when asked for by name (``kinds=ALL_FACT_KINDS`` or, say,
``kinds=["model"]``; :data:`EXTRA_FACT_KINDS`), so code written for :data:`FACT_KINDS`
sees exactly what it saw before. Their patterns are written for Chinese support chat, so
ctxlab's own readers (the fact tracker, the offline model, recall's superseded marks) ask
for them in text that holds Chinese characters: :func:`kinds_for`. They are not part of
:data:`FACT_KINDS` because in English text they would change what every reader sees: ISO
dates fill tau-bench chats and tool results (flight dates, warranty ends, purchase dates),
and an English "phone" pattern would have to cover every numbering plan.

=============== ===================================================================
``model``       a product model such as ``BCD-123`` after 型号 / 机型 (or *model*), with
                at least one letter and one digit
``phone``       a mainland-China mobile number (``13812345678``, ``138-1234-5678``,
                ``+86 138 1234 5678``) anywhere, or a landline after 电话 / 手机 / 联系方式
``date``        ``12月14日``, ``2025年12月14日``, ``12月14号``, or an ISO date
                ``2025-12-14`` (not a timestamp)
=============== ===================================================================

:data:`FACT_LABELS` says how each kind reads in an English sentence and
:data:`FACT_LABELS_ZH` in a Chinese one (:func:`fact_label` picks by language).

Values are reported exactly as written (``value`` is a substring of the item's text), so
an answer that quotes a value can always be traced back to the input. Where two patterns
match the same characters, the more specific one wins and the span is reported once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..core.items import item_kind, item_text
from .cues import LABELS_ZH
from .language import has_cjk
from .spans import claim_in_order
from .staleness import stale_marks

#: Every kind of fact :func:`find_facts` looks for, in display order.
FACT_KINDS: tuple[str, ...] = (
    "ticket",
    "serial",
    "firmware",
    "error_code",
    "email",
    "order",
    "rma",
    "reservation",
)

#: Kinds found only when asked for by name (see the module docstring): every consumer of
#: :data:`FACT_KINDS` keeps seeing exactly those kinds.
EXTRA_FACT_KINDS: tuple[str, ...] = ("model", "phone", "date")

#: Every kind :func:`find_facts` can look for.
ALL_FACT_KINDS: tuple[str, ...] = FACT_KINDS + EXTRA_FACT_KINDS

#: How each kind reads in a sentence ("your ticket number", "your serial number", ...).
FACT_LABELS: dict[str, str] = {
    "ticket": "ticket number",
    "serial": "serial number",
    "firmware": "firmware version",
    "error_code": "error code",
    "email": "email address",
    "order": "order number",
    "rma": "RMA number",
    "reservation": "reservation code",
    "model": "model number",
    "phone": "phone number",
    "date": "date",
}

#: How each kind reads in a Chinese sentence ("您的工单号", "您的序列号", ...): the labels a
#: Chinese summary uses (:data:`ctxlab.facts.cues.LABELS_ZH`), one table for both.
FACT_LABELS_ZH: dict[str, str] = {kind: LABELS_ZH[kind] for kind in ALL_FACT_KINDS}

_LABELS_BY_LANGUAGE: dict[str, dict[str, str]] = {"en": FACT_LABELS, "zh": FACT_LABELS_ZH}


def kinds_for(text: str) -> tuple[str, ...]:
    """The kinds to look for in ``text``: :data:`FACT_KINDS`, and :data:`EXTRA_FACT_KINDS`
    too when the text holds Chinese characters (their patterns are written for Chinese
    text; an English text is read exactly as before)."""
    return ALL_FACT_KINDS if has_cjk(text) else FACT_KINDS


def fact_label(kind: str, language: str = "en") -> str:
    """How ``kind`` reads in a sentence of ``language`` (``"en"`` or ``"zh"``)."""
    if language not in _LABELS_BY_LANGUAGE:
        raise ValueError(f"language must be one of {', '.join(_LABELS_BY_LANGUAGE)}, "
                         f"got {language!r}")
    if kind not in ALL_FACT_KINDS:
        raise ValueError(f"unknown fact kind {kind!r}; expected one of: "
                         f"{', '.join(ALL_FACT_KINDS)}")
    return _LABELS_BY_LANGUAGE[language][kind]

#: ``Found.index`` of a fact found in the system instructions rather than in an item.
INSTRUCTIONS_INDEX = -1

#: Item kinds whose text is conversation (as opposed to tool traffic).
MESSAGE_SOURCES = frozenset({"user", "assistant", "system", "developer", "instructions"})

#: Item kinds that are read at all; reasoning, compaction and references carry no facts.
_READ_KINDS = frozenset(
    {"user", "assistant", "system", "developer", "tool_call", "tool_output", "hosted_tool"}
)


@dataclass(frozen=True)
class Found:
    """One fact: its ``kind``, its ``value`` as written, and where it was found.

    ``index`` is the position of the item in the sequence (:data:`INSTRUCTIONS_INDEX` for
    the system instructions), ``source`` that item's kind (``"user"``, ``"assistant"``,
    ``"tool_output"``, ..., or ``"instructions"``), ``start`` the character offset of the
    value in the item's text (:func:`ctxlab.core.items.item_text`) and ``span`` the matched
    phrase around it (for example ``"error 42"`` for the value ``"42"``). ``stale`` is True
    when the text presents the value as no longer current ("earlier: a@x", "instead of
    TCK-1", "v1 -> v2"; see :mod:`ctxlab.facts.staleness`).
    """

    kind: str
    value: str
    index: int
    source: str
    start: int
    span: str
    stale: bool = False

    @property
    def in_message(self) -> bool:
        """True when the fact was said in conversation, not only in a tool call or output."""
        return self.source in MESSAGE_SOURCES


# ---------------------------------------------------------------------------- patterns

# An identifier must not continue a longer token on either side.
_L = r"(?<![A-Za-z0-9_-])"
_R = r"(?![A-Za-z0-9_-])"
# After a label: optional quote (JSON keys), then "is"/"was" or ":", "=", "#".
_SEP = r"""["']?\s*(?:(?i:is|was)\s+|[:=#]\s*)?["']?"""
_NUMBER_WORDS = r"(?:[ _-]?(?i:id|number|num|no\.?|codes?|#))?"
_HTTP_ERRORS = r"(?:400|401|403|404|408|429|500|502|503|504)"
_UNIT_AFTER = r"(?!\s*(?:%|[KMGT]B\b|[kmgt]b\b|ms\b|mAh\b|rpm\b|Hz\b|nits\b|°))"


# Chinese text: a label, then optional punctuation and a verb (是, 为, 升级到, ...). Values end
# at an ASCII boundary only, since a Chinese character may follow directly ("BCD-123的").
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_ZH_PUNCT = r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20"
_ZH_VERB = r"(?:是|为|叫|现在是|目前是|显示为?|升级到|更新到|升到|改为|改成|换成|变成)了?"
_ZH_SEP = (r"[ \t:：=＝#＃]*(?:" + _ZH_VERB + r"[ \t:：]*)?"
           r"[\"'\u201c\u201d\u300c\u300d\u300e\u300f]?[ \t]*")
_ZH_NUMBER_WORDS = r"(?:号码|编号|号|码|ID|id)?"
_NEAR_CJK = r"(?<=[" + _CJK + _ZH_PUNCT + r"])"
_MOBILE = r"(?:\+?86[- ]?)?1[3-9]\d(?:[- ]?\d{4}){2}"


#: A short note in brackets between a label and its value: 型号（系统查询）：AX3000.
_ZH_NOTE = r"(?:[（(][^（）()\n]{1,8}[）)])?"


def _zh(labels: str) -> str:
    """A Chinese label group (with an optional short note in brackets) followed by the
    separator."""
    return r"(?:" + labels + r")" + _ZH_NUMBER_WORDS + _ZH_NOTE + _ZH_SEP


def _has_digits(n: int) -> Callable[[str], bool]:
    return lambda value: sum(ch.isdigit() for ch in value) >= n


def _mixed_code(value: str) -> bool:
    letters = sum(ch.isalpha() for ch in value)
    digits = sum(ch.isdigit() for ch in value)
    return letters >= 2 and digits >= 2


def _letter_and_digit(value: str) -> bool:
    return any(ch.isalpha() for ch in value) and any(ch.isdigit() for ch in value)


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool] | None = None
    # A match is ignored when the text just before its value matches this (ending there).
    not_after: re.Pattern[str] | None = None

    def value_span(self, match: re.Match[str]) -> tuple[int, int]:
        group = 1 if self.regex.groups else 0
        return match.span(group)


def _p(kind: str, pattern: str, accept: Callable[[str], bool] | None = None,
       not_after: str | None = None) -> _Pattern:
    return _Pattern(kind, re.compile(pattern), accept,
                    re.compile(not_after) if not_after is not None else None)


# A bare version right after the name of another component is that component's version,
# not the device's firmware: "driver v3.1", "rule-engine v3.2" (any hyphenated name, as
# in service traces), "iOS v17.1", "驱动v2.1", "规则引擎 v3.2".
_OTHER_COMPONENT = (
    r"(?:(?i:\b(?:drivers?|apps?|application|api|sdk|engine|service|svc|plugin|library|lib"
    r"|client|server|agent|browser|python|node|chrome|windows|ios|android|macos|protocol"
    r"|schema|policy|module|package|extension))"
    r"|\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)+"
    r"|驱动(?:程序)?|应用|软件|插件|引擎|客户端|服务端|接口|(?i:app))[ \t_-]*$"
)


# Order matters: specific shapes first, then labelled values, then bare codes. A match
# that overlaps characters already claimed by an earlier pattern is ignored.
_PATTERNS: tuple[_Pattern, ...] = (
    _p("email", r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    _p("ticket", _L + r"((?:TCK|INC|REQ|TKT|CASE)-\d{3,8})" + _R),
    _p("rma", _L + r"((?i:RMA)[- #]?\d{4,10})" + _R),
    _p("order", _L + r"(ORD-\d{4,10})" + _R),
    _p(
        "ticket",
        r"(?i:\bticket)" + _NUMBER_WORDS + _SEP + r"#?((?:[A-Z]{2,5}-)?\d{4,8})" + _R,
    ),
    _p(
        "serial",
        r"(?i:\b(?:serial|s/n|service[ _]tag))"
        + _NUMBER_WORDS
        + _SEP
        + r"([A-Z0-9][A-Z0-9-]{4,22}[A-Z0-9])"
        + _R,
        _has_digits(1),
    ),
    _p(
        "firmware",
        r"(?i:\bfirmware)(?:[ _](?i:version|ver\.?))?"
        + _SEP
        + r"([vV]?\d+(?:\.\d+){1,3})(?![\w-]|\.\d)",
    ),
    _p(
        "error_code",
        r"(?i:\berror)"
        + _NUMBER_WORDS
        + _SEP
        + r"(0x[0-9A-Fa-f]{1,8}|[A-Z]{0,3}-?\d{1,6})(?![\w-]|[.,]\d)",
    ),
    _p(
        "order",
        r"(?i:\border)" + _NUMBER_WORDS + _SEP + r"#?([A-Z0-9][A-Z0-9-]{3,18}[A-Z0-9])" + _R,
        _has_digits(3),
    ),
    _p(
        "reservation",
        r"(?i:\b(?:reservation|booking|confirmation))"
        + _NUMBER_WORDS
        + _SEP
        + r"([A-Z0-9]{6})"
        + _R,
    ),
    # Chinese labels (they never match English text, so English results are unchanged).
    _p("ticket", _zh("工单|服务单|报修单|维修单|受理单|投诉单")
       + r"((?:[A-Z]{2,5}-)?\d{4,10})" + _R),
    _p("serial", _zh("机身序列号|序列号|串号|机身码|S/N") + r"([A-Z0-9][A-Z0-9-]{4,22}[A-Z0-9])"
       + _R, _has_digits(1)),
    _p("model", _zh("产品型号|设备型号|型号|机型")
       + r"([A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*)" + _R, _letter_and_digit),
    _p("firmware", _zh("固件版本|固件|韧体版本|韧体") + r"([vV]?\d+(?:\.\d+){1,3})"
       + r"(?![A-Za-z0-9_-]|\.\d)"),
    _p("error_code", _zh("错误代码|错误码|故障代码|故障码|报错代码|报错码|报错|错误")
       + r"(0x[0-9A-Fa-f]{1,8}|[A-Z]{0,3}-?\d{1,6})(?![A-Za-z0-9_-]|[.,]\d)"),
    _p("order", _zh("订单|订购单") + r"([A-Z0-9][A-Z0-9-]{3,24}[A-Z0-9])" + _R, _has_digits(3)),
    _p("rma", _zh("返修单|退换货单|换货单|退货单|RMA单") + r"((?i:RMA)?-?\d{4,10})" + _R),
    _p("reservation", _zh("上门预约|预约|预订|预定") + r"([A-Z0-9]{6})" + _R),
    _p("phone", _zh("手机号|手机|电话号码|电话|联系电话|联系方式")
       + r"(" + _MOBILE + r"|0\d{2,3}-?\d{7,8})(?![0-9A-Za-z_-])"),
    # English bare shapes.
    _p("firmware", r"(?<![\w.-])([vV]\d+(?:\.\d+){1,3})(?![\w-]|\.\d)",
       not_after=_OTHER_COMPONENT),
    _p("serial", _L + r"([A-Z0-9]{10,12})" + _R, _mixed_code),
    _p(
        "error_code",
        r"(?<![\w.:/#$€£-])(" + _HTTP_ERRORS + r")(?![\w-]|[.,:]\d)" + _UNIT_AFTER,
    ),
    # Bare shapes next to Chinese text, and the extra kinds' own shapes.
    _p("firmware", _NEAR_CJK + r"([vV]\d+(?:\.\d+){1,3})(?![A-Za-z0-9_-]|\.\d)",
       not_after=_OTHER_COMPONENT),
    _p("error_code", r"(?:出现|提示|返回|弹出|报)了?[ \t]*(" + _HTTP_ERRORS
       + r")(?![A-Za-z0-9_-]|[.,:]\d)"),
    _p("error_code", r"(?<![A-Za-z0-9_.:/#-])(" + _HTTP_ERRORS + r")[ \t]*(?=错误|报错|页面)"),
    _p(
        "model",
        r"(?i:\bmodel)(?:[ _](?i:number|no\.?|#))?" + _SEP
        + r"([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+|[A-Z]+\d[A-Z0-9]*)" + _R,
        _letter_and_digit,
    ),
    _p("phone", r"(?<![0-9A-Za-z_+-])(" + _MOBILE + r")(?![0-9A-Za-z_-])"),
    _p("date", r"(?<!\d)((?:\d{4}年)?\d{1,2}月\d{1,2}[日号])"),
    _p("date", r"(?<![A-Za-z0-9_.-])(\d{4}-\d{2}-\d{2})(?![A-Za-z0-9_-]|[T ]\d{2}:)"),
)


def facts_in_text(
    text: str,
    *,
    index: int = INSTRUCTIONS_INDEX,
    source: str = "instructions",
    kinds: Iterable[str] | None = None,
) -> list[Found]:
    """Every fact in ``text``, in order of position.

    ``index`` and ``source`` are copied into each :class:`Found` (by default the text is
    treated as system instructions). ``kinds`` names the kinds to report, from
    :data:`ALL_FACT_KINDS` (default: :data:`FACT_KINDS`).
    """
    if not isinstance(text, str):
        raise TypeError(f"facts_in_text expects a str, got {type(text).__name__}")
    wanted = _check_kinds(kinds)
    return [Found(kind, value, index, source, start, span, stale)
            for kind, value, start, span, stale in _facts_of(text, wanted)]


@lru_cache(maxsize=16384)
def _facts_of(text: str, wanted: frozenset[str]) -> tuple[tuple[str, str, int, str, bool], ...]:
    """The facts of ``text`` as (kind, value, start, span, stale), by position; memoized:
    evaluation and the offline model read the same item texts again and again."""

    def matches(pattern: _Pattern) -> Iterator[tuple[int, int, tuple[_Pattern, re.Match[str]]]]:
        for match in pattern.regex.finditer(text):
            start, end = pattern.value_span(match)
            if pattern.accept is not None and not pattern.accept(text[start:end]):
                continue
            if pattern.not_after is not None and pattern.not_after.search(
                    text, max(0, start - 40), start):
                continue
            yield start, end, (pattern, match)

    found: list[tuple[str, str, int, str, bool]] = []
    marks = None
    for start, end, (pattern, match) in claim_in_order(matches(p) for p in _PATTERNS):
        if pattern.kind in wanted:
            span = " ".join(match.group(0).split())
            if marks is None:
                marks = stale_marks(text)
            found.append((pattern.kind, text[start:end], start, span, marks.covers(start, end)))
    found.sort(key=lambda f: f[2])
    return tuple(found)


def find_facts(
    items: str | Sequence[Mapping[str, Any]],
    *,
    instructions: str | None = None,
    kinds: Iterable[str] | None = None,
) -> dict[str, list[Found]]:
    """Facts in a conversation, by kind, each list in the order the facts appear.

    ``items`` is a Responses item sequence (as a session stores it or the Runner sends it)
    or a plain string, read as one user message. Messages of every role, tool calls
    (their arguments) and tool outputs are read; reasoning items are not. Facts in
    ``instructions`` come first, with ``index`` :data:`INSTRUCTIONS_INDEX`.

    The result has a key for every requested kind (all of :data:`FACT_KINDS` by default;
    ask for :data:`EXTRA_FACT_KINDS` by name, or pass :data:`ALL_FACT_KINDS`); a kind that
    does not occur maps to an empty list.
    """
    wanted = _check_kinds(kinds)
    sequence = _as_items(items)
    result: dict[str, list[Found]] = {kind: [] for kind in ALL_FACT_KINDS if kind in wanted}
    if instructions is not None:
        if not isinstance(instructions, str):
            raise TypeError(
                f"instructions must be a str or None, got {type(instructions).__name__}"
            )
        for fact in facts_in_text(instructions, kinds=wanted):
            result[fact.kind].append(fact)
    for index, item in enumerate(sequence):
        source = item_kind(item)
        if source not in _READ_KINDS:
            continue
        for fact in facts_in_text(item_text(item), index=index, source=source, kinds=wanted):
            result[fact.kind].append(fact)
    return result


def latest_fact(found: Sequence[Found], *, prefer_messages: bool = True) -> Found | None:
    """The most recent of ``found`` (as listed by :func:`find_facts`) presented as current,
    or None.

    Mentions marked stale ("earlier: a@x", "instead of TCK-1") are skipped: a reader takes
    the latest value that is not marked superseded. With ``prefer_messages`` (the default)
    a value said in conversation (a message or the instructions) wins over one that only
    appears in tool traffic: "what was *my* error code?" means the code the user reported,
    not one buried in a diagnostics dump. Tool calls and outputs are used when no message
    holds a current value of that kind.
    """
    current = [f for f in found if not f.stale]
    if not current:
        return None
    if prefer_messages:
        said = [f for f in current if f.in_message]
        if said:
            return said[-1]
    return current[-1]


def distinct_values(found: Sequence[Found]) -> list[str]:
    """The values of ``found`` without repeats, most recent first."""
    seen: dict[str, None] = {}
    for fact in reversed(found):
        seen.setdefault(fact.value, None)
    return list(seen)


def _check_kinds(kinds: Iterable[str] | None) -> frozenset[str]:
    if kinds is None:
        return frozenset(FACT_KINDS)
    if isinstance(kinds, str):
        kinds = [kinds]
    chosen = frozenset(kinds)
    unknown = sorted(chosen - set(ALL_FACT_KINDS))
    if unknown:
        raise ValueError(
            f"unknown fact kind(s) {', '.join(map(repr, unknown))}; "
            f"expected some of: {', '.join(ALL_FACT_KINDS)}"
        )
    return chosen


def _as_items(items: str | Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    if not isinstance(items, Sequence):
        raise TypeError(
            f"items must be a list of Responses items or a str, got {type(items).__name__}"
        )
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TypeError(
                f"item {index} must be a dict (a Responses input item), got {type(item).__name__}"
            )
    return list(items)
