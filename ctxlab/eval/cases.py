"""Evaluation cases: a conversation, its answer key, and the questions to probe memory with.

An :class:`EvalCase` is what every memory strategy is replayed on. It holds

* the conversation as Responses items (as a session stores them);
* the answer key: one :class:`KeyFact` per value the agent must keep available (a ticket
  number, a reservation code, a constraint the customer set), with the turn it was first
  mentioned in, where it came from (user text or a tool output) and, for a value that was
  replaced later (a new email address, a firmware upgrade), the value that superseded it;
* :class:`RecallProbe` s: "at the start of turn ``t``, the user asks about fact ``f``". A
  probe is hypothetical: it is asked against the model's view at that moment and never
  stored, so probing does not change the conversation. A probe at turn ``n_turns + 1`` is
  asked after the last turn.

A probe is *answerable offline* when its fact has a kind the offline model can recall
(:data:`ctxlab.course.offline.FACT_KINDS`; asked in Chinese also ``model``, ``phone`` and
``date``) and the full history's latest value of that kind is the
expected one, so "what was my ticket number?" has exactly one right answer; or when it asks
for a constraint or a commitment (kinds :data:`STATEMENT_KINDS`) that the full history still
holds in force. Only such probes are asked through the agent by default (see
:mod:`ctxlab.eval.answers`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import pairwise
from typing import Any

from ..core.items import item_kind
from ..core.turns import segment_turns
from ..core.validate import validate_items
from ..course.corpora import Conversation
from ..course.offline.memory import statements_in_view
from ..facts.typed import FACT_KINDS, FACT_LABELS, find_facts, latest_fact

#: The question a probe asks for each offline fact kind (each one is read by the offline
#: model as a recall request for exactly that kind; tests check this).
KIND_QUESTIONS: dict[str, str] = {
    "ticket": "What was my ticket number again?",
    "serial": "Which serial number did I give you?",
    "firmware": "Which firmware version is the device on now?",
    "error_code": "What was the error code again?",
    "email": "Which email address do you have for me?",
    "order": "What was my order number again?",
    "rma": "What was the RMA number again?",
    "reservation": "What was my reservation code again?",
}

#: Offline kind of the fact names the shipped corpora use (tau-bench, ABCD, seeds).
NAME_KINDS: dict[str, str] = {
    "reservation_id": "reservation",
    "ticket_id": "ticket",
    "ticket": "ticket",
    "serial": "serial",
    "firmware": "firmware",
    "error_code": "error_code",
    "email": "email",
    "order_id": "order",
    "order": "order",
    "rma": "rma",
}

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

#: Fact kinds that are sentences, not identifiers: the offline model answers "what did I ask
#: you to keep in mind?" and "what did you promise?" with those still in force.
STATEMENT_KINDS = ("constraint", "commitment")

#: Where a fact was first said, as reported in results.
USER, TOOL_OUTPUT = "user", "tool_output"


@dataclass(frozen=True)
class KeyFact:
    """One value of the answer key.

    ``name`` says which fact it is (``"email"``, ``"issue2.serial"``, ``"reservation_id"``);
    several values may share a name (an old and a new email). ``category`` groups facts for
    survival tables (the kind of value: ``"serial"``, ``"constraint"``, ``"user_id"``);
    ``kind`` is its :data:`ctxlab.course.offline.FACT_KINDS` kind, or None when the offline model
    cannot recall it. ``first_item`` / ``first_turn`` locate the first mention and
    ``where`` is that item's kind (``"user"``, ``"tool_output"``, ...). ``superseded_by``
    and ``superseded_turn`` say which value replaced this one, and when. ``whole_word`` and
    ``ignore_case`` say how the value is matched in a model's view.
    """

    name: str
    value: str
    category: str
    kind: str | None = None
    first_item: int | None = None
    first_turn: int | None = None
    where: str | None = None
    superseded_by: str | None = None
    superseded_turn: int | None = None
    whole_word: bool = True
    ignore_case: bool = False

    @property
    def id(self) -> str:
        """``name=value``: unique within a case."""
        return f"{self.name}={self.value}"

    @property
    def mentioned(self) -> bool:
        return self.first_item is not None

    @property
    def from_tool(self) -> bool:
        """True when the value first came from a tool output (re-getting it needs the tool)."""
        return self.where == TOOL_OUTPUT

    def current_at(self, turn: int) -> bool:
        """True when the value is mentioned before ``turn`` and not yet superseded then."""
        return (
            self.first_item is not None
            and (self.first_turn or 0) < turn
            and (self.superseded_turn is None or self.superseded_turn >= turn)
        )

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """The regular expression that finds the value verbatim in a text."""
        body = re.escape(self.value)
        if self.whole_word:
            body = r"(?<![A-Za-z0-9])" + body + r"(?![A-Za-z0-9])"
        return re.compile(body, re.IGNORECASE if self.ignore_case else 0)

    def found_in(self, text: str) -> bool:
        """True when ``text`` holds the value (as the case's matching rules say)."""
        if self.ignore_case:
            return self.pattern.search(text) is not None
        value = self.value
        start = text.find(value)
        if not self.whole_word:
            return start >= 0
        size = len(value)
        while start >= 0:  # a plain search first; the boundary check only where it matched
            end = start + size
            if (start == 0 or text[start - 1] not in _WORD) and (
                    end == len(text) or text[end] not in _WORD):
                return True
            start = text.find(value, start + 1)
        return False


@dataclass(frozen=True)
class RecallProbe:
    """A question about fact ``fact`` asked at the start of user turn ``turn``.

    ``expected`` is the right value at that moment and ``stale`` the superseded values that
    would be wrong answers. ``answerable`` is True when the offline model can be asked it
    (see the module docstring); ``question`` is what the user types.
    """

    turn: int
    fact: str
    expected: str
    category: str
    question: str
    kind: str | None = None
    stale: tuple[str, ...] = ()
    from_tool: bool = False
    answerable: bool = False

    @property
    def id(self) -> str:
        """``t<turn>:<fact>=<expected>``: unique within a case."""
        return f"t{self.turn}:{self.fact}={self.expected}"


@dataclass(frozen=True)
class EvalCase:
    """A conversation to replay, with its answer key and probes (see the module docstring)."""

    id: str
    source: str
    items: list[dict[str, Any]]
    facts: tuple[KeyFact, ...] = ()
    probes: tuple[RecallProbe, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError(f"case id must be a non-empty string, got {self.id!r}")
        problems = validate_items(self.items)
        if problems:
            raise ValueError(f"case {self.id!r}: the conversation is not a valid item sequence: "
                             f"{problems[0]}")
        names = {f.name for f in self.facts}
        last = self.n_turns + 1
        for probe in self.probes:
            if probe.fact not in names:
                raise ValueError(f"case {self.id!r}: probe {probe.id} names fact {probe.fact!r}, "
                                 "which the answer key does not hold")
            if not 1 <= probe.turn <= last:
                raise ValueError(f"case {self.id!r}: probe {probe.id} is at turn {probe.turn}; "
                                 f"the conversation has turns 1..{self.n_turns} (and "
                                 f"{last} for after the end)")

    @cached_property
    def turn_starts(self) -> tuple[int, ...]:
        """Index of the item that opens each user turn."""
        return tuple(t.start for t in segment_turns(self.items).turns)

    @property
    def n_turns(self) -> int:
        return len(self.turn_starts)

    def fact(self, name: str, value: str) -> KeyFact:
        for f in self.facts:
            if f.name == name and f.value == value:
                return f
        raise KeyError(f"case {self.id!r} has no fact {name}={value}")

    def values_of(self, name: str) -> list[KeyFact]:
        """The values of fact ``name``, oldest first."""
        return sorted((f for f in self.facts if f.name == name),
                      key=lambda f: (f.first_turn or 0, f.first_item or 0))

    def start_of(self, turn: int) -> int:
        """Index of the first item of ``turn`` (the item count for the turn after the end)."""
        if turn == self.n_turns + 1:
            return len(self.items)
        return self.turn_starts[turn - 1]


# ---------------------------------------------------------------------------- building


def question_for(category: str, kind: str | None) -> str:
    """The question a probe asks: :data:`KIND_QUESTIONS` for a known kind, else generic."""
    if kind in KIND_QUESTIONS:
        return KIND_QUESTIONS[kind]
    if category == "constraint":
        return "Remind me: what did I ask you to keep in mind about this case?"
    if category == "commitment":
        return "What did you promise to do for me?"
    label = category.replace("_", " ")
    return f"Remind me, what was the {label} again?"


def key_facts_from(
    conversation: Conversation,
    *,
    kinds: Mapping[str, str] | None = None,
    whole_word: bool = False,
    ignore_case: bool = False,
) -> tuple[KeyFact, ...]:
    """The answer key of a :class:`~ctxlab.course.corpora.Conversation`: one fact per mentioned
    :class:`~ctxlab.course.corpora.Fact` (facts the chat never mentions cannot be kept and are
    left out). ``kinds`` maps fact names to offline kinds (default :data:`NAME_KINDS`)."""
    kinds = NAME_KINDS if kinds is None else kinds
    seg = segment_turns(conversation.items)
    facts = []
    for fact in conversation.facts_mentioned():
        assert fact.first_item is not None
        facts.append(KeyFact(
            name=fact.name, value=fact.value, category=fact.name, kind=kinds.get(fact.name),
            first_item=fact.first_item, first_turn=seg.turn_of(fact.first_item),
            where=fact.where, whole_word=whole_word, ignore_case=ignore_case,
        ))
    return tuple(facts)


def probes_at(facts: Iterable[KeyFact], turn: int, *, min_age: int = 0) -> list[RecallProbe]:
    """A probe at ``turn`` for every fact name whose current value was first mentioned at
    least ``min_age`` turns before (preamble facts count as turn 0)."""
    by_name: dict[str, list[KeyFact]] = {}
    for f in facts:
        by_name.setdefault(f.name, []).append(f)
    probes = []
    for name, values in by_name.items():
        for f in values:
            first = f.first_turn or 0
            if f.first_item is None or first >= turn or turn - first < min_age:
                continue
            if f.superseded_turn is not None and f.superseded_turn < turn:
                continue
            stale = tuple(dict.fromkeys(
                o.value for o in values if o.value != f.value and o.superseded_by is not None
                and o.superseded_turn is not None and o.superseded_turn < turn))
            probes.append(RecallProbe(
                turn=turn, fact=name, expected=f.value, category=f.category,
                question=question_for(f.category, f.kind), kind=f.kind, stale=stale,
                from_tool=f.from_tool,
            ))
    return probes


def mark_answerable(items: Sequence[Mapping[str, Any]], starts: Sequence[int],
                    probes: Iterable[RecallProbe], *,
                    kinds: Iterable[str] = FACT_KINDS) -> tuple[RecallProbe, ...]:
    """Set ``answerable`` on each probe (see the module docstring); ``starts`` are the
    indices of the turns' first items. ``kinds`` are the fact kinds the offline model
    recalls for these probes' questions (all of them for Chinese questions:
    :data:`~ctxlab.facts.typed.ALL_FACT_KINDS`)."""
    probes = list(probes)
    recalled = set(kinds)
    wanted = sorted({p.kind for p in probes if p.kind in recalled})
    found = find_facts(items, kinds=wanted) if wanted else {}
    held: dict[int, tuple[list[str], list[str]]] = {}
    out = []
    for probe in probes:
        ok = False
        end = starts[probe.turn - 1] if probe.turn <= len(starts) else len(items)
        if probe.kind in found:
            latest = latest_fact([f for f in found[probe.kind] if f.index < end])
            ok = latest is not None and latest.value == probe.expected
        elif probe.kind in STATEMENT_KINDS:
            if end not in held:
                constraints, commitments = statements_in_view(items[:end])
                held[end] = ([s.text for s in constraints], [s.text for s in commitments])
            texts = held[end][0 if probe.kind == "constraint" else 1]
            matcher = KeyFact(probe.fact, probe.expected, probe.category)
            ok = any(matcher.found_in(text) for text in texts)
        out.append(replace(probe, answerable=ok))
    return tuple(out)


def case_from_conversation(
    conversation: Conversation,
    *,
    kinds: Mapping[str, str] | None = None,
    whole_word: bool | None = None,
    ignore_case: bool | None = None,
    probe_turns: Iterable[int] | None = None,
) -> EvalCase:
    """An :class:`EvalCase` from a corpus conversation, probing every mentioned fact after
    the last turn (or at ``probe_turns``; ``n_turns + 1`` means after the end).

    Matching follows how the corpus located its facts: ABCD values case-insensitively and as
    whole words, seed values as whole words, tau-bench values verbatim.
    """
    source = conversation.source
    if whole_word is None:
        whole_word = source in ("abcd", "seed")
    if ignore_case is None:
        ignore_case = source == "abcd"
    facts = key_facts_from(conversation, kinds=kinds, whole_word=whole_word,
                           ignore_case=ignore_case)
    seg = segment_turns(conversation.items)
    n = len(seg.turns)
    turns = [n + 1] if probe_turns is None else sorted(set(probe_turns))
    probes = [p for t in turns for p in probes_at(facts, t)]
    starts = [t.start for t in seg.turns]
    return EvalCase(
        id=conversation.id, source=source, items=conversation.items, facts=facts,
        probes=mark_answerable(conversation.items, starts, probes), meta=dict(conversation.meta),
    )


def case_from_items(
    items: Sequence[Mapping[str, Any]], *, case_id: str = "conversation", source: str = "file",
    find: bool = True,
) -> EvalCase:
    """A case from your own items. With ``find`` the answer key is every typed fact the
    offline patterns find (:func:`ctxlab.course.offline.find_facts`: tickets, serials, emails, ...),
    probed after the last turn; a later value of a single-valued kind (email, firmware)
    supersedes the earlier one."""
    items = [dict(it) for it in items]
    facts: list[KeyFact] = []
    seg = segment_turns(items)
    if find:
        found = find_facts(items)
        for kind, hits in found.items():
            seen: dict[str, KeyFact] = {}
            for hit in hits:
                if hit.value in seen:
                    continue
                seen[hit.value] = KeyFact(
                    name=kind, value=hit.value, category=kind, kind=kind, first_item=hit.index,
                    first_turn=seg.turn_of(hit.index), where=item_kind(items[hit.index]),
                )
            values = list(seen.values())
            if kind in ("email", "firmware"):
                values = [
                    replace(v, superseded_by=nxt.value, superseded_turn=nxt.first_turn)
                    for v, nxt in pairwise(values)
                ] + values[-1:]
            else:  # several values of one kind are separate facts
                values = [replace(v, name=f"{kind}#{n}") if len(values) > 1 else v
                          for n, v in enumerate(values, 1)]
            facts += values
    n = len(seg.turns)
    probes = probes_at(facts, n + 1)
    starts = [t.start for t in seg.turns]
    return EvalCase(case_id, source, items, tuple(facts),
                    mark_answerable(items, starts, probes))


def fact_label(category: str) -> str:
    """How a category reads in tables ("serial number", "user id", "constraint")."""
    return FACT_LABELS.get(category, category.replace("_", " "))
