"""The README says what the data is: tau-bench's customers are simulated by a model."""

from __future__ import annotations

from conftest import ROOT


def test_tau_bench_is_described_as_simulated_customers():
    from ctxlab import load_tau_bench

    readme = " ".join((ROOT / "README.md").read_text().split())
    count = len(load_tau_bench())
    assert f"choosing `max_turns` from {count} recorded tau-bench airline conversations (a " \
           "GPT-4o agent and a simulated customer)" in readme
    assert "real transcripts" not in readme
    assert "a GPT-4o agent talking to a simulated customer, itself a model" in readme


def test_the_chinese_readme_and_lesson_06_do_not_call_tau_bench_real():
    """Issue 31: lesson 06 said "real transcripts (tau-bench)" and README.zh-CN "tau-bench
    真实对话"; the customers are simulated, as lesson 02 and the English README say."""
    import json
    import re

    zh = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    for line in zh.splitlines():
        if "tau-bench" in line:
            assert not re.search(r"tau-bench\s*真实", line), line
    row = next(line for line in zh.splitlines() if line.startswith("| `06_evaluation`"))
    assert "tau-bench" in row and "客户由模型模拟" in row, row
    lesson = json.loads((ROOT / "notebooks" / "06_evaluation.ipynb").read_text())
    prose = " ".join(" ".join("".join(c["source"]) for c in lesson["cells"]
                              if c["cell_type"] == "markdown").split())
    assert "real transcripts" not in prose
    assert "tau-bench airline conversations (a GPT-4o agent and a simulated customer)" in prose


def test_both_readmes_name_the_streamed_tool_choice_limit_as_ctxlab_raises_it():
    """Issue 34: the tip `tool_choice="auto"` works for plain runs only; on streamed runs
    llama-cpp-python answers 200 with an empty event stream. Both READMEs say so, with the
    limit's name exactly as ctxlab's error gives it."""
    from ctxlab.course.server_limits import STREAMED_AUTO_TOOL_CHOICE

    en = " ".join((ROOT / "README.md").read_text().split())
    zh = "".join((ROOT / "README.zh-CN.md").read_text(encoding="utf-8").split())
    assert "in plain runs only: a *streamed* run with `tool_choice=\"auto\"` gets HTTP 200 " \
           "and an empty event stream" in en
    assert f"a `ModelCallError` naming it, \"{STREAMED_AUTO_TOOL_CHOICE}\"" in en
    assert "`check_action`" in en
    assert "只适用于非流式运行" in zh and "空的事件流" in zh
    assert f"\"{STREAMED_AUTO_TOOL_CHOICE}\"".replace(" ", "") in zh
    assert "`check_action`" in zh
