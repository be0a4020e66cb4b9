"""Decide the offline model's next move from its input alone: a reply, or tool calls.

:func:`plan_reply` is the offline model's whole "mind". It is a pure function of the
system instructions, the input items and the names of the tools on offer, checked in this
order:

1. the input ends with tool outputs of the current turn -> summarise them (quoting their
   values) and stop; a tool is never called twice in one user turn;
2. the latest user message asks what they asked the agent to keep in mind, or what the
   agent promised -> the constraints or commitments still in force in the input; or it
   asks to be reminded of a fact -> the latest value of that kind in the input that is
   not marked superseded (memory notes read as :mod:`.memory` says), or an honest
   "I don't see your ... in our conversation"; or it asks to delete the customer's data
   -> an honest "I can't do that here" with where to send the request;
3. it asks for a warranty check, device details or a ticket status -> call the tool with
   the latest serial or ticket id in the input (or ask for the missing identifier);
   or it asks about any other slot ("what was the drop-off date of my rental car?") ->
   the value in view (:mod:`.slots`), or "I don't see the ... in our conversation";
4. it describes a symptom -> numbered steps and one clarifying question (from the Chinese
   playbook for a Chinese message);
5. otherwise a greeting, thanks, closure of an issue, or a clarifying question.

The reply is written in the language of the latest user message (of the conversation when
that message has too few letters to tell, "OK" or a bare number). A question in Chinese is
read with the Chinese rules of :mod:`.intents`, and the input is read for every fact kind,
the model number, phone number and agreed date included
(:data:`~ctxlab.facts.typed.ALL_FACT_KINDS`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.items import item_text, item_type
from ...core.turns import starts_turn
from ...facts.language import Language, conversation_language, language_of, letter_counts
from ...facts.tracker import device_noun
from ...facts.typed import ALL_FACT_KINDS, FACT_KINDS, Found, facts_in_text, find_facts, latest_fact
from ...memory.playbook import match_symptoms
from . import replies
from .intents import Intent, normalize, read_intent
from .memory import classify, doubtful, memory_indices, plain, statements_in_view
from .slots import slot_answer, slot_question

#: The tools the offline model knows how to use: name -> (argument, fact kind, action).
KNOWN_TOOLS: dict[str, tuple[str, str, str]] = {
    "check_warranty": ("serial", "serial", "check the warranty"),
    "lookup_device": ("serial", "serial", "look up the device"),
    "get_ticket_status": ("ticket_id", "ticket", "check the ticket status"),
}
#: The same actions, as a Chinese reply names them.
ACTIONS_ZH: dict[str, str] = {
    "check_warranty": "查保修", "lookup_device": "查设备信息",
    "get_ticket_status": "查工单进度",
}


def reply_language(user_text: str, items: Sequence[Mapping[str, Any]]) -> Language:
    """The language to answer ``user_text`` in: its own, or the conversation's when it has
    fewer than two letters."""
    cjk, latin = letter_counts(user_text)
    if cjk + latin >= 2:
        return language_of(user_text)
    return conversation_language(items)


@dataclass(frozen=True)
class PlannedCall:
    """A function call the model will emit: tool ``name`` with JSON ``arguments``."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Plan:
    """The model's move: either ``text`` (a final answer) or ``calls`` (never both)."""

    text: str = ""
    calls: tuple[PlannedCall, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """What the model knows about an offered tool: its name and its argument names.

    ``parameters`` is None when the tool publishes no JSON schema (then any argument is
    assumed to be accepted).
    """

    name: str
    parameters: frozenset[str] | None = None

    def accepts(self, argument: str) -> bool:
        return self.parameters is None or argument in self.parameters


def tool_specs(tools: Sequence[Any]) -> dict[str, ToolSpec]:
    """:class:`ToolSpec` for each SDK tool (or tool dict) by name."""
    specs: dict[str, ToolSpec] = {}
    for tool in tools:
        if isinstance(tool, Mapping):
            name = tool.get("name")
            schema = tool.get("parameters")
        else:
            name = getattr(tool, "name", None)
            schema = getattr(tool, "params_json_schema", None)
        if not isinstance(name, str) or not name:
            continue
        properties = schema.get("properties") if isinstance(schema, Mapping) else None
        params = frozenset(properties) if isinstance(properties, Mapping) else None
        specs[name] = ToolSpec(name, params)
    return specs


def plan_reply(
    instructions: str | None,
    items: Sequence[Mapping[str, Any]],
    tools: Mapping[str, ToolSpec],
    *,
    allow_tools: bool = True,
    see: Callable[[int, int, str], bool] | None = None,
) -> Plan:
    """The next move for this input (see the module docstring for the rules).

    ``see(index, start, value)`` says whether a mention of ``value`` at character ``start``
    of item ``index`` is found when the model must find a fact to answer a question about
    it (None: every mention is; :class:`~ctxlab.course.offline.reader.RealisticReader`
    misses some)."""
    last_user = next((i for i in range(len(items) - 1, -1, -1) if starts_turn(items[i])), None)
    if last_user is None:
        return Plan(text=replies.NO_USER_MESSAGE)
    user_text = normalize(item_text(items[last_user]))
    turn = list(items[last_user + 1 :])
    language = reply_language(user_text, items)
    zh = language == "zh"
    symptoms = match_symptoms(user_text, language)

    if turn and item_type(turn[-1]) == "function_call_output":
        return Plan(text=_answer_tool_results(turn, symptoms, language))

    kinds = ALL_FACT_KINDS if zh else FACT_KINDS
    facts = classify(items, find_facts(items, instructions=instructions, kinds=kinds))
    intent = read_intent(user_text)
    answer = _answer_question(intent, user_text, items, last_user, facts, see, language)
    if answer is not None:
        return Plan(text=answer)
    if not intent.recall and not intent.wants_tool:
        asked = slot_question(user_text)
        if asked is not None:  # any slot: "what was the drop-off date of my rental car?"
            return Plan(text=slot_answer(asked, items[:last_user], language))

    if intent.wants_tool:
        plan = _plan_tools(intent, facts, tools, turn, allow_tools, language)
        if plan is not None:
            return plan

    ack = replies.noted(facts_in_text(user_text, index=last_user, source="user", kinds=kinds),
                        language)
    if zh:
        if symptoms:
            return Plan(text=replies.symptom_reply(
                symptoms[0], [s.title for s in symptoms[1:]], ack, "zh"))
        return Plan(text=_small_talk_zh(intent, ack))
    return Plan(text=_reply_en(intent, ack, symptoms, items, last_user))


def _answer_question(
    intent: Intent,
    user_text: str,
    items: Sequence[Mapping[str, Any]],
    last_user: int,
    facts: Mapping[str, list[Found]],
    see: Callable[[int, int, str], bool] | None,
    language: Language,
) -> str | None:
    """The answer to a question about what was agreed or said (constraints, promises, a
    fact to recall) or to a data request; None for any other message."""
    zh = language == "zh"
    if intent.constraints or intent.commitments:
        constraints, commitments = statements_in_view(items[:last_user], see=see)
        return replies.statements_answer(
            [plain(s) for s in constraints] if intent.constraints else None,
            [plain(s) for s in commitments] if intent.commitments else None, language)
    if intent.data_request:
        return replies.DATA_REQUEST_ZH if zh else replies.DATA_REQUEST
    if intent.recall:
        found = facts if see is None else {
            kind: [f for f in mentions if see(f.index, f.start, f.value)]
            for kind, mentions in facts.items()}
        device = _device_named(user_text, items, found, intent.recall) if zh else None
        return replies.recall_answer(intent.recall, found, _output_tools(items), language,
                                     device, doubtful=doubtful(items, found))
    return None


def _reply_en(
    intent: Intent,
    ack: str,
    symptoms: Sequence[Any],
    items: Sequence[Mapping[str, Any]],
    last_user: int,
) -> str:
    """An English reply without tools: symptom steps (naming the other open issues), a
    closure, thanks, a greeting, or a clarifying question."""
    earlier = _open_issues(
        [normalize(item_text(it)) for it in items[:last_user] if starts_turn(it)]
    )
    if symptoms:
        first = symptoms[0]
        also = [s.title for s in symptoms[1:]]
        also += [title for key, title in earlier.open if key != first.key and title not in also]
        return replies.symptom_reply(first, also, ack)
    if intent.closure:
        closed = earlier.title_of(earlier.current)
        remaining = [title for key, title in earlier.open if key != earlier.current]
        return replies.closure_reply(closed, remaining)
    if intent.thanks:
        return replies.THANKS
    if intent.greeting and not ack:
        return replies.GREETING
    if ack and earlier.current is not None:
        title = earlier.title_of(earlier.current)
        return (f"{ack} Thanks, that helps with the {title} issue. "
                "What happens now when you try again: do you see any message on screen?")
    if ack:
        return f"{ack} What problem are you seeing with the device?"
    return replies.FALLBACK_QUESTION


def _small_talk_zh(intent: Intent, ack: str) -> str:
    """A closure, thanks, greeting or clarifying question in Chinese (the list of open
    issues is kept for English chats only)."""
    if intent.closure:
        return replies.closure_reply(None, (), "zh")
    if intent.thanks:
        return replies.THANKS_ZH
    if intent.greeting and not ack:
        return replies.GREETING_ZH
    if ack:
        return f"{ack}请问设备现在有什么问题？"
    return replies.FALLBACK_QUESTION_ZH


# ---------------------------------------------------------------------------- tools


def _wanted_tools(intent: Intent, facts: Mapping[str, list[Found]]) -> list[str]:
    """The tools the intent asks for, in calling order."""
    wanted: list[str] = []
    if intent.lookup:
        wanted.append("lookup_device")
    if intent.warranty:
        wanted.append("check_warranty")
    if intent.ticket_status and (intent.ticket_word or facts["ticket"]):
        wanted.append("get_ticket_status")
    return wanted


def _plan_tools(
    intent: Intent,
    facts: Mapping[str, list[Found]],
    tools: Mapping[str, ToolSpec],
    turn: Sequence[Mapping[str, Any]],
    allow_tools: bool,
    language: str = "en",
) -> Plan | None:
    wanted = _wanted_tools(intent, facts)
    if not wanted:
        return None
    used = {item.get("name") for item in turn if item_type(item) == "function_call"}
    calls: list[PlannedCall] = []
    missing: list[str] = []
    unavailable: list[str] = []
    for name in wanted:
        argument, kind, action = KNOWN_TOOLS[name]
        spec = tools.get(name)
        if not allow_tools or spec is None or not spec.accepts(argument):
            unavailable.append(ACTIONS_ZH[name] if language == "zh" else action)
        elif name not in used:
            call = _planned_call(name, argument, facts[kind])
            if call is not None:
                calls.append(call)
            elif kind not in missing:
                missing.append(kind)
    if calls:
        return Plan(calls=tuple(calls))
    if missing:
        return Plan(text=replies.missing_identifier_reply(missing, language))
    if unavailable:
        return Plan(text=replies.unavailable_reply(unavailable, language))
    return None


def _planned_call(name: str, argument: str, found: list[Found]) -> PlannedCall | None:
    """The call of tool ``name`` with the latest fact of its kind (None: none known)."""
    fact = latest_fact(found)
    if fact is None:
        return None
    return PlannedCall(name, json.dumps({argument: fact.value}, ensure_ascii=False))


def _answer_tool_results(turn: Sequence[Mapping[str, Any]], symptoms: Sequence[Any],
                         language: str = "en") -> str:
    calls = {item.get("call_id"): item for item in turn if item_type(item) == "function_call"}
    paragraphs: list[str] = []
    question = ""
    for item in turn:
        if item_type(item) != "function_call_output":
            continue
        call = calls.get(item.get("call_id"), {})
        name = str(call.get("name") or "tool")
        arguments = call.get("arguments")
        text, question = replies.tool_result_reply(
            name,
            arguments if isinstance(arguments, str) else "",
            item_text(item),
            language,
        )
        paragraphs.append(text)
    if symptoms:
        steps, question = symptoms[0].symptom.render(symptoms[0].code)
        lead = (replies.spaced("关于", symptoms[0].title, "的问题，可以先试试这几步：")
                if language == "zh"
                else f"For the {symptoms[0].title}, try these steps:")
        paragraphs.append("\n".join([lead, *steps]))
    paragraphs.append(question)
    return "\n\n".join(paragraphs)


def _device_named(question: str, items: Sequence[Mapping[str, Any]],
                  facts: Mapping[str, list[Found]], kinds: Sequence[str]) -> str | None:
    """The customer's device as they call it, for a Chinese answer ("您的冰箱型号是…"): the
    noun in the question ("我冰箱的型号"), else in the text that holds the value asked for,
    else the latest one the customer (or a memory note) used; None when nobody named one."""
    noun = device_noun(question)
    if noun:
        return noun
    for kind in kinds:
        fact = latest_fact(facts.get(kind, []))
        if fact is not None and fact.index < len(items):
            noun = device_noun(item_text(items[fact.index]))
            if noun:
                return noun
    notes = memory_indices(items)
    for index in range(len(items) - 1, -1, -1):
        if starts_turn(items[index]) or index in notes:
            noun = device_noun(item_text(items[index]))
            if noun:
                return noun
    return None


def _output_tools(items: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Item index of each function output (and call) -> the tool's name."""
    names: dict[str, str] = {}
    result: dict[int, str] = {}
    for index, item in enumerate(items):
        kind = item_type(item)
        if kind == "function_call" and isinstance(item.get("call_id"), str):
            names[item["call_id"]] = str(item.get("name", ""))
            result[index] = str(item.get("name", ""))
        elif kind == "function_call_output":
            name = names.get(item.get("call_id", ""))
            if name:
                result[index] = name
    return result


# ---------------------------------------------------------------------------- issues


@dataclass(frozen=True)
class _Issues:
    """Issues raised in earlier user messages: those still open, and the current one."""

    open: tuple[tuple[str, str], ...]
    current: str | None

    def title_of(self, key: str | None) -> str | None:
        return next((title for k, title in self.open if k == key), None)


def _open_issues(user_texts: Sequence[str]) -> _Issues:
    """Walk earlier user messages: symptoms open issues, "it's fixed" closes the current one."""
    open_issues: list[tuple[str, str]] = []
    current: str | None = None
    for text in user_texts:
        found = match_symptoms(text)
        if found:
            for match in found:
                if all(key != match.key for key, _ in open_issues):
                    open_issues.append((match.key, match.title))
            current = found[0].key
        elif read_intent(text).closure and current is not None:
            open_issues = [(k, t) for k, t in open_issues if k != current]
            current = open_issues[-1][0] if open_issues else None
    return _Issues(tuple(open_issues), current)
