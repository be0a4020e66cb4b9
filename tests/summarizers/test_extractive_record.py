"""What the extractive summary holds: steps not small talk, the latest open problem,
constraints and commitments never dropped, pending calls, a hard size bound, and a record
that survives persistence."""

from __future__ import annotations

import json

from ctxlab import SummarizingSession, count_tokens, find_identifiers
from ctxlab.eval import planted_case
from ctxlab.summarizers import ExtractiveSummarizer
from ctxlab.summarizers.record import HandoverRecord

from conftest import arun


def user(text):
    return {"role": "user", "content": text}


def agent(text):
    return {"role": "assistant", "content": text}


def section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    if f"{title}:" not in lines:
        return []
    out = []
    for line in lines[lines.index(f"{title}:") + 1:]:
        if not line.startswith("- "):
            break
        out.append(line[2:])
    return out


CHAT = [
    user("My router drops the connection every evening. The screen says error E4001."),
    agent("Sorry to hear that. Please restart the router and tell me what you see."),
    user("Still the same, unfortunately."),
    agent("Premium adds priority support, by the way. How long have you had it?"),
    user("How long does this usually take?"),
    agent("It usually takes a few minutes. I'll stay with you."),
    user("Please reach me by email only, never call."),
    agent("Noted, I've added that to your case."),
    user("That fixed it, thanks. Now a different problem: my printer prints blank pages."),
    agent("Let's try: open the device settings and run the cleaning cycle."),
]


def test_steps_hold_actions_and_results_and_status_is_the_latest_open_problem():
    text = ExtractiveSummarizer().summarize(CHAT).text
    steps = " ".join(section(text, "Steps Tried & Results"))
    assert "open the device settings" in steps
    assert "Premium" not in steps and "few minutes" not in text
    status = section(text, "Current Status & Blockers")
    assert status[0].startswith("Open: the printer problem")
    assert "resolved" in " ".join(section(text, "Reported Issue"))
    assert section(text, "Next Recommended Step") == [
        "Get the result of the last step (open the device settings and run the cleaning cycle)"]
    assert section(text, "Constraints & Preferences") == [
        "contact (turn 4): Please reach me by email only, never call."]


def test_constraints_commitments_and_pending_calls_survive_a_tight_budget():
    items = [*CHAT, agent("I'll send the replacement label by Friday."),
             user("Can you check the warranty?"),
             {"type": "function_call", "call_id": "late", "name": "check_warranty",
              "arguments": "{}"}]
    items += [user(f"Still failing, code TCK-{10000 + n}, order ORD-{20000 + n}.")
              for n in range(120)]
    summarizer = ExtractiveSummarizer(max_tokens=400)
    text = summarizer.summarize(items).text
    assert count_tokens(text) <= 400
    assert "never call" in text and "replacement label by Friday" in text
    assert section(text, "Pending Actions") == [
        "check_warranty (printer, called in turn 6): no output yet"]
    assert "TCK-10119" in text  # the newest values are kept
    again = summarizer.summarize(
        [{"type": "function_call_output", "call_id": "late", "output": '{"status": "ok"}'}],
        previous_state=summarizer.summarize(items).state)
    assert "Pending Actions:" not in again.text


def test_the_summary_stays_bounded_and_never_reads_its_own_bookkeeping():
    summarizer = ExtractiveSummarizer()
    record = None
    sizes = []
    for block in range(12):
        items = []
        for n in range(250):
            t = block * 250 + n
            items += [user(f"Turn {t}: it fails with error {t % 50}, ticket TCK-{40000 + t}."),
                      agent(f"Step {t}: restart the device and wait {t % 7 + 1} minutes.")]
        result = summarizer.summarize(items, previous_state=record)
        record = result.state
        sizes.append((count_tokens(result.text), len(json.dumps(record))))
    assert max(tokens for tokens, _ in sizes) <= summarizer.max_tokens
    assert sizes[-1][1] <= 1.2 * sizes[2][1]  # the record does not grow either
    assert "(2,99" in result.text  # "(2,99x earlier steps not shown)", not an identifier
    values = {i.value for i in find_identifiers(result.text)}
    assert not any(v.startswith("299") for v in values)


def test_a_note_without_a_record_is_read_once_honouring_its_earlier_values():
    note = ("Identifiers:\n- Email: b@x.org (earlier: a@x.org until turn 3)\n"
            "- Firmware: v2.0.0 (earlier: v1.0.0 until turn 2)")
    result = ExtractiveSummarizer().summarize(
        [{"role": "user", "content": "Please summarize our conversation so far, so we can "
          "continue from it."}, {"role": "assistant", "content": note},
         user("Thanks, and the printer still jams.")])
    assert result.extra.get("seeded_from_text") is True
    email = next(ln for ln in result.text.splitlines() if ln.startswith("- Email"))
    assert email.startswith("- Email: b@x.org")
    assert HandoverRecord.from_dict(result.state).seeded_from_text


def test_the_record_is_stored_with_the_summary_and_used_by_the_next_fold(tmp_path):
    case = planted_case(3, 40)
    path = str(tmp_path / "log.db")

    async def run(items, *, flush=True):
        from agents import SQLiteSession
        session = SummarizingSession(1, 2, session_id="p", store=SQLiteSession("p", path))
        for item in items:
            await session.add_items([item])
        if flush:
            await session.flush()
        return session

    half = len(case.items) // 2
    first = arun(run(case.items[:half]))
    assert first.summary is not None and first.summary.state is not None
    assert "state" not in first.summary.metadata("history_summary")
    resumed = arun(run(case.items[half:]))
    record = resumed.summary
    assert record is not None and record.incremental and record.state is not None
    once = ExtractiveSummarizer().summarize(case.items[: record.items[1]])
    assert record.text == once.text
