"""One session per user: the registry, the chat service, and the leak it prevents."""

from __future__ import annotations

import pytest
from agents import set_tracing_disabled

from ctxlab import InvalidSessionIdError, TrimmingSession, make_support_agent
from ctxlab.course.offline import OfflineSupportModel
from ctxlab.course.pitfalls import SharedSessionService
from ctxlab.sessions.registry import ChatService, SessionRegistry

from conftest import arun

set_tracing_disabled(True)


def registry(**kwargs) -> SessionRegistry:
    return SessionRegistry(lambda sid: TrimmingSession(sid, max_turns=8), **kwargs)


def test_one_session_per_key_and_bad_keys_are_refused():
    reg = registry(prefix="chat-")
    a, b = reg.session_for("alice"), reg.session_for("bob")
    assert a is not b and reg.session_for("alice") is a
    assert a.session_id == "chat-alice" and len(reg) == 2 and "bob" in reg
    with pytest.raises(InvalidSessionIdError):
        reg.session_for("dana@example.com")
    for anonymous in (None, "", 7):  # anonymous callers never share one conversation
        with pytest.raises(ValueError, match="must not share one session"):
            reg.session_for(anonymous)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="factory"):
        SessionRegistry("not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="made a session with id"):
        SessionRegistry(lambda sid: TrimmingSession("other")).session_for("x")


def test_least_recently_used_sessions_are_evicted():
    reg = registry(max_sessions=2)
    first = reg.session_for("u1")
    reg.session_for("u2")
    reg.session_for("u1")
    reg.session_for("u3")  # evicts u2, the least recently used
    assert "u1" in reg and "u3" in reg and "u2" not in reg
    assert reg.session_for("u1") is first


def test_a_shared_session_leaks_and_the_registry_does_not():
    agent = make_support_agent(OfflineSupportModel())

    async def conversation(service) -> str:
        await service.reply("alice", "Hi, my ticket is TCK-48213 and my laptop overheats.")
        return await service.reply("bob", "What was my ticket number?")

    leaky = arun(conversation(SharedSessionService(agent, TrimmingSession("helpdesk"))))
    assert "TCK-48213" in leaky  # Bob is told Alice's ticket
    safe = arun(conversation(ChatService(agent, registry())))
    assert "TCK-48213" not in safe and "don't see" in safe
