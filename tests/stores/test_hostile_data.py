"""Bad input and junk in the store: clear errors that name the item, nothing stored, the
same on every store; entries written behind ctxlab's back are skipped and reported."""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

import pytest

from ctxlab import TrimmingSession, validate_items

from conftest import arun, assistant, user
from store_backends import KINDS, Backend, make_backend

pytestmark = pytest.mark.redis


def circular() -> dict[str, Any]:
    item: dict[str, Any] = {"role": "user", "content": [{"type": "input_text", "text": "x"}]}
    item["content"][0]["self"] = item
    return item


def deep(levels: int) -> dict[str, Any]:
    node: Any = "bottom"
    for _ in range(levels):
        node = {"n": node}
    return {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}",
            "extra": node}


BAD: dict[str, tuple[Any, str]] = {
    "datetime": ({"role": "user", "content": "hi", "at": datetime.datetime(2026, 1, 1)},
                 "at is a datetime, which is not JSON"),
    "bytes": ({"type": "function_call_output", "call_id": "c", "output": "x",
               "blob": b"\x00"}, "blob is a bytes"),
    "set": ({"role": "user", "content": "hi", "tags": {"a"}}, "tags is a set"),
    "non-str key": ({"role": "user", "content": "hi", "meta": {1: "x"}},
                    "meta has a key that is not a string"),
    "huge int": ({"role": "user", "content": "hi", "n": 10**30}, "beyond 64 bits"),
    "too deep": (deep(80), "nests deeper than 64 levels"),
    "circular": (circular(), "circular reference"),
    "lone surrogate": ({"role": "user", "content": "bad \ud800 text"}, "lone surrogate"),
    "text not a string": ({"role": "user", "content": [{"type": "input_text", "text": 5}]},
                          "needs a string 'text'"),
    "unknown part": ({"role": "user", "content": [{"type": "input_video", "url": "x"}]},
                     "unknown type 'input_video'"),
    "nan": ({"role": "user", "content": "hi", "score": math.nan}, "score is nan"),
    "inf": ({"role": "user", "content": "hi", "score": math.inf}, "score is inf"),
    # what OpenAIChatCompletionsModel's converter rejects and no plain form can replace
    "untyped assistant with status": ({"role": "assistant", "content": "hi",
                                       "status": "completed"},
                                      "untyped assistant message with key(s) 'status'"),
    "typed assistant without id, with metadata": (
        {"type": "message", "role": "assistant", "status": "completed", "meta": {"a": 1},
         "content": [{"type": "output_text", "text": "hi", "annotations": []}]},
        "typed assistant message without an 'id'"),
}


#: One backend of each family (validation happens before any store is touched).
REFUSING = ("memory", "sqlite", "redis", "redis-cluster", "postgres", "encrypted")


@pytest.fixture(params=REFUSING)
def backend(request, tmp_path) -> Backend | None:
    if request.param == "memory":
        return None
    return make_backend(request.param, request, tmp_path)


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_item_is_refused_by_index_and_nothing_is_stored(backend, case):
    bad, message = BAD[case]

    async def go():
        store = backend.sdk("bad") if backend else None
        session = TrimmingSession("bad", store=store)
        await session.add_items([user("q1"), assistant("a1")])
        with pytest.raises(ValueError, match="item 1 of 2 is invalid") as caught:
            await session.add_items([user("q2"), bad])
        assert message in str(caught.value)
        assert "Nothing from this batch was stored" in str(caught.value)
        assert await session.raw_items() == [user("q1"), assistant("a1")]
        if backend:  # a fresh reader of the same store sees exactly that too
            other = TrimmingSession("bad", store=backend.sdk("bad"))
            assert await other.raw_items() == [user("q1"), assistant("a1")]
            await backend.aclose()

    arun(go())


@pytest.mark.parametrize("kind", KINDS)
def test_junk_written_behind_ctxlabs_back_is_skipped_and_reported(kind, tmp_path, request):
    backend = make_backend(kind, request, tmp_path)

    async def go():
        session = TrimmingSession("junk", store=backend.sdk("junk"), max_turns=5)
        await session.add_items([user("q1"), assistant("a1")])
        await backend.sdk("junk").add_items([{"foo": 1}])  # a plain SDK session stores anything
        raw_junk = ["not json at all", json.dumps([1, 2]), json.dumps("a string")]
        await backend.write_raw("junk", raw_junk)  # another program, straight into the store
        await session.add_items([user("q2")])
        view = await session.get_items()  # never raises
        assert validate_items(view) == []
        assert view == [user("q1"), assistant("a1"), user("q2")]
        ledger = await session.ledger()
        junk = [e for e in ledger if e.kind == "invalid"]
        assert len(junk) == 1 + len(raw_junk)
        assert all(e.state == "dropped" and e.reason.startswith("not a valid item") for e in junk)
        await backend.aclose()

    arun(go())


TYPED_NO_ID = {"type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Restart the router.",
                            "annotations": []},
                           {"type": "output_text", "text": "Then call back.",
                            "annotations": []}]}


def test_a_typed_assistant_message_without_an_id_is_stored_in_its_plain_form(backend):
    """OpenAIChatCompletionsModel's converter rejects it ("Unhandled item type or
    structure"), so it is stored as {"role": "assistant", "content": text}, which both SDK
    model classes accept (before: stored and served as it was)."""
    from agents.models.chatcmpl_converter import Converter

    async def go():
        store = backend.sdk("typed") if backend else None
        session = TrimmingSession("typed", store=store)
        await session.add_items([user("q1"), TYPED_NO_ID])
        plain = {"role": "assistant", "content": "Restart the router.\nThen call back."}
        assert await session.raw_items() == [user("q1"), plain]
        view = await session.get_items()
        assert validate_items(view) == []
        Converter.items_to_messages(view)  # accepted by the Chat Completions converter
        if backend:
            await backend.aclose()

    arun(go())
