"""What the user's latest message asks for, read with keyword rules.

:func:`read_intent` turns one message into an :class:`Intent`: which facts the user wants
recalled ("what was my ticket number?"), which lookups they ask for (warranty, device
details, ticket status), and whether the message is a greeting, a thank-you or a sign that
an issue is fixed. The rules are plain regular expressions, listed here so a learner can
read exactly what the offline model understands and what it does not.

A message in Chinese (:func:`ctxlab.facts.language.language_of`) is read with the Chinese
rules below (``_ZH_*``): "我的工单号是多少来着？", "我这台设备的型号是什么来着？",
"约好的日期是哪天来着？", "我之前跟你说过要注意什么？", "你之前答应过我什么？", 保修,
进度, 你好, 谢谢. Chinese questions can also ask for the kinds only Chinese text carries
(``model``, ``phone``, ``date``; :data:`ctxlab.facts.typed.EXTRA_FACT_KINDS`), and
:attr:`Intent.language` says which language to answer in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...facts.language import Language, language_of
from ...facts.typed import ALL_FACT_KINDS, FACT_KINDS, facts_in_text

# How each fact kind is named in a question.
_NOUNS: dict[str, str] = {
    "ticket": r"(?:ticket|case|incident)(?:\s+(?:number|no\.?|id|#))?",
    "serial": r"(?:serial(?:\s+(?:number|no\.?|#))?|s/n|service\s+tag)",
    "firmware": r"firmware(?:\s+version)?",
    "error_code": r"error(?:\s+(?:code|number|message))?",
    "email": r"e-?mail(?:\s+address)?",
    "order": r"order(?:\s+(?:number|no\.?|id|#))?",
    "rma": r"(?:rma|return\s+authori[sz]ation)(?:\s+(?:number|no\.?|#))?",
    "reservation": r"(?:reservation|booking|confirmation)(?:\s+(?:code|number|id))?",
}

# Ways of asking for a value back; {noun} is one of _NOUNS.
_RECALL_TEMPLATES = (
    r"\bwhat(?:'s|s|\s+(?:was|is|were|are))?\s+(?:my|the|our|that)\s+(?:\w+\s+){{0,2}}?"
    r"{noun}\b",
    r"\bwhich\s+{noun}\b",
    r"\b(?:remind\s+me|remember|recall|repeat|tell\s+me|forgot|forget|confirm|still\s+have"
    r"|do\s+you\s+(?:know|have))\b[^.?!]{{0,40}}?\b{noun}\b",
    r"\bwhat\s+{noun}\b[^.?!]{{0,40}}\b(?:did|do|was|is|am)\b",
    r"\b{noun}\b[^.?!]{{0,30}}\bagain\b",
)

_RECALL: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: tuple(
        re.compile(template.format(noun=noun), re.IGNORECASE) for template in _RECALL_TEMPLATES
    )
    for kind, noun in _NOUNS.items()
}

# A repair or replacement alone is not a warranty question ("will the repair wipe my
# files?"); it becomes one when cost or cover is mentioned with it.
_WARRANTY = re.compile(
    r"\b(?:warrant(?:y|ies)|guarantee|coverage|covered|rma)\b"
    r"|\b(?:repairs?|replacement|replace)\b[^.?!]{0,30}\b(?:free|cost|pay|charge|cover\w*)\b"
    r"|\b(?:free|cost|pay|charge)\b[^.?!]{0,30}\b(?:repairs?|replacement|replace)\b",
    re.IGNORECASE,
)
_LOOKUP = re.compile(
    r"\b(?:look\s*(?:it\s+|this\s+|that\s+|them\s+)?up|lookup|details|specs|specifications"
    r"|device\s+(?:info|information|record)|pull\s+up)\b",
    re.IGNORECASE,
)
# Asking how something stands; "update" only counts next to the word "ticket".
_STATUS = re.compile(
    r"\b(?:status(?!\s+(?:light|led|bar|icon))|progress|news|any\s+word"
    r"|where\s+(?:are|is|do)\s+(?:we|it|things))\b",
    re.IGNORECASE,
)
_UPDATE = re.compile(r"\bupdates?\b", re.IGNORECASE)
# Asking whether someone is on it; counts only next to the word "ticket".
_FOLLOW_UP = re.compile(
    r"\b(?:looked\s+at|look(?:ed|ing)?\s+into|working\s+on|picked\s+up|heard\s+back)\b",
    re.IGNORECASE,
)
_TICKET_WORD = re.compile(r"\b(?:ticket|case|incident)s?\b|\bTCK-\d", re.IGNORECASE)
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|good\s+(?:morning|afternoon|evening)|greetings)\b",
    re.IGNORECASE,
)
_THANKS = re.compile(r"\b(?:thanks|thank\s+you|thx|cheers|appreciated?)\b", re.IGNORECASE)
_CLOSURE = re.compile(
    r"\b(?:fixed|solved|resolved|works\s+now|working\s+(?:again|now)|that\s+(?:worked|did\s+it)"
    r"|it\s+works|all\s+good|sorted|that'?s\s+all|that\s+is\s+all|nothing\s+else|bye|goodbye)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|still)\b|n't\b|\?", re.IGNORECASE)
# "What did I ask you to keep in mind?", "remind me of my preferences".
_CONSTRAINTS = re.compile(
    r"\bkeep\s+in\s+mind\b|\b(?:my|the)\s+(?:constraints?|preferences?|requirements?|"
    r"conditions?|restrictions?)\b|\bwhat\s+did\s+i\s+(?:ask|tell)\s+you\s+(?:to|about|not)\b",
    re.IGNORECASE,
)
# "What did you promise?", "what are you going to send me?".
_COMMITMENTS = re.compile(
    r"\bwhat\s+did\s+you\s+(?:promise|commit|agree|say\s+you(?:'d|\s+would))\b"
    r"|\b(?:your|the)\s+(?:promises?|commitments?)\b"
    r"|\bwhat\s+(?:are|were)\s+you\s+going\s+to\s+(?:do|send)\b",
    re.IGNORECASE,
)
_RECALL_NOUN_RMA = re.compile(_NOUNS["rma"], re.IGNORECASE)
# "Please delete my ticket and everything you know about me": a request to erase the
# customer's data, which no support tool here can do. ("Will the repair wipe my files?"
# is not one: files on the device are not data the service holds.)
_DATA_REQUEST = re.compile(
    r"\b(?:delete|erase|remove|wipe|forget|purge)\b[^.?!]{0,40}?"
    r"(?:\bmy\s+(?:personal\s+)?(?:data|details|information|info|account|tickets?|records?"
    r"|history)\b|\beverything\s+(?:you\s+(?:know|have|hold|keep|store)|about\s+me)\b"
    r"|\babout\s+me\b|\bme\b\s*[.!]?\s*$)"
    r"|\bright\s+to\s+(?:be\s+forgotten|erasure)\b|\bGDPR\b",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------- Chinese

# How each fact kind is named in a Chinese question.
_ZH_NOUNS: dict[str, str] = {
    "ticket": r"(?:工单|服务单|报修单|维修单|受理单|申请单)(?:号码?|编号)?",
    "serial": r"(?:序列号|串号|机身码|(?i:S/?N)(?:码|号)?)",
    "firmware": r"(?:固件|韧体)(?:版本号?)?|版本号",
    "error_code": r"(?:错误|故障|报错)(?:代码|码|编号)",
    "email": r"(?:邮箱|电子邮件|邮件地址|(?i:e-?mail))(?:地址)?",
    "order": r"订单(?:号码?|编号)?",
    "rma": r"(?:返修单|退换货单|换货单|退货单|(?i:RMA))(?:号码?|编号)?",
    "reservation": r"(?:预约|预订|预定)(?:号|码|编号)",
    "model": r"型号|机型",
    "phone": r"手机号码?|电话号码|联系电话|联系方式",
    "date": r"日期|(?:上门|预约|约好|约定)的?(?:日子|时间|那天)",
}
# A question word after the noun ("工单号是多少", "型号是什么来着", "日期是哪天").
_ZH_ASK_AFTER = r"[^，,。！？!?]{0,6}?(?:多少|什么|啥|哪个|哪一个|哪天|哪一天|几号|来着)"
# Asking to be reminded, before the noun ("提醒我一下我的邮箱").
_ZH_ASK_BEFORE = (r"(?:记得|还记得|提醒我|告诉我|再说一[遍下次]|重复一[遍下]|确认一下|忘了)"
                  r"[^。！？!?]{0,12}?")
_ZH_RECALL: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: (
        re.compile(f"(?:{noun}){_ZH_ASK_AFTER}"),
        re.compile(f"{_ZH_ASK_BEFORE}(?:{noun})"),
        re.compile(f"(?:{noun})呢[？?]"),
    )
    for kind, noun in _ZH_NOUNS.items()
}
# "师傅哪天来？", "约的是几号？": the agreed date, asked without naming it.
_ZH_DATE_ASKED = re.compile(r"(?:师傅|上门|约|预约)[^。！？!?]{0,6}(?:哪天|哪一天|几号|什么时候)")
_ZH_CONSTRAINTS = re.compile(
    r"(?:我|之前|刚才)[^。！？!?]{0,8}(?:说过|提过|交代过|要求过|嘱咐过|跟你说)"
    r"[^。！？!?]{0,10}(?:注意|要求|什么|哪些)|我的要求|要注意什么|注意事项|我提过的要求")
_ZH_COMMITMENTS = re.compile(
    r"(?:你|你们|客服)[^。！？!?]{0,6}(?:答应|承诺|保证)过?[^。！？!?]{0,6}(?:什么|啥|哪些)"
    r"|答应过?我(?:的|什么)|你们的承诺|你们承诺的")
_ZH_WARRANTY = re.compile(r"保修|保内|在保|质保|免费(?:维)?修|要(?:不要)?(?:收费|付费|花钱)")
_ZH_LOOKUP = re.compile(r"查(?:一下|查)?(?:这台|我的)?设备|设备(?:信息|详情|资料|记录)")
_ZH_STATUS = re.compile(r"进度|进展|处理到哪|状态|有消息|有结果|怎么样了")
_ZH_TICKET_WORD = re.compile(r"工单|服务单|报修单|维修单|\bTCK-\d")
_ZH_GREETING = re.compile(r"^\W*(?:你好|您好|嗨|哈喽|早上好|上午好|下午好|晚上好)")
_ZH_THANKS = re.compile(r"谢谢|多谢|感谢|辛苦了")
_ZH_CLOSURE = re.compile(
    r"修好了|解决了|正常了|没问题了|可以了|搞定了|好了|就这些|没别的了|再见|拜拜")
_ZH_NEGATION = re.compile(r"没|不|还是|吗|呢|[？?]")
# "请删除我的工单和你们掌握的关于我的所有信息": a request to erase the customer's data.
_ZH_DATA_REQUEST = re.compile(
    r"(?:删除|删掉|清除|清空|抹掉|注销)[^。！？!?]{0,16}?"
    r"(?:(?:我的|个人|关于我的?)(?:信息|数据|资料|工单|账号|账户|记录)|所有信息|关于我)"
    r"|忘掉我|被遗忘权")


@dataclass(frozen=True)
class Intent:
    """What one user message asks for.

    ``recall`` lists the fact kinds (see :data:`ctxlab.facts.typed.FACT_KINDS`) the
    user wants repeated back; ``warranty``, ``lookup`` and ``ticket_status`` are requests
    for a tool; ``ticket_word`` says the message names a ticket explicitly (a bare "any
    update?" counts only when a ticket is already in the conversation); ``greeting``,
    ``thanks`` and ``closure`` (the issue is fixed, or the user is done) shape small talk.
    ``constraints`` and ``commitments`` ask what the user asked the agent to keep in mind,
    and what the agent promised. ``data_request`` asks to delete the customer's data (their
    ticket, "everything you know about me"), which no tool offered here can do.
    ``language`` is the language of the message, the one the answer is written in.
    """

    recall: tuple[str, ...] = ()
    constraints: bool = False
    commitments: bool = False
    data_request: bool = False
    warranty: bool = False
    lookup: bool = False
    ticket_status: bool = False
    ticket_word: bool = False
    greeting: bool = False
    thanks: bool = False
    closure: bool = False
    language: Language = "en"

    @property
    def wants_tool(self) -> bool:
        return self.warranty or self.lookup or self.ticket_status


def normalize(text: str) -> str:
    """Straight quotes and single spaces, so the rules need not list every variant."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").split())


def recall_kinds(text: str) -> tuple[str, ...]:
    """The fact kinds ``text`` asks to be reminded of, in :data:`FACT_KINDS` order (a
    Chinese text: in :data:`~ctxlab.facts.typed.ALL_FACT_KINDS` order).

    A kind is not a recall question when the message itself states a value of that kind
    ("what does error 42 mean?" is about error 42, not a request to repeat it).
    """
    text = normalize(text)
    if language_of(text) == "zh":
        return _zh_recall_kinds(text)
    stated = {fact.kind for fact in facts_in_text(text)}
    asked = []
    for kind in FACT_KINDS:
        if kind in stated:
            continue
        if any(pattern.search(text) for pattern in _RECALL[kind]):
            asked.append(kind)
    return tuple(asked)


def _zh_recall_kinds(text: str) -> tuple[str, ...]:
    stated = {fact.kind for fact in facts_in_text(text, kinds=ALL_FACT_KINDS)}
    asked = []
    for kind in ALL_FACT_KINDS:
        if kind in stated:
            continue
        if any(pattern.search(text) for pattern in _ZH_RECALL[kind]) or (
                kind == "date" and _ZH_DATE_ASKED.search(text)):
            asked.append(kind)
    return tuple(asked)


def read_intent(text: str) -> Intent:
    """Classify one user message (see :class:`Intent`)."""
    if not isinstance(text, str):
        raise TypeError(f"read_intent expects a str, got {type(text).__name__}")
    text = normalize(text)
    if language_of(text) == "zh":
        return _read_intent_zh(text)
    constraints = _CONSTRAINTS.search(text) is not None
    commitments = _COMMITMENTS.search(text) is not None
    if constraints or commitments:
        return Intent(constraints=constraints, commitments=commitments)
    if _DATA_REQUEST.search(text):
        return Intent(data_request=True)
    recall = recall_kinds(text)
    # "What was my RMA number?" is a recall question even though "RMA" also asks for a
    # repair; any other action word ("check", "status", ...) makes it a lookup instead.
    # A verb alone ("so I can check the box") does not turn it into a lookup: only a
    # warranty, lookup or status request does.
    action_text = _RECALL_NOUN_RMA.sub(" ", text) if "rma" in recall else text
    wants_lookup = (
        _WARRANTY.search(action_text) or _LOOKUP.search(action_text)
        or _STATUS.search(action_text)
    )
    if recall and not wants_lookup:
        return Intent(recall=recall)
    ticket_word = _TICKET_WORD.search(text) is not None
    warranty = _WARRANTY.search(text) is not None
    lookup = _LOOKUP.search(text) is not None
    status = _STATUS.search(text) is not None
    if ticket_word:
        ticket_status = (
            status or _UPDATE.search(text) is not None or _FOLLOW_UP.search(text) is not None
        )
    else:
        ticket_status = status and not warranty and not lookup
    closure = _CLOSURE.search(text) is not None and _NEGATION.search(text) is None
    return Intent(
        recall=(),
        warranty=warranty,
        lookup=lookup,
        ticket_status=ticket_status,
        ticket_word=ticket_word,
        greeting=_GREETING.search(text) is not None,
        thanks=_THANKS.search(text) is not None,
        closure=closure,
    )


def _read_intent_zh(text: str) -> Intent:
    """:func:`read_intent` for a message in Chinese (the ``_ZH_*`` rules)."""
    constraints = _ZH_CONSTRAINTS.search(text) is not None
    commitments = _ZH_COMMITMENTS.search(text) is not None
    if constraints or commitments:
        return Intent(language="zh", constraints=constraints, commitments=commitments)
    if _ZH_DATA_REQUEST.search(text):
        return Intent(language="zh", data_request=True)
    recall = _zh_recall_kinds(text)
    warranty = _ZH_WARRANTY.search(text) is not None
    lookup = _ZH_LOOKUP.search(text) is not None
    status = _ZH_STATUS.search(text) is not None
    if recall and not (warranty or lookup or status):
        return Intent(recall=recall, language="zh")
    ticket_word = _ZH_TICKET_WORD.search(text) is not None
    closure = _ZH_CLOSURE.search(text) is not None and _ZH_NEGATION.search(text) is None
    return Intent(
        language="zh",
        warranty=warranty,
        lookup=lookup,
        ticket_status=status and (ticket_word or not (warranty or lookup)),
        ticket_word=ticket_word,
        greeting=_ZH_GREETING.search(text) is not None,
        thanks=_ZH_THANKS.search(text) is not None,
        closure=closure,
    )
