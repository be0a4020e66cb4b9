"""SGD and CrossWOZ customers as evaluation cases, and ``--corpus sgd|crosswoz``."""

from __future__ import annotations

import asyncio
import io

import pytest

from ctxlab.cli import main
from ctxlab.eval import evaluate, load_cases
from ctxlab.eval.dialogue_cases import (
    DIALOGUE_INSTRUCTIONS,
    dialogue_agent,
    dialogue_cases,
    parse_dialogue_spec,
)


def test_spec_parts():
    assert parse_dialogue_spec("sgd") == ("sgd", "all", None, None)
    assert parse_dialogue_spec("crosswoz:report:3@/tmp/x") == ("crosswoz", "report", 3, "/tmp/x")
    for bad in ("sgd:test", "sgd:0", "sgd:3:tune", "sgd@", "woz"):
        with pytest.raises(ValueError, match="corpus"):
            parse_dialogue_spec(bad)


def test_a_customer_is_four_days_with_a_recap_after_the_last_turn():
    (case,) = load_cases("sgd:tune:1")
    assert len(case.meta["dialogues"]) == 4 and case.source == "sgd"
    assert {p.turn for p in case.probes} == {case.n_turns + 1}
    assert all(p.question.startswith("Remind me") for p in case.probes)
    current = [f for f in case.facts if f.superseded_by is None]
    assert len(case.probes) == len(current)
    assert {f.name.split(".")[0] for f in current} == {"day1", "day2", "day3", "day4"}
    for fact in case.facts:
        assert fact.found_in(str(case.items[fact.first_item]["content"]))


def test_superseded_values_are_marked_and_probed_as_stale():
    cases = dialogue_cases("sgd:tune")
    old = [f for c in cases for f in c.facts if f.superseded_by is not None]
    assert old and all(f.superseded_turn is not None for f in old)
    probes = [p for c in cases for p in c.probes if p.stale]
    assert probes and all(p.expected not in p.stale for p in probes)


def test_chinese_recaps_and_halves_are_disjoint():
    tune, report = dialogue_cases("crosswoz:tune:2"), dialogue_cases("crosswoz:report:2")
    assert not {c.id for c in tune} & {c.id for c in report}
    assert all("来着" in p.question for c in tune for p in c.probes)


def test_full_history_keeps_what_trim_one_loses():
    cases = dialogue_cases("sgd:tune:2")
    run = asyncio.run(evaluate(cases, ["full", "trim:1", "trim:1+slots"], answers=False,
                               agent=dialogue_agent("gpt-4.1-mini")))
    full, trim, slots = (run.summary(s) for s in ("full", "trim:1", "trim:1+slots"))
    assert full.recall > 0.95 and trim.recall < 0.2
    assert slots.recall > 0.8 and slots.token_ratio < 0.5


def test_cli_eval_on_a_dialogue_corpus_uses_the_task_assistant(tmp_path):
    out = io.StringIO()
    code = main(["eval", "--corpus", "sgd:tune:1", "--strategy", "full", "--strategy",
                 "trim:1+slots:sgd", "--no-answers", "--quiet", "--out", str(tmp_path)], out=out)
    assert code == 0 and "trim 1 + slots:sgd" in out.getvalue()
    saved = next(tmp_path.glob("*.json")).read_text()
    assert DIALOGUE_INSTRUCTIONS[:20] in saved or "Booking assistant" in saved


def test_unknown_dialogue_directory_is_named():
    with pytest.raises(ValueError, match="no such directory"):
        dialogue_cases("sgd@/nonexistent-h30a")


def test_the_slots_memory_keeps_no_stale_value_current_on_planted_chats():
    from ctxlab.course.agent import make_support_agent
    from ctxlab.course.backends import offline_backend

    cases = load_cases("planted:3")
    run = asyncio.run(evaluate(cases, ["trim:1+slots"], answers=False,
                               agent=make_support_agent(offline_backend())))
    summary = run.summary("trim:1+slots")
    assert summary.use_calls > 100 and summary.use_stale == 0
