"""Measure proactive preloading: tool calls saved and tokens spent, on planted chats.

Each planted chat (:func:`preload_case`, English or Chinese) is a short support chat whose
last message either needs tools (a return: the order and the return policy; a warranty
question: the warranty check) or needs none (small talk that uses similar words, "I'll be
back in the office tomorrow", where a careless rule would preload for nothing). The last
turn is run through the real ``Runner`` twice, on a session holding the chat: without
preloading and with :class:`~ctxlab.preload.Preloader` and the course's rules. Counted per
run: model calls, tool calls the *model* asked for, tool calls preloaded, and tokens (input
and output, as the model reported them); and whether the reply holds what the tools
returned (the order's return date, the warranty's end date), so saving calls never costs
correctness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agents import RunConfig, Runner, SQLiteSession

from ..core.display import NOTEBOOK_COLUMNS, wrap
from ..course.offline import catalog
from ..course.team.tools import order_record
from .planted_data import _FIRST, _LAST

Kind = Literal["return", "warranty", "none"]

_EN = {
    "hello": "Hi, this is {name}. My order {order} arrived on Tuesday: the {device} I bought.",
    "hello_reply": "Thanks {first}, what can I do for you?",
    "serial": "The serial on the label is {serial}.",
    "serial_reply": "Thanks, I have it.",
    "filler": ("It powers on, but it's not what I expected.",
               "The box had a small dent, nothing serious."),
    "filler_reply": "I see, thanks for telling me.",
    "return": ("I want to return it, it's not what I expected.",
               "Can I send the {device} back and get a refund?"),
    "warranty": ("Is it still under warranty?", "Is the {device} still covered?"),
    "none": ("I'll be back in the office tomorrow, can we continue then?",
             "Thanks, that's all for now.", "Could you send the invoice again, please?"),
}
_ZH = {
    "hello": "你好，我是{name}。我的订单{order}周二到了，买的是{device}。",
    "hello_reply": "您好，请问有什么可以帮您？",
    "serial": "机身标签上的序列号是{serial}。",
    "serial_reply": "好的，收到。",
    "filler": ("能开机，但跟我想的不太一样。", "箱子有点压痕，问题不大。"),
    "filler_reply": "明白了，谢谢您告诉我。",
    "return": ("我想退货，东西跟描述的不一样。", "这台{device}能退吗？我想退款。"),
    "warranty": ("这台还在保修期内吗？", "{device}还在保吗？"),
    "none": ("我明天回办公室，到时候再接着处理可以吗？", "好的，暂时没别的问题了。",
             "发票能再发我一份吗？"),
}
_DEVICE_ZH = {"laptop": "笔记本电脑", "printer": "打印机", "router": "路由器",
              "monitor": "显示器", "phone": "手机", "docking station": "扩展坞"}


@dataclass(frozen=True)
class PreloadCase:
    """A chat whose last message needs tools (``kind`` return or warranty) or none."""

    id: str
    items: list[dict[str, Any]]
    last: str
    kind: Kind
    expected: tuple[str, ...]  # values the reply must hold (from the tools' outputs)
    language: str = "en"


def preload_case(seed: int = 0, kind: Kind = "return", language: str = "en") -> PreloadCase:
    """One planted chat (see the module docstring); the same arguments give the same chat."""
    if kind not in ("return", "warranty", "none"):
        raise ValueError(f"kind must be 'return', 'warranty' or 'none', got {kind!r}")
    if language not in ("en", "zh"):
        raise ValueError(f"language must be 'en' or 'zh', got {language!r}")
    rng = random.Random(f"ctxlab-preload-1-{seed}-{kind}-{language}")
    words = _ZH if language == "zh" else _EN
    order = f"ORD-{rng.randint(10000, 99999)}"
    record = order_record(order)
    device = record["category"]
    shown = _DEVICE_ZH[device] if language == "zh" else device
    first = rng.choice(_FIRST)
    name = f"{first} {rng.choice(_LAST)}"
    serial = rng.choice(sorted(catalog.DEVICES))
    items: list[dict[str, Any]] = [
        {"role": "user", "content": words["hello"].format(name=name, order=order,
                                                          device=shown)},
        {"role": "assistant", "content": words["hello_reply"].format(first=first)},
        {"role": "user", "content": words["serial"].format(serial=serial)},
        {"role": "assistant", "content": words["serial_reply"]},
    ]
    for _ in range(rng.randint(0, 2)):
        items += [{"role": "user", "content": rng.choice(words["filler"])},
                  {"role": "assistant", "content": words["filler_reply"]}]
    last = rng.choice(words[kind]).format(device=shown)
    expected: tuple[str, ...] = ()
    if kind == "return":
        expected = (order, record["returnable_until"])
    elif kind == "warranty":
        expected = (catalog.warranty_status(serial)["end_date"],)
    return PreloadCase(f"preload-{language}-{kind}-{seed}", items, last, kind, expected,
                       language)


def preload_corpus(n: int = 12, *, languages: Sequence[str] = ("en", "zh"),
                   seed: int = 0) -> list[PreloadCase]:
    """``n`` chats per language: half returns, a quarter warranty questions, a quarter
    needing no tool."""
    kinds: list[Kind] = ["return", "warranty", "return", "none"]
    return [preload_case(seed + k, kinds[k % 4], language) for language in languages
            for k in range(n)]


@dataclass
class RunCount:
    """What one run of the last turn cost."""

    model_calls: int = 0
    model_tool_calls: int = 0
    preloaded_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    correct: bool = True
    reply: str = ""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class PreloadScore:
    """Totals without and with preloading over a corpus."""

    chats: int = 0
    without: RunCount = field(default_factory=RunCount)
    with_preload: RunCount = field(default_factory=RunCount)
    wasted: int = 0  # preloaded calls on turns that needed no tool
    derailed: int = 0  # turns that needed no tool whose reply a preload changed
    missed: int = 0  # turns that needed tools the preloader did not fetch
    wrong_without: int = 0
    wrong_with: int = 0

    def add(self, case: PreloadCase, without: RunCount, with_preload: RunCount) -> None:
        self.chats += 1
        for total, one in ((self.without, without), (self.with_preload, with_preload)):
            for name in ("model_calls", "model_tool_calls", "preloaded_calls", "input_tokens",
                         "output_tokens"):
                setattr(total, name, getattr(total, name) + getattr(one, name))
        self.wrong_without += not without.correct
        self.wrong_with += not with_preload.correct
        if case.kind == "none":
            self.wasted += with_preload.preloaded_calls
            self.derailed += with_preload.reply != without.reply
        elif with_preload.model_tool_calls:
            self.missed += 1

    def as_dict(self) -> dict[str, Any]:
        w, p = self.without, self.with_preload
        return {"chats": self.chats,
                "model_calls": [w.model_calls, p.model_calls],
                "model_tool_calls": [w.model_tool_calls, p.model_tool_calls],
                "preloaded_calls": p.preloaded_calls,
                "tool_calls_saved": w.model_tool_calls - p.model_tool_calls,
                "tokens": [w.tokens, p.tokens],
                "wasted_preloads": self.wasted, "derailed": self.derailed,
                "missed": self.missed,
                "wrong_replies": [self.wrong_without, self.wrong_with]}


async def run_last_turn(case: PreloadCase, *, preload: bool, model: Any = None) -> RunCount:
    """Run ``case``'s last message with or without preloading; what it cost."""
    from ..course.agent import SUPPORT_TOOLS
    from ..course.team import ORDER_TOOLS, OfflineTeamModel, make_support_team
    from ..course.team.preload import TEAM_PRELOAD_RULES
    from ..preload import Preloader

    agent = make_support_team(model or OfflineTeamModel(), extra_tools=ORDER_TOOLS)["support"]
    preloader = Preloader([*SUPPORT_TOOLS, *ORDER_TOOLS], TEAM_PRELOAD_RULES)
    config = RunConfig(tracing_disabled=True,
                       call_model_input_filter=preloader.input_filter() if preload else None)
    session = SQLiteSession(case.id)
    await session.add_items([dict(i) for i in case.items])
    result = await Runner.run(agent, case.last, session=session, run_config=config)
    usage = result.context_wrapper.usage
    reply = str(result.final_output or "")
    return RunCount(
        model_calls=usage.requests,
        model_tool_calls=sum(1 for i in result.new_items if i.type == "tool_call_item"),
        preloaded_calls=preloader.stats.calls, input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens, correct=all(v in reply for v in case.expected),
        reply=reply)


async def score_preloading(cases: Sequence[PreloadCase], *, model: Any = None) -> PreloadScore:
    """Every case without and with preloading (see the module docstring)."""
    score = PreloadScore()
    for case in cases:
        score.add(case, await run_last_turn(case, preload=False, model=model),
                  await run_last_turn(case, preload=True, model=model))
    return score


def preload_table(score: PreloadScore) -> str:
    d = score.as_dict()
    rows = [("model calls", *d["model_calls"]), ("tool calls by the model",
                                                 *d["model_tool_calls"]),
            ("tool calls preloaded", 0, d["preloaded_calls"]), ("tokens (in + out)", *d["tokens"]),
            ("replies missing a tool value", *d["wrong_replies"])]
    lines = [f"{'':<30}{'without':>10}{'with preload':>14}", "-" * 54]
    lines += [f"{label:<30}{a:>10,}{b:>14,}" for label, a, b in rows]
    lines += wrap(f"({d['chats']} chats; {d['tool_calls_saved']} model tool calls saved; "
                  f"{d['wasted_preloads']} preloaded calls wasted on turns that needed none, "
                  f"{d['derailed']} of those replies changed by them; {d['missed']} turns "
                  "where the model still had to call a tool)", NOTEBOOK_COLUMNS)
    return "\n".join(lines)
