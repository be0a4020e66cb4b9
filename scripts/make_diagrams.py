"""Draw the course's diagrams: one per lesson's technique and the "which memory do I need?"
decision chart, as SVG files under docs/diagrams/ (committed; nothing is drawn or fetched
when a lesson runs).

    .venv/bin/python scripts/make_diagrams.py            # write every diagram
    .venv/bin/python scripts/make_diagrams.py --check    # exit 1 if a committed file differs

Each diagram is data (:data:`DIAGRAMS`): boxes, arrows and labels on a grid of tenths of an
inch, 9 in wide (a notebook's width at 100 dpi), every text at least :data:`MIN_POINTS`
points. Text is drawn as paths, so the files look the same in every browser, whatever fonts
it has (the Chinese ones included). The output is deterministic (no date, a fixed id salt):
the same data gives the same bytes, which is how ``--check`` (and tests/test_diagrams.py)
knows a committed file is current.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "diagrams"
WIDTH_IN = 9.0
MIN_POINTS = 9.0
FONTS = {"en": ["DejaVu Sans"], "zh": ["Noto Sans CJK SC", "Noto Sans CJK JP", "DejaVu Sans"]}

# Okabe-Ito, as the widgets draw item states (ctxlab.core.ledger.STATE_COLORS)
KEPT, SUMMARY, FOLDED, PENDING, DROPPED = "#009E73", "#0072B2", "#E69F00", "#CC79A7", "#999999"
STATE, RECALL, INPUT, MODEL, NOTE = "#CC79A7", "#D55E00", "#000000", "#56B4E9", "#F2F2F2"
INK = "#222222"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float
    text: str
    fill: str = "#FFFFFF"
    size: float = 10.5
    bold: bool = False
    edge: str = "#444444"
    dashed: bool = False


@dataclass(frozen=True)
class Arrow:
    x1: float
    y1: float
    x2: float
    y2: float
    text: str = ""
    size: float = 9.5
    dashed: bool = False
    rad: float = 0.0  # > 0 bends a left-to-right arrow downwards


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    size: float = 10.0
    bold: bool = False
    ha: str = "left"
    color: str = INK


@dataclass(frozen=True)
class Diagram:
    """A drawing on a 90 x ``height`` grid (tenths of an inch, y upwards)."""

    name: str
    alt: str
    height: float
    parts: tuple[Box | Arrow | Label, ...]
    language: str = "en"
    sizes: tuple[float, ...] = field(default=(), compare=False)

    def text_sizes(self) -> list[float]:
        return [p.size for p in self.parts]


def _turns(y: float, states: list[str], *, x0: float = 2, w: float = 9.2, gap: float = 1.0,
           names: list[str] | None = None, size: float = 10.0) -> list[Box]:
    """A row of turn boxes coloured by state."""
    boxes = []
    for n, state in enumerate(states):
        fill = {"kept": KEPT, "summary": SUMMARY, "folded": FOLDED, "dropped": DROPPED,
                "input": "#FFFFFF"}[state]
        name = names[n] if names else f"turn {n + 1}"
        boxes.append(Box(x0 + n * (w + gap), y, w, 5, name, fill=fill, size=size,
                         dashed=state == "input"))
    return boxes


def _diagrams() -> list[Diagram]:
    d: list[Diagram] = []
    d.append(Diagram("00_session_loop", "An agent run with a session: the Runner reads the "
                     "session's items, calls the model, and stores what the turn added", 26, (
        Box(2, 16, 16, 7, "your app\nRunner.run(agent,\n\"new message\",\nsession=...)",
            size=10),
        Box(28, 16, 18, 7, "session\nget_items()\n→ the view", fill="#E8F4EA", bold=True),
        Box(56, 16, 14, 7, "model\n(offline or real)", fill="#E3F1FA"),
        Box(76, 16, 12, 7, "reply", size=10.5),
        Arrow(18, 19.5, 28, 19.5, "1 read"),
        Arrow(46, 19.5, 56, 19.5, "2 view + input"),
        Arrow(70, 19.5, 76, 19.5, "3"),
        Arrow(63, 16, 37, 9, "4 add_items: input, tool rounds, reply", dashed=True),
        Box(22, 2, 30, 6.5, "raw log: every item ever stored", fill=NOTE),
        Label(54, 5, "a memory strategy decides which\npart of the raw log is the view",
              size=10),
    )))
    d.append(Diagram("01_context_window", "What fills one model call: instructions, tool "
                     "definitions, the history (growing every turn), tool outputs and the new "
                     "input", 24, (
        Label(2, 21, "one model call, turn after turn (tokens →)", size=10.5, bold=True),
        Box(2, 13, 10, 5, "instructions", fill=MODEL, size=9.5),
        Box(12, 13, 8, 5, "tools", fill="#BFD9EA", size=9.5),
        Box(20, 13, 12, 5, "history", fill=KEPT, size=9.5),
        Box(32, 13, 6, 5, "input", fill="#FFFFFF", size=9.5),
        Label(40, 15, "turn 2", size=10),
        Box(2, 4, 10, 5, "instructions", fill=MODEL, size=9.5),
        Box(12, 4, 8, 5, "tools", fill="#BFD9EA", size=9.5),
        Box(20, 4, 38, 5, "history: every earlier turn", fill=KEPT, size=9.5),
        Box(58, 4, 16, 5, "tool outputs", fill="#F0E442", size=9.5),
        Box(74, 4, 6, 5, "input", fill="#FFFFFF", size=9.5),
        Label(81, 6, "turn 20", size=10),
        Label(46, 14.5, "cost and latency grow with\nevery turn's whole window", size=10),
    )))
    d.append(Diagram("02_trimming", "Trimming keeps the last N whole turns (a turn is a user "
                     "message with everything up to the next one) and drops the rest", 22, (
        Label(2, 19, "TrimmingSession(max_turns=3)", size=11, bold=True),
        *_turns(10, ["dropped"] * 5 + ["kept"] * 3),
        Box(82, 10, 7, 5, "new\ninput", size=9.5, dashed=True),
        Label(2, 6, "dropped: not sent (still in the raw log)", size=10, color="#555555"),
        Label(52, 6, "sent as is: the last 3 turns", size=10, color="#006B4E"),
        Label(2, 1.5, "a turn = user message + replies + tool calls + their outputs: "
              "never cut inside one", size=10),
    )))
    d.append(Diagram("02b_session_protocol", "The Session protocol: when the Runner calls "
                     "get_items and add_items in one run, and the methods only your code "
                     "calls", 28, (
        Label(2, 25, "one Runner.run with a session", size=11, bold=True),
        Box(2, 15, 17, 7, "get_items()\nonce, before the\nfirst model call", fill="#E8F4EA"),
        Box(23, 15, 17, 7, "add_items([user\ninput])", fill="#FFF4D6"),
        Box(44, 15, 20, 7, "add_items(tool round)\ncall + output,\nper tool round",
            fill="#FFF4D6"),
        Box(68, 15, 20, 7, "add_items([reply])\nafter the output\nguardrails", fill="#FFF4D6"),
        Arrow(19, 18.5, 23, 18.5), Arrow(40, 18.5, 44, 18.5), Arrow(64, 18.5, 68, 18.5),
        Box(2, 3, 26, 7, "pop_item(), clear_session()\nnever called by the Runner:\n"
            "your code's undo and reset", fill=NOTE),
        Box(32, 3, 56, 7, "validate_items(view): no output without its call, no call\n"
            "without its output, no reasoning item without its follower", fill=NOTE),
    )))
    d.append(Diagram("03_summarizing", "Summarizing: past the limit, older turns are folded "
                     "into a summary pair by a summarizer call, and the last K turns stay "
                     "verbatim", 24, (
        Label(2, 21, "SummarizingSession(keep_last_n_turns=2, context_limit=4)", size=11,
              bold=True),
        *_turns(12, ["folded"] * 4 + ["kept"] * 2),
        Arrow(22, 12, 22, 7.5, "summarizer: one model call per fold"),
        Box(2, 1, 40, 6, "summary pair: user → assistant", fill=SUMMARY, size=10.5),
        Box(44, 1, 20, 6, "turns 5-6 verbatim", fill=KEPT),
        Box(66, 1, 9, 6, "new\ninput", size=9.5, dashed=True),
        Label(64, 14, "sent: summary + last 2\nturns + the new input", size=10),
    )))
    d.append(Diagram("04_token_budget", "ContextManager fits every model call under a token "
                     "budget: it drops retrieved notes first, then the oldest turns, then the "
                     "summary and the state, never the current turn", 26, (
        Label(2, 23, "ContextManager(max_tokens=...) before every model call", size=11,
              bold=True),
        Box(2, 13, 12, 6, "instructions\n+ tools", fill=MODEL, size=9.5),
        Box(14, 13, 9, 6, "state", fill=STATE, size=9.5),
        Box(23, 13, 10, 6, "summary", fill=SUMMARY, size=9.5),
        Box(33, 13, 20, 6, "earlier turns\n(oldest first)", fill=KEPT, size=9.5),
        Box(53, 13, 12, 6, "retrieved", fill=RECALL, size=9.5),
        Box(65, 13, 16, 6, "current turn\n(never dropped)", fill="#FFFFFF", size=9.5),
        Label(2, 8.5, "over budget? give up, in this order:", size=10.5, bold=True),
        Label(2, 4.5, "1 retrieved notes  →  2 oldest turns (role-aware shortening first)  →  "
              "3 summary  →  4 state", size=10),
        Label(2, 0.8, "bulky tool outputs: compacted to a preview that keeps their "
              "identifiers", size=10, color="#555555"),
    )))
    d.append(Diagram("05_state_and_recall", "Beside a short window: a structured state the "
                     "model always sees, and recall that brings back evicted turns the new "
                     "message asks about", 30, (
        *_turns(22, ["dropped"] * 5 + ["kept"] * 3, w=7, gap=0.8),
        Arrow(12, 22, 12, 17, "extract after every turn"),
        Box(2, 8, 28, 9, "state (typed, latest wins)\ncustomer · devices · issue\n"
            "constraints · promises", fill=STATE),
        Arrow(38, 22, 44, 17, "index evicted turns"),
        Box(36, 8, 24, 9, "recall index\n(SQLite FTS5 or\nembeddings)", fill=RECALL),
        Box(68, 8, 20, 9, "model call:\nstate + hits +\nlast 3 turns", fill="#E3F1FA"),
        Arrow(66, 22, 74, 17.2, "sent as is"),
        Arrow(16, 8, 76, 8, "always sent", rad=0.1),
        Arrow(60, 12.5, 68, 12.5, "hits"),
    )))
    d.append(Diagram("05b_fridge", "冰箱例子：型号 BCD-123 只在第 1 轮出现；截断会丢掉它，摘要、"
                     "结构化状态和召回都能保住它", 26, (
        Label(2, 23, "型号 BCD-123 只在第 1 轮出现", size=11, bold=True),
        Label(2.3, 19.6, "↓ BCD-123", size=9.5),
        *_turns(14, ["dropped"] * 9 + ["kept"] * 3, w=5.9, gap=0.6,
                names=[f"{n}" for n in range(1, 13)], size=10),
        Label(2, 11, "截断 3 轮：第 1 轮不在窗口里 → “没看到您提供的型号”", size=10.5),
        Box(2, 1, 20, 6.5, "摘要压缩\n关键编号：型号", fill=SUMMARY, size=10.5),
        Box(24, 1, 20, 6.5, "结构化状态\n设备：冰箱（型号）", fill=STATE, size=10.5),
        Box(46, 1, 20, 6.5, "召回（双字切分）\n冰箱 · 型号", fill=RECALL, size=10.5),
        Box(68, 1, 20, 6.5, "三种记忆都能答出\n“型号是 BCD-123”", fill="#E8F4EA", size=10.5),
    ), language="zh"))
    d.append(Diagram("06_evaluation", "Evaluation: cases with planted facts are replayed "
                     "through each strategy; probes score what every view presents as current, "
                     "answers and tokens", 22, (
        Box(2, 8, 17, 8, "cases\nplanted facts,\nvalues that change", fill=NOTE),
        Box(24, 8, 17, 8, "replay through a\nstrategy spec\n(trim:8, ...)",
            fill="#E8F4EA"),
        Box(46, 8, 18, 8, "probes at each\nturn: what does the\nview present?", fill="#E3F1FA"),
        Box(69, 8, 19, 8, "recall · current ·\nstale-as-current ·\nanswers · tokens",
            fill="#FFF4D6"),
        Arrow(19, 12, 24, 12), Arrow(41, 12, 46, 12), Arrow(64, 12, 69, 12),
        Label(2, 2.5, "stale-as-current: a replaced value shown as if it were still "
              "true; summarizer calls count in the tokens", size=10),
    )))
    d.append(Diagram("06b_sweep", "A sweep of max_turns: each setting is a point of tokens "
                     "against recall; the Pareto front holds the settings nothing beats on "
                     "both", 28, (
        Arrow(8, 4, 60, 4, "tokens per 100 turns →"),
        Arrow(8, 4, 8, 26, ""),
        Label(9, 24.5, "recall ↑", size=10),
        Box(13, 7, 3, 2, "", fill=DROPPED), Box(20, 13, 3, 2, "", fill=KEPT),
        Box(30, 19, 3, 2, "", fill=KEPT), Box(36, 12, 3, 2, "", fill=DROPPED),
        Box(44, 21.5, 3, 2, "", fill=KEPT), Box(52, 18, 3, 2, "", fill=DROPPED),
        Label(13, 21, "front", size=10, color="#006B4E", bold=True),
        Box(64, 16, 24, 9, "pick the cheapest\nsetting on the front\nabove your recall "
            "target", fill=NOTE),
        Box(64, 4, 24, 9, "compare a new run\nwith the last one:\nflag drops in recall",
            fill=NOTE),
    )))
    d.append(Diagram("07_production", "In production: one session per user id in a shared "
                     "store, checkpoints, redacted logs, and a token alert per call", 26, (
        Box(2, 15, 16, 8, "users\nA · B · C", fill=NOTE),
        Box(24, 15, 22, 8, "ChatService\none session per\nuser id (no leaks)",
            fill="#E8F4EA"),
        Box(52, 15, 36, 8, "store: SQLite · Redis ·\nRedis Cluster · PostgreSQL\n"
            "(resume after a restart)", fill="#E3F1FA"),
        Arrow(18, 19, 24, 19), Arrow(46, 19, 52, 19),
        Box(2, 2, 26, 8, "checkpoints:\nroll back a bad turn", fill="#FFF4D6"),
        Box(32, 2, 26, 8, "redaction: personal\ndata masked before\nstore, summary, log",
            fill="#FFF4D6"),
        Box(62, 2, 26, 8, "debug log of every\nmodel call +\ntoken alert", fill="#FFF4D6"),
    )))
    d.append(Diagram("08_prompt_cache", "Prompt caching bills a repeated prompt start at a "
                     "fraction of the price; trimming every turn changes the start, trimming "
                     "in steps keeps it for S turns", 26, (
        Label(2, 23, "each row: one model call's prompt (cached start in blue)", size=10.5,
              bold=True),
        Box(2, 15, 34, 5, "cached prefix", fill=SUMMARY), Box(36, 15, 8, 5, "new",
                                                             fill="#FFFFFF"),
        Label(46, 16.5, "full history: the start never changes", size=10),
        Box(2, 8.5, 4, 5, "", fill=SUMMARY), Box(6, 8.5, 30, 5, "uncached: window moved",
                                                 fill="#FFFFFF"),
        Label(38, 10, "trim:N, every turn: the start moves each call", size=10),
        Box(2, 2, 26, 5, "cached for S turns", fill=SUMMARY), Box(28, 2, 10, 5, "new",
                                                                  fill="#FFFFFF"),
        Label(40, 3.5, "trim:N/S, in steps: cut S turns at a time", size=10),
    )))
    d.append(Diagram("09_handoffs", "A handoff passes the customer to another agent; its "
                     "input filter decides what that agent sees: everything, the last turns, a "
                     "handover summary, or the resumed issue alone", 26, (
        Box(2, 14, 18, 8, "support agent", fill="#E8F4EA"),
        Box(36, 14, 18, 8, "repair desk", fill="#E8F4EA"),
        Box(70, 14, 18, 8, "a person\n(escalation)", fill="#E8F4EA"),
        Arrow(20, 18, 36, 18, "handoff"), Arrow(54, 18, 70, 18, "handoff"),
        Label(2, 10, "input filter: what the next agent sees", size=10.5, bold=True),
        Box(2, 2, 19, 6, "FullHistory", size=10), Box(23, 2, 19, 6, "TrimmedHistory",
                                                     size=10),
        Box(44, 2, 21, 6, "HandoverSummary", fill=SUMMARY, size=10),
        Box(67, 2, 21, 6, "IssueHandover:\nthis issue only", fill=KEPT, size=10),
    )))
    d.append(Diagram("10_long_term", "Memory across sessions: a finished session is "
                     "consolidated in the background into the user's record; the next session "
                     "gets it before the model call; forget_user deletes it everywhere", 26, (
        Box(2, 15, 18, 7, "day 1 session\n(ends)", fill=NOTE),
        Box(26, 15, 24, 7, "consolidate in the\nbackground (off the\nhot path)",
            fill="#FFF4D6"),
        Box(56, 15, 32, 7, "user's long-term memory:\nprofile · requests · promises ·\n"
            "cases + notes (recall)", fill=STATE),
        Arrow(20, 18.5, 26, 18.5), Arrow(50, 18.5, 56, 18.5),
        Box(56, 3, 32, 7, "day 4 session: input filter\nadds it as data before\nthe model "
            "call", fill="#E3F1FA"),
        Arrow(72, 15, 72, 10),
        Box(2, 3, 40, 7, "forget_user: memory, shared record,\nsessions: deleted everywhere",
            fill="#FBE3D6"),
    )))
    d.append(Diagram("11_notes", "Long-term notes: a session note holds for this "
                     "conversation only, a durable note outlives it; at the session's end a "
                     "checked consolidation writes all or nothing; unused notes fade with a "
                     "half-life", 26, (
        Box(2, 15, 22, 7, "customer: \"this time\nonly\" / \"from now on\"", fill=NOTE),
        Box(30, 17.5, 22, 5, "session notes\n(this conversation)", fill="#E3F1FA", size=10),
        Box(30, 10.5, 22, 5, "durable notes\n(every session)", fill=STATE, size=10),
        Arrow(24, 18.5, 30, 20), Arrow(24, 18.5, 30, 13),
        Box(58, 15, 30, 7, "session ends: proposal\nchecked, one CAS write\n(or nothing)",
            fill="#FFF4D6"),
        Arrow(52, 20, 58, 18.5), Arrow(52, 13, 58, 17),
        Box(58, 3, 30, 7, "decay: half-life, kept\nlonger when used, capped", fill="#FBE3D6"),
        Arrow(73, 15, 73, 10),
        Box(2, 3, 50, 7, "recall: session notes over durable ones,\nnewer durable over older, "
            "as data", fill=KEPT),
    )))
    for language in ("en", "zh"):
        d.append(_decision_chart(language))
    return d


_CHART_WORDS = {
    "en": {
        "title": "Which memory do I need?",
        "q1": "Does the whole conversation fit\ncomfortably in the window?",
        "a1": "full history\n(lesson 01)",
        "q2": "Must early facts survive\n(IDs, constraints, promises)?",
        "a2": "trimming\n(lesson 02)",
        "q3": "Are they a few typed values\n(serial, ticket, email)?",
        "a3": "trimming + state\n(lesson 05)",
        "q4": "Is it the gist of a long\nstory, or rare old details?",
        "a4g": "summarizing\n(lesson 03)",
        "a4d": "trimming + recall\n(lesson 05)",
        "yes": "yes", "no": "no", "gist": "gist", "details": "details",
        "also": "Also: a hard token ceiling per call → ContextManager (lesson 04) · several "
                "agents → handoff filters (09)\nmemory across sessions → long-term memory (10, 11)",
    },
    "zh": {
        "title": "该用哪种记忆？",
        "q1": "整段对话能宽裕地\n放进上下文窗口吗？",
        "a1": "完整历史\n（第 01 课）",
        "q2": "早期的关键信息必须保留吗？\n（编号、客户要求、客服承诺）",
        "a2": "截断\n（第 02 课）",
        "q3": "是少数几个结构化的值吗？\n（序列号、工单号、邮箱）",
        "a3": "截断 + 结构化状态\n（第 05 课）",
        "q4": "需要的是长对话的要点，\n还是偶尔用到的旧细节？",
        "a4g": "摘要压缩\n（第 03 课）",
        "a4d": "截断 + 召回\n（第 05 课）",
        "yes": "是", "no": "否", "gist": "要点", "details": "旧细节",
        "also": "另外：每次调用有硬性 token 上限 → ContextManager（第 04 课）· 多个智能体 → "
                "handoff 输入过滤（第 09 课）\n跨会话记住客户 → 长期记忆（第 10、11 课）",
    },
}


def _decision_chart(language: str) -> Diagram:
    w = _CHART_WORDS[language]
    q, a = "#FFF4D6", "#E8F4EA"
    suffix = "" if language == "en" else ".zh-CN"
    return Diagram(f"which_memory{suffix}", w["title"] + " " + w["also"], 52, (
        Label(2, 49, w["title"], size=13, bold=True),
        Box(2, 39, 30, 7, w["q1"], fill=q), Box(62, 39, 26, 7, w["a1"], fill=a),
        Arrow(32, 42.5, 62, 42.5, w["yes"]),
        Arrow(17, 39, 17, 35, w["no"]),
        Box(2, 28, 30, 7, w["q2"], fill=q), Box(62, 28, 26, 7, w["a2"], fill=a),
        Arrow(32, 31.5, 62, 31.5, w["no"]),
        Arrow(17, 28, 17, 24, w["yes"]),
        Box(2, 17, 30, 7, w["q3"], fill=q), Box(62, 17, 26, 7, w["a3"], fill=STATE),
        Arrow(32, 20.5, 62, 20.5, w["yes"]),
        Arrow(17, 17, 17, 13, w["no"]),
        Box(2, 5, 30, 8, w["q4"], fill=q),
        Box(40, 9, 20, 5.5, w["a4g"], fill=SUMMARY), Box(66, 4, 22, 5.5, w["a4d"],
                                                        fill=RECALL),
        Arrow(32, 11, 40, 11.7, w["gist"]),
        Arrow(32, 6.5, 66, 6.5, w["details"]),
        Label(2, 0.4, w["also"], size=9.5),
    ), language=language)


DIAGRAMS: tuple[Diagram, ...] = tuple(_diagrams())


def problems(diagram: Diagram) -> list[str]:
    """What makes ``diagram`` unreadable at notebook width (empty: nothing)."""
    found = []
    small = [s for s in diagram.text_sizes() if s < MIN_POINTS]
    if small:
        found.append(f"{diagram.name}: text of {min(small)} pt (at least {MIN_POINTS})")
    for part in diagram.parts:
        if isinstance(part, Box) and (part.x < 0 or part.x + part.w > WIDTH_IN * 10 + 1e-9
                                      or part.y < 0 or part.y + part.h > diagram.height):
            found.append(f"{diagram.name}: box {part.text!r} outside the drawing")
    return found


def render(diagram: Diagram) -> bytes:
    """The diagram as SVG bytes (deterministic)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    issues = problems(diagram)
    if issues:
        raise ValueError("; ".join(issues))
    rc = {"svg.hashsalt": "ctxlab-diagrams", "svg.fonttype": "path",
          "font.family": FONTS[diagram.language], "font.size": 10}
    with matplotlib.rc_context(rc):
        fig = plt.figure(figsize=(WIDTH_IN, diagram.height / 10))
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, WIDTH_IN * 10)
        ax.set_ylim(0, diagram.height)
        ax.axis("off")
        for part in diagram.parts:
            if isinstance(part, Box):
                ax.add_patch(FancyBboxPatch(
                    (part.x, part.y), part.w, part.h, boxstyle="round,pad=0,rounding_size=0.8",
                    facecolor=part.fill, edgecolor=part.edge, linewidth=1.0,
                    linestyle="--" if part.dashed else "-"))
                if part.text:
                    ax.text(part.x + part.w / 2, part.y + part.h / 2, part.text,
                            ha="center", va="center", fontsize=part.size,
                            fontweight="bold" if part.bold else "normal",
                            color=_ink_on(part.fill), linespacing=1.25)
            elif isinstance(part, Arrow):
                ax.add_patch(FancyArrowPatch((part.x1, part.y1), (part.x2, part.y2),
                                             arrowstyle="-|>", mutation_scale=12,
                                             connectionstyle=f"arc3,rad={part.rad}",
                                             color="#444444", linewidth=1.1,
                                             linestyle="--" if part.dashed else "-"))
                if part.text and part.rad:  # under the curve's lowest point
                    ax.text((part.x1 + part.x2) / 2, (part.y1 + part.y2) / 2
                            - part.rad * (part.x2 - part.x1) / 2 - 0.4, part.text,
                            ha="center", va="top", fontsize=part.size, color=INK)
                elif part.text:
                    ax.text((part.x1 + part.x2) / 2 + 0.6, (part.y1 + part.y2) / 2 + 0.6,
                            part.text, ha="left" if part.x1 == part.x2 else "center",
                            va="bottom", fontsize=part.size, color=INK)
            else:
                ax.text(part.x, part.y, part.text, ha=part.ha, va="bottom", fontsize=part.size,
                        fontweight="bold" if part.bold else "normal", color=part.color,
                        linespacing=1.25)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        plt.close(fig)
    return buffer.getvalue()


def _ink_on(fill: str) -> str:
    value = fill.lstrip("#")
    r, g, b = (int(value[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return "#FFFFFF" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.4 else INK


def path_of(diagram: Diagram) -> Path:
    return OUT / f"{diagram.name}.svg"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the committed files instead of writing them")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for diagram in DIAGRAMS:
        data, path = render(diagram), path_of(diagram)
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(path.name)
        else:
            path.write_bytes(data)
            print(f"{path}: {len(data):,} bytes")
    if stale:
        print(f"out of date: {', '.join(stale)} (run scripts/make_diagrams.py)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
