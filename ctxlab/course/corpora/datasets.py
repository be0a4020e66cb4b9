"""The packaged transcripts: tau-bench airline (200, MIT), ABCD (3, MIT) and ctxlab's own
Chinese support conversations (14, CC BY 4.0); see ``ctxlab/data/README.md`` for sources and
licenses."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from ...core.items import item_kind, item_text
from .convert import chat_to_responses
from .records import (
    Conversation,
    Fact,
    assistant,
    call,
    locate_facts,
    output,
    user,
)

# ---------------------------------------------------------------------------- packaged data


def _data_text(*parts: str) -> str:
    path = resources.files("ctxlab").joinpath("data", *parts)
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _tau_raw() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(_data_text("tau_bench_airline", "gpt-4o-airline.json")))


#: Argument keys of tau-bench's ground-truth actions whose values are facts.
TAU_FACT_KEYS: tuple[str, ...] = (
    "user_id",
    "reservation_id",
    "flight_number",
    "date",
    "dob",
    "payment_id",
)

# How this compares with ``airline_fact_index.derived.jsonl`` (shipped next to the data):
# that index keeps every *string argument that contains a digit*. The rule above names the
# identifier keys instead, and the two agree on 160 of the 200 transcripts. The other 40
# differ on purpose, in two ways (tests/test_corpora.py checks exactly this):
# * the index also keeps free text that happens to hold a digit: the ``summary`` of
#   ``transfer_to_human_agents`` and the ``expression`` of ``calculate`` (28 transcripts);
#   neither is something a customer or agent would have to remember verbatim;
# * the index misses reservation codes made of letters only (HXDUBJ, PUNERT, SDZQKO;
#   12 transcripts), which are identifiers like any other.
# Airport codes, cabins, names and plain amounts are left out by both.


def _tau_facts(actions: Any) -> dict[str, list[str]]:
    """Identifier values of the ground-truth actions, by argument key, each value once."""
    found: dict[str, list[str]] = {}
    seen: set[str] = set()

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif key in TAU_FACT_KEYS and isinstance(value, str) and value and value not in seen:
            seen.add(value)
            found.setdefault(key, []).append(value)

    for action in actions or []:
        walk(action.get("kwargs", {}), None)
    return found


@lru_cache(maxsize=2)
def _tau_conversations(include_policy: bool) -> tuple[Conversation, ...]:
    conversations = []
    for record in _tau_raw():
        traj = record["traj"]
        task = record["info"]["task"]
        name = f"tau-airline-{record['task_id']}-{record['trial']}"
        items = chat_to_responses(traj)  # drops the policy (message 0, role system)
        if include_policy and traj and traj[0]["role"] == "system":
            items.insert(0, {"role": "developer", "content": traj[0]["content"]})
        meta = {
            "task_id": record["task_id"],
            "trial": record["trial"],
            "reward": record["reward"],
            "user_id": task.get("user_id"),
            "instruction": task.get("instruction"),
            "actions": task.get("actions", []),
        }
        facts = locate_facts(items, _tau_facts(task.get("actions")))
        conversations.append(Conversation(name, "tau_bench_airline", items, facts, meta))
    return tuple(conversations)


def load_tau_bench(*, include_policy: bool = False, limit: int | None = None) -> list[Conversation]:
    """The 200 tau-bench airline transcripts (50 tasks x 4 trials, a GPT-4o agent) as items.

    Each conversation's id is ``"tau-airline-<task_id>-<trial>"``; ``meta`` holds
    ``task_id``, ``trial``, ``reward`` (1.0 when the agent solved the task), ``user_id``,
    ``instruction`` (the simulated customer's hidden goal) and ``actions`` (the correct
    tool calls). The facts are the identifier values of those actions, named by argument
    key (see :data:`TAU_FACT_KEYS`).

    The airline policy (the system prompt) is left out by default, as the SDK never stores
    instructions; ``include_policy=True`` puts it first as a ``developer`` message (a
    preamble, which belongs to no turn). ``limit`` returns only the first ``limit``.
    The file is parsed once; every call returns fresh copies.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
    built = _tau_conversations(bool(include_policy))
    chosen = built if limit is None else built[:limit]
    return [c.copy() for c in chosen]


#: ABCD scenario keys whose values are facts (``personal`` first, then ``order``). Left out:
#: ``full_address`` (street, city, state and zip joined with a stray double space, never said
#: as such), ``products`` (a Python repr), ``num_products`` and ``packaging`` (flags).
ABCD_FACT_KEYS: dict[str, tuple[str, ...]] = {
    "personal": ("customer_name", "email", "phone", "username", "member_level"),
    "order": (
        "order_id",
        "street_address",
        "city",
        "state",
        "zip_code",
        "purchase_date",
        "payment_method",
    ),
}


@lru_cache(maxsize=1)
def _abcd_conversations() -> tuple[Conversation, ...]:
    conversations = []
    for record in json.loads(_data_text("abcd_sample", "abcd_sample.json")):
        convo_id = record["convo_id"]
        items: list[dict[str, Any]] = []
        actions = 0
        for n, (speaker, text) in enumerate(record["original"]):
            if speaker == "customer":
                items.append({"role": "user", "content": text})
            elif speaker == "agent":
                items.append(assistant(text))
            elif speaker == "action":
                actions += 1
                call_id = f"abcd-{convo_id}-action-{actions}"
                args = json.dumps({"note": text}, ensure_ascii=False)
                items.append(call(call_id, "agent_action", args))
                items.append(output(call_id, text))
            else:  # pragma: no cover - the shipped data has only these speakers
                raise ValueError(f"abcd convo {convo_id} line {n}: unknown speaker {speaker!r}")
        scenario = record["scenario"]
        values = {
            key: scenario[group][key]
            for group, keys in ABCD_FACT_KEYS.items()
            for key in keys
            if isinstance(scenario.get(group, {}).get(key), str) and scenario[group][key]
        }
        # The scenario stores values lowercased ("crystal minh") while the chat has "Crystal
        # Minh"; short values such as the state "ny" must not match inside "any".
        facts = locate_facts(items, values, ignore_case=True, whole_word=True)
        meta = {
            "convo_id": convo_id,
            "flow": scenario.get("flow"),
            "subflow": scenario.get("subflow"),
            "scenario": scenario,
        }
        conversations.append(Conversation(f"abcd-{convo_id}", "abcd", items, facts, meta))
    return tuple(conversations)


def load_abcd() -> list[Conversation]:
    """The 3 ABCD sample chats (human agent and customer), as Responses items.

    Customer lines become user messages and agent lines assistant messages, one item per
    chat line. An *action* (the note the agent's console writes when they click a button,
    such as "Account has been pulled up for ...") becomes a ``function_call`` named
    ``agent_action`` with arguments ``{"note": ...}`` and a ``function_call_output`` that
    repeats the note; call ids are ``"abcd-<convo_id>-action-<n>"``.

    The facts are the scenario's personal and order values (see :data:`ABCD_FACT_KEYS`),
    located case-insensitively and as whole words; values the chat never mentions have
    ``first_item=None``. ``meta`` holds ``convo_id``, ``flow``, ``subflow`` and the
    whole ``scenario``.
    """
    return [c.copy() for c in _abcd_conversations()]


# ---------------------------------------------------------------------------- Chinese support

#: What ``Conversation.source`` is for the Chinese support corpus.
ZH_SOURCE = "zh_support"


def _ascii_bounded(value: str) -> re.Pattern[str]:
    # Chinese has no spaces: "型号是BCD-123，" must find BCD-123, so only ASCII letters and
    # digits count as "more of the same word" (as KeyFact.found_in matches values).
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])")


def _first_item(texts: Sequence[str], value: str) -> int | None:
    pattern = _ascii_bounded(value)
    return next((i for i, text in enumerate(texts) if pattern.search(text)), None)


def _zh_items(conv_id: str, lines: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    calls = 0
    for n, line in enumerate(lines):
        role = line[0] if line else None
        if role == "user" and len(line) == 2:
            items.append(user(line[1]))
        elif role == "assistant" and len(line) == 2:
            items.append(assistant(line[1]))
        elif role == "tool" and len(line) == 4:
            calls += 1
            call_id = f"{conv_id}-call-{calls}"
            items.append(call(call_id, line[1], json.dumps(line[2], ensure_ascii=False)))
            items.append(output(call_id, json.dumps(line[3], ensure_ascii=False)))
        else:  # pragma: no cover - the shipped data is checked by the tests
            raise ValueError(f"zh_support {conv_id} line {n}: expected [user|assistant, text] "
                             f"or [tool, name, arguments, result], got {line!r}")
    return items


@lru_cache(maxsize=1)
def _zh_conversations() -> tuple[Conversation, ...]:
    document = json.loads(_data_text("zh_support", "zh_support.json"))
    conversations = []
    for record in document["conversations"]:
        conv_id = record["id"]
        items = _zh_items(conv_id, record["lines"])
        texts = [item_text(it) for it in items]
        facts = []
        for name, raw in record["facts"].items():
            for value in [raw] if isinstance(raw, str) else raw:
                first = _first_item(texts, value)
                where = item_kind(items[first]) if first is not None else None
                facts.append(Fact(name, value, first, where))
        updates = []
        for update in record.get("updates", []):
            start = _first_item(texts, update.get("from", update["new"]))
            updates.append({"fact": update["fact"], "old": update["old"], "new": update["new"],
                            "from_item": start})
        meta = {"title": record["title"], "device": record["device"], "language": "zh",
                "updates": updates}
        conversations.append(Conversation(conv_id, ZH_SOURCE, items, tuple(facts), meta))
    return tuple(conversations)


def load_zh_support() -> list[Conversation]:
    """ctxlab's 14 Chinese IT and appliance support conversations, as Responses items.

    Written for ctxlab (CC BY 4.0): a fridge whose model number BCD-123 is given in the first
    turn and asked about at the end, under warranty-policy lookups full of log noise (the
    source article's example, in our own words), laptops with blue screens, routers,
    washers, phones, printers, VPNs, NAS drives. Each chat plants identifiers (工单号,
    序列号, 型号, 订单号, 邮箱, 手机号, 错误代码, 固件版本, dates), some of which change
    mid-chat (a new e-mail address, a firmware upgrade, a visit moved to another day), the
    customer's constraints (只用邮件联系, 不要寄到快递柜, ...) and the agent's commitments.
    Tool calls are ``function_call`` / ``function_call_output`` pairs with call ids
    ``"<id>-call-<n>"``; their JSON keeps Chinese as is.

    The facts are named by kind (``model``, ``ticket``, ``email``, ...) or as
    ``constraint.<topic>`` / ``commitment.<topic>``; each points at the first item holding
    its value (a value counts when no ASCII letter or digit continues it, since Chinese has
    no spaces). ``meta`` holds ``title``, ``device``, ``language`` (``"zh"``) and
    ``updates``: ``{"fact", "old", "new", "from_item"}`` for every value replaced mid-chat,
    ``from_item`` being the item from which the new value holds.
    """
    return [c.copy() for c in _zh_conversations()]
