"""A branch keeps every setting of its parent, for every registered strategy.

Before, ``branch()`` rebuilt the child from a list each session class kept by hand
(``_settings()``): a class that forgot a parameter gave branches with the default (a parent
with ``max_tokens=300`` branched into one with 2000) and no suite noticed. Now the strategy's
params object is passed on whole; the old pattern is kept below and shown to fail the check.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxlab import MemorySession, TokenTailSession
from ctxlab.policies.base import Window
from ctxlab.policies.token_tail import TokenTailParams, token_tail_window
from ctxlab.stores.base import LogStore

from conftest import arun, assistant, call, output, user
from strategies import history
from strategy_suite import SPECS, draw_session

LONG = [user("q1 " + "first " * 30), assistant("a1 " + "reply " * 40), user("q2"),
        call("c2", "lookup"), output("c2", "result " * 60), assistant("a2"),
        user("q3 " + "more " * 30), assistant("a3 " + "words " * 40),
        user("q4"), assistant("a4 " + "end " * 20), user("q5"), assistant("a5")]


async def check_branch_keeps_settings(session: Any, items: list[dict[str, Any]]) -> None:
    """Branch ``session`` at a checkpoint after ``items``: same class, same params, same
    options, and the same view."""
    await session.add_items(items)
    if hasattr(session, "flush"):
        await session.flush()
    await session.checkpoint("here")
    child = await session.branch("here")
    assert type(child) is type(session)
    assert getattr(child, "params", None) == getattr(session, "params", None)
    assert child._options() == session._options()
    assert await child.get_items() == await session.get_items()


class OldStyleTokenTail(MemorySession):
    """BROKEN (the pattern before): its parameter lives in the constructor, and the child
    is rebuilt from the options the base class knows, which do not include it."""

    def __init__(self, session_id: str | None = None, max_tokens: int = 2000, **common: Any):
        self.max_tokens = max_tokens
        super().__init__(session_id, **common)

    def _window(self) -> Window:
        return token_tail_window(self._log, TokenTailParams(self.max_tokens))

    def _spawn_like(self, store: LogStore) -> MemorySession:
        return type(self)(store=store, **self._options())  # max_tokens forgotten


def test_a_token_tail_branch_keeps_its_budget():
    session = TokenTailSession("parent", max_tokens=150)
    arun(check_branch_keeps_settings(session, LONG))


def test_the_old_pattern_fails_the_same_check():
    session = OldStyleTokenTail("parent", max_tokens=150)
    with pytest.raises(AssertionError):
        arun(check_branch_keeps_settings(session, LONG))
    child = arun(session.branch("here"))
    assert child.max_tokens == 2000  # what the old pattern silently did


@pytest.mark.parametrize("name", sorted(SPECS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_strategy_branches_with_all_its_settings(name, data):
    session = draw_session(data.draw, name)
    items = data.draw(history())
    padded = [dict(it, content=it["content"] * 12) if isinstance(it.get("content"), str) else it
              for it in items]
    arun(check_branch_keeps_settings(session, padded))
