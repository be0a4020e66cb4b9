"""The sentences the offline model writes: recall answers, tool-result summaries, small talk.

Every function here is pure: it takes values that are already in the model's input and
returns text. Nothing in this module may introduce an identifier of its own: a value in a
reply is always copied from a fact or a tool output that the caller passes in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.facts import FACT_LABELS, Found, distinct_values, latest_fact
from ...core.items import preview
from ...memory.playbook import SymptomMatch

GREETING = "Hello! I'm the IT support assistant. What device or app is giving you trouble today?"
THANKS = "You're welcome! Is the issue solved now, or should we keep going?"
FALLBACK_QUESTION = "Could you tell me which device you are using and what you see on screen?"
NO_USER_MESSAGE = "Hello! I'm the IT support assistant. How can I help you today?"

_RECALL_SENTENCE = {
    "ticket": "Your ticket number is {value}.",
    "serial": "Your device's serial number is {value}.",
    "firmware": "Your firmware version is {value}.",
    "error_code": "The most recent error code in our conversation is {value}.",
    "email": "Your email address is {value}.",
    "order": "Your order number is {value}.",
    "rma": "Your RMA number is {value}.",
    "reservation": "Your reservation code is {value}.",
}

_SHORT_LABELS = {
    "ticket": "ticket",
    "serial": "serial",
    "firmware": "firmware",
    "error_code": "error code",
    "email": "email",
    "order": "order",
    "rma": "RMA",
    "reservation": "reservation",
}

#: What each tool argument identifies, for "could you double-check the ...?".
_ARGUMENT_LABELS = {"serial": "serial number", "ticket_id": "ticket number"}


def join_words(words: Sequence[str], conjunction: str = "and") -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def recall_answer(
    kinds: Sequence[str],
    facts: Mapping[str, Sequence[Found]],
    tool_names: Mapping[int, str] | None = None,
) -> str:
    """Answer "what was my ...?" for each kind, from ``facts`` only.

    A kind with no fact gets the honest answer: the model does not see it and asks for it
    again. ``tool_names`` maps item indices of tool outputs to the tool's name, so a value
    found only in a tool result can say where it came from.
    """
    sentences: list[str] = []
    missing: list[str] = []
    for kind in kinds:
        found = list(facts.get(kind, ()))
        fact = latest_fact(found)
        if fact is None:
            missing.append(FACT_LABELS[kind])
            continue
        sentence = _RECALL_SENTENCE[kind].format(value=fact.value)
        if not fact.in_message:
            tool = (tool_names or {}).get(fact.index)
            part = "request" if fact.source == "tool_call" else "result"
            where = f"the {tool} {part}" if tool else f"an earlier tool {part}"
            sentence = sentence[:-1] + f" (I found it in {where})."
        if kind == "error_code":
            earlier = [v for v in distinct_values(found) if v != fact.value][:3]
            if earlier:
                sentence += f" Before that: {join_words(earlier)}."
        sentences.append(sentence)
    if missing:
        them = "it" if len(missing) == 1 else "them"
        sentences.append(
            f"I don't see your {join_words(missing)} in our conversation; could you repeat {them}?"
        )
    return " ".join(sentences)


def statements_answer(constraints: Sequence[str] | None,
                      commitments: Sequence[str] | None) -> str:
    """Answer "what did I ask you to keep in mind?" / "what did you promise?" from the
    sentences still in force (None: not asked)."""
    parts = []
    if constraints is not None:
        if constraints:
            parts.append("You asked us to keep in mind: " + " ".join(
                _sentence(s) for s in constraints))
        else:
            parts.append("I don't see any constraint or preference you set in our "
                         "conversation; is there something I should keep in mind?")
    if commitments is not None:
        if commitments:
            parts.append("I committed to this: " + " ".join(_sentence(s) for s in commitments))
        else:
            parts.append("I don't see a promise from me in our conversation that is still "
                         "open.")
    return " ".join(parts)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def noted(facts: Sequence[Found]) -> str:
    """Acknowledge the facts of the latest message, as in ``Noted: ticket TCK-48213.``"""
    if not facts:
        return ""
    seen: dict[tuple[str, str], None] = {}
    for fact in facts:
        seen.setdefault((fact.kind, fact.value), None)
    parts = [f"{_SHORT_LABELS[kind]} {value}" for kind, value in seen]
    return f"Noted: {', '.join(parts)}."


def symptom_reply(
    symptom: SymptomMatch,
    also: Sequence[str],
    ack: str = "",
) -> str:
    """Steps for ``symptom`` and its one clarifying question; ``also`` lists open issues."""
    steps, question = symptom.symptom.render(symptom.code)
    lines = [ack] if ack else []
    lines.append(f"Let's work on the {symptom.title} first. Please try these steps:")
    lines.extend(steps)
    if also:
        noun, pronoun = ("issue", "it") if len(also) == 1 else ("issues", "them")
        lines.append(
            f"I'm keeping the {join_words(list(also))} {noun} open; we'll get to {pronoun} next."
        )
    lines.append(question)
    return "\n".join(lines)


def closure_reply(closed: str | None, remaining: Sequence[str]) -> str:
    """Confirm the current issue is closed, then offer the next open one."""
    if closed:
        first = f"Great, I'll mark the {closed} issue as closed."
    else:
        first = "Great, glad it's sorted."
    if remaining:
        return f"{first} You also mentioned the {remaining[0]} issue: shall we look at it now?"
    return f"{first} Is there anything else I can help you with?"


def missing_identifier_reply(needs: Sequence[str]) -> str:
    """Ask for the identifiers a lookup needs (one question)."""
    what = join_words([FACT_LABELS[kind] for kind in needs])
    return f"I can look that up, but I need your {what} first. Could you share it?"


def unavailable_reply(actions: Sequence[str]) -> str:
    """Say which lookups cannot be made because the tool is not offered."""
    return (
        f"I can't {join_words(list(actions), 'or')} here: that tool isn't available in this "
        "chat. Is there something else about the device I can help with?"
    )


# ---------------------------------------------------------------------------- tool results


def tool_result_reply(name: str, arguments: str, output: str) -> tuple[str, str]:
    """A summary of one tool result and a follow-up question, quoting the output's values."""
    data = _json_object(output)
    if data is None:
        text = preview(output, 300) if output.strip() else "nothing"
        return f"The {name} tool returned: {text}", "What would you like to do next?"
    if "error" in data:
        args = _json_object(arguments) or {}
        label = next((_ARGUMENT_LABELS[k] for k in args if k in _ARGUMENT_LABELS), "details")
        return (
            f"The {name} lookup did not work: {data['error']}.",
            f"Could you double-check the {label} and send it again?",
        )
    if {"status", "end_date"} <= data.keys():
        return _warranty(data)
    if {"ticket_id", "status"} <= data.keys():
        return _ticket(data)
    if {"model", "firmware"} <= data.keys():
        return _device(data)
    fields = [f"{k}: {v}" for k, v in data.items() if _is_scalar(v)][:8]
    body = "; ".join(fields) if fields else preview(output, 300)
    return f"The {name} tool returned {body}.", "What would you like to do next?"


def _warranty(data: Mapping[str, Any]) -> tuple[str, str]:
    subject = _subject(data)
    plan = str(data.get("plan") or "")
    cover = plan if "warrant" in plan.lower() else f"{plan} warranty".strip()
    if data.get("status") == "covered":
        text = f"Good news: the {cover} for {subject} is covered until {data['end_date']}."
        if data.get("rma"):
            text += f" I've opened a repair authorisation for you: {data['rma']}."
        return text, "Would you like the steps to send the device in for repair?"
    text = (
        f"The {cover} for {subject} is {data['status']} (end date "
        f"{data['end_date']}), so a repair would be charged."
    )
    return text, "Would you like me to request a quote for a paid repair?"


def _ticket(data: Mapping[str, Any]) -> tuple[str, str]:
    text = f"Ticket {data['ticket_id']} is {data['status']}"
    if data.get("owner"):
        text += f"; it is assigned to {data['owner']}"
    if data.get("last_update"):
        text += f" and was last updated {data['last_update']}"
    text += "."
    if data.get("latest_note"):
        text += f" Latest note: {data['latest_note']}"
    return text, "Is there anything you'd like me to add to the ticket?"


def _device(data: Mapping[str, Any]) -> tuple[str, str]:
    model = str(data["model"])
    article = "an" if model[:1].lower() in "aeiou" else "a"
    parts = [f"{_subject(data)} is {article} {model}"]
    if data.get("purchase_date"):
        parts.append(f"bought {data['purchase_date']}")
    parts.append(f"firmware {data['firmware']}")
    if data.get("os"):
        parts.append(f"running {data['os']}")
    if data.get("owner_email"):
        parts.append(f"assigned to {data['owner_email']}")
    text = ", ".join(parts) + "."
    diagnostics = data.get("diagnostics")
    log = diagnostics.get("event_log") if isinstance(diagnostics, Mapping) else None
    if isinstance(log, list) and log:
        warnings = [e for e in log if isinstance(e, Mapping) and e.get("level") == "warning"]
        text += f" Its event log has {len(log)} entries, {len(warnings)} of them warnings"
        if warnings:
            text += f"; the latest says: {warnings[-1].get('message', '')}"
        text += "."
    return text, "Does that match the device you are using?"


def _subject(data: Mapping[str, Any]) -> str:
    serial = data.get("serial")
    model = data.get("model")
    if serial and model and "firmware" not in data:
        return f"your {model} ({serial})"
    return str(serial or model or "the device")


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None
