"""SummarizingSession: folds, metadata, races, failures, background mode, concurrency."""

from __future__ import annotations

import asyncio
import logging

import pytest
from agents.memory import Session

from ctxlab import (
    SummarizingSession,
    TokenBudgetWarning,
    item_text,
    segment_turns,
    validate_items,
)

from conftest import arun, assistant, call, output, reasoning, user
from fakes import RecordingSummarizer, SeedStyleSummarizer

ROUTER = [
    user("My home router won't connect. Windows 10, the FAQ did not help, third time I "
         "contact you; Premium customer in the US."),
    assistant("Let's check your firmware version first."),
    user("Firmware v1.0.3 and it still fails."),
    assistant("Please try a factory reset."),
    user("Reset finished, now I get error 42."),
    assistant("Then install the newest firmware."),
    user("Tried that, another error popped up."),
    assistant("What does the error say exactly?"),
    user("It says 404 not found when I open the page."),
    assistant("Are you connected to the internet right now?"),
]


async def until(condition, timeout: float = 2.0) -> None:
    """Yield to the event loop until ``condition()`` is true (fails after ``timeout``)."""
    async def wait():
        while not condition():
            await asyncio.sleep(0.001)
    await asyncio.wait_for(wait(), timeout)


async def feed(session, items, per_item=True):
    if per_item:
        for item in items:
            await session.add_items([item])
    else:
        await session.add_items(items)


def test_protocol_and_invariant_errors():
    assert isinstance(SummarizingSession(), Session)
    with pytest.raises(ValueError, match=r"keep_last_n_turns \(4\) must not be greater than "
                                         r"context_limit \(3\)"):
        SummarizingSession(keep_last_n_turns=4, context_limit=3)
    with pytest.raises(ValueError, match="context_limit must be an integer >= 1"):
        SummarizingSession(keep_last_n_turns=0, context_limit=0)
    with pytest.raises(ValueError, match="keep_last_n_turns must be an integer >= 0"):
        SummarizingSession(keep_last_n_turns=-1)
    a, b = SummarizingSession(), SummarizingSession()
    assert a.session_id != b.session_id


def test_router_flow_folds_three_turns_and_keeps_two():
    async def go():
        summarizer = RecordingSummarizer()
        session = SummarizingSession(keep_last_n_turns=2, context_limit=4, summarizer=summarizer)
        await feed(session, ROUTER)
        view = await session.get_items()
        assert validate_items(view) == []
        assert view[2:] == ROUTER[6:]
        assert view[0]["role"] == "user" and view[1]["role"] == "assistant"
        assert item_text(view[1]).startswith("SUMMARY[1]:")
        assert len(summarizer.calls) == 1
        assert summarizer.calls[0]["items"] == ROUTER[:6]
        ledger = await session.ledger()
        states = [(e.index, e.state) for e in ledger]
        assert states == [(0, "summarized"), (1, "summarized"), (2, "summarized"),
                          (3, "summarized"), (4, "summarized"), (5, "summarized"),
                          (None, "summary"), (None, "summary"),
                          (6, "kept"), (7, "kept"), (8, "kept"), (9, "kept")]
        assert session.summary.turns == (1, 3) and session.summary.items == (0, 6)
        assert await session.raw_items() == ROUTER

    arun(go())


def test_full_history_metadata_stays_beside_the_items():
    async def go():
        session = SummarizingSession(keep_last_n_turns=2, context_limit=4,
                                     summarizer=RecordingSummarizer())
        await feed(session, ROUTER)
        history = await session.get_full_history()
        assert await session.get_items_with_metadata() == history
        prompt, summary = history[0], history[1]
        assert prompt["metadata"]["synthetic"] is True
        assert prompt["metadata"]["kind"] == "history_summary_prompt"
        assert summary["metadata"]["kind"] == "history_summary"
        assert summary["metadata"]["turns"] == [1, 3]
        assert summary["metadata"]["items"] == [0, 6]
        assert summary["metadata"]["summarizer"] == "recording"
        assert summary["metadata"]["created_at"].endswith("+00:00")
        assert history[2]["metadata"] == {"synthetic": False, "kind": "user", "index": 6,
                                          "turn": 4, "tokens": history[2]["metadata"]["tokens"]}
        assert [r["message"] for r in history] == await session.get_items()
        assert len(await session.get_full_history(limit=3)) == 3
        for item in await session.get_items():
            assert "metadata" not in item and "synthetic" not in item

    arun(go())


def test_tool_items_stay_paired_and_are_not_turns():
    items = [user("serial C02XK1ZJG8WP, is it covered?"), reasoning("rs_1"),
             call("c1", name="check_warranty", serial="C02XK1ZJG8WP"),
             output("c1", {"status": "covered", "rma": "RMA-55120"}),
             assistant("Covered; your RMA is RMA-55120."),
             user("thanks, and the screen flickers"), assistant("Update the display driver."),
             user("done, still flickers"), assistant("Try safe mode."),
             user("what was my RMA again?")]

    async def go():
        summarizer = RecordingSummarizer()
        session = SummarizingSession(keep_last_n_turns=1, context_limit=3, summarizer=summarizer)
        await feed(session, items)
        folded = summarizer.calls[0]["items"]
        assert folded == items[:9]
        assert [it.get("type") for it in folded[1:4]] == [
            "reasoning", "function_call", "function_call_output"]
        assert sum(1 for it in folded if it.get("role") == "user") == 3
        view = await session.get_items()
        assert validate_items(view) == [] and view[2:] == items[9:]

    arun(go())


def test_extractive_summary_reads_assistant_parts_and_keeps_identifiers():
    async def go():
        session = SummarizingSession(keep_last_n_turns=1, context_limit=2)
        await feed(session, [
            user("Ticket TCK-48213: laptop red light blinking, serial C02XK1ZJG8WP."),
            assistant("Thanks. Hold the power button for 10 seconds. Did the light change?"),
            user("No change. Email me at dana@example.com"),
            assistant("I will. Firmware v1.0.3 needs an update to v1.0.4."),
            user("What next?"),
        ])
        summary = session.summary
        assert summary is not None and summary.summarizer == "ExtractiveSummarizer"
        for value in ("TCK-48213", "C02XK1ZJG8WP", "dana@example.com", "v1.0.4", "v1.0.3"):
            assert value in summary.text
        assert "v1.0.4 (earlier: v1.0.3 until turn 2)" in summary.text
        assert "Hold the power button" in summary.text  # read from output_text parts
        assert summary.missing_identifiers == ()

    arun(go())


def test_missing_identifiers_are_listed_in_metadata():
    async def go():
        summarizer = RecordingSummarizer(drop=("TCK-48213",))
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1, summarizer=summarizer)
        await feed(session, [user("ticket TCK-48213, order 3348917502"), assistant("ok"),
                             user("next")])
        assert session.summary.missing_identifiers == ("TCK-48213",)
        meta = (await session.get_full_history())[1]["metadata"]
        assert meta["missing_identifiers"] == ["TCK-48213"]

    arun(go())


def test_incremental_summaries_and_rebuild_from_the_raw_log():
    async def go():
        summarizer = RecordingSummarizer()
        session = SummarizingSession(keep_last_n_turns=1, context_limit=2, summarizer=summarizer)
        convo = [m for t in range(7) for m in (user(f"q{t}"), assistant(f"a{t}"))]
        await feed(session, convo)
        assert len(summarizer.calls) == 3  # folds at turns 3, 5, 7
        second = summarizer.calls[1]
        assert item_text(second["items"][1]).startswith("SUMMARY[1]")
        assert second["previous"].startswith("SUMMARY[1]")
        raw_seen = [it for c in summarizer.calls for it in c["items"][2 if c["previous"] else 0:]]
        assert raw_seen == convo[:12]  # every folded item exactly once, in order
        assert session.summary.turns == (1, 6) and session.summary.incremental
        rebuilt = await session.rebuild_summary()
        assert rebuilt.turns == (1, 6) and not rebuilt.incremental
        assert summarizer.calls[-1]["items"] == convo[:12]
        assert summarizer.calls[-1]["previous"] is None
        view = await session.get_items()
        assert item_text(view[1]) == rebuilt.text and view[2:] == convo[12:]

    arun(go())


def test_seed_style_summarizer_is_supported():
    async def go():
        summarizer = SeedStyleSummarizer()
        session = SummarizingSession(keep_last_n_turns=2, context_limit=4, summarizer=summarizer)
        await feed(session, ROUTER)
        view = await session.get_items()
        assert view[0]["content"] == "Summarize what we discussed."
        assert item_text(view[1]) == "6 messages summarized"

    arun(go())


def test_items_arriving_during_a_fold_are_not_lost_or_folded_twice():
    async def go():
        gate = asyncio.Event()
        summarizer = RecordingSummarizer(gate=gate)
        session = SummarizingSession(keep_last_n_turns=1, context_limit=2, summarizer=summarizer,
                                     background=True)
        await feed(session, [user("q0"), assistant("a0"), user("q1"), assistant("a1"),
                             user("q2")])
        await until(lambda: summarizer.calls)
        assert session.summarizing and len(summarizer.calls) == 1
        # a fold of turns 1-2 is in flight; more turns arrive meanwhile
        late = [assistant("a2"), user("q3"), assistant("a3"), user("q4"), assistant("a4")]
        await feed(session, late)
        view = await session.get_items()  # does not wait; valid; every unfolded turn shown
        assert validate_items(view) == []
        assert [item_text(i) for i in view] == [
            "q0", "a0", "q1", "a1", "q2", "a2", "q3", "a3", "q4", "a4"]
        gate.set()
        await session.flush()
        assert summarizer.max_active == 1
        first = summarizer.calls[0]["items"]
        assert [item_text(i) for i in first] == ["q0", "a0", "q1", "a1"]
        assert len(summarizer.calls) == 2  # a second, incremental fold for turns 3-4
        second = [item_text(i) for i in summarizer.calls[1]["items"][2:]]
        assert second == ["q2", "a2", "q3", "a3"]
        assert session.summary.turns == (1, 4)
        assert [item_text(i) for i in (await session.get_items())[2:]] == ["q4", "a4"]
        assert len(await session.raw_items()) == 10

    arun(go())


def test_failing_summarizer_loses_nothing_and_retries(caplog):
    async def go():
        summarizer = RecordingSummarizer(fail=1)
        session = SummarizingSession(keep_last_n_turns=1, context_limit=2, summarizer=summarizer)
        with caplog.at_level(logging.WARNING, logger="ctxlab.summarizing"):
            await feed(session, [user("q0"), assistant("a0"), user("q1"), assistant("a1"),
                                 user("q2")])
        assert "summarizer down" not in caplog.text and "summarizer is down" in caplog.text
        assert session.summary is None and "summarizer is down" in session.last_error
        with pytest.warns(TokenBudgetWarning, match="over context_limit=2: the summarizer"):
            view = await session.get_items()
        assert validate_items(view) == []
        assert [item_text(i) for i in view] == ["q0", "a0", "q1", "a1", "q2"]  # nothing lost
        ledger = await session.ledger()
        assert ledger[0].state == "kept" and "the summarizer failed" in ledger[0].reason
        await session.add_items([assistant("a2")])  # new items: the fold is retried
        assert session.summary is not None and session.last_error is None
        assert len(await session.raw_items()) == 6

    arun(go())


def test_timeout_counts_as_failure():
    async def go():
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1,
                                     summarizer=RecordingSummarizer(delay=1.0),
                                     summary_timeout=0.05)
        await feed(session, [user("q0"), assistant("a0"), user("q1")])
        assert session.summary is None and "timed out after 0.05s" in session.last_error
        with pytest.warns(TokenBudgetWarning, match="summarizer failed .timed out after 0.05s"):
            view = await session.get_items()  # the unfolded turns stay, and the caller is told
        assert validate_items(view) == [] and [item_text(i) for i in view] == ["q0", "a0", "q1"]

    arun(go())


def test_background_mode_never_blocks_reads():
    async def go():
        gate = asyncio.Event()
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1,
                                     summarizer=RecordingSummarizer(gate=gate), background=True)
        await feed(session, [user("q0"), assistant("a0"), user("q1")])
        view = await asyncio.wait_for(session.get_items(), 1)
        assert [item_text(i) for i in view] == ["q0", "a0", "q1"]  # shown until folded
        assert session.summarizing
        gate.set()
        await session.flush()
        assert not session.summarizing and session.summary.turns == (1, 1)

    arun(go())


def test_pop_into_the_folded_prefix_and_clear_reset_the_summary():
    async def go():
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1,
                                     summarizer=RecordingSummarizer())
        await feed(session, [user("q0"), assistant("a0"), user("q1")])
        assert session.summary is not None
        assert item_text(await session.pop_item()) == "q1"
        assert session.summary is not None  # it still describes items 0-1, which remain
        # ... and the last turn is shown verbatim too (K=1 turns always are)
        assert [item_text(i) for i in await session.get_items()] == [
            item_text(user(session.summary.shadow)), "SUMMARY[1]: q0 | a0", "q0", "a0"]
        assert item_text(await session.pop_item()) == "a0"
        assert session.summary is None  # the log shrank into the folded prefix
        assert await session.get_items() == [user("q0")]
        await session.add_items([assistant("a0b"), user("q1b")])
        assert session.summary is not None and session.summary.items == (0, 2)
        await session.clear_session()
        assert session.summary is None and await session.get_items() == []

    arun(go())


def test_clear_during_a_fold_discards_its_result():
    async def go():
        gate = asyncio.Event()
        summarizer = RecordingSummarizer(gate=gate)
        session = SummarizingSession(keep_last_n_turns=1, context_limit=1,
                                     summarizer=summarizer, background=True)
        await feed(session, [user("q0"), assistant("a0"), user("q1")])
        await until(lambda: summarizer.calls)
        await session.clear_session()
        gate.set()
        await session.flush()
        assert session.summary is None and session.summaries_discarded == 1
        assert await session.get_items() == []

    arun(go())


def test_fifty_writers_with_a_slow_summarizer():
    async def go():
        summarizer = RecordingSummarizer(delay=0.02)
        session = SummarizingSession(keep_last_n_turns=3, context_limit=5, summarizer=summarizer,
                                     background=True)

        async def writer(w: int) -> None:
            for k in range(20):
                await session.add_items([user(f"w{w}-{k}")])
                await session.add_items([assistant(f"r{w}-{k}")])
                if k % 5 == 0:
                    assert validate_items(await session.get_items()) == []

        await asyncio.gather(*(writer(w) for w in range(50)))
        await session.flush()
        raw = await session.raw_items()
        texts = [item_text(i) for i in raw]
        expected = [f"{p}{w}-{k}" for w in range(50) for k in range(20) for p in ("w", "r")]
        assert sorted(texts) == sorted(expected)  # every item exactly once
        view = await session.get_items()
        assert validate_items(view) == []
        synthetic = [e for e in await session.ledger() if e.index is None]
        assert [e.kind for e in synthetic] == ["summary_prompt", "summary"]
        first, last = session.summary.turns
        starts = [t.start for t in segment_turns(raw).turns]
        assert first == 1 and session.summary.items == (starts[0], starts[last])
        assert summarizer.max_active == 1
        folded = [it for c in summarizer.calls for it in c["items"][2 if c["previous"] else 0:]]
        assert folded == raw[: starts[last]]  # contiguous prefix, each item folded once

    arun(go())


def test_testing_summarizers_fail_then_recover_and_delay():
    from ctxlab.summarizers.testing import FailingSummarizer, SlowSummarizer

    async def go():
        flaky = FailingSummarizer(failures=1)
        session = SummarizingSession(1, 1, flaky)
        await feed(session, [user("q0"), assistant("a0"), user("q1")])
        assert session.summary is None and "unavailable" in session.last_error
        await session.add_items([assistant("a1")])
        assert session.summary is not None and flaky.calls == 2
        slow = SummarizingSession(1, 1, SlowSummarizer(delay=0.05), background=True)
        await feed(slow, [user("q0"), assistant("a0"), user("q1")])
        assert slow.summarizing
        await slow.flush()
        assert slow.summary is not None

    arun(go())
    with pytest.raises(ValueError, match="failures"):
        FailingSummarizer(failures=-1)


def test_default_summarizer_follows_the_backend(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the OpenAI client reads it; no request
    from ctxlab.course.backends import choose_backend, default_summarizer
    from ctxlab.summarizers import ExtractiveSummarizer, LLMSummarizer

    assert isinstance(default_summarizer(choose_backend({})), ExtractiveSummarizer)
    openai = default_summarizer(choose_backend({"OPENAI_API_KEY": "sk-test"}))
    assert isinstance(openai, LLMSummarizer) and openai.resolved_api() == "responses"
    local = default_summarizer(choose_backend({"OPENAI_BASE_URL": "http://localhost:11434/v1",
                                               "CTXLAB_MODEL": "llama3.2"}))
    assert isinstance(local, LLMSummarizer) and local.resolved_api() == "chat"
    assert local.model == "llama3.2"
