"""Small text helpers of the extractive summarizer: gists, questions, tool outcomes, scrubbing."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ..core.facts import FACT_KINDS, facts_in_text

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_FAILED = re.compile(r"\b(?:error|failed|not found|invalid)\b", re.I)

#: How a fact kind is named where its value is left out of a narrative line.
SCRUB_LABELS: dict[str, str] = {
    "ticket": "ticket", "serial": "serial", "firmware": "firmware", "error_code": "code",
    "email": "email", "order": "order", "rma": "RMA", "reservation": "reservation",
}


def gist(text: str, words: int) -> str:
    """The opening sentences of ``text`` (enough to say something), at most ``words`` words."""
    flat = " ".join(text.split())
    taken: list[str] = []
    for sentence in _SENTENCE.split(flat) if flat else []:
        taken.extend(sentence.split())
        if len(taken) >= 6:
            break
    return " ".join(taken[:words]) + ("…" if len(taken) > words else "")


def last_question(text: str) -> str | None:
    """The last sentence of ``text`` that ends with a question mark, if any."""
    sentences = [s for s in _SENTENCE.split(" ".join(text.split())) if s]
    for sentence in reversed(sentences):
        if sentence.endswith("?"):
            return sentence
    return None


def tool_outcome(text: str) -> tuple[bool, str]:
    """(ok, short description) for a tool output: its status/error fields or its gist."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        data = None
    if isinstance(data, Mapping):
        if data.get("error"):
            return False, f"error: {gist(str(data['error']), 12)}"
        fields = [
            f"{k}={data[k]}"
            for k in ("status", "covered", "warranty", "warranty_status", "result", "state",
                      "message", "note")
            if isinstance(data.get(k), (str, int, float, bool))
        ]
        if fields:
            return True, ", ".join(fields[:3])
        return True, "ok"
    failed = bool(_FAILED.search(text))
    return not failed, gist(text, 12) or "empty"


def scrub(text: str) -> str:
    """``text`` with every typed fact value (ticket, serial, firmware, ...) replaced by its
    kind in brackets: a summary lists those values once, with their status, under
    Identifiers, so a narrative line never presents an old value as current."""
    found = facts_in_text(text, kinds=FACT_KINDS)
    if not found:
        return text
    out: list[str] = []
    last = 0
    for fact in found:
        out.append(text[last:fact.start])
        out.append(f"[{SCRUB_LABELS.get(fact.kind, fact.kind)}]")
        last = fact.start + len(fact.value)
    out.append(text[last:])
    return "".join(out)
