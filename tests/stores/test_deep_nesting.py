"""A tool output nested thousands of levels deep, and a poison row another program wrote:
neither may stop a fold, the Redactor, the compactor, or any read of the session.

Before: ``RecursionError`` in every fold (8 turns shown over ``context_limit=2``, no fold
ever landed), in the Redactor and in the compactor; one such row in Redis or SQLite made
``get_items`` and ``raw_items`` of that session fail for good.
"""

from __future__ import annotations

import json

import pytest

from ctxlab import Redactor, SummarizingSession, TrimmingSession, validate_items
from ctxlab.context.compaction import ToolOutputCompactor, compact_tool_output

from conftest import arun, assistant, call, output, user
from store_backends import KINDS, make_backend

LEVELS = 3000


def deep_text(levels: int = LEVELS) -> str:
    return '{"a":' * levels + '"TCK-40001"' + "}" * levels


def deep_turn(t: int) -> list[list[dict]]:
    cid = f"deep-{t}"
    return [[user(f"question {t} about TCK-4000{t}")],
            [call(cid, name="lookup"), output(cid, deep_text())],
            [assistant(f"answer {t}")]]


def test_folds_land_over_a_deeply_nested_tool_output():
    async def go():
        session = SummarizingSession(1, 2)
        for t in range(8):
            for batch in deep_turn(t):
                await session.add_items(batch)
        await session.flush()
        assert session.last_error is None, session.last_error
        assert session.summary is not None and session.summaries_applied >= 1
        view = await session.get_items()
        assert validate_items(view) == []
        users = [i for i in view if i.get("role") == "user"]
        assert len(users) <= 3  # the summary's request plus at most 2 unfolded turns

    arun(go())


def test_the_redactor_and_the_compactor_read_it_as_text():
    text = deep_text()
    redactor = Redactor()
    assert redactor.redact_output(text) == text  # not JSON to walk: plain text, no crash
    item = output("c1", text)
    assert redactor.redact_item(item)["output"] == text
    preview = compact_tool_output(text, tool="lookup")
    assert preview.startswith("[compacted") or "compacted" in preview
    assert len(preview) < len(text)
    items = [user("q"), call("c1"), item, assistant("a"), user("q2")]
    result = ToolOutputCompactor(keep_recent_turns=0, min_tokens=10).compact(items)
    assert len(result.items) == len(items) and result.items[2]["output"] != text


@pytest.mark.redis
@pytest.mark.parametrize("kind", KINDS)
def test_a_poison_row_from_another_program_never_breaks_reads(kind, tmp_path, request):
    backend = make_backend(kind, request, tmp_path)
    poison = '{"type":"message","x":' + '{"a":' * LEVELS + "1" + "}" * LEVELS + "}"
    json_but_deep = json.dumps({"role": "user", "content": "hi", "x": 1})[:-1] + \
        ', "deep": ' + "[" * 100 + "]" * 100 + "}"

    async def go():
        session = TrimmingSession("poison", store=backend.sdk("poison"), max_turns=5)
        await session.add_items([user("q1"), assistant("a1")])
        await backend.write_raw("poison", [poison, json_but_deep])
        await session.add_items([user("q2")])
        fresh = TrimmingSession("poison", store=backend.sdk("poison"), max_turns=5)
        for reader in (session, fresh):
            assert await reader.get_items() == [user("q1"), assistant("a1"), user("q2")]
            raw = await reader.raw_items()
            assert len(raw) == 5 and raw[-1] == user("q2")
            bad = [e for e in await reader.ledger() if e.kind == "invalid"]
            assert len(bad) == 2 and all("nests deeper than 64 levels" in e.reason
                                         for e in bad), [e.reason for e in bad]
        await backend.aclose()

    arun(go())
