"""Scoring memory beyond one conversation: the planted chats are deterministic and valid,
the scores tell a good setting from a broken one, and the CLI commands print and save them."""

from __future__ import annotations

import importlib
import json

import pytest
from agents import set_tracing_disabled

from ctxlab import validate_items
from ctxlab.cli import main
from ctxlab.eval import handoff_eval
from ctxlab.eval.handoff_eval import handoff_table, run_handoff, score_handoffs
from ctxlab.eval.multi_issue import multi_issue_case, multi_issue_corpus
from ctxlab.eval.preload_eval import preload_case, preload_corpus, score_preloading
from ctxlab.eval.sessions_eval import (
    recall_table,
    score_recall,
    three_days_case,
    three_days_corpus,
)
from ctxlab.handoffs import HandoverSummary, IssueHandover

from conftest import arun

set_tracing_disabled(True)


def test_planted_chats_are_deterministic_and_valid():
    assert multi_issue_case(7) == multi_issue_case(7)
    assert multi_issue_case(7).items != multi_issue_case(8).items
    for case in multi_issue_corpus(20):
        assert validate_items(case.items) == []
        a, b = case.resumed, case.other
        assert a.device != b.device and not set(a.facts.values()) & set(b.facts.values())
    assert three_days_case(2, "zh") == three_days_case(2, "zh")
    for case in three_days_corpus(4):
        assert validate_items(case.day_one) == []
        text = json.dumps(case.day_one, ensure_ascii=False)
        assert all(p.expected in text for p in case.probes)
    assert preload_case(1, "return") == preload_case(1, "return")
    for bad in ({"seed": -1}, {"seed": True}):
        with pytest.raises(ValueError, match="seed"):
            multi_issue_case(**bad)
        with pytest.raises(ValueError, match="seed"):
            three_days_case(**bad)
    with pytest.raises(ValueError, match="language"):
        three_days_case(0, "fr")
    with pytest.raises(ValueError, match="kind"):
        preload_case(0, "refund")


def test_handoff_scores_tell_the_modes_apart():
    cases = multi_issue_corpus(4)
    scores = {s.mode: s.as_dict() for s in arun(score_handoffs(cases))}
    assert scores["per-issue"]["right"] == 1.0 and scores["per-issue"]["leaked"] == 0.0
    assert scores["per-issue"]["foreign_in_view"] == 0.0
    assert scores["per-issue"]["action_right"] == 1.0
    assert scores["full"]["leaked"] == 1.0 and scores["full"]["action_leaked"] == 1.0
    assert scores["full"]["kept_in_view"] == 1.0 and scores["full"]["foreign_in_view"] == 1.0
    assert scores["trim:3"]["kept_in_view"] < 0.5
    assert scores["per-issue"]["tokens_per_handoff"] < scores["full"]["tokens_per_handoff"]
    table = handoff_table(list(arun(score_handoffs(cases[:1], ["per-issue"]))))
    assert "per-issue" in table and "100%" in table
    with pytest.raises(ValueError, match="unknown handoff mode 'bogus'"):
        arun(score_handoffs(cases, ["bogus"]))


class WholeChatAsIssue(IssueHandover):
    """Broken on purpose: labelled as the issue's handover, but summarizes the whole chat."""

    async def view(self, before, step):
        return await HandoverSummary.view(self, before, step)


def test_the_handoff_score_catches_a_per_issue_filter_that_leaks(monkeypatch):
    case = multi_issue_case(4)
    monkeypatch.setattr(handoff_eval, "IssueHandover", WholeChatAsIssue)
    broken = arun(run_handoff(case, "per-issue"))
    assert broken.foreign_in_view > 0 and "leaked" in broken.answers.values()


def test_cross_session_recall_tells_the_settings_apart():
    score = arun(score_recall(three_days_corpus(2)))
    assert score.share("none") == 0.0
    assert score.share("both") == 1.0
    assert score.share("structured", kind="long-tail") == 0.0
    assert score.share("retrieval", kind="long-tail") == 1.0
    assert score.share("structured", kind="structured") == 1.0
    assert "both" in recall_table(score)


def test_the_recall_score_catches_a_memory_that_keeps_no_notes(monkeypatch):
    # (import_module: the package's function of the same name hides the module)
    module = importlib.import_module("ctxlab.longterm.consolidate")
    monkeypatch.setattr(module, "notes_of", lambda items, session_id, at: [])
    score = arun(score_recall(three_days_corpus(1), ["both"]))
    assert score.share("both", kind="long-tail") == 0.0


def test_preloading_saves_calls_and_tokens_and_a_preloader_without_rules_saves_none(
        monkeypatch):
    score = arun(score_preloading(preload_corpus(4))).as_dict()
    assert score["tool_calls_saved"] > 0 and score["model_tool_calls"][1] == 0
    assert score["model_calls"][1] < score["model_calls"][0]
    assert score["tokens"][1] < score["tokens"][0]
    assert score["wrong_replies"] == [0, 0]
    from ctxlab.course.team import preload as rules

    monkeypatch.setattr(rules, "TEAM_PRELOAD_RULES", ())
    none = arun(score_preloading(preload_corpus(2))).as_dict()
    assert none["tool_calls_saved"] == 0 and none["preloaded_calls"] == 0


def test_the_cli_commands_print_and_save(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["eval-handoffs", "--chats", "2", "--mode", "per-issue", "--mode", "full",
                 "--out", str(out)]) == 0
    assert main(["eval-sessions", "--cases", "1", "--language", "zh", "--setting", "both",
                 "--out", str(out)]) == 0
    assert main(["eval-preload", "--chats", "2", "--language", "en", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "per-issue" in printed and "zh structured" in printed and "with preload" in printed
    saved = {p.name.split("-")[0]: json.loads(p.read_text()) for p in out.iterdir()}
    assert saved["handoffs"]["modes"][0]["mode"] == "per-issue"
    assert saved["sessions"]["recall"]["both"]["zh/long-tail"] == 1.0
    assert saved["preload"]["tool_calls_saved"] > 0
    assert main(["eval-handoffs", "--mode", "bogus"]) == 2
    assert main(["eval-sessions", "--setting", "everything"]) == 2
    assert main(["eval-preload", "--chats", "0"]) == 2
    assert "unknown setting 'everything'" in capsys.readouterr().err
