"""Forgetting by decay (age, reinforcement by use, a cap with eviction), "forget me" that still
erases everything (notes, memory, pending reflections) on every record backend, and
background reflection debounced: a burst of endings writes once."""

from __future__ import annotations

import asyncio
import datetime

import pytest

from ctxlab import DecayPolicy, LongTermMemory, MemoryNotes, Reflector, forget_user
from ctxlab.longterm import (
    ConsolidationRejected,
    MemoryNote,
    ScriptedConsolidator,
    prune,
    simulate,
    steady_scenario,
    strength,
)
from ctxlab.longterm.decay import used

from conftest import arun, assistant, user
from notes_mutants import EagerReflector
from record_backends import RECORD_KINDS, raw_dump, records_for

DAY = datetime.timedelta(days=1)
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def note(name: str, at: str = "2026-01-01", topic: str = "other") -> MemoryNote:
    return MemoryNote(id=name, text=name, topic=topic, scope="durable", session="s", at=at)


def test_strength_halves_every_half_life_and_use_stretches_it():
    policy = DecayPolicy(half_life_days=30, reinforcement=1.0)
    fresh = note("a")
    assert strength(fresh, T0, policy) == 1.0
    assert strength(fresh, T0 + 30 * DAY, policy) == pytest.approx(0.5)
    assert strength(fresh, T0 + 60 * DAY, policy) == pytest.approx(0.25)
    once = used(fresh, "2026-01-01")
    assert strength(once, T0 + 60 * DAY, policy) == pytest.approx(0.5)  # half-life 60 now
    assert policy.lifetime_days(0) == pytest.approx(30 * 2.3219, rel=1e-3)


def test_prune_drops_the_faded_and_keeps_the_strongest_up_to_the_cap():
    policy = DecayPolicy(half_life_days=10, reinforcement=1.0, keep_above=0.3, cap=2)
    notes = [note("old", "2025-12-01"), note("a", "2026-01-01"), note("b", "2025-12-30"),
             note("c", "2025-12-31")]
    kept, gone = prune(notes, T0, policy)
    assert [n.id for n in kept] == ["a", "c"]  # "old" faded, "b" evicted by the cap
    assert [n.id for n in gone] == ["old", "b"]
    for bad in ({"half_life_days": 0}, {"keep_above": 1.5}, {"cap": 0},
                {"reinforcement": -1}, {"cap": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            DecayPolicy(**bad)


def test_over_a_year_used_notes_stay_and_one_offs_fade():
    scenario = steady_scenario(12)
    timeline = simulate(DecayPolicy(), scenario, track=("kept-0", "once-0-0"))
    assert timeline.kept_until("kept-0") == scenario.days - 1  # used every 90 days: kept
    assert 60 <= timeline.kept_until("once-0-0") <= 75  # never used: ~70 days
    assert max(timeline.kept) <= DecayPolicy().cap
    no_reinforcement = simulate(DecayPolicy(reinforcement=0), scenario)
    assert no_reinforcement.kept_until("kept-0") < scenario.days - 1


def test_consolidation_forgets_what_has_faded():
    async def go():
        notes = MemoryNotes(decay=DecayPolicy(half_life_days=10, keep_above=0.5))
        await notes.save("ana", "s1", "From now on, email only.", at="2026-01-01")
        await notes.end_session("ana", "s1", at="2026-01-01")
        await notes.save("ana", "s2", "I use a Mac at work.", at="2026-03-01")
        report = await notes.end_session("ana", "s2", at="2026-03-01")
        assert len(report.forgotten) == 1 and report.durable == 1
        assert [n.text for n in (await notes.book("ana")).durable] == ["I use a Mac at work."]

    arun(go())


CHAT = [user("Hi, I'm Zoe Quist, write to zq.private.4417@example.org, serial C02QQ4417ZQ."),
        assistant("Thanks Zoe.")]


@pytest.fixture(params=RECORD_KINDS)
def records(request, tmp_path):
    return records_for(request, tmp_path)


def test_forget_me_erases_notes_memory_and_pending_reflections(records):
    notes = MemoryNotes(records)
    memory = LongTermMemory(records, notes=notes)
    reflector = Reflector(memory, notes=notes, delay=30)

    async def go():
        await notes.save("zoe", "z1", "My door code is 4417, from now on.", at="2026-01-01")
        await notes.end_session("zoe", "z1", at="2026-01-01")
        await notes.save("zoe", "z2", "Ship to the Hilton this time only.", at="2026-01-02")
        await notes.search("zoe", "door code", reinforce=True)  # an index was used
        await memory.write_session("zoe", CHAT, session_id="z1", at="2026-01-01")
        await reflector.session_ended("zoe", CHAT, session_id="z2")  # still waiting
        await notes.save("bob", "b1", "Bob likes mornings.", at="2026-01-01")
        assert b"4417" in await raw_dump(records)
        report = await forget_user("zoe", memory=memory)
        assert report.cancelled_writes == 1 and sum(report.records.values()) == 2
        dump = await raw_dump(records)
        for trace in (b"4417", b"Hilton", b"zq.private", b"C02QQ4417ZQ"):
            assert trace not in dump
        assert await notes.search("zoe", "door code") == []
        assert (await notes.book("bob")).all_notes()  # another customer is untouched
        await reflector.session_ended("zoe", CHAT, session_id="z3")  # after: a new start
        assert reflector.pending == 1
        reflector.cancel("zoe")
        await memory.aclose()

    arun(go())


def check_a_burst_writes_once(kind: type[Reflector]) -> None:
    """The promise: 8 endings in a burst, one write, every session kept."""
    async def go():
        memory = LongTermMemory()
        reflector = kind(memory, delay=0.05)
        for n in range(8):
            await reflector.session_ended("ana", CHAT, session_id=f"s{n}",
                                          at=f"2026-01-0{n + 1}")
        await reflector.drain()
        stored = await memory.get("ana")
        assert [s.session for s in stored.sessions] == [f"s{n}" for n in range(8)]
        assert memory.writes == 1, memory.writes
        assert reflector.stats.endings == 8 and reflector.stats.cancelled == 7
        assert reflector.stats.started == 1 and reflector.stats.writes == 1

    arun(go())


def test_a_burst_of_endings_writes_once_and_cancels_the_redundant_work():
    check_a_burst_writes_once(Reflector)

    async def plain():  # without debouncing: one write per ending
        memory = LongTermMemory()
        for n in range(8):
            await memory.end_session("ana", CHAT, session_id=f"s{n}", at="2026-01-01")
        await memory.drain()
        return memory.writes

    assert arun(plain()) == 8


def test_the_check_catches_a_reflector_that_never_cancels():
    with pytest.raises(AssertionError):
        check_a_burst_writes_once(EagerReflector)


def test_an_ending_during_a_running_reflection_cancels_it_and_nothing_is_lost():
    class SlowSource:
        def __init__(self, sid):
            self.session_id = sid

        async def get_items(self):
            await asyncio.sleep(0.05)  # reading the session takes a while
            return CHAT

    async def go():
        memory = LongTermMemory()
        reflector = Reflector(memory, delay=0)
        await reflector.session_ended("ana", SlowSource("s1"))
        await asyncio.sleep(0.01)  # the reflection is reading s1 now
        await reflector.session_ended("ana", SlowSource("s2"))
        await reflector.drain()
        assert [s.session for s in (await memory.get("ana")).sessions] == ["s1", "s2"]
        assert memory.writes == 1 and reflector.stats.cancelled == 1
        assert reflector.stats.started == 2  # the first was under way, then cancelled

    arun(go())


def test_the_reflection_consolidates_the_sessions_notes_too():
    async def go():
        notes = MemoryNotes()
        memory = LongTermMemory(notes.records, notes=notes)
        reflector = Reflector(memory, notes=notes, delay=0.01)
        await notes.save("ana", "s1", "From now on, email only.", at="2026-01-01")
        await notes.save("ana", "s1", "Call me this time only.", at="2026-01-01")
        await reflector.session_ended("ana", CHAT, session_id="s1", at="2026-01-01")
        await reflector.drain()
        book = await notes.book("ana")
        assert [n.text for n in book.durable] == ["From now on, email only."]
        assert book.sessions == {}

    arun(go())


def test_a_refused_notes_consolidation_is_logged_and_leaves_the_notes_waiting():
    async def go():
        notes = MemoryNotes(consolidator=ScriptedConsolidator('{"durable": ['))
        memory = LongTermMemory(notes.records, notes=notes)
        reflector = Reflector(memory, notes=notes, delay=0.01)
        await notes.save("ana", "s1", "From now on, email only.", at="2026-01-01")
        await reflector.session_ended("ana", CHAT, session_id="s1", at="2026-01-01")
        await reflector.drain()
        assert [s.session for s in (await memory.get("ana")).sessions] == ["s1"]
        (user_id, sessions, error), = memory.errors
        assert (user_id, sessions, type(error)) == ("ana", "s1", ConsolidationRejected)
        assert [n.text for n in (await notes.book("ana")).session_notes("s1")] == [
            "From now on, email only."]

    arun(go())
