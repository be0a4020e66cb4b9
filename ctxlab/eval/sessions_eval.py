"""Cross-session recall: the "three days later" chats, in English and Chinese.

On day one a customer reports a device problem: their contact details, the device's serial
and error code, a ticket from a tool, a standing request ("email only, never call"), a
promise the agent makes ("I'll send the label by Friday"), and, in passing, where they live
and the repair shop they took the device to. The session ends and is written to long-term
memory in the background. Three days later, in a new session, they ask about those things:
"Is that shop I mentioned open on Saturdays?", "Which serial number did I give you?", ...

:func:`score_recall` asks every question through the real ``Runner`` in a fresh session
(nothing of day one in it), with long-term memory injected by its input filter, under four
settings: no long-term memory, the structured part only, retrieval only (notes that match
the question), and both (the default). A question is *recalled* when the reply holds the
expected value. Facts are split by where they live: ``structured`` (profile, case,
preferences, promises) and ``long-tail`` (the shop, found only by retrieval).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import RunConfig, Runner

from .planted_data import _FIRST, _LAST, _code, _serial

#: The settings compared, in table order.
SETTINGS = ("none", "structured", "retrieval", "both")

_SHOPS = ("FixIt", "Byte Clinic", "PC Doctor", "Laptop Lab")
_STREETS = ("Park Row", "Kirkgate", "Briggate", "Market Street")
_CITIES = ("Leeds", "Porto", "Dublin", "Calgary")
_DEVICES = (("laptop", "shuts down as soon as I unplug the charger"),
            ("printer", "jams on every second page"),
            ("monitor", "flickers when I open a spreadsheet"))
_SHOPS_ZH = ("快修堂", "极客修", "电脑医院", "修机匠")
_STREETS_ZH = ("文三路", "学院路", "春熙路", "中山路")
_CITIES_ZH = ("杭州", "成都", "南京", "武汉")
_NAMES_ZH = ("张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊")
_DEVICES_ZH = (("笔记本电脑", "一拔电源就关机"), ("打印机", "每隔一页就卡纸"),
               ("显示器", "一打开表格就闪屏"))


@dataclass(frozen=True)
class Probe:
    """A question asked three days later, what the reply must hold, and where it lives."""

    question: str
    expected: str
    kind: str  # "structured" or "long-tail"


@dataclass(frozen=True)
class ThreeDaysCase:
    """Day one's session (as stored) and the questions of day four."""

    id: str
    user_id: str
    day_one: list[dict[str, Any]]
    probes: tuple[Probe, ...]
    language: str


class _Chat:
    def __init__(self, case_id: str):
        self.items: list[dict[str, Any]] = []
        self.case_id = case_id

    def turn(self, said: str, reply: str) -> None:
        self.items += [{"role": "user", "content": said}, {"role": "assistant", "content": reply}]

    def ticket(self, said: str, serial: str, ticket: str, reply: str) -> None:
        call_id = f"call_{self.case_id}_ticket"
        self.items += [{"role": "user", "content": said},
                       {"type": "function_call", "call_id": call_id, "name": "create_ticket",
                        "arguments": f'{{"serial": "{serial}"}}'},
                       {"type": "function_call_output", "call_id": call_id,
                        "output": f'{{"ticket_id": "{ticket}", "status": "open"}}'},
                       {"role": "assistant", "content": reply}]


def _english(seed: int, rng: random.Random, used: set[str]) -> ThreeDaysCase:
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    email = f"{first}.{last}@example.com".lower()
    device, symptom = rng.choice(_DEVICES)
    error, serial, ticket = (_code(rng, "E", 4, used), _serial(rng, used),
                             _code(rng, "TCK-", 5, used))
    shop, street, city = rng.choice(_SHOPS), rng.choice(_STREETS), rng.choice(_CITIES)
    day = rng.choice(("Friday", "Monday", "Thursday"))
    chat = _Chat(f"days-en-{seed}")
    chat.turn(f"Hi, this is {first} {last}. You can reach me at {email}.",
              f"Hi {first}, how can I help?")
    chat.turn(f"My {device} {symptom}. The screen says error {error}.",
              "Sorry to hear that. What's the serial number on the label?")
    chat.turn(f"Sure, the serial is {serial}.", "Thanks, I have it.")
    chat.ticket("Can you log this so it doesn't get lost?", serial, ticket,
                "Done: it's logged with the hardware team.")
    chat.turn("Please reach me by email only, never call.", "Noted.")
    chat.turn(f"I live in {city}, and yesterday I dropped the {device} off at the {shop} "
              f"repair shop on {street}; they said they'd have a look.",
              f"Good to know, {shop} is one of our partners.")
    chat.turn("Could you send me a repair label in case they can't fix it?",
              f"Of course. I'll send the repair label by {day}.")
    chat.turn("Thanks, that's all for today.", f"You're welcome, {first}.")
    probes = (Probe("Is that shop I mentioned open on Saturdays?", shop, "long-tail"),
              Probe("Which serial number did I give you?", serial, "structured"),
              Probe("What was my ticket number again?", ticket, "structured"),
              Probe("Which email address do you have for me?", email, "structured"),
              Probe("What did I ask you to keep in mind?", "email only", "structured"),
              Probe("What did you promise me?", f"label by {day}", "structured"))
    return ThreeDaysCase(f"three-days-en-{seed}", f"customer-en-{seed}", chat.items, probes,
                         "en")


def _chinese(seed: int, rng: random.Random, used: set[str]) -> ThreeDaysCase:
    name = rng.choice(_NAMES_ZH)
    phone = f"139{rng.randint(10000000, 99999999)}"
    device, symptom = rng.choice(_DEVICES_ZH)
    error, serial, ticket = (_code(rng, "E", 4, used), _serial(rng, used),
                             _code(rng, "TCK-", 5, used))
    shop, street, city = rng.choice(_SHOPS_ZH), rng.choice(_STREETS_ZH), rng.choice(_CITIES_ZH)
    day = rng.choice(("周五", "周一", "周四"))
    chat = _Chat(f"days-zh-{seed}")
    chat.turn(f"你好，我是{name}，手机号{phone}。", "您好，请问有什么可以帮您？")
    chat.turn(f"我的{device}{symptom}，屏幕上显示错误代码{error}。",
              "抱歉给您添麻烦了。能告诉我机身标签上的序列号吗？")
    chat.turn(f"序列号是{serial}。", "好的，收到。")
    chat.ticket("帮我登记一下吧，免得忘了。", serial, ticket, "已经登记好了，工单转给硬件组了。")
    chat.turn("请只用短信联系我，别打电话。", "好的，记下了。")
    chat.turn(f"我住在{city}，昨天把{device}送到了{street}的{shop}维修店，他们说先看看。",
              f"好的，{shop}是我们的合作网点。")
    chat.turn("要是他们修不好，能不能给我发个寄修标签？", f"可以，{day}前我会把寄修标签发给您。")
    chat.turn("好的，今天就这些，谢谢。", f"不客气，{name}，再见。")
    probes = (Probe("上次跟你说的那家维修店，周六开门吗？", shop, "long-tail"),
              Probe("我的序列号是多少来着？", serial, "structured"),
              Probe("工单号是多少？", ticket, "structured"),
              Probe("我的手机号你们记的是哪个？", phone, "structured"),
              Probe("我之前跟你说过要注意什么？", "短信", "structured"),
              Probe("你们答应过我什么？", "寄修标签", "structured"))
    return ThreeDaysCase(f"three-days-zh-{seed}", f"customer-zh-{seed}", chat.items, probes,
                         "zh")


def three_days_case(seed: int = 0, language: str = "en") -> ThreeDaysCase:
    """One "three days later" case (see the module docstring); deterministic per seed."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
    rng = random.Random(f"ctxlab-three-days-1-{language}-{seed}")
    return (_chinese if language == "zh" else _english)(seed, rng, set())


def three_days_corpus(n: int = 6, *, languages: Sequence[str] = ("en", "zh"),
                      seed: int = 0) -> list[ThreeDaysCase]:
    return [three_days_case(seed + k, language) for language in languages for k in range(n)]


@dataclass
class RecallScore:
    """Recalled questions per setting, language and kind of fact."""

    asked: dict[tuple[str, str, str], int] = field(default_factory=dict)
    recalled: dict[tuple[str, str, str], int] = field(default_factory=dict)
    replies: list[tuple[str, str, str, str, bool]] = field(default_factory=list)

    def add(self, setting: str, case: ThreeDaysCase, probe: Probe, reply: str) -> None:
        key = (setting, case.language, probe.kind)
        hit = probe.expected in reply
        self.asked[key] = self.asked.get(key, 0) + 1
        self.recalled[key] = self.recalled.get(key, 0) + hit
        self.replies.append((setting, case.id, probe.question, reply, hit))

    def share(self, setting: str, language: str | None = None, kind: str | None = None
              ) -> float:
        keys = [k for k in self.asked if k[0] == setting and (language in (None, k[1]))
                and (kind in (None, k[2]))]
        asked = sum(self.asked[k] for k in keys)
        return sum(self.recalled[k] for k in keys) / asked if asked else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {setting: {f"{lang}/{kind}": round(self.share(setting, lang, kind), 4)
                          for lang in ("en", "zh") for kind in ("structured", "long-tail")}
                for setting in SETTINGS if any(k[0] == setting for k in self.asked)}


def memory_for(setting: str, records: Any = "memory") -> Any:
    """The long-term memory of one setting (None for "none")."""
    from ..longterm import LongTermMemory

    if setting == "none":
        return None
    if setting == "structured":
        return LongTermMemory(records, notes_k=0)
    if setting == "retrieval":
        return LongTermMemory(records, structured=False)
    if setting == "both":
        return LongTermMemory(records)
    raise ValueError(f"unknown setting {setting!r}; use one of: {', '.join(SETTINGS)}")


async def score_recall(cases: Sequence[ThreeDaysCase], settings: Sequence[str] = SETTINGS, *,
                       model: Any = None) -> RecallScore:
    """Every case under every setting (see the module docstring)."""
    from ..course.team import OfflineTeamModel, make_support_team
    from ..records.users import UserContext

    for setting in settings:
        if setting != "none":
            memory_for(setting)
    agent = make_support_team(model or OfflineTeamModel())["support"]
    score = RecallScore()
    for setting in settings:
        memory = memory_for(setting)
        for case in cases:
            config = RunConfig(tracing_disabled=True)
            if memory is not None:
                await memory.end_session(case.user_id, case.day_one, session_id=f"{case.id}-1",
                                         at="day 1")
                await memory.drain()
                config = RunConfig(tracing_disabled=True,
                                   call_model_input_filter=memory.input_filter())
            for probe in case.probes:
                result = await Runner.run(agent, probe.question, run_config=config,
                                          context=UserContext(case.user_id))
                score.add(setting, case, probe, str(result.final_output or ""))
    return score


def recall_table(score: RecallScore) -> str:
    head = f"{'setting':<12}" + "".join(f"{f'{lang} {kind}':>16}" for lang in ("en", "zh")
                                        for kind in ("structured", "long-tail"))
    lines = [head, "-" * len(head)]
    for setting in SETTINGS:
        if not any(k[0] == setting for k in score.asked):
            continue
        lines.append(f"{setting:<12}" + "".join(
            f"{score.share(setting, lang, kind):>16.0%}" for lang in ("en", "zh")
            for kind in ("structured", "long-tail")))
    return "\n".join(lines)
