"""Annotated task dialogues (SGD, CrossWOZ) in one shape, and the answer keys their state
annotations give.

A :class:`Dialogue` is a list of :class:`Turn` records: who spoke (``"user"`` or
``"agent"``), what they wrote, and, where the corpus annotates it, the dialogue state in
force after that turn (``{topic: {slot: (surface form, ...)}}``; a topic is an SGD service
such as ``Hotels_4`` or a CrossWOZ sub-goal such as ``酒店#2``).

:func:`answer_key` reads the states: for every slot, the **current** value is the last value
the state gives it, kept only when the dialogue contains it verbatim (a value nobody wrote
cannot be asked back); its **superseded** values are the earlier values of the same slot that
the dialogue also contains; **speaker** is who wrote the current value first. A
:class:`Customer` is several dialogues chained over days (one customer, one issue per service
per day), the shape long conversations and returning customers have.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Speaker = Literal["user", "agent"]
#: ``{topic: {slot: (surface form, ...)}}``: the values in force after a turn.
State = Mapping[str, Mapping[str, tuple[str, ...]]]


@dataclass(frozen=True)
class Turn:
    """One message: ``speaker`` (``"user"``/``"agent"``), ``text``, the state after it
    (None when the corpus does not annotate this turn) and the topics it asks something of
    (``asks``: SGD's ``requested_slots``, "Can I get their address?" about a therapist, and
    its ``INFORM_INTENT`` acts, "check my bank balance"; CrossWOZ's state already holds what
    a turn asks for, filled with the agent's answer)."""

    speaker: Speaker
    text: str
    state: State | None = None
    asks: tuple[str, ...] = ()


@dataclass(frozen=True)
class SlotFact:
    """A slot's current value in one dialogue, the values it replaced, and who said it.

    ``value`` is the surface form the dialogue contains (of the forms the state lists);
    ``forms`` all forms of the current value; ``superseded`` earlier values the dialogue also
    contains; ``turn`` the index of the first turn that contains ``value`` and ``speaker``
    who wrote it; ``day`` the dialogue's place in its customer's chain (0 on its own).
    """

    dialogue_id: str
    topic: str
    slot: str
    value: str
    forms: tuple[str, ...]
    superseded: tuple[str, ...]
    speaker: Speaker
    turn: int
    day: int = 0

    @property
    def name(self) -> str:
        """``topic.slot``, the name a question asks about."""
        return f"{self.topic}.{self.slot}"


@dataclass(frozen=True)
class Dialogue:
    """A task dialogue: ``turns``, the ``topics`` (services or domains) it covers, the
    ``language`` (``"en"``/``"zh"``) and the ``corpus`` it came from."""

    id: str
    corpus: str
    language: str
    turns: tuple[Turn, ...]
    topics: tuple[str, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def items(self) -> list[dict[str, Any]]:
        """The dialogue as Responses input items (user / assistant messages)."""
        role = {"user": "user", "agent": "assistant"}
        return [{"role": role[t.speaker], "content": t.text} for t in self.turns]

    def facts(self, day: int = 0) -> tuple[SlotFact, ...]:
        """The dialogue's answer key (:func:`answer_key`), dated ``day``."""
        return answer_key(self, day=day)


@dataclass(frozen=True)
class Customer:
    """One customer's dialogues over days: ``dialogues[d]`` is day ``d``."""

    id: str
    corpus: str
    dialogues: tuple[Dialogue, ...]

    @property
    def language(self) -> str:
        return self.dialogues[0].language

    def facts(self) -> tuple[SlotFact, ...]:
        """Every day's answer key, in order."""
        return tuple(f for day, d in enumerate(self.dialogues) for f in d.facts(day))

    def issues(self) -> tuple[tuple[int, str], ...]:
        """The customer's separate issues: one per ``(day, topic)``."""
        return tuple((day, t) for day, d in enumerate(self.dialogues) for t in d.topics)


# ---------------------------------------------------------------------------- answer keys


def _find(turns: Sequence[Turn], forms: Iterable[str],
          at: int | None = None) -> tuple[str, int] | None:
    """Where the dialogue says one of ``forms`` (case-insensitive): the turn at or nearest
    before ``at`` that contains one (the turn whose state first held the value, or the
    agent turn the user accepted), else the first turn that does; None when none does."""
    needles = [(f.strip(), f.strip().casefold()) for f in forms if f.strip()]
    folded = [t.text.casefold() for t in turns]

    def said(i: int) -> str | None:
        return next((form for form, n in needles if n in folded[i]), None)

    order = list(range(min(at, len(turns) - 1), -1, -1)) if at is not None else []
    for i in order + list(range(len(turns))):
        form = said(i)
        if form is not None:
            return form, i
    return None


#: Per ``(topic, slot)``: ``[(forms, turn that first held them), ...]``.
History = dict[tuple[str, str], list[tuple[tuple[str, ...], int]]]


def slot_histories(turns: Sequence[Turn]) -> History:
    """Per ``(topic, slot)``: its distinct successive values over the annotated states,
    each with the index of the turn whose state first held it. A state that lists a form
    of the previous value (SGD adds ``"March 11th"`` to ``"11th of March"``) is the same
    value, with its forms merged."""
    history: History = {}
    for index, turn in enumerate(turns):
        for topic, slots in (turn.state or {}).items():
            for slot, forms in slots.items():
                forms = tuple(f for f in forms if f and f.strip())
                if not forms:
                    continue
                seen = history.setdefault((topic, slot), [])
                if seen and set(seen[-1][0]) & set(forms):  # the same value, more forms
                    merged = seen[-1][0] + tuple(f for f in forms if f not in seen[-1][0])
                    seen[-1] = (merged, seen[-1][1])
                else:
                    seen.append((forms, index))
    return history


def answer_key(dialogue: Dialogue, day: int = 0) -> tuple[SlotFact, ...]:
    """Current and superseded values per slot, from the dialogue's state annotations.

    Only values the dialogue contains verbatim count (a current value that no turn contains
    gives no fact; a superseded one is left out). A superseded value equal to a form of the
    current value is not superseded. The speaker is whoever wrote the value in the turn that
    set it, or nearest before it.
    """
    facts = []
    for (topic, slot), values in slot_histories(dialogue.turns).items():
        current, set_at = values[-1]
        found = _find(dialogue.turns, current, set_at)
        if found is None:
            continue
        value, turn = found
        now = {f.casefold() for f in current}
        old: list[str] = []
        for earlier, at in values[:-1]:
            hit = _find(dialogue.turns, earlier, at)
            if hit and hit[0].casefold() not in now and hit[0] not in old:
                old.append(hit[0])
        facts.append(SlotFact(dialogue.id, topic, slot, value, current, tuple(old),
                              dialogue.turns[turn].speaker, turn, day))
    return tuple(facts)


# ---------------------------------------------------------------------------- customers

Half = Literal["all", "tune", "report"]


def chain_customers(dialogues: Sequence[Dialogue], per_customer: int = 4,
                    corpus: str | None = None) -> list[Customer]:
    """Consecutive groups of ``per_customer`` dialogues, each one customer's days (a last
    incomplete group is dropped)."""
    if per_customer < 1:
        raise ValueError(f"chain_customers: per_customer must be >= 1, got {per_customer}")
    out = []
    for start in range(0, len(dialogues) - per_customer + 1, per_customer):
        group = tuple(dialogues[start:start + per_customer])
        name = corpus or group[0].corpus
        out.append(Customer(f"{name}-c{start // per_customer:03d}", name, group))
    return out


def split_half(customers: Sequence[Customer], half: Half) -> list[Customer]:
    """``"tune"`` (even positions) or ``"report"`` (odd positions): two disjoint halves that
    together are ``"all"``; tune on one, report on the other."""
    if half == "all":
        return list(customers)
    if half not in ("tune", "report"):
        raise ValueError(f"split_half: half must be 'all', 'tune' or 'report', got {half!r}")
    return list(customers[0 if half == "tune" else 1::2])
