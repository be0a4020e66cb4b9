"""Hypothesis strategies for random conversations in the shapes the Agents SDK stores
(with either model class: OpenAIChatCompletionsModel's items carry a placeholder id and
provider_data)."""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import strategies as st

_ids = itertools.count()


def _next(prefix: str) -> str:
    return f"{prefix}_{next(_ids)}"


@st.composite
def user_message(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(st.text(min_size=1, max_size=30))
    if draw(st.booleans()):
        return {"role": "user", "content": text}
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


#: What OpenAIChatCompletionsModel adds to the items it stores (a placeholder id and
#: provider_data, which the SDK's converters read or remove).
_CHAT_ID = "__fake_id__"


def _chat_data() -> dict[str, Any]:
    return {"model": "llama3.2", "response_id": _next("chatcmpl")}


@st.composite
def assistant_message(draw: st.DrawFn) -> dict[str, Any]:
    text = draw(st.text(max_size=30))
    form = draw(st.sampled_from(["plain", "responses", "chat"]))
    if form == "plain":
        return {"role": "assistant", "content": text}
    item = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "id": _next("msg") if form == "responses" else _CHAT_ID,
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if form == "chat":
        item["provider_data"] = _chat_data()
    return item


@st.composite
def tool_round(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An optional reasoning item, 1-3 parallel calls, then their outputs (any order)."""
    items: list[dict[str, Any]] = []
    if draw(st.booleans()):
        items.append({"type": "reasoning", "id": _next("rs"), "summary": []})
    n = draw(st.integers(1, 3))
    calls = []
    for _ in range(n):
        kind = draw(st.sampled_from(["function_call", "function_call", "custom_tool_call"]))
        call_id = _next("call")
        if kind == "function_call":
            calls.append(
                {
                    "type": "function_call",
                    "call_id": call_id,
                    "name": draw(st.sampled_from(["lookup", "warranty", "transfer_to_billing"])),
                    "arguments": json.dumps({"q": draw(st.text(max_size=8))}),
                }
            )
            if draw(st.integers(0, 3)) == 0:  # as OpenAIChatCompletionsModel stores it
                calls[-1] |= {"id": _CHAT_ID, "provider_data": _chat_data()}
        else:
            calls.append({"type": "custom_tool_call", "call_id": call_id, "name": "grep",
                          "input": draw(st.text(max_size=8))})
    items.extend(calls)
    outputs = [
        {
            "type": c["type"] + "_output",
            "call_id": c["call_id"],
            "output": draw(st.text(max_size=20)),
        }
        for c in calls
    ]
    items.extend(draw(st.permutations(outputs)))
    return items


@st.composite
def turn(draw: st.DrawFn) -> list[dict[str, Any]]:
    items = [draw(user_message())]
    for _ in range(draw(st.integers(0, 2))):
        items.extend(draw(tool_round()))
    if draw(st.integers(0, 4)) > 0:
        if draw(st.booleans()):
            items.append({"type": "reasoning", "id": _next("rs"), "summary": []})
        items.append(draw(assistant_message()))
    if draw(st.integers(0, 6)) == 0:
        items.append({"type": "web_search_call", "id": _next("ws"), "status": "completed",
                      "action": {"type": "search", "query": "x"}})
    return items


@st.composite
def history(draw: st.DrawFn, max_turns: int = 12) -> list[dict[str, Any]]:
    """A well-formed conversation: optional preamble, then whole turns."""
    items: list[dict[str, Any]] = []
    if draw(st.integers(0, 3)) == 0:
        items.append({"role": "developer", "content": "Be brief."})
    for _ in range(draw(st.integers(0, max_turns))):
        items.extend(draw(turn()))
    return items


@st.composite
def messy_history(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A history with damage the Runner can leave or users can add: orphan outputs,
    unanswered calls, dangling reasoning, outputs before their calls."""
    items = draw(history(max_turns=8))
    for _ in range(draw(st.integers(1, 4))):
        damage = draw(st.sampled_from(["orphan", "open_call", "dangling_reasoning", "swap"]))
        pos = draw(st.integers(0, len(items)))
        if damage == "orphan":
            items.insert(pos, {"type": "function_call_output", "call_id": _next("ghost"),
                               "output": "stale"})
        elif damage == "open_call":
            items.insert(pos, {"type": "function_call", "call_id": _next("open"),
                               "name": "lookup", "arguments": "{}"})
        elif damage == "dangling_reasoning":
            items.insert(pos, {"type": "reasoning", "id": _next("rs"), "summary": []})
        elif len(items) >= 2:
            i = min(pos, len(items) - 2)
            items[i], items[i + 1] = items[i + 1], items[i]
    return items


@st.composite
def hard_history(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A history real agents produce on bad days, still well formed for the API once
    pending calls are set aside: calls that never get an output (an approval that never
    comes, a crashed tool) and outputs that arrive in a later turn than their call."""
    items = draw(history(max_turns=10))
    starts = [i for i, it in enumerate(items) if it.get("role") == "user"]
    for _ in range(draw(st.integers(1, 3))):
        if not starts:
            break
        kind = draw(st.sampled_from(["pending", "late"]))
        where = draw(st.sampled_from(starts))
        call_id = _next("hard")
        new_call = {"type": "function_call", "call_id": call_id, "name": "issue_refund",
                    "arguments": "{}"}
        items.insert(where + 1, new_call)
        if kind == "late":  # its output lands in a later turn (or at the very end)
            later = [s + 1 for s in starts if s > where] + [len(items)]
            pos = draw(st.sampled_from(later))
            items.insert(min(pos + 1, len(items)), {"type": "function_call_output",
                                                     "call_id": call_id, "output": "late"})
        starts = [i for i, it in enumerate(items) if it.get("role") == "user"]
    return items


def batches(draw: st.DrawFn, items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split ``items`` into consecutive batches, as several add_items calls would."""
    out: list[list[dict[str, Any]]] = []
    i = 0
    while i < len(items):
        size = draw(st.integers(1, 4))
        out.append(items[i : i + size])
        i += size
    return out
