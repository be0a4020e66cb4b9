"""TrimmingSession: the seed's example, tool pairs, budgets, limits, bad input, concurrency."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from agents.memory import Session, SessionSettings

from ctxlab import TokenBudgetWarning, TrimmingSession, item_text, validate_items

from conftest import SEED_FLOW, arun, assistant, call, output, reasoning, user


async def filled(items, **kwargs) -> TrimmingSession:
    session = TrimmingSession("t", **kwargs)
    for item in items:
        await session.add_items([item])
    return session


def test_implements_the_sdk_session_protocol():
    session = TrimmingSession("s1")
    assert isinstance(session, Session)
    assert session.session_settings == SessionSettings()


def test_seed_example_keeps_items_4_to_7():
    async def go():
        session = await filled(SEED_FLOW, max_turns=2)
        view = await session.get_items()
        assert view == SEED_FLOW[4:]
        ledger = await session.ledger()
        assert ledger.kept_indices() == [4, 5, 6, 7]
        assert ledger.dropped_indices() == [0, 1, 2, 3]
        assert {e.reason for e in ledger if e.state == "dropped"} == {
            "older than the last 2 turns"}
        assert [e.turn for e in ledger] == [1, 1, 2, 2, 3, 3, 4, 4]
        assert await session.raw_items() == SEED_FLOW

    arun(go())


def test_fewer_turns_than_max_keeps_everything():
    async def go():
        session = await filled(SEED_FLOW[:3], max_turns=8)
        assert await session.get_items() == SEED_FLOW[:3]

    arun(go())


def test_turns_are_kept_whole_with_their_tool_rounds():
    items = [user("serial SN-1?"), reasoning("rs1"), call("c1", serial="SN-1"), output("c1"),
             assistant("It is covered."), user("and SN-2?"), call("c2"), call("c3"),
             output("c3"), output("c2"), assistant("also covered"), user("thanks")]

    async def go():
        session = await filled(items, max_turns=2)
        view = await session.get_items()
        assert view == items[5:]
        assert validate_items(view) == []

    arun(go())


def test_set_max_turns_changes_the_view_and_loses_nothing():
    async def go():
        session = await filled(SEED_FLOW, max_turns=1)
        assert await session.get_items() == SEED_FLOW[6:]
        session.set_max_turns(3)
        assert await session.get_items() == SEED_FLOW[2:]
        session.max_turns = 8
        assert await session.get_items() == SEED_FLOW
        with pytest.raises(ValueError, match="max_turns must be an integer >= 1"):
            session.set_max_turns(0)
        with pytest.raises(ValueError, match="max_turns"):
            session.set_max_turns(2.5)
        with pytest.raises(ValueError, match="max_turns"):
            TrimmingSession("x", max_turns=True)
        assert session.max_turns == 8

    arun(go())


def test_preamble_is_kept_and_reported():
    items = [{"role": "developer", "content": "Premium customer."}, *SEED_FLOW]

    async def go():
        session = await filled(items, max_turns=1)
        view = await session.get_items()
        assert view == [items[0], *SEED_FLOW[6:]]
        ledger = await session.ledger()
        assert ledger[0].turn is None and ledger[0].state == "kept"
        assert "preamble" in ledger[0].reason
        session2 = await filled(items, max_turns=1, keep_preamble=False)
        ledger2 = await session2.ledger()
        assert ledger2[0].state == "dropped" and "keep_preamble=False" in ledger2[0].reason

    arun(go())


def test_limit_keeps_latest_items_without_splitting_pairs():
    items = [user("q"), reasoning("r"), call("a"), call("b"), output("a"), output("b"),
             assistant("done"), user("next")]

    async def go():
        session = await filled(items, max_turns=5)
        assert await session.get_items(limit=2) == items[6:]
        # a cut at 5 or 4 or 3 or 2 would split a pair, at 2 also the reasoning: go forward
        assert await session.get_items(limit=4) == items[6:]
        assert await session.get_items(limit=7) == items[1:]
        assert await session.get_items(limit=0) == []
        assert await session.get_items(limit=100) == items
        with pytest.raises(ValueError, match="limit"):
            await session.get_items(limit=-1)
        ledger = await session.ledger(limit=2)
        assert ledger.kept_indices() == [6, 7]
        assert "item limit of 2" in ledger[5].reason

    arun(go())


def test_session_settings_limit_applies_to_the_ledger():
    async def go():
        session = TrimmingSession("x", max_turns=8, session_settings=SessionSettings(limit=3))
        await session.add_items(SEED_FLOW)
        ledger = await session.ledger()
        assert ledger.kept_indices() == [5, 6, 7]

    arun(go())


def test_token_budget_keeps_whole_newest_turns():
    async def go():
        counter_session = await filled(SEED_FLOW, max_turns=8)
        ledger = await counter_session.ledger()
        turn_tokens = {}
        for e in ledger:
            turn_tokens[e.turn] = turn_tokens.get(e.turn, 0) + e.tokens
        budget = turn_tokens[4] + turn_tokens[3] + 1  # room for two turns, not three
        session = await filled(SEED_FLOW, max_turns=8, max_tokens=budget)
        assert await session.get_items() == SEED_FLOW[4:]
        ledger = await session.ledger()
        assert ledger.view_tokens <= budget
        assert "token budget" in ledger[0].reason and "token budget" in ledger[3].reason

    arun(go())


def test_newest_turn_over_budget_is_kept_with_a_warning():
    async def go():
        session = await filled(SEED_FLOW, max_tokens=5)
        with pytest.warns(TokenBudgetWarning, match="newest turn alone"):
            view = await session.get_items()
        assert view == SEED_FLOW[6:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ledger = await session.ledger()
        assert "exceeds the 5-token budget" in ledger[7].reason

    arun(go())


def test_view_repairs_damage_in_the_log_and_says_why():
    items = [user("q"), output("ghost"), call("c1"), output("c1"), call("pending"),
             assistant("a"), user("q2"), reasoning("r")]

    async def go():
        session = await filled(items, max_turns=5)
        view = await session.get_items()
        assert validate_items(view) == []
        ledger = await session.ledger()
        assert ledger[1].state == "dropped" and "output whose call" in ledger[1].reason
        assert ledger[4].state == "pending" and "awaiting its output" in ledger[4].reason
        assert ledger[7].state == "pending" and "reasoning waiting" in ledger[7].reason
        assert len(await session.raw_items()) == len(items)

    arun(go())


def test_private_keys_never_reach_the_model():
    async def go():
        session = TrimmingSession("p")
        await session.add_items([{"role": "user", "content": "hi", "metadata": {"crm": 7},
                                  "_agents_tool_title": "x"}])
        assert await session.get_items() == [{"role": "user", "content": "hi"}]
        assert (await session.raw_items())[0]["metadata"] == {"crm": 7}

    arun(go())


@pytest.mark.parametrize(
    "batch, fragment",
    [
        ([user("ok"), "not a dict"], "item 1 of 2 is invalid: expected a dict"),
        ([user("ok"), {"content": "x"}], "item 1 of 2 is invalid: has neither"),
        ([{"type": "message", "content": "x"}], "item 0 of 1 is invalid: message has no 'role'"),
        ([user("ok"), {"role": "user", "content": 3}], "content must be a string or a list"),
        ([{"type": "holo_call"}], "unknown item type 'holo_call'"),
    ],
)
def test_bad_batch_raises_and_stores_nothing(batch, fragment):
    async def go():
        session = await filled(SEED_FLOW[:2])
        before = await session.raw_items()
        with pytest.raises(ValueError, match="Nothing from this batch was stored") as err:
            await session.add_items(batch)
        assert fragment in str(err.value)
        assert await session.raw_items() == before

    arun(go())


def test_add_items_rejects_a_non_list():
    async def go():
        session = TrimmingSession("x")
        with pytest.raises(ValueError, match="single dict"):
            await session.add_items(user("hi"))
        with pytest.raises(ValueError, match="list of items, got str"):
            await session.add_items("hi")

    arun(go())


def test_stored_items_are_copies():
    async def go():
        session = TrimmingSession("x")
        item = user("original")
        await session.add_items([item])
        item["content"] = "mutated by caller"
        view = await session.get_items()
        view[0]["content"] = "mutated by reader"
        assert (await session.raw_items())[0]["content"] == "original"

    arun(go())


def test_pop_item_and_clear_session():
    async def go():
        session = await filled(SEED_FLOW, max_turns=2)
        assert await session.pop_item() == SEED_FLOW[7]
        assert await session.pop_item() == SEED_FLOW[6]
        assert await session.get_items() == SEED_FLOW[2:6]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.raw_items() == []
        assert await session.pop_item() is None
        await session.add_items(SEED_FLOW[:2])
        assert await session.get_items() == SEED_FLOW[:2]

    arun(go())


def test_concurrent_writers_never_lose_items():
    async def go():
        session = TrimmingSession("c", max_turns=3)

        async def writer(w: int) -> None:
            for k in range(25):
                await session.add_items([user(f"w{w}-{k}"), assistant(f"r{w}-{k}")])
                await asyncio.sleep(0)
                await session.get_items()

        await asyncio.gather(*(writer(w) for w in range(20)))
        raw = await session.raw_items()
        assert len(raw) == 20 * 25 * 2
        texts = [it["content"] for it in raw if it.get("role") == "user"]
        assert sorted(texts) == sorted(f"w{w}-{k}" for w in range(20) for k in range(25))
        for i, it in enumerate(raw):  # each batch stays intact: a reply follows its question
            if it.get("role") == "user":
                assert item_text(raw[i + 1]) == "r" + it["content"][1:]
        assert len(await session.get_items()) == 6

    arun(go())


def test_session_id_is_checked():
    for bad in ("", "   ", 3):
        with pytest.raises(ValueError, match="session_id"):
            TrimmingSession(bad)  # type: ignore[arg-type]
    a, b = TrimmingSession(), TrimmingSession(None)
    assert a.session_id != b.session_id and len(a.session_id) == 36  # fresh new_session_id()


def test_version_and_change_listeners():
    async def go():
        session = TrimmingSession("v", max_turns=2)
        seen = []
        unsubscribe = session.subscribe(lambda s: seen.append(s.version))
        first = session.version
        await session.add_items([user("a"), user("a2")])
        assert session.version != first and len(seen) == 1
        session.set_max_turns(3)
        await session.pop_item()
        await session.clear_session()
        assert len(seen) >= 4 and len(set(seen)) >= 4  # add, setting, pop, clear
        assert seen[-1] == session.version
        unsubscribe()
        count = len(seen)
        await session.add_items([user("b")])
        assert len(seen) == count

        def broken(_s):
            raise RuntimeError("listener bug")

        session.subscribe(broken)
        await session.add_items([user("c")])  # a failing listener does not break the session
        assert [item_text(i) for i in await session.raw_items()] == ["b", "c"]
        with pytest.raises(ValueError, match="callback must be callable"):
            session.subscribe("not callable")

    arun(go())


def test_get_items_honours_session_settings_limit_as_the_sdk_does():
    from agents.memory import SessionSettings, SQLiteSession

    items = [user("q1"), assistant("a1"), user("q2"), assistant("a2"), user("q3")]

    async def go():
        sdk = SQLiteSession("ref", session_settings=SessionSettings(limit=3))
        await sdk.add_items(items)
        session = TrimmingSession("limit", max_turns=8, session_settings=SessionSettings(limit=3))
        await session.add_items(items)
        assert await session.get_items() == await sdk.get_items() == items[-3:]
        assert await session.get_items(limit=2) == items[-2:]  # an explicit limit wins
        ledger = await session.ledger()  # the ledger agrees with get_items()
        assert len(ledger.view()) == 3 and ledger[0].state == "dropped"

    arun(go())


def test_step_moves_the_window_start_only_every_step_turns():
    async def go():
        session = TrimmingSession("steps", max_turns=3, step=4)
        firsts = []
        for t in range(12):
            await session.add_items([user(f"q{t}"), assistant(f"a{t}")])
            view = await session.get_items()
            users = [i["content"] for i in view if i.get("role") == "user"]
            assert 3 <= len(users) <= 3 + 4 - 1 or t < 3
            firsts.append(users[0])
        # the start (what a prompt cache matches) changes only every 4 turns once trimming
        changes = [t for t in range(1, 12) if firsts[t] != firsts[t - 1]]
        assert changes == [6, 10]
        ledger = await session.ledger()
        assert "dropped in a step of 4" in ledger[0].reason
        with pytest.raises(ValueError, match="step must be an integer >= 1"):
            TrimmingSession(step=0)

    arun(go())
