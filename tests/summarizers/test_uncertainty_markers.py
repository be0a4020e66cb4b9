"""Uncertainty markers in the summary record: set by hedges, notes and summarizers, settled
by a later turn (confirmed: marker gone; contradicted: the doubtful value gone entirely)."""

from __future__ import annotations

from ctxlab.course.offline import OfflineSupportModel
from ctxlab.summarizers import SUMMARY_PROMPT, ExtractiveSummarizer
from ctxlab.summarizers.doubts import MARKERS, marked_uncertain
from ctxlab.summarizers.record import HandoverRecord
from ctxlab.summarizers.render import render


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def agent(text: str) -> dict:
    return {"role": "assistant", "content": text}


def call(call_id: str, serial: str) -> list[dict]:
    return [{"type": "function_call", "call_id": call_id, "name": "lookup_device",
             "arguments": f'{{"serial": "{serial}"}}'},
            {"type": "function_call_output", "call_id": call_id,
             "output": f'{{"serial": "{serial}", "firmware": "v2.0.1"}}'}]


HEDGED = [user("My laptop won't boot. I think the serial is SN-7K2P-11873, not sure."),
          agent("Thanks. Please hold the power button for ten seconds.")]


def summary_of(items: list[dict]) -> tuple[str, HandoverRecord]:
    record = HandoverRecord()
    record.read(items)
    return render(record), record


def identifiers(text: str) -> str:
    return text.split("Identifiers:")[1].split("\n\n")[0] if "Identifiers:" in text else ""


def test_a_hedged_value_is_marked_uncertain():
    text, record = summary_of(HEDGED)
    assert "SN-7K2P-11873 [uncertain]" in text
    assert len(record.doubts) == 1


def test_a_later_turn_that_confirms_it_removes_the_marker():
    text, record = summary_of([*HEDGED, *call("c1", "SN-7K2P-11873"),
                               agent("Found it: an Aurora 14.")])
    assert "SN-7K2P-11873" in text and "[uncertain]" not in text
    assert len(record.doubts) == 0


def test_a_later_turn_that_contradicts_it_replaces_it_without_history():
    text, record = summary_of([*HEDGED, user("Sorry, I misread it: the serial is "
                                             "SN-7K2P-11878."), agent("Thanks.")])
    assert "SN-7K2P-11878" in text
    assert "SN-7K2P-11873" not in text  # never established: no "earlier:" note either
    assert len(record.doubts) == 0


def test_without_a_hedge_a_corrected_value_keeps_its_history():
    """The broken variant of the rule: an unhedged value that is corrected stays as an
    earlier value (so the test above really tests the marker, not the tracker)."""
    text, _ = summary_of([user("My laptop won't boot. The serial is SN-7K2P-11873."),
                          agent("Thanks."),
                          user("Sorry, I misread it: the serial is SN-7K2P-11878."),
                          agent("Thanks.")])
    assert "SN-7K2P-11878" in text and "SN-7K2P-11873" in text


def test_markers_survive_folds_and_records_round_trip():
    summarizer = ExtractiveSummarizer()
    first = summarizer.summarize(HEDGED)
    assert "[uncertain]" in first.text
    later = summarizer.summarize([agent("Any news?")], previous_state=first.state)
    assert "SN-7K2P-11873 [uncertain]" in later.text
    settled = summarizer.summarize([*call("c2", "SN-7K2P-11873")], previous_state=later.state)
    assert "[uncertain]" not in settled.text


def test_a_note_written_by_another_summarizer_keeps_its_markers():
    note = ("Identifiers:\n- Ticket: TCK-55120 [uncertain]\n- Email: a@example.com\n"
            "Constraints & Preferences:\n- contact (turn 2): Please never call me, email "
            "only. [uncertain]")
    record = HandoverRecord()
    record.read_note(note)
    text = render(record)
    assert "TCK-55120 [uncertain]" in text and "a@example.com [uncertain]" not in text
    assert "email only. [uncertain]" in text


def test_the_chinese_marker_is_written_in_a_chinese_note():
    text, _ = summary_of([user("我的笔记本开不了机，序列号是SN-7K2P-11873，不过我不太确定。"),
                          agent("好的，请先长按电源键十秒。")])
    assert f"SN-7K2P-11873 {MARKERS['zh']}" in text


def test_marked_uncertain_reads_only_the_value_it_follows():
    line = "- Ticket: TCK-1 [uncertain], TCK-2"
    assert marked_uncertain(line, line.index("TCK-1") + 5)
    assert not marked_uncertain(line, line.index("TCK-2") + 5)
    assert not marked_uncertain("TCK-3\n[uncertain]", 5)


def test_the_offline_model_asks_to_confirm_an_uncertain_value_instead_of_stating_it():
    model = OfflineSupportModel()
    note = "Identifiers:\n- Ticket: TCK-48123 [uncertain]"
    items = [user("Please summarize our conversation so far, so we can continue from it."),
             agent(note), user("What was my ticket number again?")]
    reply = model.respond("You help.", items).text
    assert "TCK-48123" in reply and "uncertain" in reply and "confirm" in reply
    sure = [items[0], agent("Identifiers:\n- Ticket: TCK-48123"), items[2]]
    assert "confirm" not in model.respond("You help.", sure).text


def test_the_summary_prompt_asks_for_markers_and_says_how_they_are_settled():
    assert "[uncertain]" in SUMMARY_PROMPT
    assert "contradicts" in SUMMARY_PROMPT and "later message wins" in SUMMARY_PROMPT
    assert "UNVERIFIED" not in SUMMARY_PROMPT
