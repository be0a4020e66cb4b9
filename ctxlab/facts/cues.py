"""The words memory listens for: every language-specific cue of fact tracking, in one table.

Fact *values* (ticket ids, serials, emails, ...) are found by :mod:`ctxlab.facts.typed` and
:mod:`ctxlab.facts.identifiers`. Whether a value is still current, whether a sentence is a
constraint the customer set or a promise the agent made, which device a message is about,
and whether a line is a troubleshooting step or small talk are decided by the phrases
below. They are English; another language adds its own entries to these tables (regular
expression alternatives), and every reader (:mod:`ctxlab.facts.staleness`,
:mod:`ctxlab.facts.statements`, :mod:`ctxlab.facts.tracker`, the extractive summarizer, the
offline model) picks them up without code changes.

Each entry is a regular expression *fragment* (an alternative); the modules that use them
compile the tables once. Matching is case-insensitive. Fragments written in ASCII are
matched as whole words; others (Chinese, which has no spaces between words) anywhere.
Chinese entries follow the English ones in the tables that Chinese support chats need.
"""

from __future__ import annotations

from collections.abc import Iterable


def words(fragments: Iterable[str], *, start: bool = True, end: bool = True) -> str:
    """The fragments as one alternation; ASCII fragments as whole words (``\\b`` at the
    ``start`` and ``end``), the others (Chinese has no spaces between words) anywhere."""
    parts = []
    for fragment in fragments:
        if fragment.isascii():
            head = r"\b" if start else ""
            tail = r"\b" if end else ""
            parts.append(f"{head}(?:{fragment}){tail}")
        else:
            parts.append(f"(?:{fragment})")
    return "(?:" + "|".join(parts) + ")"


# ----------------------------------------------------------------------------- staleness
#: A label that says the values after it are no longer current: "earlier: a@x",
#: "Superseded: v1 -> v2", "was: TCK-1". The marked region runs to the next ")", "]",
#: "|", ";", arrow, line end or sentence end.
STALE_LABELS: tuple[str, ...] = (
    r"earlier(?: values?)?", r"previously", r"formerly", r"superseded", r"replaced",
    r"old values?", r"was", r"were", r"outdated", r"no longer current",
    r"此前", r"原为", r"曾为", r"旧值", r"已被替换", r"已作废",
)
#: A word right before a value (within two words) that says it is no longer current:
#: "my old address x", "instead of the Porto office", "not every Monday".
STALE_BEFORE: tuple[str, ...] = (
    r"old", r"previous", r"former", r"outdated", r"obsolete", r"wrong", r"incorrect",
    r"instead\s+of", r"rather\s+than", r"not", r"no\s+longer", r"replaces", r"replacing",
    r"superseded(?!\s+by|\s*:)", r"replaced(?!\s+by|\s*:)",
    r"旧的", r"原来的", r"停用的", r"作废的",
)
#: Words right before a stale-before cue that turn it around ("go back to my old address
#: x" makes x current again).
CURRENT_AGAIN: tuple[str, ...] = (r"back\s+to", r"return\s+to", r"revert(?:ing)?\s+to")
#: A phrase right after a value that says it is no longer current: "TCK-1 was merged into
#: TCK-2", "a@x is being shut down", "v1 [superseded by v2]".
STALE_AFTER: tuple[str, ...] = (
    r"\s*[\[(]\s*(?:superseded(?!\s*:)|old\b|outdated|no\s+longer\s+(?:current|valid|used)|"
    r"replaced(?!\s*:))",
    r"\s+(?:is|was|has\s+been|got)\s+(?:now\s+)?(?:no\s+longer|replaced|superseded|"
    r"cancell?ed|merged|outdated|wrong|incorrect|a\s+typo|being\s+shut\s+down|shut\s+down|"
    r"retired|closed\s+and\s+replaced)",
    r"\s*(?:已经?|快要?)?(?:作废|停用|不用了|失效|过期|被合并)",
    r"\s*[（(\[]\s*已(?:被)?(?:替换|更换|改)为?",
)
#: Arrows between an old and a new value ("v1 -> v2"): what comes before is stale.
ARROWS: tuple[str, ...] = (r"->", r"→", r"=>")

# ----------------------------------------------------------------------------- updates
#: In a statement with a new value, a cue that it *replaces* an earlier value of the same
#: kind for the same thing (a multi-valued kind such as tickets otherwise adds a value).
UPDATE: tuple[str, ...] = (
    r"instead", r"replac\w*", r"new\s+(?:one|number|code|ticket|order|rma|address|email|"
    r"error(?:\s+code)?)", r"reissued", r"merged", r"correct\w*", r"actually",
    r"from\s+now\s+on", r"misread", r"typo", r"wrong", r"re-?opened\s+as",
    r"变成", r"改成", r"改为", r"改到", r"换成", r"新号码", r"新的", r"以后请",
    r"又报错", r"又提示", r"又出现",
)
#: A correction of something said before (a misread serial, a wrong order number).
CORRECTION: tuple[str, ...] = (
    r"actually", r"correct\w*", r"misread", r"typo", r"wrong", r"sorry", r"mistake",
    r"instead", r"not\s+\S+\s*,?\s*(?:but|it'?s)", r"scratch\s+that",
)

# ----------------------------------------------------------------------------- devices
#: Nouns a customer uses for a device; a device is a separate entity in memory (its own
#: serial, firmware, error codes, tickets). Multi-word nouns first.
DEVICE_NOUNS: tuple[str, ...] = (
    r"docking\s+station", r"access\s+point", r"desk\s+phone", r"smart\s+speaker",
    r"laptop", r"notebook", r"desktop", r"computer", r"pc", r"mac(?:book)?", r"printer",
    r"scanner", r"router", r"modem", r"monitor", r"phone", r"smartphone", r"tablet",
    r"ipad", r"headset", r"keyboard", r"mouse", r"dock", r"camera", r"webcam", r"speaker",
    r"projector", r"nas", r"tv",
    r"冰箱", r"洗衣机", r"空调", r"热水器", r"电视", r"笔记本(?:电脑)?", r"路由器", r"打印机",
    r"手机(?![号卡热])", r"平板", r"扫地机器人", r"吸尘器", r"NAS", r"显示器",
)
#: Device nouns that also have other meanings ("by phone", "the notebook I write in"): they
#: name a device only after "my", "the", "a", ...
AMBIGUOUS_NOUNS: tuple[str, ...] = (
    "phone", "notebook", "computer", "pc", "mac", "mouse", "dock", "camera", "speaker", "tv",
    "keyboard", "nas",
)
#: Words that introduce a new, separate problem ("Now a different problem: my printer").
NEW_PROBLEM: tuple[str, ...] = (
    r"(?:a|an)\s+(?:different|new|second|separate|other)\s+(?:problem|issue|question|device)",
    r"another\s+(?:problem|issue|device|one)", r"one\s+more\s+(?:problem|issue|thing\s+broke)",
    r"(?:my|the)\s+other\s+", r"also\s+(?:have|got)\s+(?:a|an)\b", r"second\s+",
)

# ----------------------------------------------------------------------------- problems
#: A reported problem (a symptom) in a customer's message.
SYMPTOM: tuple[str, ...] = (
    r"error", r"fail\w*", r"not\s+work\w*", r"doesn'?t\s+work", r"won'?t", r"can'?t",
    r"will\s+not", r"not\s+connect\w*", r"doesn'?t", r"isn'?t\s+working",
    r"cannot", r"broken", r"blink\w*", r"overheat\w*", r"hot", r"slow", r"crash\w*",
    r"freez\w*", r"no\s+sound", r"disconnect\w*", r"drops?\b", r"dropping", r"not\s+found",
    r"denied", r"stuck", r"jams?\b", r"blank", r"flicker\w*", r"no\s+signal", r"drains?",
    r"reboots?", r"shuts?\s+down", r"stopped", r"keeps?\s+\w+ing", r"problem", r"issue",
    r"不制冷|不凉|蓝屏|报错|错误代码|故障|坏了|不工作|登不上|连不上|打不着|断线|不能用",
)
#: The customer says a problem is solved.
RESOLVED: tuple[str, ...] = (
    r"fixed", r"resolved", r"works\s+(?:now|again)", r"working\s+(?:now|again)",
    r"that\s+(?:worked|did\s+it|fixed\s+it)", r"solved", r"all\s+good", r"seems\s+fine\s+now",
    r"it\s+works", r"no\s+longer\s+(?:happens|crashes|freezes)", r"sorted",
    r"好了|修好了|正常了|解决了",
)

# ----------------------------------------------------------------------------- steps
#: Troubleshooting actions an agent asks for (at the start of an instruction, or of a
#: numbered step): what goes under "Steps tried".
STEP_VERBS: tuple[str, ...] = (
    r"restart", r"reboot", r"reset", r"power[\s-]cycle", r"turn\s+(?:it|the\s+\w+)?\s*(?:off|on)",
    r"switch\s+(?:it|the\s+\w+)?\s*(?:off|on|back)", r"unplug", r"plug", r"disconnect",
    r"reconnect", r"connect", r"update", r"upgrade", r"install", r"reinstall", r"uninstall",
    r"roll\s+back", r"downgrade", r"clear", r"delete", r"remove", r"replace", r"clean",
    r"check", r"open\s+(?:the\s+)?(?:device\s+)?settings", r"open", r"hold", r"press",
    r"run", r"scan", r"enable", r"disable", r"change", r"set", r"sign\s+(?:out|in)",
    r"log\s+(?:out|in)", r"forget", r"pair", r"re-?pair", r"calibrate", r"wait",
    r"flash", r"boot", r"test", r"measure", r"swap", r"move", r"charge", r"drain",
    r"hard\s+reset", r"factory\s+reset", r"tighten", r"reseat",
    r"把", r"断电", r"重启", r"重新启动", r"重新绑定", r"拔掉", r"拔下", r"插上", r"清理",
    r"清洗", r"拧出", r"打开", r"关闭", r"关掉", r"检查", r"确认", r"更新", r"升级", r"重装",
    r"卸载", r"安装", r"更换", r"换上", r"恢复出厂设置", r"重置", r"退出", r"登录", r"备份",
    r"按住", r"长按", r"运行", r"等待", r"测试", r"点击?", r"删除",
)
#: Words an instruction may start with before its step verb ("please", 请先, 然后).
STEP_LEADS: tuple[str, ...] = (
    r"please", r"now", r"first,?", r"then", r"next,?", r"let'?s", r"try\s+to", r"try",
    r"could\s+you", r"can\s+you",
    r"请您?(?:先|再)?", r"麻烦您?(?:先|再)?", r"您可以(?:先)?", r"可以先", r"先", r"再", r"然后",
)
#: A customer line that reports the result of a step ("still the same", "that fixed it").
OUTCOME: tuple[str, ...] = (
    r"still", r"same", r"nothing\s+(?:changed|happened)", r"no\s+change", r"didn'?t",
    r"did\s+not", r"worked", r"works", r"fixed", r"came\s+back", r"started\s+again",
    r"now\s+(?:it|the)", r"blinking", r"shows?", r"says", r"done", r"better", r"worse",
    r"again", r"gone", r"stopped",
    r"还是", r"仍然", r"依然", r"没用", r"不行", r"一样", r"没变化", r"没有变化", r"好了",
    r"正常了", r"显示", r"提示",
)
#: Things a customer reports having done themselves ("I cleaned the vents").
USER_ACTION: tuple[str, ...] = (
    r"i\s+(?:already\s+)?(?:tried(?!\s+(?:that|it|this|those|them)\b)|restarted|rebooted|reset|updated|upgraded|installed|"
    r"reinstalled|replaced|cleaned|cleared|unplugged|plugged|charged|backed\s+up|"
    r"disconnected|reconnected|swapped|changed|ran|checked|turned)",
    r"(?:我|已经)(?:已经)?(?:试过|重启了|重启过|重装了|换了|清理了|清过|断电了|升级了|更新了"
    r"|备份了|检查了|拔了|插了)", r"^(?:换了|清出来|断电重开了|重启了|升级好了|备份好了)",
)

# ----------------------------------------------------------------------------- statements
#: A sentence by the customer that sets a constraint or preference (kept until changed).
CONSTRAINT: tuple[str, ...] = (
    r"\b(?:never|don'?t|do\s+not|please\s+don'?t|please\s+do\s+not|must\s+not|mustn'?t)\s+"
    r"(?:\w+\s+){0,3}?(?:call|phone|ring|ship|send|deliver|post|mail|wipe|erase|delete|"
    r"format|reset|visit|come|contact|text|email|e-mail|replace|charge|bill|schedule|book|"
    r"touch|open|share|leave)\w*",
    r"\b(?:only|just)\s+(?:by\s+|via\s+|through\s+|after\s+|before\s+|on\s+|in\s+the\s+)?"
    r"(?:email|e-mail|phone|text|sms|chat|mornings?|afternoons?|evenings?|weekdays?|"
    r"weekends?|\d{1,2}(?::\d{2})?\s*[ap]m|mondays?|tuesdays?|wednesdays?|thursdays?|"
    r"fridays?)\b",
    r"\b(?:email|e-mail|phone|text|chat|sms)\s+only\b",
    r"\b(?:i(?:'m|\s+am|'ll\s+be|\s+will\s+be)|we(?:'re|\s+are))\s+(?:\w+\s+){0,2}?"
    r"(?:away|out(?:\s+of\s+(?:the\s+)?office)?|unavailable|on\s+(?:vacation|holiday|leave)|"
    r"travell?ing|off)\b[^.!?]*\b(?:until|till|from|on|next|this|every|through)\b",
    r"\bwhatever\s+you\s+do\b", r"\bmake\s+sure\s+(?:you|to|that)\b",
    r"\b(?:i|we)\s+(?:prefer|would\s+prefer|'d\s+prefer|'d\s+rather|would\s+rather)\b",
    r"\bno\s+(?:calls|phone\s+calls|visits|home\s+visits|deliveries|weekend\s+\w+)\b",
    r"\b(?:always|please)\s+(?:use|send|ship|deliver|contact|cc|copy)\b[^.!?]*\b(?:office|"
    r"address|email|only|instead|always)\b",
    r"\bit'?s\s+every\s+\w+day\b",
    r"(?:不要|别|千万别|千万不要|千万不能|不能|请勿|请不要|禁止)[^。！？\n]{0,15}?"
    r"(?:打电话|电话|打|寄|送|放|格式化|清空|删除|上门|联系|敲门|发)",
    r"只(?:能|在|用|要|接受)[^。！？\n]{0,15}",
    r"(?:一定要|请先|务必|必须)[^。！？\n]{0,12}(?:打电话|电话|联系|通知)",
    r"(?:不在家|要出差|经常出差|不方便接)",
)
#: Topics of constraints: a new constraint on a topic with a revision cue replaces the
#: earlier one on that topic. Checked in order; "other" when none matches.
CONSTRAINT_TOPICS: tuple[tuple[str, str], ...] = (
    ("availability", r"\b(?:away|until|till|vacation|holiday|on\s+leave|travell?ing|"
                     r"unavailable|back\s+on)\b|出差|不在家"),
    ("contact", r"\b(?:call|calls|phone|ring|text|sms|email|e-mail|contact|reach)\b"
                r"|电话|短信|联系"),
    ("schedule", r"\b(?:visit\w*|appointment|technician|every\s+\w+day|mondays?|tuesdays?|"
                 r"wednesdays?|thursdays?|fridays?|saturdays?|sundays?)\b"
                 r"|上门|周末|上午|下午|点以后|工作日"),
    ("shipping", r"\b(?:ship\w*|deliver\w*|post|parcel|courier|po\s+box|address|office)\b"
                 r"|寄|快递|送到|地址|门卫"),
    ("data", r"\b(?:wipe|erase|delete|format|folder|files?|data|backup)\b|格式化|清空|数据"),
    ("billing", r"\b(?:charge|bill\w*|pay\w*|cost|price|refund|budget)\b|收费|费用|退款"),
)
#: In a constraint, a cue that it revises the earlier one on its topic.
REVISION: tuple[str, ...] = (
    r"change\s+of\s+plans?", r"actually", r"correction", r"on\s+second\s+thought",
    r"scratch\s+that", r"update\b", r"now\b", r"no\s+longer", r"not\s+every", r"instead\s+of",
    r"from\s+now\s+on", r"any\s+more", r"anymore", r"after\s+all",
    r"改成", r"改为", r"改到", r"换成", r"不再", r"以后请",
)
#: A sentence by the agent that commits to doing something ("I'll send the label by
#: Friday"): a future form followed (within a few words) by a deliverable verb.
COMMITMENT: tuple[str, ...] = (
    r"\b(?:i|we)(?:'ll|\s+will|\s+am\s+going\s+to|'m\s+going\s+to|\s+shall)\s+"
    r"(?:\w+\s+){0,2}?(?:send|e-?mail|call|ring|ship|post|mail|schedule|book|arrange|refund|"
    r"credit|replace|order|escalate|follow\s+up|check\s+back|get\s+back|update\s+you|"
    r"text|confirm|courier|dispatch|issue)\b",
    r"(?:我们|我|师傅|工程师|客服)(?:会|将|承诺|保证)[^。！？\n]{0,30}", r"承诺[^。！？\n]{0,30}",
    r"\d+\s*(?:小时|个?工作日|天|分钟)内[^。！？\n]{0,12}"
    r"(?:给您|为您|联系|推送|寄|发|修好|回复)",
)
#: Deadline words that end a commitment's subject ("send the label | by Friday").
DEADLINE: tuple[str, ...] = (
    r"by", r"before", r"within", r"on", r"tomorrow", r"today", r"tonight", r"next",
    r"in", r"once", r"as\s+soon", r"when", r"instead", r"rather", r"after", r"just", r"for",
)
#: A past form that says a commitment was kept ("I've sent the replacement label").
DONE: tuple[str, ...] = (
    r"\b(?:i|we)(?:'ve|\s+have|\s+just|\s+already)?\s+(?:just\s+|already\s+)?(?:sent|emailed|"
    r"called|shipped|posted|mailed|scheduled|booked|arranged|refunded|credited|replaced|"
    r"ordered|escalated|confirmed|dispatched|issued)\b",
    r"(?:已经|已)(?:给您)?(?:发|寄|推送|安排|联系|修好|寄回)",
)
#: Words dropped when a commitment's subject is turned into a key ("the", "your", ...).
FILLER_WORDS: tuple[str, ...] = (
    "the", "a", "an", "your", "you", "my", "our", "it", "them", "this", "that", "to", "for",
    "out", "over", "new", "small", "change", "quick", "update", "actually", "now", "just",
    "back", "up",
)

# ----------------------------------------------------------------------------- scope
#: A statement meant for this conversation only ("this time only", "just for this trip",
#: "只是这次", "这次先"): long-term memory keeps it in the session and never makes it a
#: standing note. When a sentence has both this and a :data:`LASTING` cue, this one wins
#: (what may be temporary is not kept for good).
SESSION_ONLY: tuple[str, ...] = (
    r"this\s+time(?:\s+only)?", r"only\s+this\s+time", r"just\s+this\s+(?:once|time)",
    r"this\s+once", r"(?:just\s+|only\s+)?for\s+this\s+(?:trip|order|repair|visit|"
    r"delivery|shipment|booking|one|time)(?:\s+only)?",
    r"(?:just\s+|only\s+)?for\s+(?:today|now|the\s+moment)", r"temporar(?:y|ily)",
    r"this\s+one\s+time", r"one[-\s]off",
    r"只是这次", r"只有这次", r"就这次", r"仅此一次", r"只这一次", r"这一次", r"这次",
    r"这回", r"本次", r"这趟", r"临时", r"暂时", r"今天先",
)
#: A statement the customer means to last ("from now on", "always", "以后都", "今后"): a
#: standing note that replaces an older one on its topic.
LASTING: tuple[str, ...] = (
    r"from\s+now\s+on", r"going\s+forward", r"(?:in|for)\s+(?:the\s+)?future",
    r"from\s+here\s+on", r"always", r"every\s+time", r"by\s+default", r"for\s+good",
    r"permanently", r"any\s+time\s+you",
    r"以后都", r"以后", r"今后", r"往后", r"从今以后", r"从现在起", r"每次都", r"一律",
    r"永远", r"一直都", r"默认",
)

# ----------------------------------------------------------------------------- labels
#: How each part of a summary or a fact kind reads (one table; a translation swaps it).
LABELS: dict[str, str] = {
    "ticket": "Ticket",
    "serial": "Serial number",
    "firmware": "Firmware",
    "error_code": "Error code",
    "email": "Email",
    "order": "Order number",
    "rma": "RMA number",
    "reservation": "Reservation code",
    "phone": "Phone",
    "name": "Name",
    "model": "Model",
    "from_tools": "from tools",
    "earlier": "earlier",
    "since_turn": "since turn",
    "until_turn": "until turn",
    "turn": "turn",
    "turns": "turns",
    "no_longer": "no longer current since turn",
    "customer": "customer",
    "case": "case",
    "device": "device",
    "records": "tool records",
    "none": "none",
    "superseded_by": "superseded by",
    "done": "done",
    "date": "Date",
}

#: The same labels in Chinese, for a conversation whose customer writes Chinese. Stale
#: labels here (此前) are in :data:`STALE_LABELS`, so every reader treats what follows as
#: no longer current.
LABELS_ZH: dict[str, str] = {
    "ticket": "工单号",
    "serial": "序列号",
    "firmware": "固件版本",
    "error_code": "错误代码",
    "email": "邮箱",
    "order": "订单号",
    "rma": "返修单号",
    "reservation": "预约号",
    "phone": "手机号",
    "name": "姓名",
    "model": "型号",
    "from_tools": "系统查询",
    "earlier": "此前",
    "since_turn": "始于第",
    "until_turn": "至第",
    "turn": "第",
    "turns": "轮",
    "no_longer": "不再有效，自第",
    "customer": "客户",
    "case": "工单",
    "device": "设备",
    "records": "工具记录",
    "none": "无",
    "superseded_by": "已被替换为",
    "done": "已完成",
    "date": "日期",
}

#: Constraint topics (:data:`CONSTRAINT_TOPICS`) as a Chinese summary names them.
CONSTRAINT_TOPICS_ZH: dict[str, str] = {
    "availability": "时间安排", "contact": "联系方式", "schedule": "上门时间",
    "shipping": "收货方式", "data": "数据处理", "billing": "费用", "other": "其他",
}


def labels(language: str = "en") -> dict[str, str]:
    """:data:`LABELS` (``"en"``) or :data:`LABELS_ZH` (``"zh"``)."""
    return LABELS_ZH if language == "zh" else LABELS

# ----------------------------------------------------------------------------- instructions
#: Text that speaks to the assistant as an operator would: an order about how it must
#: behave, a claim to override its instructions, a fake role header, a role-play set-up.
#: Memory keeps such lines (the agent may need to know the customer asked) but flags them
#: (:mod:`ctxlab.facts.instructions`). Whole-sentence shapes, not single words: a customer
#: who says "you must be joking" or "please always email me" is not flagged.
INSTRUCTION: tuple[str, ...] = (
    # overriding the operator
    r"(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:your|the|my|"
    r"these|those|all|any)?\s*(?:previous|prior|earlier|above|original|system|existing|"
    r"current)?\s*(?:instructions?|rules?|guidelines?|polic(?:y|ies)|prompts?|directives?|"
    r"guardrails?|restrictions?)",
    r"new\s+(?:system\s+)?instructions?\s*[:：]", r"(?:system|developer|admin)\s+(?:prompt|"
    r"override|message|instruction)s?\b", r"jailbreak", r"developer\s+mode",
    r"(?:note|message|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+)?(?:assistant|agent|"
    r"ai|model|bot|llm|chatbot)",
    # orders about the assistant's standing behaviour
    r"(?:you|the\s+(?:assistant|agent|ai|model|bot))\s+(?:must|should|shall|will|have\s+to|"
    r"need\s+to|are\s+to)\s+(?:always|never|from\s+now\s+on|in\s+(?:the\s+)?future|"
    r"henceforth|no\s+matter\s+what|without\s+(?:checking|verifying|asking|question))",
    r"(?:always|never)\s+(?:approve|grant|refund|issue|give|waive|skip|bypass|reveal|share|"
    r"disclose|send)\b[^.!?\n]{0,60}\bwithout\s+(?:checking|verif\w*|asking|question\w*|"
    r"confirm\w*|approval|authori[sz]\w*)",
    r"(?:approve|grant|issue|process)\s+(?:all\s+|any\s+|every\s+)?(?:my\s+)?(?:refunds?|"
    r"requests?|claims?|returns?)\s+(?:automatically|without)",
    r"(?:remember|note)\s+(?:this\s+)?for\s+(?:next\s+time|(?:all\s+)?future\s+"
    r"(?:sessions?|conversations?|chats?))\s*[:：,]?\s*(?:you|always|never|the\s+assistant)",
    r"(?:read|give|tell|show|send)\s+me\s+(?:the\s+)?(?:other|another|all\s+the\s+other)\s+"
    r"(?:customers?|users?|clients?)(?:'s?)?\s+(?:e-?mails?|data|records|details|addresses|"
    r"phone|passwords?|information|accounts?)",
    r"(?:reveal|print|show|repeat|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|"
    r"instructions|hidden\s+prompt|initial\s+prompt)",
    r"(?:do\s+not|don'?t|never)\s+(?:tell|inform|alert|notify)\s+(?:the\s+)?(?:operator|"
    r"admin|supervisor|staff|human|manager)",
    # role play and fake roles
    r"(?:pretend|act|behave)\s+(?:to\s+be|as\s+if\s+you\s+(?:are|were)|as)\s+(?:an?\s+)?"
    r"(?:different|unrestricted|unfiltered|system|admin|developer|dan\b)",
    r"you\s+are\s+now\s+(?:an?\s+)?(?:unrestricted|unfiltered|admin|developer|system|dan\b|"
    r"in\s+\w+\s+mode|my\s+(?:personal|private))",
    r"from\s+now\s+on\s+you\s+(?:are|will|must)",
    r"(?:^|[\n\"'{\[()\]>|*:-])\s*(?:#+\s*)?(?:system|developer)\s*(?:message|prompt|note|"
    r"override)?\s*[:：]",
    r"\[(?:system|inst|/inst|developer|admin)\]", r"<\|?(?:im_start|system|im_end)\|?>",
    r"<<\s*sys\s*>>",
    # Chinese
    r"(?:忽略|无视|忘掉|忘记|不要理会|别管)(?:你)?(?:之前|以前|先前|上面|原来|原有|所有|全部)?(?:的)?"
    r"(?:所有|全部)?(?:的)?(?:指令|指示|规则|设定|提示词?|要求|系统提示)",
    r"(?:以后|今后|从现在起|从今以后|往后|下次)你(?:都)?(?:必须|一定要|务必|只能|不准|不许|"
    r"一律|直接)",
    r"你(?:必须|一定要|务必)(?:永远|始终|总是|每次|一律|直接)",
    r"(?:不用|无需|不必|别|不要)(?:再)?(?:核实|核对|验证|审核|确认身份|查验)(?:任何|我的)?"
    r"(?:信息|身份|资料)?",
    r"记住这(?:一点|件事|条)",
    r"(?:给|对)(?:助手|客服机器人|机器人|AI|模型)的(?:备注|提示|指令|留言)",
    r"(?:^|[\n\"'{\[()\]>|*\-（）：:])\s*(?:系统|开发者|管理员)(?:消息|提示|指令|通知)?\s*[:：]",
    r"(?:新的|最新)(?:系统)?指令\s*[:：]",
    r"(?:假装|扮演|你现在是)(?:一个)?(?:不受限制|没有限制|管理员|开发者|系统)",
    r"(?:把|告诉我|给我看|发给我)(?:其他|别的)(?:客户|用户)的",
    r"不要(?:告诉|通知)(?:管理员|主管|人工|运营)",
)
