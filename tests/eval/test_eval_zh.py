"""--corpus zh: cases with Chinese questions, supersessions, and the CLI table."""

from __future__ import annotations

import io

from agents import set_tracing_disabled

from ctxlab.cli import main
from ctxlab.course.agent import make_support_agent
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.eval import ZH_KIND_QUESTIONS, evaluate, load_cases
from ctxlab.eval.corpus import CORPUS_NAMES

from conftest import arun

set_tracing_disabled(True)


def test_zh_cases_probe_current_values_with_chinese_questions():
    cases = load_cases("zh")
    assert "zh" in CORPUS_NAMES and len(cases) == 14
    laptop = next(c for c in cases if c.id == "zh-02-laptop-bsod")
    (email_probe,) = [p for p in laptop.probes if p.fact == "email"]
    assert email_probe.expected == "chenjing88@example.net"
    assert email_probe.stale == ("chen.jing@example.com",)
    assert email_probe.question == ZH_KIND_QUESTIONS["email"] == "你们记的我的邮箱是哪个？"
    old = laptop.fact("email", "chen.jing@example.com")
    assert old.superseded_by == "chenjing88@example.net" and old.superseded_turn == 6
    fridge = next(c for c in cases if c.id == "zh-01-fridge-bcd123")
    model = next(p for p in fridge.probes if p.fact == "model")
    # asked in Chinese, the offline model recalls model numbers, phones and dates too
    assert model.expected == "BCD-123" and model.kind == "model" and model.answerable
    assert model.question == ZH_KIND_QUESTIONS["model"]
    ticket = next(p for p in fridge.probes if p.fact == "ticket")
    assert ticket.answerable  # the default kinds are found in the Chinese text
    assert fridge.fact("model", "BCD-123").found_in("冰箱型号是BCD-123，")
    assert not fridge.fact("model", "BCD-123").found_in("BCD-1234")


def test_eval_corpus_zh_prints_the_table(tmp_path):
    out = io.StringIO()
    code = main(["eval", "--corpus", "zh", "--strategy", "trim:4", "--strategy", "trim:4+recall",
                 "--out", str(tmp_path), "--quiet", "--no-answers"], out=out)
    text = out.getvalue()
    assert code == 0, text
    assert "14 conversations" in text
    rows = {line.split("  ")[0].strip(): line for line in text.splitlines()}
    recall = {name: float(rows[name].split()[-6].rstrip("%")) for name in
              ("trim 4", "trim 4 + recall")}
    assert recall["trim 4 + recall"] > recall["trim 4"]  # Chinese queries find evicted turns


def test_chinese_probes_are_answered_from_a_full_view_and_fail_once_trimming_drops_them():
    cases = load_cases("zh")
    agent = make_support_agent(OfflineSupportModel())
    run = arun(evaluate(cases, ["full", "trim:2", "summarize:2/4", "trim:4+state"], agent=agent,
                        max_answer_probes=None))
    full = run.summary("full")
    assert full.answer_probes >= 45 and full.answers_correct == full.answer_probes
    for name in ("summarize:2/4", "trim:4+state"):  # memory beyond the window keeps them
        kept = run.summary(name)
        assert kept.answers_correct == kept.answer_probes == full.answer_probes
    asked = [p for r in run.results_for("trim:2") for p in r.probes if p.asked]
    assert len(asked) == full.answer_probes
    # every probe whose fact left the window fails, and says so in Chinese; most of those
    # still in view are answered (a value in view without its label, "55E3" in a tool
    # result, is not read as a model number)
    lost = [p for p in asked if not p.available]
    assert lost and not any(p.correct for p in lost)
    assert len(lost) > len(asked) // 2
    assert all("我这边没看到您提供的" in p.reply for p in lost)
    in_view = [p for p in asked if p.available]
    assert sum(p.correct for p in in_view) >= len(in_view) - 2
    assert not any(p.answer_stale for p in asked)
    assert {"model", "phone", "date"} <= {p.category for p in asked}


def test_eval_corpus_zh_answers_in_the_table(tmp_path):
    out = io.StringIO()
    code = main(["eval", "--corpus", "zh", "--strategy", "full", "--strategy", "trim:4",
                 "--out", str(tmp_path), "--quiet"], out=out)
    text = out.getvalue()
    assert code == 0, text
    rows = {line.split("  ")[0].strip(): line.split() for line in text.splitlines()}
    right, asked = map(int, rows["full history"][4].split("/"))
    assert right == asked >= 45
    trimmed, _ = map(int, rows["trim 4"][4].split("/"))
    assert trimmed < asked // 2
