"""--corpus zh: cases with Chinese questions, supersessions, and the CLI table."""

from __future__ import annotations

import io

from ctxlab.cli import main
from ctxlab.eval import ZH_KIND_QUESTIONS, load_cases
from ctxlab.eval.corpus import CORPUS_NAMES


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
    assert model.expected == "BCD-123" and model.kind == "model" and not model.answerable
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
