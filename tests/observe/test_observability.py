"""Context-debug records and token alerts, hooked into the real Runner."""

from __future__ import annotations

import json
import logging

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel

from ctxlab import SummarizingSession, TrimmingSession, validate_items
from ctxlab.core.digest import canonical_json
from ctxlab.core.items import model_safe
from ctxlab.core.redaction import Redactor
from ctxlab.core.session_ids import InvalidSessionIdError
from ctxlab.observe import RECORD_SECTIONS, ContextDebugLog, TokenAlert, TokenMonitor

from conftest import arun
from fakes import RecordingSummarizer, warranty_script

set_tracing_disabled(True)

SECRET = "serial C02XK1ZJG8WP"


@function_tool
def check_warranty(serial: str) -> str:
    """Warranty status for a device serial number."""
    return json.dumps({"serial": serial, "warranty": "covered", "owner": "dana@example.com"})


def agent_for(model: ScriptedModel) -> Agent:
    return Agent(name="support", instructions="Help with devices.", model=model,
                 tools=[check_warranty])


async def converse(session, debug, turns: int, model: ScriptedModel) -> None:
    agent = agent_for(model)
    for t in range(turns):
        await Runner.run(agent, f"question {t} about {SECRET}", session=session,
                         run_config=RunConfig(call_model_input_filter=debug))


def test_one_record_per_model_call_with_sections_and_ledger_diffs(tmp_path):
    model = ScriptedModel(warranty_script(4))
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
        # The Runner reads the session before it stores a run's input: turn 3's calls are
        # sent turns 1-2 (the two-turn window), so turn 1 is still kept there; turn 4's
        # first call is the one without it: kept -> dropped
        assert records[4]["ledger_diff"]["changed"] == {}
        assert records[6]["ledger_diff"]["changed"] == {"kept->dropped": [[0, 3]]}
        assert records[-1]["ledger"]["counts"]["dropped"] == 4

    arun(go())


class LedgerKeepingLog(ContextDebugLog):
    """Keeps the ledger each record was written from (to compare with the model input)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ledgers: list = []

    async def _call_ledger(self, ledger, items):
        ledger = await super()._call_ledger(ledger, items)
        self.ledgers.append(ledger)
        return ledger


class AheadLog(LedgerKeepingLog):
    """The first edition's log, kept as the broken variant: it reports the session's ledger
    as read during the call, after this run's input moved the window."""

    async def _call_ledger(self, ledger, items):
        self.ledgers.append(ledger)
        return ledger


def ledger_errors(session, log: LedgerKeepingLog, model: ScriptedModel) -> list[str]:
    """Calls whose logged ledger says an item was sent that the model did not get, or not
    sent when it did (checked against the model's own record of its input)."""
    raw = arun(session.raw_items())
    keys = [canonical_json(model_safe(item)) for item in raw]
    errors = []
    for number, (ledger, call) in enumerate(zip(log.ledgers, model.calls, strict=True), 1):
        sent = {canonical_json(model_safe(item)) for item in call.input}
        stored = {e.index for e in ledger if e.index is not None}
        kept = {e.index for e in ledger if e.index is not None and e.state == "kept"}
        really = {i for i in stored if keys[i] in sent}
        if kept != really:
            errors.append(f"call {number}: logged as kept {sorted(kept)}, sent {sorted(really)}")
    # the sections too: every tool output the model got is counted as a tool output
    counter = session.token_counter
    for record, call in zip(log.records(), model.calls, strict=True):
        outputs = sum(counter.count_item(item) for item in call.input
                      if item.get("type") == "function_call_output")
        if record["sections"]["tool_outputs"] != outputs:
            errors.append(f"call {record['call']}: {record['sections']['tool_outputs']} "
                          f"tool-output tokens logged, {outputs} sent")
    return errors


@pytest.mark.parametrize("make", [
    lambda: TrimmingSession("trim", max_turns=2),
    lambda: TrimmingSession("trim1", max_turns=1),
    lambda: SummarizingSession(1, 2, RecordingSummarizer(), session_id="fold"),
], ids=["trim 2", "trim 1", "summarize 1/2"])
def test_the_logged_ledger_is_the_one_each_call_was_sent(tmp_path, make):
    model = ScriptedModel(warranty_script(5))
    session = make()
    debug = LedgerKeepingLog(session, tmp_path)
    arun(converse(session, debug, 5, model))
    assert len(debug.ledgers) == len(model.calls) == 10
    assert ledger_errors(session, debug, model) == []
    for ledger, record in zip(debug.ledgers, debug.records(), strict=True):
        assert record["ledger"]["counts"] == ledger.counts()
        # what the ledger says is sent adds up to the input (the synthetic items included)
        sent = [e for e in ledger if e.state in ("kept", "summary")]
        assert len(sent) == record["items"]
    # the broken variant, on the same conversation, reports items one turn ahead
    model = ScriptedModel(warranty_script(5))
    session = make()
    ahead = AheadLog(session, tmp_path / "ahead")
    arun(converse(session, ahead, 5, model))
    assert ledger_errors(session, ahead, model) != []


def test_production_mode_writes_metadata_only(tmp_path):
    model = ScriptedModel(warranty_script(2))
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
    model = ScriptedModel(warranty_script(1))
    session = TrimmingSession("red", max_turns=4)
    debug = ContextDebugLog(session, tmp_path, redactor=Redactor())

    async def go():
        await converse(session, debug, 1, model)
        text = debug.path.read_text()
        assert "dana@example.com" not in text and "[email]" in text
        assert SECRET in text  # only what the redactor's rules cover is removed

    arun(go())


def test_a_fold_shows_as_kept_to_summarized_in_the_diff(tmp_path):
    model = ScriptedModel(warranty_script(4))
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
    model = ScriptedModel(warranty_script(3))
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

    model = ScriptedModel(warranty_script(4))
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
    model = ScriptedModel(warranty_script(1))
    session = TrimmingSession("ok", max_turns=2)
    debug = ContextDebugLog(session, blocked)

    async def go():
        with caplog.at_level(logging.WARNING, logger="ctxlab.debug"):
            result = await Runner.run(agent_for(model), "hello", session=session,
                                      run_config=RunConfig(call_model_input_filter=debug))
        assert result.final_output == "Turn 0 done."
        assert "could not write the context-debug record of session 'ok'" in caplog.text

    arun(go())


def test_call_ledger_without_the_served_view_matches_the_newest_copies():
    from ctxlab.observe.call_ledger import call_ledger

    session = TrimmingSession("dupes", max_turns=2)
    items = []
    for n in range(4):  # the same reply in every turn: content alone cannot tell them apart
        items += [{"role": "user", "content": f"question {n}"},
                  {"role": "assistant", "content": "ok"}]
    arun(session.add_items(items))
    served = arun(session.get_items())  # turns 3-4, as the Runner reads them
    arun(session.add_items([{"role": "user", "content": "question 4"}]))  # then stores
    model_input = [*served, {"role": "user", "content": "question 4"}]
    now = arun(session.ledger())
    assert now[4].state == "dropped"  # read during the call, the window has moved on
    for layout in (session.served_layout(), None):  # by turn, or from the end of the log
        ledger = call_ledger(now, arun(session.raw_items()), model_input,
                             session.token_counter, layout)
        assert [e.state for e in ledger] == ["dropped"] * 4 + ["kept"] * 5
        assert [e.position for e in ledger][4:] == [0, 1, 2, 3, 4]
        assert "window has moved" in ledger[4].reason
