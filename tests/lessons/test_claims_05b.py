"""Lesson 05b's prose says what its outputs show: every number and quoted value in a
markdown cell is read from the output of the code cell above it (tests/lesson_outputs.py),
so re-executing the lesson after a library change cannot leave stale prose behind."""

from __future__ import annotations

import re

import pytest

from ctxlab.eval.exercises import ZH_EXERCISE_QUESTIONS, ZH_EXERCISE_RATIO, ZH_LATE_TURNS

from lesson_outputs import Lesson, number_after, numbers


@pytest.fixture(scope="module")
def lesson() -> Lesson:
    return Lesson.load("05b_chinese_conversations")


def test_the_chat_and_its_tool_outputs(lesson):
    shown = lesson.output("9066b4a9")
    total, tools, outputs = (int(x) for x in re.search(
        r"全文共 ([\d,]+) 个 token，其中 ([\d,]+) 个在 (\d+) 个", shown.replace(",", "")).groups())
    prose = lesson.markdown("85d20d06")
    assert f"全文 {total:,} 个 token" in prose and f"有 {tools:,} 个在三个工具返回结果里" in prose
    assert outputs == 3
    listing = lesson.output("6d1a7409")
    first = next(line for line in listing.splitlines() if line.strip().startswith("0 user"))
    assert "型号是BCD-123" in first and "条目 0" in prose
    users = [line for line in listing.splitlines() if re.match(r"\s*\d+ user ", line)]
    assert "净水器" in users[5] and "从第 6 轮开始" in prose  # the sixth user turn
    assert "我这个型号" in users[-1]


def test_trimming_forgets(lesson):
    shown = lesson.output("4e1edeb4")
    full = number_after(shown, "完整历史")
    trimmed = number_after(shown, "截断 3 轮")
    prose = lesson.markdown("dea678af")
    assert f"{trimmed:,.0f} 个 token（完整历史是 {full:,.0f} 个）" in prose
    assert "您的冰箱型号是 BCD-123。" in shown and "您的冰箱型号是 BCD-123" in prose
    assert "我这边没看到您提供的型号" in shown and "还有 BCD-123 吗？没有" in shown


def test_the_chinese_summary(lesson):
    summary = lesson.output("31de02d4")
    prose = lesson.markdown("788c371b")
    for quoted in ("冰箱（BCD-123）", "型号：BCD-123", "版本号：v3.2"):
        assert quoted in summary and quoted in prose
    # the model number never changed, so the issue line quotes the customer verbatim
    issue = summary.split("问题描述：")[1].splitlines()[1]
    assert "型号是BCD-123" in issue and "[型号]" not in summary
    assert "“问题描述”照录客户的第一句话" in prose and "[型号]" not in prose
    assert "rule-engine v3.2 evaluated 57 rules" in lesson.output("9066b4a9")
    assert "rule-engine v3.2 evaluated 57 rules" in prose
    assert "其他编号" in summary and "耗时" in summary and "18342" in summary
    after = lesson.output("a018434b")
    assert f"共 {number_after(after, '摘要 2/4'):,.0f} 个 token" in lesson.markdown("ee8d4782")
    assert "您的冰箱型号是 BCD-123。" in after


def test_the_state_message(lesson):
    state = lesson.output("f85697bf")
    prose = lesson.markdown("589eb104")
    device = "设备：冰箱（型号 BCD-123，工单号 TCK-50821，状态 待派单）"
    assert device in state and device in prose
    assert "问题：冰箱不制冷" in state and "问题：冰箱不制冷" in prose
    assert state.index("处理记录") < state.index("设备：")  # history first, as the prose says
    assert "固件" not in state and "v3.2" not in state


def test_recall_terms_and_hit(lesson):
    shown = lesson.output("f25c254c")
    prose = lesson.markdown("55ace794")
    index_line, query_line = shown.splitlines()[:2]
    assert "'号是'" in index_line and "号是" in prose
    assert query_line.split("：", 1)[1].strip() == "['冰箱', '型号']"
    for absent in ("号是", "少来", "来着"):
        assert f"'{absent}'" not in query_line
    hits = [line for line in shown.splitlines() if line.startswith("第")]
    assert len(hits) == 1 and hits[0].startswith("第1轮，得分 1.00") and "得分 1.00" in prose


def test_state_and_recall_answer(lesson):
    shown = lesson.output("ac73fc08")
    state = number_after(shown, "截断 3 轮 + 状态")
    recall = number_after(shown, "截断 3 轮 + 召回")
    full = number_after(lesson.output("4e1edeb4"), "完整历史")
    prose = lesson.markdown("b09b739f")
    assert f"分别是 {state:,.0f} 和 {recall:,.0f} 个 token" in prose
    assert f"不到完整历史（{full:,.0f}）的一半" in prose and max(state, recall) < full / 2
    assert shown.count("您的冰箱型号是 BCD-123。") == 2


def test_five_facts_five_memories(lesson):
    table = lesson.output("78d6c8b1").splitlines()
    heads = [h for h in re.split(r"\s{2,}", table[0].strip())]
    assert heads == ["关键信息", "完整历史", "截断 3 轮", "摘要 2/4", "截断 3 轮 + 状态",
                     "截断 3 轮 + 召回"]
    rows = {line.split()[0]: line.split()[1:] for line in table[2:]}
    totals = [int(t.replace(",", "")) for t in table[-1].split()[2:]]
    full, trim, summary, state, _recall = totals
    marks = {name: rows[name] for name in ("型号", "手机号", "工单号", "客户要求", "客服承诺")}
    assert all(m[1] == "✗" for m in marks.values())  # trimming keeps none of the five
    assert all(m[2] == "✓" and m[3] == "✓" for m in marks.values())  # summary and state all
    assert [m[4] for m in marks.values()] == ["✓", "✓", "✓", "✗", "✗"]  # recall: the ids
    prose = lesson.markdown("046bbfda")
    assert f"（{full:,} 里的 {summary:,} 和 {state:,}）" in prose
    assert summary < full / 2 and "不到完整历史的一半" in prose
    assert f"{round(100 * state / full)}%" in prose
    assert "五个一个都没留住" in prose and "召回找回了三个编号" in prose
    assert trim < state


def test_the_lessons_own_memories_fail_the_exercise(lesson):
    shown = lesson.output("c05b0e02").replace("\n  ", "")  # a verdict wraps between characters
    verdicts = [line for line in shown.splitlines() if line.startswith("✗")]
    assert len(verdicts) == 2 and not any(line.startswith("✓") for line in shown.splitlines())
    shares = [int(re.search(r"的 (\d+)%", v).group(1)) for v in verdicts]
    folds, fold_tokens = re.search(r"摘要压缩 (\d+) 次，花了 ([\d,]+) 个 token",
                                   verdicts[1]).groups()
    prose = lesson.markdown("c05b0e03")
    assert f"截断 3 轮 + 状态用了完整历史的 {shares[0]}%" in prose
    assert f"摘要 2/4 用了 {shares[1]}%" in prose
    assert f"其中 {folds} 次摘要压缩就花了 {fold_tokens} 个 token" in prose
    assert all(share > 100 * ZH_EXERCISE_RATIO for share in shares)


def test_the_exercise_text_matches_its_check(lesson):
    prose = lesson.markdown("d6a02b54")
    assert ZH_EXERCISE_RATIO == 0.5 and "不超过完整历史的一半" in prose
    new, old = ZH_EXERCISE_QUESTIONS[0][1], ZH_EXERCISE_QUESTIONS[0][2]
    assert f"新号码 {new}" in prose and f"旧号码 {old}" in prose
    assert new in ZH_LATE_TURNS[0][0]
    assert "只能周末上门" in prose and ZH_EXERCISE_QUESTIONS[2][1] == "只能周末上门"
    unanswered = lesson.output("8d474505")
    assert "还没作答" in unanswered


def test_numbers_in_prose_all_come_from_outputs(lesson):
    """No number in the prose of sections 1 to 5 that no output above shows (turn and
    lesson numbers, item 0 and the memories' settings excepted)."""
    shown = " ".join(lesson.output(c["id"]) for c in lesson.cells if c["cell_type"] == "code")
    seen = set(numbers(shown))
    table = lesson.output("78d6c8b1").splitlines()[-1].split()[2:]
    full, state = int(table[0].replace(",", "")), int(table[3].replace(",", ""))
    derived = {round(100 * state / full)}  # checked in test_five_facts_five_memories
    allowed = {0, 1, 2, 3, 4, 5, 6, 48, 57, 14, 12, 11, 13, 3.2} | derived
    for cell_id in ("85d20d06", "dea678af", "788c371b", "ee8d4782", "589eb104", "55ace794",
                    "b09b739f", "046bbfda", "c05b0e03"):
        for value in numbers(lesson.markdown(cell_id)):
            assert value in seen or value in allowed, (cell_id, value)


def test_the_trimmed_request_holds_the_turns_the_prose_names(lesson):
    """Issue 31: cell 19 said the last three turns were 以旧换新 and 免费维修 plus the new
    question; the request holds 说明书, 以旧换新 and 免费维修, then the question. The turns
    the prose names are read from the list cell 6 prints, in order."""
    shown = lesson.output("4e1edeb4")
    sent = [line.strip()[1:].strip() for line in shown.split("截断后请求里的用户消息：")[1]
            .splitlines() if line.strip().startswith("·")]
    assert len(sent) == 4 and sent[-1] == "对了，我冰箱的型号是多少来着？"
    prose = lesson.markdown("046bbfda")
    named = re.search(r"请求里只有最后三轮（问(.+?)、问(.+?)、问(.+?)，", prose)
    assert named, prose[:200]
    cues = {"说明书": "说明书", "以旧换新": "换新", "能不能免费维修": "免费维修"}
    for said, turn in zip(named.groups(), sent[:3], strict=True):
        assert said in cues and cues[said] in turn, (said, turn)
    assert "再加上新问的这一句" in prose
