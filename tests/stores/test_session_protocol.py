"""Every ctxlab session and every store object is an Agents SDK session: it satisfies
``agents.memory.Session`` (the runtime-checkable protocol the Runner accepts), so it goes
wherever an SDK session goes. Checked on every registered strategy's session class, on
ctxlab's ``RedisStore``, and on the store of every test kind (``store_kinds.py``); a class
that lacks one of the protocol's methods fails the same check."""

from __future__ import annotations

import pytest
from agents.memory import Session

from ctxlab import RedisStore, register_native_store
from ctxlab.sessions import strategies
from ctxlab.stores.native import session_protocol_gaps

from conftest import arun
from fakes import RecordingSummarizer
from store_backends import CONTRACT_KINDS, make_backend


def is_sdk_session(obj: object) -> list[str]:
    """Why ``obj`` is not an SDK session (empty: it is)."""
    gaps = session_protocol_gaps(type(obj))
    if not isinstance(obj, Session):
        gaps.append("isinstance(obj, agents.memory.Session) is False")
    if not isinstance(getattr(obj, "session_id", None), str):
        gaps.append("no session_id string")
    return gaps


def strategy_session(spec):
    kwargs = {param: values[0] for param, values in spec.hints.ranges.items()}
    if spec.hints.summarizer:
        kwargs["summarizer"] = RecordingSummarizer()
    return spec.make("protocol", **kwargs)


@pytest.mark.parametrize("spec", strategies(), ids=lambda spec: spec.name)
def test_every_strategy_session_is_an_sdk_session(spec):
    session = strategy_session(spec)
    assert not is_sdk_session(session), (
        f"{type(session).__name__} is not an SDK session: {is_sdk_session(session)}")


def test_the_redis_store_is_an_sdk_session():
    store = RedisStore("protocol", url="redis://127.0.0.1:1/0")  # never connects here
    assert not is_sdk_session(store), f"RedisStore: {is_sdk_session(store)}"


@pytest.mark.redis
@pytest.mark.parametrize("kind", [k for k in CONTRACT_KINDS if k != "memory"])
def test_every_store_kinds_store_is_an_sdk_session(kind, request, tmp_path, dict_adapter):
    backend = make_backend(kind, request, tmp_path)
    try:
        store = backend.store_arg("protocol")
        assert not is_sdk_session(store), f"{kind}: {is_sdk_session(store)}"
    finally:
        arun(backend.aclose())


def test_the_check_fails_a_class_that_is_not_a_session():
    class NoPop:
        session_id = "broken"
        session_settings = None

        async def get_items(self, limit=None):
            return []

        async def add_items(self, items):
            return None

        async def clear_session(self):
            return None

    assert is_sdk_session(NoPop()) == ["async def pop_item(...)",
                                       "isinstance(obj, agents.memory.Session) is False"]
    with pytest.raises(ValueError, match="Session protocol"):
        register_native_store(NoPop)
