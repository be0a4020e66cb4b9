"""What the memory exercises of lessons 05 and 05b accept: the library's own parts.

A stand-in that hands the model the answers (a duck-typed session whose ``get_items``
returns the facts, a state memory filled in advance, a recall index loaded before the chat, a
subclass that replaces the library's methods, an ``on_assemble`` callback) would be cheap
and answer everything without remembering anything. :func:`check_session` and
:func:`check_manager` refuse each with a :class:`SetupRejected` that names the part, in the
lesson's language (``"en"`` for lesson 05, ``"zh"`` for lesson 05b).
"""

from __future__ import annotations

import inspect
from typing import Any

from ..context import ContextManager
from ..memory import DenseIndex, FTS5Index, Recall, RuleBasedStateExtractor, StateMemory
from ..memory.llm_extract import LLMStateExtractor
from ..summarizers import ExtractiveSummarizer, LLMSummarizer

__all__ = ["SetupRejected", "check_manager", "check_session"]

#: Where the library's parts live: a class defined elsewhere must not override their methods.
_LIBRARY = ("ctxlab.", "agents.")


class SetupRejected(Exception):
    """The learner's setup is not a memory made of the library's parts (the message says
    which part and why)."""


#: Every message of the checks, per lesson language.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "not_library": "{what} should be ctxlab's {names}, got {got}: the exercise is to "
                       "combine the library's memories, not to hand the model the answers",
        "replaces": "{what} ({cls}) replaces {changed}: use the library's memories as they "
                    "are (writing a session is lesson 02b's exercise)",
        "session_replaces": "the session ({cls}) replaces {changed}: use the library's "
                            "sessions as they are",
        "session": "make_session()'s session", "summarizer": "the summarizer",
        "manager": "make_manager(session)'s result", "state": "the state source (state=)",
        "extractor": "the state extractor", "retriever": "the recall source (retriever=)",
        "index": "the recall index", "state_source": "the state source",
        "recall_source": "the recall source",
        "state_filled": "the state memory starts filled in: it should extract the facts from "
                        "this conversation, not be given them",
        "index_filled": "the recall index starts filled in: it should index only this "
                        "conversation",
        "reads_other": "{what} reads another session: it should read {session}",
        "own_session": "the one make_session() returned",
        "on_assemble": "on_assemble can change what the model is sent: leave it unset in "
                       "this exercise",
    },
    "zh": {
        "not_library": "{what}应该是 ctxlab 的 {names}，这里却是 {got}：这个练习要用库里现成的"
                       "记忆组件，而不是一个预先写好答案的替代品",
        "replaces": "{what}（{cls}）改写了 {changed}：这个练习用库里现成的记忆组件；自己写会话"
                    "是第 02b 课的练习",
        "session_replaces": "会话（{cls}）改写了 {changed}：这个练习用库里现成的记忆组件；自己"
                            "写会话是第 02b 课的练习",
        "session": "make_session() 返回的会话", "summarizer": "摘要器",
        "manager": "make_manager(session) 返回的对象", "state": "状态来源（state=）",
        "extractor": "状态提取器", "retriever": "召回来源（retriever=）", "index": "召回索引",
        "state_source": "状态来源（state=）", "recall_source": "召回来源（retriever=）",
        "state_filled": "状态记忆一开始就已经有内容了：它应该从这段对话里自己提取，而不是事先填好",
        "index_filled": "召回索引一开始就已经有内容了：它应该只索引这段对话",
        "reads_other": "{what}读的是另一个会话：它应该读{session}",
        "own_session": " make_session() 返回的这个",
        "on_assemble": "on_assemble 回调能改动发给模型的内容，这个练习里请不要设置",
    },
}


def _library_base(cls: type) -> type | None:
    return next((c for c in cls.__mro__ if c.__module__.startswith(_LIBRARY)), None)


def _overridden(obj: Any) -> list[str]:
    """Methods of ``obj``'s class that replace the library class it extends."""
    cls = type(obj)
    base = _library_base(cls)
    if base is None or base is cls:
        return []
    names = [n for n, v in inspect.getmembers(base) if callable(v) and not n.startswith("__")]
    return sorted(n for n in names if getattr(cls, n, None) is not getattr(base, n, None))


def _require(obj: Any, kinds: tuple[type, ...], part: str, lang: str) -> None:
    words = _WORDS[lang]
    if not isinstance(obj, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise SetupRejected(words["not_library"].format(what=words[part], names=names,
                                                        got=type(obj).__name__))
    changed = _overridden(obj)
    if changed:
        raise SetupRejected(words["replaces"].format(what=words[part], cls=type(obj).__name__,
                                                     changed=", ".join(changed)))


def check_session(session: Any, lang: str = "en") -> None:
    """A ctxlab session or an Agents SDK one, with the library's methods (and a summarizer
    of ctxlab's when it summarizes)."""
    from ..sessions.base import MemorySession

    base = _library_base(type(session))
    if base is not None and base.__module__.startswith("agents."):
        changed = _overridden(session)
        if changed:
            raise SetupRejected(_WORDS[lang]["session_replaces"].format(
                cls=type(session).__name__, changed=", ".join(changed)))
    else:
        _require(session, (MemorySession,), "session", lang)
    summarizer = getattr(session, "summarizer", None)
    if summarizer is not None:
        _require(summarizer, (ExtractiveSummarizer, LLMSummarizer), "summarizer", lang)


def check_manager(manager: Any, session: Any, lang: str = "en", *,
                  which_session: str | None = None) -> None:
    """A ContextManager of ctxlab's whose state and recall are ctxlab's, start empty and
    read this conversation's session (``session``; None: a session the check opens later,
    so a source bound to any session reads another one; ``which_session`` says which in
    the message), with no callback that could change what is sent."""
    words = _WORDS[lang]
    _require(manager, (ContextManager,), "manager", lang)
    if manager.state is not None:
        _require(manager.state, (StateMemory,), "state", lang)
        _require(manager.state.extractor, (RuleBasedStateExtractor, LLMStateExtractor),
                 "extractor", lang)
        if not manager.state.state.is_empty():
            raise SetupRejected(words["state_filled"])
    if manager.retriever is not None:
        _require(manager.retriever, (Recall,), "retriever", lang)
        _require(manager.retriever.index, (FTS5Index, DenseIndex), "index", lang)
        if len(manager.retriever.index):
            raise SetupRejected(words["index_filled"])
    for part, source in (("state_source", manager.state), ("recall_source", manager.retriever)):
        bound = getattr(source, "session", None)
        if bound is not None and bound is not session:
            raise SetupRejected(words["reads_other"].format(
                what=words[part], session=which_session or words["own_session"]))
    if manager.on_assemble is not None:
        raise SetupRejected(words["on_assemble"])
