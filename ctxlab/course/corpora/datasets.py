"""The packaged real transcripts: tau-bench airline (200, MIT) and ABCD (3, MIT); see
``ctxlab/data/README.md`` for sources and licenses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from .convert import chat_to_responses
from .records import (
    Conversation,
    assistant,
    call,
    locate_facts,
    output,
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
