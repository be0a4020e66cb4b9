"""The "what each agent sees" bars: parts are attributed to where they come from, the token
counts add up to the view, and the figure fits a notebook with readable text."""

from __future__ import annotations

from agents import set_tracing_disabled
from matplotlib.text import Text

from ctxlab.context.sources import developer_message
from ctxlab.core.tokens import count_items_tokens
from ctxlab.eval.handoff_eval import run_handoff
from ctxlab.eval.multi_issue import multi_issue_case
from ctxlab.viz.plots.figure import NOTEBOOK_WIDTH, SMALL_FONT
from ctxlab.viz.plots.views import handoff_view_parts, memory_input_parts, plot_views

from conftest import arun

set_tracing_disabled(True)


def test_handoff_views_are_split_by_issue():
    case = multi_issue_case(5)
    conversation = [*case.items, {"role": "user", "content": case.resume}]
    rows = {}
    for mode in ("full", "trim:3", "per-issue"):
        view = list(arun(run_handoff(case, mode)).view)
        parts = handoff_view_parts(view, conversation, case.resumed.device,
                                   note="this issue's note")
        assert sum(t for _, t in parts) == count_items_tokens(view)
        rows[mode] = [p for p, _ in parts]
    assert rows["full"] == ["customer", "this issue", "other issue", "this turn"]
    assert rows["trim:3"] == ["other issue", "this turn"]
    assert rows["per-issue"] == ["this issue's note", "this turn"]
    figure = plot_views({mode: [(p, 10)] for mode, parts in rows.items() for p in parts[:1]})
    assert figure.get_figwidth() <= NOTEBOOK_WIDTH
    sizes = [t.get_fontsize() for t in figure.findobj(Text) if t.get_text()]
    assert min(sizes) >= SMALL_FONT


def test_memory_inputs_are_split_into_structured_notes_and_the_turn():
    structured = ("Long-term memory of this customer, from 1 earlier conversation (latest "
                  "values):\nstanding requests:\n- (d1) Please reach me by email only.")
    notes = "Earlier, the customer said (found for this message):\n- (d1) The FixIt shop."
    zh_notes = "客户此前提到的相关内容：\n- （3月2日）我把电脑送到了维修店。"
    question = {"role": "user", "content": "Is that shop open?"}
    assert [p for p, _ in memory_input_parts([developer_message(structured), question])] == [
        "long-term: structured", "this turn"]
    assert [p for p, _ in memory_input_parts([developer_message(notes), question])] == [
        "long-term: recalled notes", "this turn"]
    assert [p for p, _ in memory_input_parts([developer_message(zh_notes), question])] == [
        "long-term: recalled notes", "this turn"]
    both = memory_input_parts([developer_message(f"{structured}\n{notes}"), question])
    assert [p for p, _ in both] == ["long-term: structured", "long-term: recalled notes",
                                    "this turn"]
