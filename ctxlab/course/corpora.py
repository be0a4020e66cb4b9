"""Conversations to test memory on: real transcripts, the course's examples, your own logs.

Every conversation comes back as a list of Responses input items in the shapes the Agents
SDK stores in a session, so it can be replayed through any memory strategy as it is:

* :func:`load_tau_bench`: 200 airline customer-service transcripts (tau-bench, MIT);
* :func:`load_abcd`: 3 human-to-human customer-service chats (ABCD, MIT);
* :func:`seed_trimming_flow`, :func:`seed_router_flow`, :func:`seed_support_conversation`:
  the course's own example conversations;
* :func:`load_conversation_file`: a log of your own (JSON or JSONL, Chat Completions
  messages or Responses items);
* :func:`chat_to_responses`: the converter from Chat Completions messages underneath.

Each :class:`Conversation` carries :class:`Fact` records: the identifiers a memory strategy
must keep available (reservation codes, ticket numbers, emails, ...), with the index of the
item that first mentions each one. The data files ship inside the package
(``ctxlab/data``, see its README for sources and licenses).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..core.items import clone, item_kind, item_text, shape_problem
from ..core.turns import segment_turns
from .offline.catalog import device_record, rma_number, ticket_status, warranty_status

__all__ = [
    "ABCD_FACT_KEYS",
    "TAU_FACT_KEYS",
    "Conversation",
    "Fact",
    "chat_to_responses",
    "load_abcd",
    "load_conversation_file",
    "load_tau_bench",
    "locate_facts",
    "seed_router_flow",
    "seed_support_conversation",
    "seed_trimming_flow",
]

# ---------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Fact:
    """One value a memory strategy must keep available, and where it first appears.

    ``first_item`` is the index of the first item whose text (:func:`ctxlab.core.items.item_text`)
    contains ``value``; ``where`` is that item's kind (:func:`ctxlab.core.items.item_kind`:
    ``"user"``, ``"assistant"``, ``"tool_call"``, ``"tool_output"``, ...). Both are None
    when the conversation never mentions the value.
    """

    name: str
    value: str
    first_item: int | None
    where: str | None

    @property
    def mentioned(self) -> bool:
        """True when some item of the conversation contains the value."""
        return self.first_item is not None


@dataclass(frozen=True)
class Conversation:
    """A conversation as Responses items, the facts it holds, and where it came from.

    ``items`` is a valid sequence (:func:`ctxlab.core.validate.validate_items` finds nothing);
    ``source`` is ``"tau_bench_airline"``, ``"abcd"`` or ``"seed"``; ``meta`` holds what
    the source knows about it (task id, trial, reward, the customer's hidden instruction,
    the ABCD scenario, ...). Loaders return fresh copies: changing one conversation never
    changes what the next call returns.
    """

    id: str
    source: str
    items: list[dict[str, Any]]
    facts: tuple[Fact, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def turn_count(self) -> int:
        """How many real user turns the conversation has (see :mod:`ctxlab.core.turns`)."""
        return len(segment_turns(self.items).turns)

    def facts_mentioned(self) -> tuple[Fact, ...]:
        """The facts that some item of the conversation contains."""
        return tuple(f for f in self.facts if f.first_item is not None)

    def copy(self) -> Conversation:
        """An independent deep copy (items and meta are copied; facts are immutable)."""
        return Conversation(self.id, self.source, clone(self.items), self.facts, clone(self.meta))

    def fact_ages(self) -> dict[str, int]:
        """For each mentioned fact (``name=value``): how many user turns before the last
        turn it was first mentioned (0 = in the last turn). A trimming window of
        ``max_turns`` still holds a fact at the end of the conversation when its age is
        below ``max_turns``."""
        seg = segment_turns(self.items)
        last = len(seg.turns)
        ages: dict[str, int] = {}
        for fact in self.facts_mentioned():
            turn = seg.turn_of(fact.first_item) if fact.first_item is not None else None
            ages[f"{fact.name}={fact.value}"] = last - (turn or 1)
        return ages


def locate_facts(
    items: Sequence[Mapping[str, Any]],
    values: Mapping[str, str | Sequence[str]],
    *,
    ignore_case: bool = False,
    whole_word: bool = False,
) -> tuple[Fact, ...]:
    """One :class:`Fact` per ``(name, value)``, located in ``items``.

    ``values`` maps a fact name to a value or a list of values (for example
    ``{"error_code": ["42", "404"]}``). By default a value is found where an item's text
    contains it verbatim. ``ignore_case`` compares case-insensitively (for sources that
    store values lowercased, like ABCD's scenarios); ``whole_word`` refuses matches inside
    a longer word or number (so ``"42"`` is not found in ``"4200"``). Facts come back in the
    order given; a repeated ``(name, value)`` pair is listed once.
    """
    if not isinstance(values, Mapping):
        raise ValueError(
            f"values must be a dict of fact name -> value(s), got {type(values).__name__}"
        )
    pairs: list[tuple[str, str]] = []
    for name, raw in values.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"fact name {name!r} must be a non-empty string")
        listed = [raw] if isinstance(raw, str) else raw
        if not isinstance(listed, Sequence):
            raise ValueError(
                f"fact {name!r}: expected a string or a list of strings, got {type(raw).__name__}"
            )
        for n, value in enumerate(listed):
            if not isinstance(value, str) or not value:
                raise ValueError(
                    f"fact {name!r} value {n}: expected a non-empty string, got {value!r}"
                )
            if (name, value) not in pairs:
                pairs.append((name, value))
    texts = [item_text(item) for item in items]
    flags = re.IGNORECASE if ignore_case else 0
    folded = [t.casefold() for t in texts] if ignore_case else texts
    facts: list[Fact] = []
    for name, value in pairs:
        first: int | None = None
        if whole_word:
            pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", flags)
            first = next((i for i, t in enumerate(texts) if pattern.search(t)), None)
        else:
            needle = value.casefold() if ignore_case else value
            first = next((i for i, t in enumerate(folded) if needle in t), None)
        where = item_kind(items[first]) if first is not None else None
        facts.append(Fact(name, value, first, where))
    return tuple(facts)


# ---------------------------------------------------------------------------- Chat -> Responses

_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")


def chat_to_responses(
    messages: Sequence[Mapping[str, Any]], *, keep_system: bool = False
) -> list[dict[str, Any]]:
    """Convert OpenAI Chat Completions messages to Responses input items.

    The items have the shapes the Agents SDK stores in a session:

    * user -> ``{"role": "user", "content": text}`` (a list of parts stays a list, as
      ``input_text`` / ``input_image`` / ``input_file`` parts);
    * assistant text -> ``{"type": "message", "role": "assistant", "status": "completed",
      "content": [{"type": "output_text", "text": ..., "annotations": []}]}`` (a refusal
      becomes a ``refusal`` part); an assistant message with neither text nor tool calls
      produces no item;
    * each assistant tool call -> ``{"type": "function_call", "call_id", "name",
      "arguments"}``, after the assistant's text message when it has both;
    * tool -> ``{"type": "function_call_output", "call_id", "output"}`` (list content is
      joined into one string, None becomes ``""``);
    * system and developer -> dropped (the SDK passes instructions separately and never
      stores them), or kept as ``{"role": ..., "content": text}`` with ``keep_system=True``.

    Call ids are made unique across the conversation, because the Runner de-duplicates items
    by call id: when a transcript issues an id that it already used, that call and the tool
    message answering it get ``<id>__2`` (then ``__3``, ...; skipping any id the transcript
    itself uses). The first use keeps its id, so the renaming is deterministic. A tool message
    answers the oldest unanswered call with its id; a call that no tool message answers is
    left as it is (:func:`ctxlab.core.validate.repair` shows what the API would reject).

    Raises:
        ValueError: naming the message index and the problem, if ``messages`` is not a list,
            a message is not a dict, has no or an unknown role, a tool message answers a call
            id that no earlier assistant message issued, tool call arguments are not a
            string, or content has a shape Chat Completions does not allow.
    """
    return _chat_to_items(messages, keep_system=keep_system, where=lambda i: f"message {i}")


def _chat_to_items(
    messages: Any, *, keep_system: bool, where: Callable[[int], str]
) -> list[dict[str, Any]]:
    if not isinstance(messages, (list, tuple)):
        raise ValueError(
            f"expected a list of Chat Completions messages, got {type(messages).__name__}"
        )
    all_ids = {
        call.get("id")
        for m in messages
        if isinstance(m, Mapping) and isinstance(m.get("tool_calls"), list)
        for call in m["tool_calls"]
        if isinstance(call, Mapping)
    }
    issued: dict[str, int] = {}  # original id -> times issued
    used: set[str] = set()  # ids already given out in the result
    waiting: dict[str, list[str]] = {}  # original id -> new ids still waiting for an output
    items: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        at = where(index)
        if not isinstance(message, Mapping):
            raise ValueError(f"{at}: expected a dict, got {type(message).__name__}")
        if "role" not in message:
            raise ValueError(f"{at}: has no 'role'")
        role = message["role"]
        if role not in _CHAT_ROLES:
            hint = (
                " (the legacy 'function' role is not supported; use tool calls)"
                if role == "function"
                else ""
            )
            raise ValueError(
                f"{at}: unknown role {role!r}; expected one of {list(_CHAT_ROLES)}{hint}"
            )
        content = message.get("content")
        if role in ("system", "developer"):
            if keep_system:
                items.append({"role": role, "content": _plain_text(content, at)})
        elif role == "user":
            items.append({"role": "user", "content": _user_content(content, at)})
        elif role == "assistant":
            if "function_call" in message and message["function_call"] is not None:
                raise ValueError(
                    f"{at}: the legacy 'function_call' field is not supported; use 'tool_calls'"
                )
            parts = _assistant_parts(content, message.get("refusal"), at)
            if parts:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "status": "completed",
                        "content": parts,
                    }
                )
            for call in _tool_calls(message, at):
                original = call["id"]
                count = issued.get(original, 0) + 1
                issued[original] = count
                new_id = original
                if count > 1:
                    suffix = count
                    new_id = f"{original}__{suffix}"
                    while new_id in all_ids or new_id in used:
                        suffix += 1
                        new_id = f"{original}__{suffix}"
                used.add(new_id)
                waiting.setdefault(original, []).append(new_id)
                items.append(
                    {
                        "type": "function_call",
                        "call_id": new_id,
                        "name": call["name"],
                        "arguments": call["arguments"],
                    }
                )
        else:  # tool
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise ValueError(f"{at}: tool message has no 'tool_call_id' string")
            pending = waiting.get(call_id)
            if not pending:
                if call_id in issued:
                    raise ValueError(
                        f"{at}: tool message answers call id {call_id!r}, whose call was "
                        "already answered"
                    )
                raise ValueError(
                    f"{at}: tool message answers call id {call_id!r}, which no earlier "
                    "assistant message issued"
                )
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": pending.pop(0),
                    "output": _plain_text(content, at),
                }
            )
    return items


def _plain_text(content: Any, at: str) -> str:
    """Content as one string: text parts joined by newlines, None as ``""``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for n, part in enumerate(content):
            if not isinstance(part, Mapping) or part.get("type") != "text":
                raise ValueError(
                    f"{at}: content part {n} must be a text part here, got {part!r:.80}"
                )
            texts.append(_text_of(part, n, at))
        return "\n".join(texts)
    raise ValueError(
        f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
    )


def _text_of(part: Mapping[str, Any], n: int, at: str) -> str:
    text = part.get("text")
    if not isinstance(text, str):
        raise ValueError(f"{at}: content part {n} has no 'text' string")
    return text


def _user_content(content: Any, at: str) -> str | list[dict[str, Any]]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ValueError(
            f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
        )
    parts: list[dict[str, Any]] = []
    for n, part in enumerate(content):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text":
            parts.append({"type": "input_text", "text": _text_of(part, n, at)})
        elif kind == "image_url":
            image = part.get("image_url")
            url = image.get("url") if isinstance(image, Mapping) else image
            if not isinstance(url, str):
                raise ValueError(f"{at}: content part {n} (image_url) has no 'url' string")
            detail = image.get("detail", "auto") if isinstance(image, Mapping) else "auto"
            parts.append({"type": "input_image", "image_url": url, "detail": detail})
        elif kind == "file":
            spec = part.get("file")
            if not isinstance(spec, Mapping):
                raise ValueError(f"{at}: content part {n} (file) has no 'file' object")
            file_part: dict[str, Any] = {"type": "input_file"}
            for key in ("file_id", "file_data", "filename"):
                if key in spec:
                    file_part[key] = spec[key]
            parts.append(file_part)
        else:
            raise ValueError(
                f"{at}: content part {n} has unsupported type {kind!r} "
                "(expected 'text', 'image_url' or 'file')"
            )
    return parts


def _assistant_parts(content: Any, refusal: Any, at: str) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if isinstance(content, str):
        if content:
            parts.append({"type": "output_text", "text": content, "annotations": []})
    elif isinstance(content, list):
        for n, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind == "text":
                text = _text_of(part, n, at)
                if text:
                    parts.append({"type": "output_text", "text": text, "annotations": []})
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                parts.append({"type": "refusal", "refusal": part["refusal"]})
            else:
                raise ValueError(
                    f"{at}: assistant content part {n} has unsupported type {kind!r} "
                    "(expected 'text' or 'refusal')"
                )
    elif content is not None:
        raise ValueError(
            f"{at}: content must be a string, a list of parts or None, got {type(content).__name__}"
        )
    if isinstance(refusal, str) and refusal:
        parts.append({"type": "refusal", "refusal": refusal})
    return parts


def _tool_calls(message: Mapping[str, Any], at: str) -> list[dict[str, str]]:
    raw = message.get("tool_calls")
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError(f"{at}: 'tool_calls' must be a list, got {type(raw).__name__}")
    calls: list[dict[str, str]] = []
    for n, call in enumerate(raw):
        if not isinstance(call, Mapping):
            raise ValueError(f"{at}: tool call {n} is not a dict")
        if call.get("type", "function") != "function":
            raise ValueError(
                f"{at}: tool call {n} has type {call.get('type')!r}; only 'function' is supported"
            )
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(f"{at}: tool call {n} has no 'id' string")
        function = call.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise ValueError(f"{at}: tool call {n} has no 'function' with a 'name' string")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            raise ValueError(
                f"{at}: tool call {n} ({function['name']!r}) has arguments of type "
                f"{type(arguments).__name__}; they must be a JSON string"
            )
        calls.append({"id": call_id, "name": function["name"], "arguments": arguments})
    return calls


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
                items.append(_assistant(text))
            elif speaker == "action":
                actions += 1
                call_id = f"abcd-{convo_id}-action-{actions}"
                args = json.dumps({"note": text}, ensure_ascii=False)
                items.append(_call(call_id, "agent_action", args))
                items.append(_output(call_id, text))
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


# ---------------------------------------------------------------------------- item builders


def _assistant(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _output(call_id: str, output: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _tool_round(
    call_id: str, name: str, args: dict[str, Any], result: dict[str, Any]
) -> list[dict[str, Any]]:
    return [_call(call_id, name, json.dumps(args)), _output(call_id, json.dumps(result))]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


# ---------------------------------------------------------------------------- seed conversations


def _untyped(lines: Sequence[str]) -> list[dict[str, Any]]:
    roles = ("user", "assistant")
    return [{"role": roles[n % 2], "content": text} for n, text in enumerate(lines)]


def seed_trimming_flow() -> Conversation:
    """The short chat the trimming lesson starts from: 8 untyped messages, 4 user turns.

    A MacBook Pro that also overheats; firmware v1.0.3 and still failing; a factory reset,
    after which error 42 appears; then error 404 when opening a website. With
    ``max_turns=2`` a trimming session keeps items 4 to 7, and the device and firmware
    are gone from the model's view.
    """
    items = _untyped(
        [
            "I'm on a MacBook Pro, and on top of the other trouble it runs very hot.",
            "Sorry about that. Heat often comes from a stuck process or blocked vents. "
            "Which firmware version is installed?",
            "Firmware v1.0.3, and the problem is still there.",
            "Thanks. Please do a factory reset and tell me what happens afterwards.",
            "I did the factory reset. Now it shows error 42.",
            "Error 42 means a self-test failed during startup. Restart once more and see "
            "whether it comes back.",
            "It booted, but now I get error 404 whenever I open a website.",
            "A 404 means the page itself was not found, so the network is working. Which "
            "address were you opening?",
        ]
    )
    facts = locate_facts(
        items,
        {"device": "MacBook Pro", "firmware": "v1.0.3", "error_code": ["42", "404"]},
        whole_word=True,
    )
    return Conversation("seed-trimming-flow", "seed", items, facts, {"topic": "laptop"})


def seed_router_flow() -> Conversation:
    """The summarizing lesson's chat: 10 untyped messages, 5 user turns about a router.

    The first message carries most of the context (Windows 10, the FAQ did not help, third
    contact, a Premium customer in the US); then firmware v1.0.3 still failing, a reset that
    ends in error 42, a firmware update that fails with another error, and "404 not found"
    on the router's page. The assistant ends by asking whether they are online at all.
    """
    items = _untyped(
        [
            "Hello, my home router will not connect. I'm on Windows 10, your FAQ did not "
            "help, and this is the third time I'm contacting you. I'm a Premium customer "
            "based in the US.",
            "I'm sorry it has taken three contacts. Which firmware version does the router "
            "report on its status page?",
            "It's on firmware v1.0.3 and it still fails.",
            "Please reset the router: hold the reset button for ten seconds, wait two "
            "minutes, and try again.",
            "Reset done. Now the router shows error 42.",
            "Error 42 points to a damaged configuration. Installing the latest firmware "
            "usually clears it.",
            "I tried installing the new firmware, and it stopped with a different error.",
            "Sorry about that. What exactly does the screen say when it stops?",
            "When I open the update page it says 404 not found.",
            "Thanks. Before we go further: is your computer connected to the internet right "
            "now, for example over another network?",
        ]
    )
    facts = locate_facts(
        items,
        {
            "device": "router",
            "os": "Windows 10",
            "contact_count": "third",
            "plan": "Premium",
            "region": "US",
            "firmware": "v1.0.3",
            "error_code": ["42", "404"],
        },
        whole_word=True,
    )
    return Conversation("seed-router-flow", "seed", items, facts, {"topic": "router"})


_TICKET = "TCK-48213"
_SERIAL = "SN-4Q7K-22981"
_EMAIL = "dana.whitfield@example.com"
_RMA = rma_number(_SERIAL)


def seed_support_conversation() -> Conversation:
    """A longer IT-support chat (18 user turns, 4 tool rounds) for the memory lessons.

    A laptop with a blinking red light: a ticket number early, then a serial number, an
    email, firmware v1.0.3, overheating, error 42 after a reset and a 404 on the download
    page. Tool rounds use the course's tools with their exact argument shapes:
    ``lookup_device({"serial": ...})``, ``check_warranty({"serial": ...})`` (its output
    carries the RMA number) and ``get_ticket_status({"ticket_id": ...})`` twice. Later turns
    ask about earlier facts (the email, the RMA, the firmware, the serial), so a memory
    that drops early turns cannot answer them.
    """
    # Tool outputs come from the course's own tool data, so a live run of the agent and this
    # recorded conversation agree (the device record is the bulky ~2,000-token one).
    device = device_record(_SERIAL)
    warranty = warranty_status(_SERIAL)
    status = ticket_status(_TICKET)
    items: list[dict[str, Any]] = [
        _user("Hi, there's a red light blinking on my laptop and it won't finish starting up."),
        _assistant(
            f"Sorry to hear that. I've opened ticket {_TICKET} for you. Could you read "
            "me the serial number from the sticker under the laptop?"
        ),
        _user(f"Sure, the serial is {_SERIAL}."),
        *_tool_round("call_seed_device_1", "lookup_device", {"serial": _SERIAL}, device),
        _assistant(
            "Found it: an Aurora 14 bought in March 2023 and registered to Dana "
            "Whitfield, dana.whitfield@example.com. Is that you?"
        ),
        _user(f"Yes, that's me. My email is {_EMAIL} if you need to send me anything."),
        _assistant(
            f"Thanks, Dana. I've added {_EMAIL} to ticket {_TICKET}. How fast does the "
            "red light blink, and does the fan spin up?"
        ),
        _user(
            "About twice a second. The fan is loud and the bottom gets very hot; it has "
            "been overheating for a week."
        ),
        _assistant(
            "Heat together with a blinking red light often points to the fan control "
            "firmware. Which firmware version does the startup screen show?"
        ),
        _user("It says firmware v1.0.3."),
        _assistant(
            "That version has a known fan-control bug. Hold the power button for 15 "
            "seconds to reset the embedded controller, then start the laptop again."
        ),
        _user("Did that. Still failing, same red light."),
        _assistant(
            "Then let's do a factory reset from the recovery menu (hold F11 while it "
            "powers on). It erases local files, so back up what you can first."
        ),
        _user("Factory reset done. Now it stops at error 42 during startup."),
        *_tool_round("call_seed_warranty_1", "check_warranty", {"serial": _SERIAL}, warranty),
        _assistant(
            "Error 42 means the storage controller did not answer the self-test, which "
            "needs a repair. Good news: your Aurora Care Plus cover runs until "
            f"2027-03-14, so I've opened a repair authorisation, {_RMA}."
        ),
        _user("I also tried to download the recovery driver from your site and got a 404."),
        _assistant(
            "That's on our side: the download page moved. You won't need the driver "
            "now that the laptop goes in for repair."
        ),
        _user("Has anyone on your side looked at the ticket yet?"),
        *_tool_round("call_seed_ticket_1", "get_ticket_status", {"ticket_id": _TICKET}, status),
        _assistant(
            "Yes: it is in progress with Priya Nair at the hardware desk, and the "
            "latest note is the repair authorisation."
        ),
        _user("Can the priority be raised? I need the laptop for work."),
        _assistant(
            "I've asked the hardware desk for high priority because of the "
            "overheating. It usually takes a few minutes to show up."
        ),
        _user("Will the repair wipe my files?"),
        _assistant(
            "The factory reset already removed local files. The repair replaces the "
            "storage board, so anything you did not back up cannot be recovered by us."
        ),
        _user("How do I ship it?"),
        _assistant(
            "Print the shipping label we email you, pack the laptop in its box or a "
            "padded one, and drop it at any courier point. Write the RMA number on "
            "the outside."
        ),
        _user("Which address will the label go to?"),
        _assistant(f"To {_EMAIL}, the email you gave me at the start."),
        _user("And what was the RMA number again?"),
        _assistant(f"It's {_RMA}."),
        _user("Did the priority change go through?"),
        *_tool_round("call_seed_ticket_2", "get_ticket_status", {"ticket_id": _TICKET}, status),
        _assistant(
            "The ticket is still in progress with Priya Nair; the priority request is "
            "with her desk, and I'll email you when it is confirmed."
        ),
        _user("If the repair center asks, which firmware was on it?"),
        _assistant("v1.0.3, the version you read from the startup screen."),
        _user("Should I mention the overheating too?"),
        _assistant(
            "Yes, please add a note about the heat and the loud fan; it helps them "
            "test the fan after the repair."
        ),
        _user("What serial number did I give you, so I can check the box?"),
        _assistant(f"The serial is {_SERIAL}."),
        _user("Great. Can you sum up my case before I go?"),
        _assistant(
            f"Ticket {_TICKET}: laptop {_SERIAL} with a blinking red light and "
            "overheating, firmware v1.0.3, error 42 after a factory reset; the 404 "
            f"came from our moved download page. Warranty active; repair {_RMA}; "
            f"label goes to {_EMAIL}."
        ),
        _user("Thanks, that's everything."),
        _assistant("You're welcome, Dana. Good luck with the repair!"),
    ]
    facts = locate_facts(
        items,
        {
            "ticket_id": _TICKET,
            "serial": _SERIAL,
            "customer_name": "Dana Whitfield",
            "email": _EMAIL,
            "firmware": "v1.0.3",
            "error_code": ["42", "404"],
            "rma": _RMA,
        },
        whole_word=True,
    )
    meta = {"topic": "laptop", "tools": ["lookup_device", "check_warranty", "get_ticket_status"]}
    return Conversation("seed-support", "seed", items, facts, meta)


# ---------------------------------------------------------------------------- user logs

_CHAT_ONLY_KEYS = ("tool_calls", "tool_call_id", "refusal", "function_call")
_CHAT_PART_TYPES = ("text", "image_url", "file")


@dataclass(frozen=True)
class Probe:
    """A recall question asked at user turn ``turn`` whose right answer contains ``expected``."""

    turn: int
    fact: str
    expected: str


def support_chat_script() -> tuple[list[str], tuple[Probe, ...]]:
    """What the customer of the seed conversation types, for live runs of the agent.

    Twenty user messages (the customer gives the ticket number herself in the first one, so
    a live agent has it only from the conversation), with the tool requests the course's
    agent acts on (device details, warranty, ticket status) and five recall questions near
    the end, returned as :class:`Probe` objects: the answer to each depends on a fact given
    many turns earlier, which is what memory strategies are judged on.
    """
    messages = [
        f"Hi, my ticket is {_TICKET}. There's a red light blinking on my laptop and it won't "
        "finish starting up.",
        f"Sure, the serial is {_SERIAL}. Can you look up the device details?",
        f"Yes, that's me. My email is {_EMAIL} if you need to send me anything.",
        "About twice a second. The fan is loud and the bottom gets very hot; it has been "
        "overheating for a week.",
        "It says firmware v1.0.3.",
        "Did that. Still failing, same red light.",
        "Factory reset done. Now it stops at error 42 during startup.",
        "Is the laptop still under warranty?",
        "I also tried to download the recovery driver from your site and got a 404.",
        "Has anyone on your side looked at my ticket yet?",
        "Can the priority be raised? I need the laptop for work.",
        "Will the repair wipe my files?",
        "How do I ship it?",
        "Which email address will the shipping label go to?",
        "And what was the RMA number again?",
        "If the repair center asks, which firmware was on it?",
        "Should I mention the overheating too?",
        "What serial number did I give you, so I can check the box?",
        "What was my ticket number, for my records?",
        "Thanks, that's everything.",
    ]
    probes = (
        Probe(14, "email", _EMAIL),
        Probe(15, "rma", _RMA),
        Probe(16, "firmware", "v1.0.3"),
        Probe(18, "serial", _SERIAL),
        Probe(19, "ticket_id", _TICKET),
    )
    return messages, probes


def _looks_like_chat(record: Mapping[str, Any]) -> bool:
    if "type" in record:
        return False
    if record.get("role") in ("tool", "function") or record.get("content", "") is None:
        return True
    if any(key in record for key in _CHAT_ONLY_KEYS):
        return True
    content = record.get("content")
    return isinstance(content, list) and any(
        isinstance(p, Mapping) and p.get("type") in _CHAT_PART_TYPES for p in content
    )


def load_conversation_file(
    path: str | os.PathLike[str], *, keep_system: bool = False
) -> list[dict[str, Any]]:
    """Read a conversation log of your own as Responses items.

    Accepted formats (detected from the content):

    * a JSON list (the file starts with ``[``) or JSONL (one JSON object per line, blank
      lines ignored);
    * holding either Responses input items (as a session stores them) or OpenAI Chat
      Completions messages. A file is read as Chat Completions when some record has a
      Chat-only feature (role ``tool``, ``tool_calls``, ``tool_call_id``, ``None`` content,
      ``text``/``image_url`` content parts) and no record has a ``type``; it is converted
      with :func:`chat_to_responses`. Plain ``{"role", "content"}`` records are valid in
      both and are kept as they are.

    ``keep_system`` keeps the system and developer messages of a Chat Completions log; by
    default they are dropped, as in :func:`chat_to_responses` (the SDK passes instructions
    separately and never stores them). Responses items are always kept as they are.

    Raises:
        ValueError: naming the line (JSONL) or the index (JSON list) of the first record that
            is not valid JSON, not a dict, mixes the two formats, or is not a well-formed
            item (:func:`ctxlab.core.items.shape_problem`).
    """
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    name = os.fspath(path)
    records: list[Any]
    lines: list[int] | None = None  # the line of each record, for JSONL
    if text.lstrip().startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"{name}: not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
            ) from exc
    else:
        records, lines = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                hint = " (a JSON file must hold a list)" if number == 1 else ""
                raise ValueError(f"{name}: line {number}: not valid JSON: {exc.msg}{hint}") from exc
            lines.append(number)

    def label(index: int, noun: str = "item") -> str:
        return f"{name}: line {lines[index]}" if lines is not None else f"{name}: {noun} {index}"

    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise ValueError(f"{label(index)}: expected a JSON object, got {type(record).__name__}")
    chat = [i for i, r in enumerate(records) if _looks_like_chat(r)]
    typed = [i for i, r in enumerate(records) if "type" in r]
    if chat and typed:
        raise ValueError(
            f"{label(typed[0])}: a Responses item (it has a 'type'), but {label(chat[0])} is "
            "a Chat Completions message; use one format per file"
        )
    if chat:
        return _chat_to_items(records, keep_system=keep_system, where=lambda i: label(i, "message"))
    items: list[dict[str, Any]] = []
    for index, record in enumerate(records):
        problem = shape_problem(record)
        if problem is not None:
            raise ValueError(f"{label(index)}: {problem}")
        items.append(dict(record))
    return items
