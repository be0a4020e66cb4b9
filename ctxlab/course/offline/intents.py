"""What the user's latest message asks for, read with keyword rules.

:func:`read_intent` turns one message into an :class:`Intent`: which facts the user wants
recalled ("what was my ticket number?"), which lookups they ask for (warranty, device
details, ticket status), and whether the message is a greeting, a thank-you or a sign that
an issue is fixed. The rules are plain regular expressions, listed here so a learner can
read exactly what the offline model understands and what it does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...core.facts import FACT_KINDS, facts_in_text

# How each fact kind is named in a question.
_NOUNS: dict[str, str] = {
    "ticket": r"(?:ticket|case|incident)(?:\s+(?:number|no\.?|id|#))?",
    "serial": r"(?:serial(?:\s+(?:number|no\.?|#))?|s/n|service\s+tag)",
    "firmware": r"firmware(?:\s+version)?",
    "error_code": r"error(?:\s+(?:code|number|message))?",
    "email": r"e-?mail(?:\s+address)?",
    "order": r"order(?:\s+(?:number|no\.?|id|#))?",
    "rma": r"(?:rma|return\s+authori[sz]ation)(?:\s+(?:number|no\.?|#))?",
    "reservation": r"(?:reservation|booking|confirmation)(?:\s+(?:code|number|id))?",
}

# Ways of asking for a value back; {noun} is one of _NOUNS.
_RECALL_TEMPLATES = (
    r"\bwhat(?:'s|s|\s+(?:was|is|were|are))?\s+(?:my|the|our|that)\s+(?:\w+\s+){{0,2}}?"
    r"{noun}\b",
    r"\bwhich\s+{noun}\b",
    r"\b(?:remind\s+me|remember|recall|repeat|tell\s+me|forgot|forget|confirm|still\s+have"
    r"|do\s+you\s+(?:know|have))\b[^.?!]{{0,40}}?\b{noun}\b",
    r"\bwhat\s+{noun}\b[^.?!]{{0,40}}\b(?:did|do|was|is|am)\b",
    r"\b{noun}\b[^.?!]{{0,30}}\bagain\b",
)

_RECALL: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: tuple(
        re.compile(template.format(noun=noun), re.IGNORECASE) for template in _RECALL_TEMPLATES
    )
    for kind, noun in _NOUNS.items()
}

# A repair or replacement alone is not a warranty question ("will the repair wipe my
# files?"); it becomes one when cost or cover is mentioned with it.
_WARRANTY = re.compile(
    r"\b(?:warrant(?:y|ies)|guarantee|coverage|covered|rma)\b"
    r"|\b(?:repairs?|replacement|replace)\b[^.?!]{0,30}\b(?:free|cost|pay|charge|cover\w*)\b"
    r"|\b(?:free|cost|pay|charge)\b[^.?!]{0,30}\b(?:repairs?|replacement|replace)\b",
    re.IGNORECASE,
)
_LOOKUP = re.compile(
    r"\b(?:look\s*(?:it\s+|this\s+|that\s+|them\s+)?up|lookup|details|specs|specifications"
    r"|device\s+(?:info|information|record)|pull\s+up)\b",
    re.IGNORECASE,
)
# Asking how something stands; "update" only counts next to the word "ticket".
_STATUS = re.compile(
    r"\b(?:status(?!\s+(?:light|led|bar|icon))|progress|news|any\s+word"
    r"|where\s+(?:are|is|do)\s+(?:we|it|things))\b",
    re.IGNORECASE,
)
_UPDATE = re.compile(r"\bupdates?\b", re.IGNORECASE)
# Asking whether someone is on it; counts only next to the word "ticket".
_FOLLOW_UP = re.compile(
    r"\b(?:looked\s+at|look(?:ed|ing)?\s+into|working\s+on|picked\s+up|heard\s+back)\b",
    re.IGNORECASE,
)
_TICKET_WORD = re.compile(r"\b(?:ticket|case|incident)s?\b|\bTCK-\d", re.IGNORECASE)
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|good\s+(?:morning|afternoon|evening)|greetings)\b",
    re.IGNORECASE,
)
_THANKS = re.compile(r"\b(?:thanks|thank\s+you|thx|cheers|appreciated?)\b", re.IGNORECASE)
_CLOSURE = re.compile(
    r"\b(?:fixed|solved|resolved|works\s+now|working\s+(?:again|now)|that\s+(?:worked|did\s+it)"
    r"|it\s+works|all\s+good|sorted|that'?s\s+all|that\s+is\s+all|nothing\s+else|bye|goodbye)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|still)\b|n't\b|\?", re.IGNORECASE)
# "What did I ask you to keep in mind?", "remind me of my preferences".
_CONSTRAINTS = re.compile(
    r"\bkeep\s+in\s+mind\b|\b(?:my|the)\s+(?:constraints?|preferences?|requirements?|"
    r"conditions?|restrictions?)\b|\bwhat\s+did\s+i\s+(?:ask|tell)\s+you\s+(?:to|about|not)\b",
    re.IGNORECASE,
)
# "What did you promise?", "what are you going to send me?".
_COMMITMENTS = re.compile(
    r"\bwhat\s+did\s+you\s+(?:promise|commit|agree|say\s+you(?:'d|\s+would))\b"
    r"|\b(?:your|the)\s+(?:promises?|commitments?)\b"
    r"|\bwhat\s+(?:are|were)\s+you\s+going\s+to\s+(?:do|send)\b",
    re.IGNORECASE,
)
_RECALL_NOUN_RMA = re.compile(_NOUNS["rma"], re.IGNORECASE)


@dataclass(frozen=True)
class Intent:
    """What one user message asks for.

    ``recall`` lists the fact kinds (see :data:`ctxlab.core.facts.FACT_KINDS`) the
    user wants repeated back; ``warranty``, ``lookup`` and ``ticket_status`` are requests
    for a tool; ``ticket_word`` says the message names a ticket explicitly (a bare "any
    update?" counts only when a ticket is already in the conversation); ``greeting``,
    ``thanks`` and ``closure`` (the issue is fixed, or the user is done) shape small talk.
    ``constraints`` and ``commitments`` ask what the user asked the agent to keep in mind,
    and what the agent promised.
    """

    recall: tuple[str, ...] = ()
    constraints: bool = False
    commitments: bool = False
    warranty: bool = False
    lookup: bool = False
    ticket_status: bool = False
    ticket_word: bool = False
    greeting: bool = False
    thanks: bool = False
    closure: bool = False

    @property
    def wants_tool(self) -> bool:
        return self.warranty or self.lookup or self.ticket_status


def normalize(text: str) -> str:
    """Straight quotes and single spaces, so the rules need not list every variant."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").split())


def recall_kinds(text: str) -> tuple[str, ...]:
    """The fact kinds ``text`` asks to be reminded of, in :data:`FACT_KINDS` order.

    A kind is not a recall question when the message itself states a value of that kind
    ("what does error 42 mean?" is about error 42, not a request to repeat it).
    """
    text = normalize(text)
    stated = {fact.kind for fact in facts_in_text(text)}
    asked = []
    for kind in FACT_KINDS:
        if kind in stated:
            continue
        if any(pattern.search(text) for pattern in _RECALL[kind]):
            asked.append(kind)
    return tuple(asked)


def read_intent(text: str) -> Intent:
    """Classify one user message (see :class:`Intent`)."""
    if not isinstance(text, str):
        raise TypeError(f"read_intent expects a str, got {type(text).__name__}")
    text = normalize(text)
    constraints = _CONSTRAINTS.search(text) is not None
    commitments = _COMMITMENTS.search(text) is not None
    if constraints or commitments:
        return Intent(constraints=constraints, commitments=commitments)
    recall = recall_kinds(text)
    # "What was my RMA number?" is a recall question even though "RMA" also asks for a
    # repair; any other action word ("check", "status", ...) makes it a lookup instead.
    # A verb alone ("so I can check the box") does not turn it into a lookup: only a
    # warranty, lookup or status request does.
    action_text = _RECALL_NOUN_RMA.sub(" ", text) if "rma" in recall else text
    wants_lookup = (
        _WARRANTY.search(action_text) or _LOOKUP.search(action_text)
        or _STATUS.search(action_text)
    )
    if recall and not wants_lookup:
        return Intent(recall=recall)
    ticket_word = _TICKET_WORD.search(text) is not None
    warranty = _WARRANTY.search(text) is not None
    lookup = _LOOKUP.search(text) is not None
    status = _STATUS.search(text) is not None
    if ticket_word:
        ticket_status = (
            status or _UPDATE.search(text) is not None or _FOLLOW_UP.search(text) is not None
        )
    else:
        ticket_status = status and not warranty and not lookup
    closure = _CLOSURE.search(text) is not None and _NEGATION.search(text) is None
    return Intent(
        recall=(),
        warranty=warranty,
        lookup=lookup,
        ticket_status=ticket_status,
        ticket_word=ticket_word,
        greeting=_GREETING.search(text) is not None,
        thanks=_THANKS.search(text) is not None,
        closure=closure,
    )
