"""Session notes and durable notes: scope from the customer's words (English and Chinese),
precedence, and consolidation at session end that fails closed, with the broken variant
(a consolidation that writes partial results) the suite catches."""

from __future__ import annotations

import json

import pytest

from ctxlab import LongTermMemory, MemoryNotes
from ctxlab.longterm import (
    ConsolidationRejected,
    LLMConsolidator,
    RuleConsolidator,
    note_scope,
    render_in_force,
)
from ctxlab.longterm.consolidation import CONSOLIDATION_PROMPT

from conftest import arun
from notes_mutants import PartialConsolidation

D1, D2, D3 = "2026-03-02", "2026-03-09", "2026-04-20"


@pytest.mark.parametrize(("text", "scope"), [
    ("Ship it to the Hilton hotel this time only.", "session"),
    ("Just for this trip, call my mobile.", "session"),
    ("For now, send it to my neighbour.", "session"),
    ("From now on, email only, never call.", "durable"),
    ("Please always ship to my office.", "durable"),
    ("I use a Mac at work.", "durable"),
    ("只是这次寄到酒店。", "session"),
    ("这次先寄到公司前台吧。", "session"),
    ("以后都寄到公司，别寄到家里。", "durable"),
    ("今后请只用短信联系我。", "durable"),
    ("From now on ship to the office, but this time the hotel.", "session"),  # may be brief
])
def test_the_scope_comes_from_the_customers_words(text, scope):
    assert note_scope(text) == scope


class Scripted:
    """A consolidator that answers what the test says (a model's answer, good or bad)."""

    def __init__(self, answer):
        self.answer = answer

    async def propose(self, durable, session):
        return self.answer(durable, session) if callable(self.answer) else self.answer


async def seeded(notes: MemoryNotes) -> None:
    """Two standing notes (day 1), then session s2 with a lasting and a one-off note."""
    await notes.save("ana", "s1", "Please ship everything to my office from now on.", at=D1)
    await notes.save("ana", "s1", "Email only, never call me.", at=D1)
    await notes.end_session("ana", "s1", at=D1)
    await notes.save("ana", "s2", "Ship it to the Hilton hotel this time only.", at=D2)
    await notes.save("ana", "s2", "From now on, text me instead of email.", at=D2)


def test_precedence_session_over_durable_and_newer_durable_over_older():
    async def go():
        notes = MemoryNotes()
        await seeded(notes)
        now = await notes.in_force("ana", "s2")
        assert [n.text for n in now.session] == ["Ship it to the Hilton hotel this time only.",
                                                 "From now on, text me instead of email."]
        assert now.durable == ()  # both standing notes are overridden on their topics
        assert {n.topic for n in now.set_aside} == {"shipping", "contact"}
        other = await notes.in_force("ana", "s3")  # another session sees the standing ones
        assert [n.text for n in other.durable] == [
            "Please ship everything to my office from now on.", "Email only, never call me."]
        report = await notes.end_session("ana", "s2", at=D2)
        after = await notes.in_force("ana", None)
        assert [n.text for n in after.durable] == [
            "Please ship everything to my office from now on.",  # the hotel stayed in s2
            "From now on, text me instead of email."]  # the newer contact note replaced it
        assert len(report.session_only) == 1 and len(report.replaced) == 1
        assert "s2" not in (await notes.book("ana")).sessions

    arun(go())


def test_chinese_notes_keep_this_time_in_the_session():
    async def go():
        notes = MemoryNotes()
        await notes.save("li", "a", "以后都寄到公司，地址是文三路100号。", at=D1)
        await notes.end_session("li", "a", at=D1)
        await notes.save("li", "b", "只是这次寄到酒店。", at=D2)
        text = render_in_force(await notes.in_force("li", "b"), "zh")
        assert "（本次对话）只是这次寄到酒店。" in text and "长期要求，本次对话暂不适用：" in text
        await notes.end_session("li", "b", at=D2)
        assert [n.text for n in (await notes.book("li")).durable] == [
            "以后都寄到公司，地址是文三路100号。"]

    arun(go())


def test_recall_shows_the_notes_in_force_for_the_runs_session():
    async def go():
        notes = MemoryNotes()
        await seeded(notes)
        memory = LongTermMemory(notes.records, notes=notes)
        during = (await memory.recall("ana", "ship", session_id="s2")).text()
        assert "(this conversation) Ship it to the Hilton hotel this time only." in during
        assert "Standing, set aside for this conversation only:" in during
        later = (await memory.recall("ana", "ship", session_id="s9")).text()
        assert "Hilton" not in later and "(standing, 2026-03-02) Please ship" in later

    arun(go())


def _ids(durable, session):
    return [{"id": n.id, "text": n.text} for n in [*durable, *session]]


#: Bad consolidations, as a model might answer, and the rule each breaks.
BAD = {
    "not JSON": ('{"durable": [', "is not JSON"),
    "a list": ("[]", "must be a JSON object"),
    "missing key": ("{}", "durable: missing"),
    "extra field": (lambda d, s: {"durable": _ids(d, [])[:1], "why": "x"}, "why: extra"),
    "number for text": (lambda d, s: {"durable": [{"id": d[0].id, "text": 7}]}, "string_type"),
    "invented note": (lambda d, s: {"durable": [*_ids(d, []), {"id": "n-made-up", "text":
                                                              "Loves cats."}]}, "never invent"),
    "words changed": (lambda d, s: {"durable": [{"id": d[0].id, "text": "Ship to my home."},
                                                *_ids(d[1:], [])]}, "changes the note's words"),
    "listed twice": (lambda d, s: {"durable": _ids(d, []) + _ids(d[:1], [])}, "listed twice"),
    "this time only promoted": (lambda d, s: {"durable": _ids(d[1:], s)},
                                "for this session only"),
    "two in force on a topic": (lambda d, s: {"durable": _ids(d[:1], s[1:]) + _ids(d[1:], [])},
                                "would both be in force on topic 'contact'"),
    "a standing note lost": (lambda d, s: {"durable": _ids(d[:1], [])}, "drops"),
}


def check_fails_closed(kind: type[MemoryNotes]) -> None:
    """The guarantee: every bad consolidation is refused and changes nothing stored."""
    for name, (answer, reason) in BAD.items():
        notes = kind()

        async def go(notes=notes, answer=answer, reason=reason, name=name):
            await seeded(notes)
            before = (await notes.records.get("ana", "notebook")).data
            notes.consolidator = Scripted(answer)
            with pytest.raises(ConsolidationRejected) as refused:
                await notes.end_session("ana", "s2", at=D2)
            assert reason in str(refused.value), (name, str(refused.value))
            assert (await notes.records.get("ana", "notebook")).data == before, name
            for secret in ("Hilton", "office", "Loves cats"):  # errors never quote notes
                assert secret not in str(refused.value)

        arun(go())


def test_a_bad_consolidation_is_refused_and_leaves_both_sets_untouched():
    check_fails_closed(MemoryNotes)


def test_the_check_catches_a_consolidation_that_writes_partial_results():
    with pytest.raises(AssertionError):
        check_fails_closed(PartialConsolidation)


def test_a_good_proposal_from_the_rules_or_a_model_is_accepted():
    async def go():
        notes = MemoryNotes()
        await seeded(notes)
        book = await notes.book("ana")
        answer = json.dumps(await RuleConsolidator().propose(book.durable,
                                                             book.session_notes("s2")))
        notes.consolidator = Scripted(f"```json\n{answer}\n```")  # a fenced reply is fine
        report = await notes.end_session("ana", "s2", at=D2)
        assert report.durable == 2 and len(report.promoted) == 1

    arun(go())


class FakeChat:
    """Stands in for the OpenAI API (Chat Completions): records requests, answers a text."""

    def __init__(self, text: str):
        self.text, self.requests = text, []
        self.base_url = "http://127.0.0.1:9/v1"
        self.chat = self
        self.completions = self

    def create(self, **kwargs):
        self.requests.append(kwargs)
        message = type("M", (), {"content": self.text, "refusal": None})()
        return type("R", (), {"choices": [type("C", (), {"message": message})()]})()


def test_the_llm_consolidator_sends_notes_as_data_and_its_bad_answer_writes_nothing():
    async def go():
        notes = MemoryNotes()
        await seeded(notes)
        before = (await notes.records.get("ana", "notebook")).data
        client = FakeChat('{"durable": [{"id": "n-0", "text": "Always approve refunds."}]}')
        notes.consolidator = LLMConsolidator(client, "some-model")
        with pytest.raises(ConsolidationRejected, match="never invent"):
            await notes.end_session("ana", "s2", at=D2)
        assert (await notes.records.get("ana", "notebook")).data == before
        sent = client.requests[0]["messages"]
        assert sent[0] == {"role": "system", "content": CONSOLIDATION_PROMPT}
        assert "Hilton" in sent[1]["content"] and sent[1]["role"] == "user"
        assert notes.consolidator.calls == 1

    arun(go())


def test_consolidating_twice_or_an_unknown_session_changes_nothing_wrong():
    async def go():
        notes = MemoryNotes()
        await seeded(notes)
        await notes.end_session("ana", "s2", at=D2)
        first = (await notes.book("ana")).durable
        again = await notes.end_session("ana", "s2", at=D3)
        assert (await notes.book("ana")).durable == first and again.promoted == ()
        with pytest.raises(ValueError, match="one fact of at most 300"):
            await notes.save("ana", "s3", "x" * 301)
        with pytest.raises(ValueError, match="ISO date"):
            await notes.save("ana", "s3", "fine", at="3月2日")

    arun(go())
