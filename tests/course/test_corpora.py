"""ctxlab.course.corpora: transcripts, seed conversations and user logs as valid items."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ctxlab.core.items import item_kind, item_text, item_type
from ctxlab.core.validate import validate_items
from ctxlab.course.corpora import (
    TAU_FACT_KEYS,
    Conversation,
    Fact,
    chat_to_responses,
    load_abcd,
    load_conversation_file,
    load_tau_bench,
    locate_facts,
    seed_router_flow,
    seed_support_conversation,
    seed_trimming_flow,
)

DATA = resources.files("ctxlab") / "data"


def call_ids(items: list[dict[str, Any]]) -> list[str]:
    return [i["call_id"] for i in items if i.get("type") == "function_call"]


def assert_pairs_complete(items: list[dict[str, Any]]) -> None:
    """Every output follows exactly one call with its id; call ids never repeat."""
    calls = call_ids(items)
    assert len(calls) == len(set(calls))
    seen: set[str] = set()
    answered: set[str] = set()
    for item in items:
        if item.get("type") == "function_call":
            seen.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in seen and item["call_id"] not in answered
            answered.add(item["call_id"])
    assert answered == set(calls)


def assert_facts_point_at_items(
    conv: Conversation, *, ignore_case: bool = False, whole_word: bool = False
) -> None:
    """Each fact's first_item contains its value and no earlier item does (an independent check)."""

    def has(item: dict[str, Any], value: str) -> bool:
        text = item_text(item)
        if ignore_case:
            text, value = text.casefold(), value.casefold()
        if not whole_word:
            return value in text
        padded = f" {text} "  # a match must not touch a letter, digit or underscore

        def word(c: str) -> bool:
            return c.isalnum() or c == "_"

        return any(
            not word(padded[start - 1]) and not word(padded[start + len(value)])
            for start in range(1, len(padded) - len(value))
            if padded.startswith(value, start)
        )

    for fact in conv.facts:
        if fact.first_item is None:
            assert fact.where is None
            assert not any(has(i, fact.value) for i in conv.items), fact
            continue
        item = conv.items[fact.first_item]
        assert has(item, fact.value), fact
        assert fact.where == item_kind(item)
        assert not any(has(i, fact.value) for i in conv.items[: fact.first_item]), fact


# ---------------------------------------------------------------------------- tau-bench


@pytest.fixture(scope="module")
def tau() -> list[Conversation]:
    return load_tau_bench()


@pytest.fixture(scope="module")
def tau_raw() -> list[dict[str, Any]]:
    return json.loads((DATA / "tau_bench_airline" / "gpt-4o-airline.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def fact_index() -> list[dict[str, Any]]:
    text = (DATA / "tau_bench_airline" / "airline_fact_index.derived.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_tau_bench_has_200_valid_conversations(tau: list[Conversation]) -> None:
    assert len(tau) == 200
    assert len({c.id for c in tau}) == 200
    for conv in tau:
        assert re.fullmatch(r"tau-airline-\d+-\d", conv.id)
        assert conv.source == "tau_bench_airline"
        assert validate_items(conv.items) == [], conv.id
        assert_pairs_complete(conv.items)
        assert conv.turn_count >= 1
        assert conv.items[0] == {"role": "user", "content": conv.items[0]["content"]}
        assert {"task_id", "trial", "reward", "instruction", "actions"} <= set(conv.meta)


def test_tau_bench_messages_map_one_to_one(
    tau: list[Conversation], tau_raw: list[dict[str, Any]]
) -> None:
    for conv, record in zip(tau, tau_raw, strict=True):
        traj = record["traj"]
        assert conv.id == f"tau-airline-{record['task_id']}-{record['trial']}"
        assert conv.turn_count == sum(m["role"] == "user" for m in traj)
        n_calls = sum(len(m.get("tool_calls") or []) for m in traj)
        assert len(call_ids(conv.items)) == n_calls
        texts = [m["content"] for m in traj if m["role"] == "assistant" and m["content"]]
        assistant = [item_text(i) for i in conv.items if item_kind(i) == "assistant"]
        assert assistant == texts


def test_tau_bench_renames_reused_call_ids_consistently(tau: list[Conversation]) -> None:
    # Transcript 0-0 reuses two ids: the second use of each is renamed, call and output alike.
    items = tau[0].items
    ids = call_ids(items)
    assert ids.count("call_oIHazX6yQrB8hUwl4cRilFKj") == 1
    assert "call_oIHazX6yQrB8hUwl4cRilFKj__2" in ids
    renamed = next(i for i, it in enumerate(items) if it.get("call_id", "").endswith("__2"))
    assert items[renamed]["type"] == "function_call"
    assert items[renamed + 1] == {
        "type": "function_call_output",
        "call_id": items[renamed]["call_id"],
        "output": items[renamed + 1]["output"],
    }
    assert sum(any(i.endswith("__2") for i in call_ids(c.items)) for c in tau) == 49


def _message_of_item(traj: list[dict[str, Any]]) -> list[int]:
    """For the default conversion (policy dropped): the message index of each item."""
    owners: list[int] = []
    for index, message in enumerate(traj):
        if message["role"] == "system":
            continue
        if message["role"] == "assistant":
            count = (1 if message["content"] else 0) + len(message.get("tool_calls") or [])
        else:
            count = 1
        owners.extend([index] * count)
    return owners


def test_tau_bench_facts_agree_with_derived_index(
    tau: list[Conversation], tau_raw: list[dict[str, Any]], fact_index: list[dict[str, Any]]
) -> None:
    """The index keeps every string argument holding a digit; ours names identifier keys.

    They must differ only where documented: the index adds free text (``summary``,
    ``expression``) and misses letter-only reservation codes. Where both list a value, the
    first mention is the same message.
    """
    exact = 0
    for conv, record, entry in zip(tau, tau_raw, fact_index, strict=True):
        assert (entry["task_id"], entry["trial"]) == (conv.meta["task_id"], conv.meta["trial"])
        theirs = {f["value"]: f["first_msg_any"] for f in entry["facts"]}
        ours = {f.value: f for f in conv.facts}
        free_text = {
            value
            for action in record["info"]["task"]["actions"]
            for key, value in action["kwargs"].items()
            if key in ("summary", "expression")
        }
        assert set(theirs) - set(ours) <= free_text, conv.id
        for value in set(ours) - set(theirs):
            assert ours[value].name == "reservation_id" and not re.search(r"\d", value)
        exact += set(ours) == set(theirs)
        owners = _message_of_item(record["traj"])
        assert len(owners) == len(conv.items)
        for value in set(ours) & set(theirs):
            fact = ours[value]
            mapped = None if fact.first_item is None else owners[fact.first_item]
            assert mapped == theirs[value], (conv.id, value)
        assert all(f.name in TAU_FACT_KEYS for f in conv.facts)
        assert_facts_point_at_items(conv)
    assert exact == 160


def test_tau_bench_facts_are_named_by_argument_key(tau: list[Conversation]) -> None:
    facts = {(f.name, f.value) for f in tau[0].facts}
    assert facts == {
        ("user_id", "mia_li_3668"),
        ("flight_number", "HAT136"),
        ("flight_number", "HAT039"),
        ("date", "2024-05-20"),
        ("dob", "1990-04-05"),
        ("payment_id", "certificate_7504069"),
        ("payment_id", "credit_card_4421486"),
    }
    first = next(f for f in tau[0].facts if f.name == "user_id")
    assert (first.first_item, first.where) == (2, "user")
    assert tau[0].facts_mentioned() == tau[0].facts
    unmentioned = next(c for c in tau if c.id == "tau-airline-1-0")
    assert unmentioned.facts == (Fact("reservation_id", "Z7GOZK", None, None),)
    assert unmentioned.facts_mentioned() == ()


def test_tau_bench_policy_and_limit(tau: list[Conversation]) -> None:
    with_policy = load_tau_bench(include_policy=True, limit=3)
    assert [c.id for c in with_policy] == [c.id for c in tau[:3]]
    for conv, plain in zip(with_policy, tau[:3], strict=True):
        assert conv.items[0]["role"] == "developer"
        assert conv.items[0]["content"].startswith("# Airline Agent Policy")
        assert conv.items[1:] == plain.items
        assert conv.turn_count == plain.turn_count
        assert validate_items(conv.items) == []
        shifted = [None if f.first_item is None else f.first_item + 1 for f in plain.facts]
        assert [f.first_item for f in conv.facts] == shifted
    assert load_tau_bench(limit=0) == []
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="limit"):
            load_tau_bench(limit=bad)  # type: ignore[arg-type]


def test_loaders_return_independent_copies() -> None:
    first = load_tau_bench(limit=1)[0]
    first.items[0]["content"] = "changed"
    first.items.clear()
    first.meta["actions"].clear()
    again = load_tau_bench(limit=1)[0]
    assert again.items and again.items[0]["content"] != "changed"
    assert again.meta["actions"]

    abcd = load_abcd()
    abcd[0].items[0]["content"] = "changed"
    abcd[0].meta["scenario"]["personal"].clear()
    fresh = load_abcd()[0]
    assert fresh.items[0]["content"] != "changed"
    assert fresh.meta["scenario"]["personal"]

    seed = seed_support_conversation()
    seed.items.pop()
    assert len(seed_support_conversation().items) == len(seed.items) + 1


# ---------------------------------------------------------------------------- ABCD


def test_abcd_conversations_are_valid_with_action_pairs() -> None:
    convs = load_abcd()
    assert [c.id for c in convs] == ["abcd-3592", "abcd-9489", "abcd-3695"]
    raw = json.loads((DATA / "abcd_sample" / "abcd_sample.json").read_text("utf-8"))
    for conv, record in zip(convs, raw, strict=True):
        assert conv.source == "abcd"
        assert validate_items(conv.items) == []
        assert_pairs_complete(conv.items)
        lines = record["original"]
        actions = [text for speaker, text in lines if speaker == "action"]
        assert len(conv.items) == len(lines) + len(actions)
        assert conv.turn_count == sum(speaker == "customer" for speaker, _ in lines)
        calls = [i for i in conv.items if item_type(i) == "function_call"]
        assert [json.loads(c["arguments"])["note"] for c in calls] == actions
        assert all(c["name"] == "agent_action" for c in calls)
        outputs = [i["output"] for i in conv.items if item_type(i) == "function_call_output"]
        assert outputs == actions
        assert conv.meta["flow"] == record["scenario"]["flow"]
        assert_facts_point_at_items(conv, ignore_case=True, whole_word=True)


def test_abcd_facts_come_from_the_scenario() -> None:
    by_id = {c.id: c for c in load_abcd()}
    first = by_id["abcd-3592"]
    mentioned = {f.name: f for f in first.facts_mentioned()}
    assert set(mentioned) == {
        "customer_name", "email", "phone", "username", "member_level", "order_id",
    }
    name = mentioned["customer_name"]
    assert name.value == "crystal minh"  # the scenario's spelling; the chat says "Crystal Minh"
    assert first.items[name.first_item]["content"] == "Crystal Minh"
    assert mentioned["order_id"].value == "3348917502" and mentioned["order_id"].where == "user"
    # "ny" (the state) is not found inside words such as "any".
    state = next(f for f in first.facts if f.name == "state")
    assert state.value == "ny" and state.first_item is None
    second = {f.name: f for f in by_id["abcd-9489"].facts_mentioned()}
    assert second["payment_method"].value == "credit card"
    assert second["payment_method"].where == "assistant"
    assert "phone" not in second
    assert by_id["abcd-3695"].facts_mentioned() == ()
    assert len(by_id["abcd-3695"].facts) == 7


# ---------------------------------------------------------------------------- chat_to_responses


def test_chat_text_and_tool_calls_in_one_message() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Where is order 7?"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "find", "arguments": '{"order": 7}'}},
                {"id": "c2", "type": "function",
                 "function": {"name": "eta", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c2", "name": "eta", "content": "tomorrow"},
        {"role": "tool", "tool_call_id": "c1", "content": None},
        {"role": "assistant", "content": "It arrives tomorrow."},
    ]
    items = chat_to_responses(messages)
    assert items == [
        {"role": "user", "content": "Where is order 7?"},
        {"role": "assistant", "content": "Let me check."},
        {"type": "function_call", "call_id": "c1", "name": "find", "arguments": '{"order": 7}'},
        {"type": "function_call", "call_id": "c2", "name": "eta", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": "tomorrow"},
        {"type": "function_call_output", "call_id": "c1", "output": ""},
        {"role": "assistant", "content": "It arrives tomorrow."},
    ]
    assert validate_items(items) == []
    kept = chat_to_responses(messages, keep_system=True)
    assert kept[0] == {"role": "system", "content": "Be brief."}
    assert kept[1:] == items


def test_chat_none_and_list_content() -> None:
    messages = [
        {"role": "developer", "content": [{"type": "text", "text": "Rule one."}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "See the photo."},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
            ],
        },
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "t", "type": "function", "function": {"name": "look", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "t",
         "content": [{"type": "text", "text": "a cat"}, {"type": "text", "text": "a hat"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A cat"},
                                          {"type": "text", "text": " in a hat."}]},
        {"role": "assistant", "content": None, "refusal": "I can't say more."},
        {"role": "assistant", "content": None},
        {"role": "user", "content": None},
    ]
    items = chat_to_responses(messages, keep_system=True)
    assert items[0] == {"role": "developer", "content": "Rule one."}
    assert items[1] == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "See the photo."},
            {"type": "input_image", "image_url": "https://x.test/a.png", "detail": "auto"},
        ],
    }
    assert items[2]["type"] == "function_call"  # no empty assistant message before it
    assert items[3]["output"] == "a cat\na hat"
    assert items[4] == {"role": "assistant", "content": "A cat\n in a hat."}
    assert items[5] == {"role": "assistant", "content": "I can't say more."}  # a refusal's text
    assert items[6] == {"role": "user", "content": ""}  # the empty assistant message is gone
    assert len(items) == 7
    assert validate_items(items) == []


def test_chat_reused_call_ids_are_renamed_deterministically() -> None:
    def round_(cid: str, name: str) -> list[dict[str, Any]]:
        fn = {"name": name, "arguments": "{}"}
        return [
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": cid, "type": "function", "function": fn}]},
            {"role": "tool", "tool_call_id": cid, "content": name},
        ]

    messages = [
        {"role": "user", "content": "go"},
        *round_("a", "one"),
        *round_("a", "two"),
        *round_("a__2", "three"),  # the transcript itself uses the first candidate name
        *round_("a", "four"),
    ]
    items = chat_to_responses(messages)
    pairs = [(i["call_id"], i.get("name") or i["output"]) for i in items[1:]]
    assert pairs == [
        ("a", "one"), ("a", "one"),
        ("a__3", "two"), ("a__3", "two"),
        ("a__2", "three"), ("a__2", "three"),
        ("a__4", "four"), ("a__4", "four"),
    ]
    assert validate_items(items) == []
    assert chat_to_responses(messages) == items


@pytest.mark.parametrize(
    ("messages", "pattern"),
    [
        ({"role": "user", "content": "hi"}, "list of Chat Completions messages"),
        ("hello", "list of Chat Completions messages"),
        ([{"role": "user", "content": "a"}, "oops"], r"message 1: expected a dict, got str"),
        ([{"content": "no role"}], r"message 0: has no 'role'"),
        ([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}],
         r"message 1: unknown role 'bot'"),
        ([{"role": "function", "name": "f", "content": "x"}], r"message 0: .*legacy 'function'"),
        ([{"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "x", "content": ""}],
         r"message 1: tool message answers call id 'x', which no earlier"),
        ([{"role": "tool", "content": "x"}], r"message 0: tool message has no 'tool_call_id'"),
        (
            [
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ]},
                {"role": "tool", "tool_call_id": "c", "content": "1"},
                {"role": "tool", "tool_call_id": "c", "content": "2"},
            ],
            r"message 2: .*'c', whose call was already answered",
        ),
        (
            [{"role": "user", "content": "a"},
             {"role": "assistant", "content": None, "tool_calls": [
                 {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}
             ]}],
            r"message 1: tool call 0 \('f'\) has arguments of type dict",
        ),
        ([{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f"}}]}],
         r"message 0: tool call 0 has no 'id'"),
        ([{"role": "assistant", "tool_calls": {"id": "c"}}], r"message 0: 'tool_calls' must be"),
        ([{"role": "user", "content": 42}], r"message 0: content must be"),
        ([{"role": "user", "content": [{"type": "video"}]}],
         r"message 0: content part 0 has unsupported type 'video'"),
        ([{"role": "assistant", "content": None, "function_call": {"name": "f"}}],
         r"message 0: the legacy 'function_call'"),
    ],
)
def test_chat_errors_name_the_message(messages: Any, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        chat_to_responses(messages)


# ---------------------------------------------------------------------------- locate_facts


def test_locate_facts_modes_and_errors() -> None:
    items = [
        {"role": "user", "content": "Order 4200 for Crystal, not any other"},
        {"type": "function_call", "call_id": "c", "name": "lookup", "arguments": '{"e": 42}'},
        {"type": "function_call_output", "call_id": "c", "output": "error 42"},
    ]
    plain = locate_facts(items, {"code": "42", "name": "crystal", "state": "ny"})
    assert [(f.first_item, f.where) for f in plain] == [(0, "user"), (None, None), (0, "user")]
    loose = locate_facts(
        items, {"code": ["42", "42"], "name": "crystal", "state": "ny"},
        ignore_case=True, whole_word=True,
    )
    assert loose == (
        Fact("code", "42", 1, "tool_call"),
        Fact("name", "crystal", 0, "user"),
        Fact("state", "ny", None, None),
    )
    with pytest.raises(ValueError, match="'code' value 0"):
        locate_facts(items, {"code": ""})
    with pytest.raises(ValueError, match="'code' value 1"):
        locate_facts(items, {"code": ["42", 42]})  # type: ignore[list-item]
    with pytest.raises(ValueError, match="fact 'code'"):
        locate_facts(items, {"code": 42})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="dict of fact name"):
        locate_facts(items, ["42"])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- seeds


def test_seed_trimming_flow() -> None:
    conv = seed_trimming_flow()
    assert conv.source == "seed" and len(conv.items) == 8 and conv.turn_count == 4
    assert [i["role"] for i in conv.items] == ["user", "assistant"] * 4
    assert all(set(i) == {"role", "content"} and isinstance(i["content"], str) for i in conv.items)
    text = " ".join(i["content"] for i in conv.items[::2])
    for needle in ("MacBook Pro", "v1.0.3", "factory reset", "error 42", "404"):
        assert needle in text
    assert validate_items(conv.items) == []
    assert_facts_point_at_items(conv)
    firmware = next(f for f in conv.facts if f.name == "firmware")
    assert firmware.first_item == 2  # so max_turns=2 (items 4..7) loses it


def test_seed_router_flow() -> None:
    conv = seed_router_flow()
    assert len(conv.items) == 10 and conv.turn_count == 5
    assert [i["role"] for i in conv.items] == ["user", "assistant"] * 5
    first = conv.items[0]["content"]
    for needle in ("router", "Windows 10", "FAQ", "third", "Premium", "US"):
        assert needle in first
    assert "404 not found" in conv.items[8]["content"]
    assert "internet" in conv.items[9]["content"]
    assert validate_items(conv.items) == []
    assert_facts_point_at_items(conv)
    assert {f.name for f in conv.facts if f.first_item == 0} == {
        "device", "os", "contact_count", "plan", "region",
    }


def test_seed_support_conversation() -> None:
    conv = seed_support_conversation()
    items = conv.items
    assert 16 <= conv.turn_count <= 20
    assert validate_items(items) == []
    assert_pairs_complete(items)
    assert "red light" in items[0]["content"] and "blinking" in items[0]["content"]
    calls = [i for i in items if item_type(i) == "function_call"]
    assert [c["name"] for c in calls] == [
        "lookup_device", "check_warranty", "get_ticket_status", "get_ticket_status",
    ]
    for call in calls:
        args = json.loads(call["arguments"])
        key = "ticket_id" if call["name"] == "get_ticket_status" else "serial"
        assert list(args) == [key]
        out = next(i for i in items if i.get("call_id") == call["call_id"] and i is not call)
        assert json.loads(out["output"])[key] == args[key]
    warranty_id = calls[1]["call_id"]
    warranty = next(i for i in items if i.get("call_id") == warranty_id and i is not calls[1])
    rma = json.loads(warranty["output"])["rma"]
    facts = {f.name: f for f in conv.facts}
    assert facts["rma"].value == rma and facts["rma"].where == "tool_output"
    for name in ("ticket_id", "serial", "email", "firmware", "error_code", "rma", "customer_name"):
        assert facts[name].first_item is not None, name
    assert facts["ticket_id"].first_item < 4  # given early, so trimming loses it
    assert_facts_point_at_items(conv)
    # Plain-text messages: the form both SDK model classes (Responses, Chat) accept.
    for item in items:
        if item_kind(item) in ("user", "assistant"):
            assert set(item) == {"role", "content"} and isinstance(item["content"], str)
    # Late turns refer back to facts stated early.
    late = " ".join(item_text(i) for i in items[-16:])
    assert facts["email"].value in late and rma in late


# ---------------------------------------------------------------------------- user logs


def _jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_load_conversation_file_round_trips(tmp_path: Path) -> None:
    conv = seed_support_conversation()
    as_jsonl = _jsonl(tmp_path / "log.jsonl", conv.items)
    assert load_conversation_file(as_jsonl) == conv.items
    as_json = tmp_path / "log.json"
    as_json.write_text(json.dumps(conv.items, indent=2), encoding="utf-8")
    assert load_conversation_file(str(as_json)) == conv.items

    chat = [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": "Status of TCK-1?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "s1", "type": "function",
             "function": {"name": "get_ticket_status", "arguments": '{"ticket_id": "TCK-1"}'}}]},
        {"role": "tool", "tool_call_id": "s1", "content": '{"status": "open"}'},
        {"role": "assistant", "content": "It is open."},
    ]
    expected = chat_to_responses(chat)
    assert load_conversation_file(_jsonl(tmp_path / "chat.jsonl", chat)) == expected
    chat_json = tmp_path / "chat.json"
    chat_json.write_text(json.dumps(chat), encoding="utf-8")
    assert load_conversation_file(chat_json) == expected
    assert load_conversation_file(chat_json, keep_system=True)[0]["role"] == "system"
    # Blank lines are skipped; an empty file is an empty conversation.
    (tmp_path / "gaps.jsonl").write_text('\n{"role": "user", "content": "a"}\n\n', "utf-8")
    assert load_conversation_file(tmp_path / "gaps.jsonl") == [{"role": "user", "content": "a"}]
    (tmp_path / "empty.jsonl").write_text("", "utf-8")
    assert load_conversation_file(tmp_path / "empty.jsonl") == []


def test_load_conversation_file_errors_name_the_line(tmp_path: Path) -> None:
    user = {"role": "user", "content": "hi"}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(user) + "\n\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 3: not valid JSON"):
        load_conversation_file(path)
    with pytest.raises(ValueError, match=r"line 2: expected a JSON object, got list"):
        load_conversation_file(_jsonl(path, [user, [1, 2]]))
    with pytest.raises(ValueError, match=r"line 2: unknown item type 'bogus'"):
        load_conversation_file(_jsonl(path, [user, {"type": "bogus"}]))
    with pytest.raises(ValueError, match=r"line 3: function_call 'arguments' must be a string"):
        load_conversation_file(_jsonl(path, [
            user, user,
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": {}},
        ]))
    orphan = [user, {"role": "tool", "tool_call_id": "zz", "content": "x"}]
    with pytest.raises(ValueError, match=r"line 2: tool message answers call id 'zz'"):
        load_conversation_file(_jsonl(path, orphan))
    mixed = [{"type": "message", "role": "user", "content": []}, orphan[1]]
    with pytest.raises(ValueError, match=r"line 1: a Responses item .* line 2 is a Chat"):
        load_conversation_file(_jsonl(path, mixed))

    listed = tmp_path / "bad.json"
    listed.write_text(json.dumps(orphan), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: message 1: tool message answers"):
        load_conversation_file(listed)
    listed.write_text(json.dumps([user, {"content": "no role or type"}]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: item 1: has neither a 'type' nor a 'role'"):
        load_conversation_file(listed)
    listed.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON \(line 1"):
        load_conversation_file(listed)
