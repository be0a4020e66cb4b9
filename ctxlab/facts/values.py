"""The values a conversation establishes, in any domain: dates, times, places, names,
amounts, counts, identifiers, in English and Chinese.

:func:`find_values` reads one text and returns :class:`Value` spans, each with a ``kind``
(``date``, ``time``, ``amount``, ``count``, ``phone``, ``email``, ``identifier``, ``rating``,
``duration``, ``address``, ``category``, ``name``), without overlaps (a longer span wins).
It knows no domain: a name is a run of capitalised words in English (``Union Station``,
``San Diego``), and in Chinese a phrase between function words that ends like a place
(``北京天伦王朝酒店``, ``护国寺小吃店（护国寺总店）``) or is listed with ``、``. A schema's
categorical values (SGD's ``possible_values``) can be passed as ``known``: they are found
as whole words, whatever their case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .language import language_of


@dataclass(frozen=True)
class Value:
    """A value in a text: its ``kind``, the ``text`` as written, and where it is."""

    kind: str
    text: str
    start: int
    end: int


_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|"
          r"November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)")
_DAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_ORD = r"\d{1,2}(?:st|nd|rd|th)"

_NUMW = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_PART = r"(?:morning|afternoon|evening|night)"
_CLOCK = rf"(?:\d{{1,2}}(?::\d{{2}})?|{_NUMW})"

_EN: tuple[tuple[str, str], ...] = (
    ("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    ("phone", r"(?<![\w-])\+?\d[\d\s().-]{7,}\d(?![\w-])"),
    ("amount", r"\$\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s*(?:dollars|bucks|usd|euros?)\b"),
    ("date", rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?"
             rf"|\b(?:the\s+)?{_ORD}\s+(?:of\s+)?(?:{_MONTH}|this month|next month)\b"
             rf"|\b(?:next|this|coming)\s+{_DAY}\b|\b{_DAY}(?:\s+(?:next|this)\s+week)?\b"
             rf"|\b(?:the\s+)?{_ORD}\b"
             r"|\b(?:day after tomorrow|later today|today|tomorrow|tonight)\b"
             r"|\b\d{4}-\d{2}-\d{2}\b"),
    ("time", rf"\b(?:{_PART}\s+)?(?:(?:half past|quarter past|quarter to)\s+)?{_CLOCK}"
             rf"(?:\s*(?:am|pm|a\.m\.|p\.m\.|o'clock|o\"clock))?\s+in\s+the\s+{_PART}\b"
             rf"|\b{_PART}\s+\d{{1,2}}(?::\d{{2}})?\b"
             rf"|\b(?:half past|quarter past|quarter to)\s+{_CLOCK}\b"
             r"|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b"
             r"|\b\d{1,2} o['\"]clock\b|\b(?:noon|midnight)\b"),
    ("rating", r"\b\d(?:\.\d)?\s*stars?\b"),
    ("address", r"\b\d+\s+(?:[A-Z][\w.'-]*\s+){1,4}(?:Street|St|Avenue|Ave|Road|Rd|"
                r"Boulevard|Blvd|Drive|Dr|Lane|Ln|Way|Place|Pl|Court|Ct|Square|Plaza)\b\.?"
                r"(?:\s*(?:#|Suite|Unit)\s*\w+)?"),
    ("identifier", r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9-]{2,}\b"),
    ("count", rf"\b\d+(?:\.\d+)?\b|\b{_NUMW}(?=\s+(?:days?|nights?|people|persons?|tickets?|"
              r"seats?|rooms?|adults?|guests?|of us|bedrooms?|baths?|bathrooms?)\b)"),
    ("place", r"\b(?:from|to|in|at|near|around)\s+"
              r"(?P<v>(?-i:(?:[a-z][a-z'-]+\s){0,2}[a-z][a-z'-]+))"
              r"(?=\s*(?:[,.!?]|$)|\s(?:to|from|on|for|and|at|in|please|instead|then)\b)"),
)

#: Lowercase words after "to", "in", "at" that are not places.
_NOT_PLACES = frozenset((
    "a", "an", "the", "it", "this", "that", "them", "me", "us", "you", "go", "be", "do", "get",
    "see", "eat", "stay", "find", "book", "buy", "rent", "watch", "visit", "pay", "leave",
    "check", "make", "have", "know", "there", "here", "somewhere", "anywhere", "morning",
    "afternoon", "evening", "night", "today", "tomorrow", "time", "now", "then", "one", "same",
    "other", "city", "town", "area", "place", "moment", "all",
))

#: Capitalised words that open sentences and questions, not names.
_COMMON = frozenset((
    "a", "about", "actually", "add", "after", "alright", "also", "an", "and", "any", "anything",
    "are", "as", "at", "awesome", "be", "because", "book", "but", "buy", "by", "call", "can",
    "cancel", "change", "check", "could", "cool", "did", "do", "does", "done", "excellent",
    "find", "fine", "for", "from", "get", "give", "good", "great", "has", "have", "hello", "hey",
    "hi", "how", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "is", "it", "it's", "just",
    "let", "let's", "like", "look", "make", "may", "maybe", "me", "more", "my", "need", "nice",
    "no", "nope", "not", "now", "of", "oh", "ok", "okay", "on", "one", "or", "perfect", "pick",
    "play", "please", "really", "rent", "reserve", "right", "search", "see", "send", "shall",
    "should", "show", "so", "sorry", "sounds", "sure", "tell", "thank", "thanks", "that",
    "that's", "the", "then", "there", "there's", "these", "they", "this", "thx", "to", "too",
    "um", "uh", "very", "wait", "want", "we", "well", "what", "what's", "when", "where", "which",
    "who", "why", "will", "with", "would", "wow", "yeah", "yep", "yes", "you", "you're", "your",
    "added", "booked", "confirmed", "found", "got", "here", "however", "sadly", "sent",
    "unfortunately", "until", "there're", "i'd", "would", "how's", "it'll", "we'll", "we've",
))

_NAME = re.compile(r"(?:\d+\s+)?[A-Z][\w'&.-]*(?:(?:\s+|,\s+)(?:(?:of|the|and|by|de|del|la|le|"
                   r"&)\s+)*[A-Z][\w'&.-]*|\s+\d+\b)*")

_ZH_DIGITS = r"\d+(?:\.\d+)?"
_ZH_WEEK = r"(?:周|星期)[一二三四五六日天]"
_ZH: tuple[tuple[str, str], ...] = (
    ("email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    ("phone", r"\d{3,4}-\d{7,8}(?:\s*(?:,|，|、|/|\s)\s*\d{3,4}-\d{7,8})*|1[3-9]\d{9}"),
    ("time", rf"(?:{_ZH_WEEK}(?:至{_ZH_WEEK})?\s*)?"
             r"(?:全天|\d{1,2}:\d{2}(?:\s*-\s*\d{1,2}:\d{2})?"
             r"(?:\s+\d{1,2}:\d{2}(?:\s*-\s*\d{1,2}:\d{2})?)*)"
             r"|\d{1,2}点(?:\d{1,2}分|半|一刻)?"),
    ("date", rf"\d{{1,2}}月\d{{1,2}}[日号]|{_ZH_WEEK}|大后天|后天|明天|今天"),
    ("amount", rf"{_ZH_DIGITS}(?:\s*-\s*{_ZH_DIGITS})?元(?:以上|以下|左右)?|免费"),
    ("rating", rf"{_ZH_DIGITS}分(?:以上|以下)?"),
    ("duration", rf"{_ZH_DIGITS}\s*(?:小时|分钟|天)(?:\s*-\s*{_ZH_DIGITS}\s*(?:小时|分钟|天))?"),
    ("count", rf"{_ZH_DIGITS}\s*(?:个|位|人|间|张|辆|晚|号线|站)"),
    ("category", r"(?:(?![么什哪])[\u4e00-\u9fff]){2}型"),
    ("identifier", r"(?<![A-Za-z0-9])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,}"),
)

#: Where a Chinese phrase stops: punctuation and the function words around names.
_ZH_BREAK = re.compile(
    r"[，。！？；：、,!?;:\s“”\"'《》]|\.(?!\d)|等等|等|为您推荐|给您推荐|推荐您去|推荐您到|推荐|"
    r"可以去|就是|就很|不错|可不可以|符合|入住|尝尝|您看|你们|我们|他们|您们|介绍|一处|上车|下车|坐到|"
    r"起点|终点|"
    r"可以|的话|还有|以及|或者|这家|那家|这个|那个|这里|那里|一家|一个|附近|周边有|周边的|周边|"
    r"地址是|地址|电话是|电话|评分是|评分在|评分|价格是|价格|门票|帮我|我想|我要|想去|请问|好的|"
    r"谢谢|知道|就去|就选|打算|名叫|叫做|游玩|住宿|用餐|吃饭|参观|逛逛|看看|能满足|满足|怎么样|"
    r"环境|营业|有|是|叫|在|去|到|从|吧|吗|呢|啊|呀|哦|嗯|了|的|您|我|你|他|她|它|这|那|住|玩|吃")
#: Words after which the next phrase is a name, whatever it ends with.
_ZH_NAME_LEAD = frozenset({"推荐您去", "推荐您到", "去", "到", "名叫", "叫做", "叫", "就去", "就选",
                           "可以去", "您看"})
_ZH_PLACE = re.compile(
    r"(?:[（(][^（）()]{1,14}[）)]|酒店|宾馆|饭店|公寓|客栈|旅馆|招待所|餐厅|餐馆|饭馆|饭庄|"
    r"酒家|酒楼|菜馆|小吃|烤鸭|火锅|面馆|铺|坊|居|轩|阁|斋|楼|府|宫|园|寺|庙|塔|桥|门|馆|店|"
    r"院|城|村|街|巷|胡同|山|湖|海|池|谷|广场|大学|学院|中心|剧场|剧院|艺术区|公园|站|路|号|区|"
    r"大厦|商场|市场|博物馆|美术馆|纪念馆|遗址|故居|长城|水库|景区|乐园|世界|基地|[A-Z]\d?口)$")
#: Words that make a phrase a question or a description, not a name.
_ZH_QUESTION = re.compile(r"什么|哪|么|多少|几|怎样|如何|提供|一辆|一家|一个|类型")
_ZH_DEMONSTRATIVE = re.compile(r"^(?:这家|那家|这个|那个|这|那|该|比如|例如|像)|[里中都也]$")
#: Kinds of place on their own ("a hotel"), not the name of one.
_ZH_GENERIC = frozenset((
    "酒店", "宾馆", "餐馆", "餐厅", "饭店", "景点", "地铁站", "出租车",
    "舒适型酒店", "豪华型酒店", "经济型酒店", "高档型酒店", "周边酒店",
    "周边餐馆", "周边景点",
))
_ZH_ADDRESS = re.compile(r"^(?:北京市?|[\u4e00-\u9fff]{2,3}区).{2,40}$|"
                         r"^[^\d]{2,12}(?:路|街|道|镇|村|巷|胡同)\S*\d+\S*(?:号|层|米|室)")


def _claim(found: list[Value], taken: list[tuple[int, int]], kind: str, text: str,
           start: int, end: int) -> None:
    """Keep a span unless it overlaps one already kept."""
    if end <= start or any(start < e and s < end for s, e in taken):
        return
    taken.append((start, end))
    found.append(Value(kind, text[start:end], start, end))


def _english_names(text: str) -> Iterable[tuple[int, int]]:
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        start = match.start()
        while words and words[0].casefold().rstrip(",.!?") in _COMMON:
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
        while words and words[-1].casefold().rstrip(",.!?") in _COMMON:
            words = words[:-1]
        if words:
            begin = text.index(words[0], start)
            end = text.index(words[-1], begin) + len(words[-1].rstrip(",.!?"))
            yield begin, end


def _chinese_phrases(text: str) -> Iterable[tuple[str, int, int]]:
    """Phrases between function words: places and addresses, and names where the words
    before them say a name follows (去, 名叫) or they are listed with 、."""
    pos, lead = 0, ""
    for match in [*_ZH_BREAK.finditer(text), None]:
        stop = match.start() if match else len(text)
        after = match.group(0) if match else ""
        phrase = text[pos:stop].strip()
        if 2 <= len(phrase) <= 30 and not phrase.isdigit():
            begin = text.index(phrase, pos)
            phrase = _ZH_DEMONSTRATIVE.sub("", phrase)
            begin = text.index(phrase, begin)
            if len(phrase) < 3 or _ZH_QUESTION.search(phrase) or phrase in _ZH_GENERIC:
                pos, lead = (match.end(), after) if match else (len(text), "")
                continue
            named = lead in _ZH_NAME_LEAD or "、" in (lead, after)
            if _ZH_ADDRESS.match(phrase) and re.search(r"[区路街号]", phrase):
                yield "address", begin, begin + len(phrase)
            elif _ZH_PLACE.search(phrase) or (named and not re.search(r"\d", phrase)):
                yield "name", begin, begin + len(phrase)
        if match is not None and match.end() > match.start():
            pos, lead = match.end(), after
        elif match is not None:
            pos = match.end()
    return


def _free_parts(begin: int, end: int, taken: list[tuple[int, int]]
                ) -> list[tuple[int, int]]:
    """``[begin, end)`` minus the spans already taken."""
    parts = [(begin, end)]
    for s, e in taken:
        parts = [q for lo, hi in parts for q in ((lo, min(hi, s)), (max(lo, e), hi))
                 if q[1] > q[0]]
    return parts


def _find(found: list[Value], taken: list[tuple[int, int]], kind: str, pattern: str,
          text: str, language: str) -> None:
    for m in re.finditer(pattern, text, re.IGNORECASE if language != "zh" else 0):
        if "v" not in m.re.groupindex:
            _claim(found, taken, kind, text, m.start(), m.end())
            continue
        words = m.group("v").split()
        if words[0] not in _NOT_PLACES and words[-1] not in _NOT_PLACES:
            _claim(found, taken, kind, text, m.start("v"), m.end("v"))


def _claim_known(found: list[Value], taken: list[tuple[int, int]], text: str,
                 known: Iterable[str]) -> None:
    """Claim the ``known`` values (as categories) where ``text`` says them as whole words,
    the longest first."""
    for value in sorted(set(known), key=len, reverse=True):
        if value.strip():
            pattern = r"(?<![\w])" + re.escape(value.strip()) + r"(?![\w])"
            for m in re.finditer(pattern, text, re.IGNORECASE):
                _claim(found, taken, "category", text, m.start(), m.end())


def _claim_names(found: list[Value], taken: list[tuple[int, int]], text: str) -> None:
    """Claim the parts of English names not yet taken that start with a capital."""
    for begin, end in _english_names(text):
        for lo, hi in _free_parts(begin, end, taken):
            chunk = text[lo:hi].strip(" ,")
            if chunk and chunk[0].isupper():
                at = text.index(chunk, lo)
                _claim(found, taken, "name", text, at, at + len(chunk))


def find_values(text: str, *, known: Iterable[str] = (), language: str | None = None
                ) -> list[Value]:
    """The values ``text`` establishes, in text order (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"find_values expects a str, got {type(text).__name__}")
    language = language or language_of(text)
    found: list[Value] = []
    taken: list[tuple[int, int]] = []
    _claim_known(found, taken, text, known)
    if language == "zh":
        for kind, begin, end in _chinese_phrases(text):
            _claim(found, taken, kind, text, begin, end)
    patterns = _ZH if language == "zh" else _EN
    late = ("count", "place")
    for kind, pattern in [p for p in patterns if p[0] not in late]:
        _find(found, taken, kind, pattern, text, language)
    if language != "zh":
        _claim_names(found, taken, text)
    for kind, pattern in [p for p in patterns if p[0] in late]:
        _find(found, taken, kind, pattern, text, language)
    return sorted(found, key=lambda v: v.start)
