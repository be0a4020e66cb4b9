"""The IT-support agent: its tools over the offline catalog, and make_support_agent."""

from __future__ import annotations

import json
import re

import pytest
from agents import Agent, FunctionTool, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from ctxlab import count_tokens
from ctxlab.course.agent import (
    SUPPORT_INSTRUCTIONS,
    SUPPORT_TOOLS,
    check_warranty,
    get_ticket_status,
    lookup_device,
    make_support_agent,
)
from ctxlab.course.backends import choose_backend
from ctxlab.course.offline import DEVICES, TICKETS, OfflineSupportModel
from ctxlab.course.offline.catalog import AS_OF, rma_number

from conftest import arun

set_tracing_disabled(True)


def invoke(tool: FunctionTool, **arguments: str) -> dict:
    """Call a function tool the way the Runner does, and parse its JSON."""
    args = json.dumps(arguments)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="t1", tool_arguments=args)
    return json.loads(arun(tool.on_invoke_tool(ctx, args)))


def test_the_three_tools_have_the_expected_names_and_arguments():
    assert [t.name for t in SUPPORT_TOOLS] == [
        "lookup_device",
        "check_warranty",
        "get_ticket_status",
    ]
    params = {t.name: set(t.params_json_schema["properties"]) for t in SUPPORT_TOOLS}
    assert params == {
        "lookup_device": {"serial"},
        "check_warranty": {"serial"},
        "get_ticket_status": {"ticket_id"},
    }
    assert all(t.description for t in SUPPORT_TOOLS)


@pytest.mark.parametrize("serial", sorted(DEVICES))
def test_lookup_device_returns_a_bulky_deterministic_record(serial):
    record = invoke(lookup_device, serial=serial)
    assert record["serial"] == serial
    for key in ("model", "purchase_date", "firmware", "owner_email"):
        assert record[key] == DEVICES[serial][key]
    assert len(record["diagnostics"]["event_log"]) > 10
    assert len(record["diagnostics"]["sensor_readings"]) > 10
    tokens = count_tokens(json.dumps(record))
    assert 1500 <= tokens <= 3000, tokens
    assert invoke(lookup_device, serial=serial.lower()) == record


def test_lookup_records_differ_between_devices():
    first, second = (invoke(lookup_device, serial=s) for s in sorted(DEVICES)[:2])
    assert first["diagnostics"] != second["diagnostics"]


def test_warranty_is_covered_with_an_rma_or_expired_without_one():
    covered = [s for s, d in DEVICES.items() if d["warranty_end"] >= AS_OF]
    expired = [s for s, d in DEVICES.items() if d["warranty_end"] < AS_OF]
    assert "C02XK1ZJG8WP" in covered and expired
    for serial in covered:
        result = invoke(check_warranty, serial=serial)
        assert result["status"] == "covered"
        assert result["end_date"] == DEVICES[serial]["warranty_end"]
        assert re.fullmatch(r"RMA-\d{6}", result["rma"])
        assert result["rma"] == rma_number(serial) == invoke(check_warranty, serial=serial)["rma"]
    for serial in expired:
        result = invoke(check_warranty, serial=serial)
        assert result["status"] == "expired" and "rma" not in result
    rmas = {rma_number(s) for s in DEVICES}
    assert len(rmas) == len(DEVICES)


def test_ticket_status_has_status_owner_and_last_update():
    result = invoke(get_ticket_status, ticket_id="TCK-48213")
    assert result["ticket_id"] == "TCK-48213"
    assert {"status", "owner", "last_update"} <= result.keys()
    assert result["status"] == TICKETS["TCK-48213"]["status"]
    assert invoke(get_ticket_status, ticket_id="48213") == result
    assert invoke(get_ticket_status, ticket_id=" tck-48213 ") == result


@pytest.mark.parametrize(
    ("tool", "argument", "value", "named"),
    [
        (lookup_device, "serial", "NOSUCHSERIAL1", "NOSUCHSERIAL1"),
        (check_warranty, "serial", "ZZZ", "ZZZ"),
        (get_ticket_status, "ticket_id", "TCK-00000", "TCK-00000"),
        (check_warranty, "serial", "  ", "empty"),
        (get_ticket_status, "ticket_id", "", "empty"),
    ],
)
def test_unknown_identifiers_give_an_error_field_not_an_exception(tool, argument, value, named):
    result = invoke(tool, **{argument: value})
    assert set(result) <= {"error", argument} and named in result["error"]


def test_the_instructions_name_the_tools_and_the_working_rules():
    text = " ".join(SUPPORT_INSTRUCTIONS.split())
    for tool in SUPPORT_TOOLS:
        assert tool.name in text
    assert "numbered list" in text and "one focused clarifying question" in text
    assert "Never make one up" in text


def test_make_support_agent_defaults_to_the_chosen_backend(monkeypatch):
    for key in ("CTXLAB_BACKEND", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CTXLAB_MODEL"):
        monkeypatch.delenv(key, raising=False)
    agent = make_support_agent()
    assert isinstance(agent, Agent)
    assert isinstance(agent.model, OfflineSupportModel)
    assert agent.name == "IT Support" and agent.instructions == SUPPORT_INSTRUCTIONS
    assert [t.name for t in agent.tools] == [t.name for t in SUPPORT_TOOLS]
    agent.tools.clear()
    assert len(make_support_agent().tools) == 3  # each agent gets its own list


def test_make_support_agent_accepts_a_backend_a_model_or_a_name():
    backend = choose_backend({"OPENAI_API_KEY": "sk-test", "CTXLAB_MODEL": "gpt-4.1"})
    assert make_support_agent(backend).model == "gpt-4.1"
    model = OfflineSupportModel()
    assert make_support_agent(model).model is model
    assert make_support_agent("gpt-4.1-mini").model == "gpt-4.1-mini"
    custom = make_support_agent(model, name="Desk", instructions="Be brief.", tools=[])
    assert (custom.name, custom.instructions, custom.tools) == ("Desk", "Be brief.", [])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"model": 42}, TypeError, "model must be None, a ctxlab Backend"),
        ({"model": " "}, ValueError, "model name must not be empty"),
        ({"name": ""}, ValueError, "name must be a non-empty string"),
        ({"instructions": None}, TypeError, "instructions must be a str"),
        ({"tools": "lookup_device"}, TypeError, "tools must be a list"),
    ],
)
def test_make_support_agent_rejects_bad_arguments(kwargs, error, message):
    kwargs.setdefault("model", OfflineSupportModel())
    with pytest.raises(error, match=message):
        make_support_agent(**kwargs)


def test_the_runner_runs_the_real_tools_for_a_scripted_model():
    """The seed conversation's tool calls (exact names and arguments) work as written."""
    model = ScriptedModel(
        [
            [
                function_call("get_ticket_status", {"ticket_id": "TCK-48213"}, call_id="s1"),
                function_call("check_warranty", {"serial": "C02XK1ZJG8WP"}, call_id="s2"),
                function_call("lookup_device", {"serial": "unknown-1"}, call_id="s3"),
            ],
            [assistant_message("done")],
        ]
    )
    result = arun(Runner.run(make_support_agent(model), "status please"))
    outputs = {
        item.raw_item["call_id"]: json.loads(item.output)
        for item in result.new_items
        if item.type == "tool_call_output_item"
    }
    assert outputs["s1"]["status"] == TICKETS["TCK-48213"]["status"]
    assert outputs["s2"]["rma"] == rma_number("C02XK1ZJG8WP")
    assert "error" in outputs["s3"]
