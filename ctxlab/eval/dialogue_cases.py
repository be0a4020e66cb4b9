"""Real task dialogues as evaluation cases (``--corpus sgd`` / ``--corpus crosswoz``).

A customer is four dialogues chained over days (:func:`~ctxlab.course.corpora.chain_customers`):
one conversation of ~40 user turns in which each day brings new services (a bus, then a
rental car; an attraction, then a hotel near it). The answer key comes from the corpus's
state annotations (:func:`~ctxlab.course.corpora.answer_key`): one fact per slot and day
(``day2.RentalCars_1.dropoff_date``) whose current value is the slot's final value, plus its
superseded values, marked superseded from the turn that set the current one. After the last
turn the customer asks for a recap, one question per fact ("Remind me, what was the dropoff
date again?", "提醒我一下，之前说的出发地是什么来着？"); a fact is kept when its current value
is in the model's view then, and *stale* when only a superseded value is.

Corpus spec: ``sgd|crosswoz[:tune|report][:N][@DIR]``: ``tune`` and ``report`` are two
disjoint halves of the customers (tune on one, report on the other); ``N`` keeps the first N
customers; ``@DIR`` reads the full split from a directory (``/work/shared/data/sgd``)
instead of the subset the package ships.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.turns import segment_turns
from ..course.corpora import (
    Customer,
    chain_customers,
    load_crosswoz,
    load_sgd,
    split_half,
)
from ..course.corpora.dialogues import Half, SlotFact
from .cases import EvalCase, KeyFact, RecallProbe, probes_at

#: The corpora this module reads, and where the full splits usually are.
DIALOGUE_CORPORA: dict[str, str] = {"sgd": "sgd", "crosswoz": "crosswoz"}

#: The agent's instructions when dialogue cases are evaluated: a short, neutral task
#: assistant (the course's IT-support instructions and tools would be most of every call).
DIALOGUE_INSTRUCTIONS = ("You are a booking assistant. Help the customer find and book what "
                         "they ask for, and answer from what they told you.")


def dialogue_agent(model: Any = None) -> Any:
    """The agent dialogue cases are evaluated with: :data:`DIALOGUE_INSTRUCTIONS`, no tools,
    on ``model`` (a backend, a Model or a name; None: the environment's backend)."""
    from ..course.agent import make_support_agent

    return make_support_agent(model, name="Booking assistant",
                              instructions=DIALOGUE_INSTRUCTIONS, tools=[])


def _recap(slot: str, language: str) -> str:
    label = slot.replace("_", " ")
    if language == "zh":
        return f"提醒我一下，之前说的{label}是什么来着？"
    return f"Remind me, what was the {label} again?"


def _locate(texts: Sequence[str], value: str, lo: int, hi: int, ignore_case: bool) -> int:
    """The first item in ``[lo, hi)`` whose text contains ``value`` (else ``lo``)."""
    needle = value.casefold() if ignore_case else value
    for i in range(lo, hi):
        text = texts[i].casefold() if ignore_case else texts[i]
        if needle in text:
            return i
    return lo


def _facts_for(fact: SlotFact, offset: int, span: int, texts: Sequence[str],
               turn_of: Any, roles: Sequence[str], ignore_case: bool) -> list[KeyFact]:
    """The current value's KeyFact and one per superseded value, all named alike."""
    name = f"day{fact.day + 1}.{fact.topic}.{fact.slot}"
    at = offset + fact.turn
    turn = turn_of(at)
    current = KeyFact(name=name, value=fact.value, category=fact.slot, first_item=at,
                      first_turn=turn, where=roles[at], whole_word=True,
                      ignore_case=ignore_case)
    out = [current]
    for old in fact.superseded:
        first = _locate(texts, old, offset, offset + span, ignore_case)
        out.append(KeyFact(name=name, value=old, category=fact.slot, first_item=first,
                           first_turn=turn_of(first), where=roles[first],
                           superseded_by=fact.value, superseded_turn=turn,
                           whole_word=True, ignore_case=ignore_case))
    return out


def customer_case(customer: Customer) -> EvalCase:
    """One chained customer as an :class:`EvalCase` (see the module docstring)."""
    items: list[dict[str, Any]] = []
    offsets = []
    for dialogue in customer.dialogues:
        offsets.append(len(items))
        items += dialogue.items()
    texts = [str(it["content"]) for it in items]
    roles = ["user" if it["role"] == "user" else "assistant" for it in items]
    seg = segment_turns(items)
    ignore_case = customer.language == "en"
    facts: list[KeyFact] = []
    for day, dialogue in enumerate(customer.dialogues):
        for fact in dialogue.facts(day):
            facts += _facts_for(fact, offsets[day], len(dialogue.turns), texts, seg.turn_of,
                                roles, ignore_case)
    probes = [RecallProbe(p.turn, p.fact, p.expected, p.category,
                          _recap(p.category, customer.language), None, p.stale, False)
              for p in probes_at(facts, len(seg.turns) + 1)]
    meta = {"corpus": customer.corpus, "language": customer.language,
            "dialogues": [d.id for d in customer.dialogues],
            "issues": [f"day{d + 1}.{t}" for d, t in customer.issues()]}
    return EvalCase(customer.id, customer.corpus, items, tuple(facts), tuple(probes), meta)


def parse_dialogue_spec(spec: str) -> tuple[str, Half, int | None, str | None]:
    """``sgd|crosswoz[:tune|report][:N][@DIR]`` -> (corpus, half, N, DIR)."""
    head, at, directory = spec.partition("@")
    if at and not directory.strip():
        raise ValueError(f"corpus {spec!r}: '@' must be followed by a directory")
    name, *parts = head.split(":")
    if name not in DIALOGUE_CORPORA:
        raise ValueError(f"corpus {spec!r}: expected sgd or crosswoz before ':'")
    half: Half = "all"
    limit: int | None = None
    for part in parts:
        if part in ("tune", "report") and half == "all" and limit is None:
            half = part  # type: ignore[assignment]
        elif part.isdigit() and limit is None and int(part) > 0:
            limit = int(part)
        else:
            raise ValueError(f"corpus {spec!r}: expected {name}[:tune|report][:N][@DIR] "
                             f"(N a whole number >= 1), got part {part!r}")
    return name, half, limit, directory.strip() or None


def dialogue_customers(spec: str) -> list[Customer]:
    """The customers a dialogue corpus spec names (see :func:`parse_dialogue_spec`)."""
    name, half, limit, directory = parse_dialogue_spec(spec)
    if directory is not None and not Path(directory).is_dir():
        raise ValueError(f"corpus {spec!r}: no such directory {directory!r}")
    loader = load_sgd if name == "sgd" else load_crosswoz
    customers = split_half(chain_customers(loader(directory)), half)
    return customers[:limit] if limit is not None else customers


def dialogue_cases(spec: str) -> list[EvalCase]:
    """The evaluation cases of a dialogue corpus spec (see the module docstring)."""
    return [customer_case(c) for c in dialogue_customers(spec)]
