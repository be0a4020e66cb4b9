"""What lesson 05's exercise accepts as a memory setup: the library's own parts.

The exercise asks for a session and a ContextManager that answer five probes cheaply. A
stand-in that hands the model the answers (a duck-typed session whose ``get_items`` returns
the facts, a state memory filled in advance, a recall index loaded before the chat, a
subclass that replaces the library's methods, an ``on_assemble`` callback) would be cheap
and answer everything without remembering anything; :func:`check_parts` refuses each with a
message that names the part. (Lesson 05b's check makes the same checks, in Chinese:
:mod:`ctxlab.eval.zh_exercise`.)
"""

from __future__ import annotations

from typing import Any

from ..context import ContextManager
from ..memory import DenseIndex, FTS5Index, Recall, RuleBasedStateExtractor, StateMemory
from ..memory.llm_extract import LLMStateExtractor
from ..summarizers import ExtractiveSummarizer, LLMSummarizer
from .zh_exercise import SetupRejected, _library_base, _overridden

__all__ = ["SetupRejected", "check_parts"]


def _require(obj: Any, kinds: tuple[type, ...], what: str) -> None:
    if not isinstance(obj, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise SetupRejected(f"{what} should be ctxlab's {names}, got {type(obj).__name__}: "
                            "the exercise is to combine the library's memories, not to hand "
                            "the model the answers")
    changed = _overridden(obj)
    if changed:
        raise SetupRejected(f"{what} ({type(obj).__name__}) replaces {', '.join(changed)}: "
                            "use the library's memories as they are (writing a session is "
                            "lesson 02b's exercise)")


def check_session(session: Any) -> None:
    """A ctxlab session or an Agents SDK one, with the library's methods (and a summarizer
    of ctxlab's when it summarizes)."""
    from ..sessions.base import MemorySession

    base = _library_base(type(session))
    if base is not None and base.__module__.startswith("agents."):
        changed = _overridden(session)
        if changed:
            raise SetupRejected(f"the session ({type(session).__name__}) replaces "
                                f"{', '.join(changed)}: use the library's sessions as they are")
    else:
        _require(session, (MemorySession,), "make_session()'s session")
    summarizer = getattr(session, "summarizer", None)
    if summarizer is not None:
        _require(summarizer, (ExtractiveSummarizer, LLMSummarizer), "the summarizer")


def check_manager(manager: Any, session: Any) -> None:
    """None, or a ContextManager whose state and recall are ctxlab's, start empty and read
    this conversation's session, with no callback that could change what is sent."""
    if manager is None:
        return
    _require(manager, (ContextManager,), "make_manager(session)'s result")
    if manager.state is not None:
        _require(manager.state, (StateMemory,), "the state source (state=)")
        _require(manager.state.extractor, (RuleBasedStateExtractor, LLMStateExtractor),
                 "the state extractor")
        if not manager.state.state.is_empty():
            raise SetupRejected("the state memory starts filled in: it should extract the "
                                "facts from this conversation, not be given them")
    if manager.retriever is not None:
        _require(manager.retriever, (Recall,), "the recall source (retriever=)")
        _require(manager.retriever.index, (FTS5Index, DenseIndex), "the recall index")
        if len(manager.retriever.index):
            raise SetupRejected("the recall index starts filled in: it should index only "
                                "this conversation")
    for what, source in (("the state source", manager.state),
                         ("the recall source", manager.retriever)):
        bound = getattr(source, "session", None)
        if bound is not None and bound is not session:
            raise SetupRejected(f"{what} reads another session: it should read the one "
                                "make_session() returned")
    if manager.on_assemble is not None:
        raise SetupRejected("on_assemble can change what the model is sent: leave it unset "
                            "in this exercise")


def check_parts(session: Any, manager: Any) -> None:
    """Raise :class:`SetupRejected` unless ``session`` and ``manager`` are library parts
    (see the module doc)."""
    check_session(session)
    check_manager(manager, session)
