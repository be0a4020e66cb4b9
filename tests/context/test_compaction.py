"""Tool-output compaction: what previews keep, where they apply, and the SDK comparison."""

from __future__ import annotations

import copy
import json

import pytest
from agents import Runner, set_tracing_disabled
from agents.extensions import ToolOutputTrimmer
from agents.run_config import CallModelData, ModelInputData, RunConfig

from ctxlab import (
    OfflineSupportModel,
    TrimmingSession,
    count_tokens,
    find_identifiers,
    item_text,
    make_support_agent,
    validate_items,
)
from ctxlab.context.compaction import (
    COMPACTED_MARK,
    ToolOutputCompactor,
    compact_tool_output,
)
from ctxlab.course.offline import catalog
from ctxlab.facts.identifiers import STRICT_KINDS

from conftest import arun, assistant, call, output, user

set_tracing_disabled(True)

DEVICE = json.dumps(catalog.device_record("C02XK1ZJG8WP"))
SEARCH = json.dumps({
    "results": [
        {"ticket_id": f"TCK-{40000 + n}", "title": f"Laptop issue {n}",
         "description": "The customer reports intermittent shutdowns under load. " * 3,
         "opened": f"2026-10-{n + 1:02d}"}
        for n in range(8)
    ],
    "next_page_token": "PAGE-2",
    "status": "ok",
})


def conversation(payload: str = DEVICE, name: str = "lookup_device") -> list[dict]:
    return [
        user("My laptop C02XK1ZJG8WP overheats."),
        call("c1", name=name, serial="C02XK1ZJG8WP"),
        output("c1", payload),
        assistant("It is a MacBook Pro; the event log shows thermal warnings."),
        user("Is it under warranty?"),
        call("c2", name="check_warranty", serial="C02XK1ZJG8WP"),
        output("c2", json.dumps(catalog.warranty_status("C02XK1ZJG8WP"))),
        assistant("Yes, until 2027-03-14."),
        user("Thanks. What should I do next?"),
    ]


def strict_identifiers(text: str) -> set[str]:
    return {i.value for i in find_identifiers(text)
            if i.kind in STRICT_KINDS and i.kind not in ("date", "time")}


def test_json_preview_keeps_key_fields_identifiers_and_list_sizes():
    preview = compact_tool_output(DEVICE, tool="lookup_device")
    assert preview.startswith(f"{COMPACTED_MARK}lookup_device output:")
    for value in ("C02XK1ZJG8WP", "dana.kim@northwind.example", "10151.121.1",
                  "MacBook Pro 14-inch (2021, M1 Pro)", "event_log: [18 items]"):
        assert value in preview
    assert all(value in preview for value in strict_identifiers(DEVICE))
    assert "32 timestamps 2026-11-10T14:58:00Z … 2026-11-30T14:30:00Z" in preview
    assert count_tokens(preview) < count_tokens(DEVICE) / 5


def test_status_fields_after_a_bulky_list_are_kept():
    preview = compact_tool_output(SEARCH, tool="search_tickets")
    data = json.loads(preview.splitlines()[1])
    assert data["status"] == "ok" and data["next_page_token"] == "PAGE-2"
    assert data["results"] == "[8 items]"
    for n in range(8):
        assert f"TCK-{40000 + n}" in preview


def test_text_preview_is_the_head_plus_identifiers_of_the_rest():
    text = "Log line without anything special.\n" * 40 + "fatal: error code 0x80070005 (TCK-77001)"
    preview = compact_tool_output(text, tool="read_log", head_chars=80)
    assert preview.splitlines()[1] == "Log line without anything special."
    assert "more chars]" in preview
    assert preview.endswith("identifiers: 0x80070005; TCK-77001")


def test_compact_replaces_older_outputs_only_and_never_touches_the_input():
    items = conversation()
    before = copy.deepcopy(items)
    result = ToolOutputCompactor(keep_recent_turns=1, min_tokens=100).compact(items)
    assert items == before  # the stored items are unchanged
    assert result.items[2]["output"].startswith(COMPACTED_MARK)
    assert result.items[6] is items[6]  # small output: left alone
    assert [c.tool for c in result.compacted] == ["lookup_device"]
    assert result.tokens_saved > 1_500
    assert validate_items(result.items) == []
    again = ToolOutputCompactor(keep_recent_turns=1, min_tokens=100).compact(result.items)
    assert again.compacted == ()  # idempotent


def test_recent_turns_allow_and_deny_lists_and_size_threshold():
    items = conversation()
    assert ToolOutputCompactor(keep_recent_turns=3).compact(items).compacted == ()
    assert ToolOutputCompactor(tools=["check_warranty"]).compact(items).compacted == ()
    assert ToolOutputCompactor(exclude_tools="lookup_device").compact(items).compacted == ()
    assert ToolOutputCompactor(min_tokens=5_000).compact(items).compacted == ()
    low = ToolOutputCompactor(min_tokens=10, keep_recent_turns=1).compact(items)
    assert "lookup_device" in {c.tool for c in low.compacted}
    assert all(c.tokens_after < c.tokens_before for c in low.compacted)  # only if smaller
    everything = ToolOutputCompactor(keep_recent_turns=0, min_tokens=100)
    assert len(everything.compact(items[:3]).compacted) == 1


def test_bad_options_raise_value_errors():
    with pytest.raises(ValueError, match="keep_recent_turns"):
        ToolOutputCompactor(keep_recent_turns=-1)
    with pytest.raises(ValueError, match="tools"):
        ToolOutputCompactor(tools=[""])
    with pytest.raises(ValueError, match="head_chars"):
        ToolOutputCompactor(head_chars=-5)
    with pytest.raises(ValueError, match="a str"):
        compact_tool_output({"a": 1})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="list of items"):
        ToolOutputCompactor().compact("not items")  # type: ignore[arg-type]


def test_keeps_identifiers_the_sdk_tool_output_trimmer_drops():
    for payload, name in ((DEVICE, "lookup_device"), (SEARCH, "search_tickets")):
        items = conversation(payload, name)
        data = CallModelData(model_data=ModelInputData(input=items, instructions=None),
                             agent=None, context=None)  # type: ignore[arg-type]
        ours = ToolOutputCompactor(keep_recent_turns=2, min_tokens=100)(data).input[2]["output"]
        theirs = ToolOutputTrimmer(recent_turns=2)(data).input[2]["output"]
        wanted = strict_identifiers(payload)
        kept_ours = {v for v in wanted if v in ours}
        kept_theirs = {v for v in wanted if v in theirs}
        assert kept_ours == wanted
        assert len(kept_theirs) < len(wanted) / 2
        assert count_tokens(ours) < count_tokens(payload) / 4


def test_as_a_filter_under_the_runner_it_removes_the_lookup_spike_from_later_calls():
    questions = ["My laptop C02XK1ZJG8WP overheats", "Can you look up the device details?",
                 "Is it under warranty?", "What was my serial number?"]

    async def run(run_config: RunConfig | None):
        agent = make_support_agent(OfflineSupportModel())
        session = TrimmingSession("spike", max_turns=50)
        usage = []
        for q in questions:
            result = await Runner.run(agent, q, session=session, run_config=run_config)
            usage.append([r.usage.input_tokens for r in result.raw_responses])
        return usage, await session.raw_items()

    plain, raw_plain = arun(run(None))
    compacted, raw_compacted = arun(run(RunConfig(call_model_input_filter=ToolOutputCompactor())))
    assert plain[1] == compacted[1]  # the turn that asked for the lookup sees it in full
    spike = plain[1][1] - plain[1][0]
    assert spike > 1_900
    assert plain[3][0] - compacted[3][0] > 0.8 * spike  # later calls no longer pay for it
    assert [item_text(i) for i in raw_plain] == [item_text(i) for i in raw_compacted]
    assert any(item_text(i) == DEVICE for i in raw_compacted)  # stored in full


def test_comparison_with_the_sdk_trimmer_on_the_seed_conversation():
    from ctxlab import seed_support_conversation
    from ctxlab.context.compaction import compare_with_sdk_trimmer

    ours, sdk = compare_with_sdk_trimmer(seed_support_conversation().items)
    assert ours.name.startswith("ctxlab") and sdk.name.startswith("SDK")
    assert ours.identifiers == sdk.identifiers > 5
    assert ours.identifiers_kept == ours.identifiers
    assert sdk.identifiers_kept < ours.identifiers_kept
    assert ours.tokens_after < ours.tokens_before / 1.5
