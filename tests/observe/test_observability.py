"""Context-debug records and token alerts, hooked into the real Runner."""

from __future__ import annotations

import json
import logging

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from ctxlab import SummarizingSession, TrimmingSession, validate_items
from ctxlab.core.redaction import Redactor
from ctxlab.core.session_ids import InvalidSessionIdError
from ctxlab.observe import RECORD_SECTIONS, ContextDebugLog, TokenAlert, TokenMonitor

from conftest import arun
from fakes import RecordingSummarizer

set_tracing_disabled(True)

SECRET = "serial C02XK1ZJG8WP"


@function_tool
def check_warranty(serial: str) -> str:
    """Warranty status for a device serial number."""
    return json.dumps({"serial": serial, "warranty": "covered", "owner": "dana@example.com"})


def script(turns: int) -> list:
    steps = []
    for t in range(turns):
        steps.append([function_call("check_warranty", {"serial": f"SN-{t}"}, call_id=f"c{t}")])
        steps.append([assistant_message(f"Turn {t} done.", item_id=f"m{t}")])
    return steps


def agent_for(model: ScriptedModel) -> Agent:
    return Agent(name="support", instructions="Help with devices.", model=model,
                 tools=[check_warranty])


async def converse(session, debug, turns: int, model: ScriptedModel) -> None:
    agent = agent_for(model)
    for t in range(turns):
        await Runner.run(agent, f"question {t} about {SECRET}", session=session,
                         run_config=RunConfig(call_model_input_filter=debug))


def test_one_record_per_model_call_with_sections_and_ledger_diffs(tmp_path):
    model = ScriptedModel(script(4))
    session = TrimmingSession(max_turns=2, store=SQLiteSession("dbg", tmp_path / "chat.db"))
    debug = ContextDebugLog(session, tmp_path / "logs", monitor=TokenMonitor(10_000))

    async def go():
        await converse(session, debug, 4, model)
        records = debug.records()
        assert debug.path == tmp_path / "logs" / "dbg.jsonl"
        assert len(records) == len(model.calls) == 8  # two model calls per turn
        for record, call in zip(records, model.calls, strict=True):
            assert record["input"] == call.input  # observed, not changed
            assert validate_items(call.input, check_keys=False) == []
            assert set(record["sections"]) == set(RECORD_SECTIONS)
            assert record["input_tokens"] == sum(record["sections"].values())
            assert record["sections"]["instructions"] > 0 and record["sections"]["tools"] > 0
            assert record["session_id"] == "dbg" and record["mode"] == "development"
            assert record["instructions"] == "Help with devices." and record["alert"] is None
        first, second = records[0], records[1]
        assert first["ledger_diff"]["first"] and first["ledger_diff"]["added"] == [[0, 0]]
        assert first["item_sections"] == ["new_input"]
        # the tool round between the two calls of turn 1 shows up as added items
        assert second["ledger_diff"]["added"] == [[1, 2]]
        assert second["item_sections"] == ["new_input", "recent_turns", "tool_outputs"]
        # turn 3 pushes turn 1 out of the two-turn window: kept -> dropped
        third_turn = records[4]["ledger_diff"]
        assert third_turn["changed"] == {"kept->dropped": [[0, 3]]}
        assert records[-1]["ledger"]["counts"]["dropped"] == 8

    arun(go())


def test_production_mode_writes_metadata_only(tmp_path):
    model = ScriptedModel(script(2))
    session = TrimmingSession("prod", max_turns=4)
    debug = ContextDebugLog(session, tmp_path, mode="production")

    async def go():
        await converse(session, debug, 2, model)
        text = debug.path.read_text()
        assert SECRET not in text and "dana@example.com" not in text and "Help with" not in text
        record = debug.records()[-1]
        assert "input" not in record and "instructions" not in record
        assert record["item_kinds"] == ["user", "tool_call", "tool_output", "assistant", "user",
                                        "tool_call", "tool_output"]
        assert record["mode"] == "production" and record["input_tokens"] > 0

    arun(go())


def test_development_records_can_be_redacted(tmp_path):
    model = ScriptedModel(script(1))
    session = TrimmingSession("red", max_turns=4)
    debug = ContextDebugLog(session, tmp_path, redactor=Redactor())

    async def go():
        await converse(session, debug, 1, model)
        text = debug.path.read_text()
        assert "dana@example.com" not in text and "[email]" in text
        assert SECRET in text  # only what the redactor's rules cover is removed

    arun(go())


def test_a_fold_shows_as_kept_to_summarized_in_the_diff(tmp_path):
    model = ScriptedModel(script(4))
    session = SummarizingSession(1, 2, RecordingSummarizer(), session_id="fold")
    debug = ContextDebugLog(session, tmp_path)

    async def go():
        await converse(session, debug, 4, model)
        diffs = [r["ledger_diff"] for r in debug.records()]
        folded = [d for d in diffs if "kept->summarized" in d["changed"]]
        assert folded and all(d["synthetic_changed"] for d in folded)
        assert any(r["sections"]["summary"] > 0 for r in debug.records())

    arun(go())


def test_token_monitor_alerts_when_a_call_exceeds_the_limit(tmp_path):
    model = ScriptedModel(script(3))
    session = TrimmingSession("busy", max_turns=8)
    seen: list[TokenAlert] = []

    async def on_alert(alert: TokenAlert) -> None:
        seen.append(alert)

    monitor = TokenMonitor(200, on_alert)

    async def go():
        await converse(session, monitor.input_filter(session), 3, model)
        usage = monitor.usage["busy"]
        assert len(usage) == 6 and usage == sorted(usage)  # context grows call by call
        assert seen == monitor.alerts and seen
        assert all(a.input_tokens > 200 and a.session_id == "busy" for a in seen)
        assert [a.call for a in seen] == [i + 1 for i, t in enumerate(usage) if t > 200]
        assert "over the limit of 200" in str(seen[0]) and seen[0].agent == "support"

    arun(go())


def test_token_monitor_alerts_when_a_fold_keeps_failing():
    from ctxlab.summarizers.testing import FailingSummarizer

    model = ScriptedModel(script(4))
    session = SummarizingSession(1, 2, FailingSummarizer(RecordingSummarizer(), failures=99))
    monitor = TokenMonitor(100_000, lambda alert: None)

    async def go():
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await converse(session, monitor.input_filter(session), 4, model)
        assert session.last_error and session.summary is None
        alerts = [a for a in monitor.alerts if a.reason]
        assert alerts, "a failing fold must raise an alert, not only a log line"
        assert "over context_limit=2" in alerts[-1].reason and "failed" in str(alerts[-1])
        assert all(a.input_tokens < 100_000 for a in alerts)  # not a token-limit alert

    arun(go())


def test_token_monitor_logs_by_default_and_checks_its_arguments(caplog):
    monitor = TokenMonitor(5)

    async def go():
        with caplog.at_level(logging.WARNING, logger="ctxlab.monitor"):
            assert await monitor.record("s", 3) is None
            alert = await monitor.record("s", 9, agent="a")
        assert alert is not None and alert.call == 2
        assert "session 's' (agent 'a'): model call 2 sends 9 input tokens" in caplog.text

    arun(go())
    with pytest.raises(ValueError, match="limit must be an integer >= 1"):
        TokenMonitor(0)
    with pytest.raises(ValueError, match="on_alert must be callable"):
        TokenMonitor(5, on_alert="print")  # type: ignore[arg-type]


def test_bad_configuration_is_reported_and_logging_failures_never_break_a_run(tmp_path,
                                                                              caplog):
    with pytest.raises(ValueError, match="mode must be one of"):
        ContextDebugLog(TrimmingSession("x"), tmp_path, mode="verbose")  # type: ignore[arg-type]
    with pytest.raises(InvalidSessionIdError, match="the log file name"):
        ContextDebugLog(TrimmingSession("a/b"), tmp_path)
    with pytest.raises(ValueError, match="needs a ctxlab memory session"):
        ContextDebugLog(SQLiteSession("x"), tmp_path)

    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the logs folder should be")
    model = ScriptedModel(script(1))
    session = TrimmingSession("ok", max_turns=2)
    debug = ContextDebugLog(session, blocked)

    async def go():
        with caplog.at_level(logging.WARNING, logger="ctxlab.debug"):
            result = await Runner.run(agent_for(model), "hello", session=session,
                                      run_config=RunConfig(call_model_input_filter=debug))
        assert result.final_output == "Turn 0 done."
        assert "could not write the context-debug record of session 'ok'" in caplog.text

    arun(go())
