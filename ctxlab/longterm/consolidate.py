"""Write one finished session into a user's long-term memory.

:func:`consolidate` reads the session's items with a state extractor (the offline
:class:`~ctxlab.RuleBasedStateExtractor` by default, an LLM one with a real model), and
merges what the session established into the user's :class:`~ctxlab.longterm.UserMemory`:

* profile fields: the session's values win, when the customer wrote them (what the agent
  said about a venue or a third party is not the customer's profile);
* preferences: the constraints still in force at the end of the session (a question is not
  one, nor a request said for this session only: "this time only", "只是这次"); a revision
  replaces the preference on the same topic (the rules of
  :class:`~ctxlab.SupportState`);
* commitments: the promises still open at the end of the session are added; a promise the
  agent reports kept in this session ("I've sent the label") is removed, even when it was
  made in an earlier one;
* cases: the session's issue, merged with an earlier case of the same serial (or ticket);
* notes: the customer's messages that carry information (an identifier, a preference, or
  a statement of a few content words; bare questions and small talk are left out).

It is a pure function of the old memory and the session: running it twice on the same
session gives the same memory (a session already written is replaced, not added twice).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.items import is_user_message, item_text
from ..facts.instructions import looks_like_instruction
from ..facts.language import has_cjk
from ..facts.statements import find_constraints, find_done
from ..facts.typed import ALL_FACT_KINDS, facts_in_text
from ..memory.fts import query_terms
from ..memory.state import Noted, StatePatch, SupportState, UserProfile
from ..memory.state_memory import StateExtractor, StateMemory
from .notebook import is_session_only
from .record import MAX_NOTES, Case, Note, Remembered, SessionEntry, UserMemory

Item = Mapping[str, Any]

#: A customer message needs this many content words (Latin) or character bigrams (CJK) to
#: be a note, small talk not counted.
MIN_NOTE_WORDS = 4
MIN_NOTE_CJK = 5
#: Words of small talk ("Thanks, that's all for today.") that say nothing to remember.
SMALL_TALK = frozenset((
    "thanks", "thank", "okay", "ok", "great", "today", "bye", "hi", "hello", "cheers",
    "please", "sorry", "fine", "good", "谢谢", "好的", "再见", "你好", "今天", "不客气"))
#: Notes longer than this are cut (characters).
MAX_NOTE_CHARS = 400


async def session_state(items: Sequence[Item],
                        extractor: StateExtractor | None = None) -> SupportState:
    """The structured state a session's items establish."""
    memory = StateMemory(extractor)
    await memory.feed(list(items))
    return memory.state


async def consolidate(memory: UserMemory, items: Sequence[Item], *, session_id: str, at: str,
                      extractor: StateExtractor | None = None, schema: Any = None
                      ) -> UserMemory:
    """``memory`` with session ``session_id`` (its ``items``, ended at ``at``) written in;
    with ``schema``, the session's topics too (:mod:`ctxlab.longterm.topic_notes`)."""
    state = await session_state(items, extractor)
    new = memory.model_copy(deep=True)
    new.sessions = [s for s in new.sessions if s.session != session_id]
    new.notes = [n for n in new.notes if n.session != session_id]
    new.cases = [c for c in new.cases if c.session != session_id]
    said = [item_text(i) for i in items if is_user_message(i)]
    found = state.user
    if any(v and not customer_said(str(v), said) for v in found.model_dump().values()):
        # the agent's words won a field (a hotel's email read out after the customer's own):
        # read the customer's messages alone for it
        found = (await session_state([i for i in items if is_user_message(i)], extractor)).user
    _merge_profile(new.profile, found, said)
    _merge_statements(new, state, items, session_id, at)
    _merge_case(new, state, session_id, at)
    new.notes = (new.notes + notes_of(items, session_id, at))[-MAX_NOTES:]
    new.topics = [t for t in new.topics if t.session != session_id]
    if schema is not None:
        from .topic_notes import MAX_TOPICS, topic_notes_of

        new.topics = (new.topics + topic_notes_of(items, schema, session_id=session_id, at=at,
                                                  language=state.language))[-MAX_TOPICS:]
    new.sessions.append(SessionEntry(session=session_id, at=at, turns=state.turn))
    new.language = state.language
    return new


def _merge_profile(profile: UserProfile, found: UserProfile, said: Sequence[str]) -> None:
    """The session's profile values win, those the customer wrote only: a hotel's phone
    number the agent read out is not the customer's phone."""
    for name in UserProfile.model_fields:
        value = getattr(found, name)
        if value and customer_said(str(value), said):
            setattr(profile, name, value)


def customer_said(value: str, said: Sequence[str]) -> bool:
    """True when one of the customer's messages ``said`` contains ``value`` (case and, for
    numbers, spacing and dashes aside)."""
    needle = value.casefold().strip()
    digits = "".join(ch for ch in needle if ch.isdigit())
    for text in said:
        folded = text.casefold()
        if needle and needle in folded:
            return True
        if len(digits) >= 6 and digits in "".join(ch for ch in folded if ch.isdigit()):
            return True
    return False


def _merge_statements(memory: UserMemory, state: SupportState, items: Sequence[Item],
                      session_id: str, at: str) -> None:
    """Preferences and commitments through SupportState's revision rules."""
    carrier = SupportState(
        constraints=[Noted(topic=p.topic, text=p.text) for p in memory.preferences],
        commitments=[Noted(topic=c.topic, text=c.text) for c in memory.commitments])
    done = [s.text for item in items if not is_user_message(item)
            for s in find_done(item_text(item))]
    asked = ("?", "？")  # "Could you send me a label?" asks for something; it sets nothing
    # "this time only" (只是这次) was said for this session: it never becomes a standing request
    carrier.apply(StatePatch(constraints=[c.text for c in state.constraints
                                          if not c.text.rstrip().endswith(asked)
                                          and not is_session_only(c.text)],
                             commitments=[c.text for c in state.commitments], done=done))
    known = {r.text: r for r in (*memory.preferences, *memory.commitments)}

    def keep(noted: Noted) -> Remembered:
        return known.get(noted.text) or Remembered(topic=noted.topic, text=noted.text,
                                                   session=session_id, at=at)

    memory.preferences = [keep(n) for n in carrier.constraints]
    memory.commitments = [keep(n) for n in carrier.commitments]


def _merge_case(memory: UserMemory, state: SupportState, session_id: str, at: str) -> None:
    issue = state.issue
    case = Case(category=issue.category, device_model=issue.device_model, serial=issue.serial,
                ticket_id=issue.ticket_id, rma=issue.rma, order_id=issue.order_id,
                error_codes=list(issue.error_codes), firmware=issue.firmware,
                status=issue.status, session=session_id, at=at)
    if case.identity() is None and not (case.category or case.device_model):
        return
    same = next((c for c in memory.cases if case.identity() is not None
                 and c.identity() == case.identity()), None)
    if same is not None:  # the same device again: the new values win, the old ones fill gaps
        merged = same.model_dump()
        merged.update({k: v for k, v in case.model_dump().items() if v})
        merged["error_codes"] = list(dict.fromkeys([*same.error_codes, *case.error_codes]))
        memory.cases.remove(same)
        case = Case.model_validate(merged)
    memory.cases.append(case)


def notes_of(items: Sequence[Item], session_id: str, at: str) -> list[Note]:
    """The customer's messages worth keeping for retrieval (see the module docstring)."""
    notes: list[Note] = []
    turn = 0
    seen: set[str] = set()
    for item in items:
        if not is_user_message(item):
            continue
        turn += 1
        text = " ".join(item_text(item).split())
        if text in seen or not informative(text):
            continue
        seen.add(text)
        if len(text) > MAX_NOTE_CHARS:
            text = text[: MAX_NOTE_CHARS - 1] + "…"
        notes.append(Note(text=text, session=session_id, at=at, turn=turn,
                          flagged=looks_like_instruction(text)))
    return notes


def informative(text: str) -> bool:
    """True when a customer message carries something worth remembering."""
    if facts_in_text(text, kinds=ALL_FACT_KINDS):
        return True
    if text.rstrip().endswith(("?", "？")):
        return False
    if find_constraints(text):
        return True
    terms = [t for t in query_terms(text) if len(t) > 1 and t not in SMALL_TALK]
    return len(terms) >= (MIN_NOTE_CJK if has_cjk(text) else MIN_NOTE_WORDS)
