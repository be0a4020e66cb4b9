"""Shipped Chinese text uses the terms of docs/glossary.md, never the calques a native
reader flagged (issue 21, section 6): no 令牌 for token, no 探针问题, no 二字组, no 账本,
no 修剪, no 折叠 for a fold (the glossary says 并入摘要), no word-for-word summary headings,
no "您设备的" replies; nor the phrases issue 31 (section 6) flagged in README.zh-CN, lesson
05b and long-term memory, in any lesson's output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: calque -> the term to use instead (docs/glossary.md)
BANNED: dict[str, str] = {
    "令牌": "token（词元）",
    "探针": "测试问题",
    "二字组": "双字切分",
    "账本": "明细",
    "修剪": "截断",
    "摘要对": "摘要消息",
    "上下文中毒": "上下文污染",
    "报告的问题": "问题描述",
    "工具表现": "工具调用情况",
    "标识信息": "关键编号",
    "约束与偏好": "客户要求与偏好",
    "当前状态与阻碍": "当前进展与卡点",
    "时间线里程碑": "关键节点",
    "待办操作": "待处理事项",
    "来自工具": "系统查询",
    "尚无结果": "还没有返回结果",
    "您设备的": "您的冰箱 / 您的设备",
    "我在我们的对话里": "我这边没看到您提供的",
    "制冷制热": "冰箱不制冷 / 空调不制热",
    "折叠": "并入摘要 / 摘要压缩",  # "fold": one term, the glossary's (issue 31)
    # issue 31, section 6: phrases that read translated
    "这位客户以前的对话里留下的信息": "该客户的长期记忆（来自此前 N 次对话）",
    "之前说过的相关的话": "客户此前提到的相关内容",
    "说好要办、还没办的事": "已答应客户、尚未办完的事",
    "每次折叠的模型调用都算钱": "每做一次摘要压缩都要调一次模型",
    "“真实读者”": "让离线模型模仿真实模型的读法",
    "更接近真实模型的读者": "让离线模型模仿真实模型的读法",
    "视图把哪些值当成当前值": "发给模型的内容里哪些值被当作最新值",
    "在预埋了多个问题的对话上量化": "在同时包含多个问题的测试对话上统计效果",
    "搭一个更省的记忆": "设计一个成本更低的记忆方案",
    "装着整段对话的新会话": "在一个存好整段对话的新会话里提出",
    "配在一个很短的窗口旁边": "和一个很短的窗口搭配使用",
    "这个 extra": "需先安装 `ctxlab[multilingual]`",
    "案子交接": "交接单",
    "自己拼好答案的替身": "预先写好答案的替代品",
    # the h31 review of README.zh-CN and lesson 05b
    "造成的串号": "导致对话串到别人那里（串号也指手机的 IMEI）",
    "连着结束好几次会话": "短时间内接连结束几次会话",
    "读者都知道": "模型都能看出",
    "跟着冰箱写": "紧跟在冰箱后面",
    "一个不到完整历史的一半，一个是": "摘要……，状态……（说清是哪一个）",
    "第一课会打印": "第 00 课会打印（课程从第 00 课开始）",
    "做大模型评审": "让大模型当评委打分",
}


def shipped_texts() -> dict[str, str]:
    """Every file whose Chinese reaches a reader: the Chinese README, the glossary, the
    library (replies, summaries, state messages, docstrings), the Chinese corpus and
    lesson 05b (prose, code and outputs)."""
    texts = {"README.zh-CN.md": (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")}
    for path in [*(ROOT / "docs").glob("*.md"), *(ROOT / "ctxlab").rglob("*.py"),
                 *(ROOT / "ctxlab" / "data" / "zh_support").glob("*.json")]:
        texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    lesson = json.loads((ROOT / "notebooks" / "05b_chinese_conversations.ipynb").read_text(
        encoding="utf-8"))
    for n, cell in enumerate(lesson["cells"]):
        parts = ["".join(cell["source"])]
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts += ["".join(v) for v in output.get("data", {}).values() if isinstance(v, list)]
        texts[f"05b cell {n}"] = "\n".join(parts)
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):  # what every lesson prints
        for n, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            printed = ["".join(o.get("text", "")) for o in cell.get("outputs", [])]
            texts[f"{path.stem} output {n}"] = "\n".join(printed)
    return texts


def test_the_scan_sees_chinese_text():
    texts = shipped_texts()
    assert any("冰箱" in t for name, t in texts.items() if name.startswith("05b"))
    assert "上下文工程" in texts["README.zh-CN.md"]


@pytest.mark.parametrize("calque", sorted(BANNED))
def test_no_calque_in_shipped_chinese_text(calque):
    found = [name for name, text in shipped_texts().items()
             if calque in text]
    assert found == [], f"{calque!r} in {found}; write {BANNED[calque]!r} (docs/glossary.md)"


def test_the_glossary_gives_every_term_used_instead():
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    for term in ("token（词元）", "测试问题", "双字切分", "明细", "截断", "摘要消息",
                 "上下文污染", "关键编号", "客户要求", "并入摘要", "摘要压缩"):
        assert term in glossary, term


def test_the_scan_would_catch_a_calque():
    """The guard itself: a text with a calque is found (a broken scan would pass anything)."""
    sample = {"sample": "用令牌计数的探针问题"}
    assert [c for c in BANNED for t in sample.values() if c in t] == ["令牌", "探针"]
    assert re.search("|".join(BANNED), "每条记录在账本里")


#: A single ASCII space after full-width punctuation (``客户： 对了``, ``吗？ 没有``): the mark
#: already carries its own space, so a Chinese editor strikes the extra one (``print("客户：",
#: text)`` adds it). Two spaces or more are alignment, not a slip.
LOOSE_PUNCTUATION = re.compile(r"[：；，。？！、] (?=[^\s|])")


def test_no_space_after_full_width_punctuation_in_what_lessons_print():
    loose = [f"{name}: {text[max(0, m.start() - 12):m.end() + 12]!r}"
             for name, text in shipped_texts().items()
             if " output " in name or name.startswith("05b cell")
             for m in LOOSE_PUNCTUATION.finditer(text)]
    assert loose == []
    # the guard: the slip is found, alignment and a table's bar are not
    assert LOOSE_PUNCTUATION.search("客户： 对了") and LOOSE_PUNCTUATION.search("吗？ 没有")
    assert not LOOSE_PUNCTUATION.search("查询：  [") and not LOOSE_PUNCTUATION.search("。 |")

